/**
 * Runs a node's operations from its catalog. A node run (all items of one execution of the node)
 * is the unit of work, in phases: prepare every item (read and validate its parameters, build its
 * request; no request sent) → guard credits (the estimates the run needs, Max Credits per item and
 * per run, all before the first create) → send (plain reads a few at a time, READS_IN_FLIGHT;
 * anything else one by one in item order; jobs remembered for n8n's Retry, see runMemory.ts) →
 * wait for all the run's jobs together (jobs.ts) → outputs: one per job, in item order, with
 * pairedItem; continue-on-fail per item and per job.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	NodeApiError,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { downloadAssetToBinary } from './binaryDownload';
import { binaryFileInfo, uploadBinary } from './binaryUpload';
import type { Endpoint, Group } from './catalog/dsl';
import type { PreparedRequest } from './fields';
import { PAGE_SIZE, prepareRequest } from './fields';
import type { JobSettings, PendingJob, ReturnAs } from './jobs';
import {
	checkMaxCredits,
	estimateCredits,
	jobOutput,
	jobPath,
	pendingJob,
	startedJobs,
	waitForJobs,
} from './jobs';
import { answerList, listFromItems, pairWithItems } from './itemLists';
import { listPages } from './pages';
import { collectByProvenance, recoverStartedJobs } from './recovery';
import type { RunIdentity } from './runIdentity';
import { identityOf, PROVENANCE_KEY, provenanceOf, savedExecutionData } from './runIdentity';
import type { StartedJobs } from './runMemory';
import { rememberedToken, rememberToken, startedJobsMemory } from './runMemory';
import { fileAsLink, isToolCall, simplify, stillRunning, TOOL_MODE } from './tool';
import { asNodeError, defaultIdempotencyKey, mediaGenRequest } from './transport';

/** Finds the endpoint of a resource and operation. */
export function findEndpoint(
	groups: Group[],
	resource: string,
	operation: string,
): Endpoint | undefined {
	return groups
		.find((g) => g.resource === resource)
		?.endpoints.find((e) => e.operation === operation);
}

const runIndexes = new WeakMap<IExecuteFunctions, number>();

/** This node's run index in the execution (n8n gives no direct getter to execute()). */
function runIndexOf(ctx: IExecuteFunctions): number {
	let runIndex = runIndexes.get(ctx);
	if (runIndex === undefined) {
		runIndex = ctx.getWorkflowDataProxy(0).$thisRunIndex;
		runIndexes.set(ctx, runIndex);
	}
	return runIndex;
}

function options(ctx: IExecuteFunctions, itemIndex: number): IDataObject {
	return ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
}

function jobSettings(ctx: IExecuteFunctions, itemIndex: number): JobSettings {
	const opts = options(ctx, itemIndex);
	const wait = ctx.getNodeParameter('waitForCompletion', itemIndex, true) as boolean;
	const returnAs = (
		wait ? ctx.getNodeParameter('returnAs', itemIndex, 'json') : 'json'
	) as ReturnAs;
	return {
		waitForCompletion: wait,
		returnAs,
		binaryPropertyName:
			returnAs === 'json'
				? 'data'
				: (ctx.getNodeParameter('binaryPropertyName', itemIndex, 'data') as string),
		maxCredits: Number(opts.maxCredits ?? 0),
		timeoutMinutes: Number(opts.timeoutMinutes ?? 10),
	};
}

/** Turns an API answer into output JSON items; list envelopes become one item per record. */
export function toItems(response: unknown): IDataObject[] {
	if (Array.isArray(response)) return response as IDataObject[];
	if (response && typeof response === 'object') {
		const data = (response as IDataObject).data;
		if (Array.isArray(data) && 'nextCursor' in (response as IDataObject)) {
			return data as IDataObject[];
		}
		return [response as IDataObject];
	}
	if (response === undefined || response === null || response === '') return [{ success: true }];
	return [{ result: response as string | number | boolean }];
}

function errorItem(error: Error, itemIndex: number): INodeExecutionData {
	const err = error as Error & { description?: string; httpCode?: string };
	return {
		json: {
			error: err.message,
			...(err.description ? { description: err.description } : {}),
			...(err.httpCode ? { httpCode: err.httpCode } : {}),
		},
		pairedItem: { item: itemIndex },
	};
}

/** The endpoint an item asks for (resource and operation may differ per item). */
function endpointOf(ctx: IExecuteFunctions, groups: Group[], i: number): Endpoint {
	const resource = ctx.getNodeParameter('resource', i) as string;
	const operation = ctx.getNodeParameter('operation', i) as string;
	const e = findEndpoint(groups, resource, operation);
	if (!e) {
		throw new NodeOperationError(ctx.getNode(), `Unknown operation ${resource}/${operation}`, {
			itemIndex: i,
		});
	}
	return e;
}

/**
 * How many items' plain reads (GET requests without a file or a job) one node run sends at once.
 * Reads change nothing, so their order on the wire does not matter; outputs stay in item order.
 * Writes, jobs and files go one item after the other, after every earlier read has finished.
 * (n8n's HTTP Request node sends every item's request at once; a bound keeps a big input from
 * opening hundreds of sockets and from meeting the rate limit all at the same moment.)
 */
export const READS_IN_FLIGHT = 8;

/** Whether items of this endpoint may be sent concurrently (see READS_IN_FLIGHT). */
export function isPlainRead(e: Endpoint): boolean {
	return e.method === 'GET' && e.binary === undefined && e.job === undefined;
}

// ---------------------------------------------------------------------------------------------
// Return All / Limit: a cursor walk

/** Where a list walk starts, how far it goes, and whether the next cursor goes to the output. */
export interface ListSettings {
	max: number;
	startCursor?: string | number;
	includeNextCursor: boolean;
}

/**
 * Walks a cursor-paginated list, handing each record to `emit` as its page arrives (nothing is
 * gathered twice), until `max` records or the end of the list. Returns the cursor after the last
 * record emitted, undefined at the end. A cursor the list has already given stops the walk with
 * an error instead of looping.
 */
export async function walkPages(
	ctx: IExecuteFunctions,
	e: Endpoint,
	req: PreparedRequest,
	list: ListSettings,
	itemIndex: number,
	emit: (record: IDataObject) => void,
): Promise<string | number | undefined> {
	let count = 0;
	const pages = listPages(ctx, {
		path: req.path,
		qs: req.qs,
		pageSize: PAGE_SIZE,
		max: list.max,
		start: list.startCursor,
		itemIndex,
		onRepeat:
			'The list repeats itself. Get fewer records with Limit, or page by hand with the Start Cursor option.',
	});
	for await (const { records, next, response } of pages) {
		const extras: IDataObject = {};
		for (const key of e.listExtras ?? []) extras[key] = (response as IDataObject)?.[key];
		for (const r of records.slice(0, list.max - count)) {
			emit(e.listExtras?.length ? { ...r, ...extras } : r);
			count++;
		}
		if (count >= list.max && records.length && next !== undefined) return next;
	}
	return undefined;
}

function listSettings(ctx: IExecuteFunctions, e: Endpoint, i: number): ListSettings {
	const returnAll = ctx.getNodeParameter('returnAll', i, false) as boolean;
	const opts = options(ctx, i);
	const raw = opts.startCursor;
	const start = typeof raw === 'number' || typeof raw === 'string' ? String(raw).trim() : '';
	let startCursor: string | number | undefined = start || undefined;
	if (startCursor !== undefined && e.paginate === 'integer') {
		startCursor = Number(start);
		if (!Number.isInteger(startCursor)) {
			throw new NodeOperationError(
				ctx.getNode(),
				`Start Cursor must be a whole number for this list, got '${start}'`,
				{ itemIndex: i },
			);
		}
	}
	return {
		max: returnAll ? Infinity : (ctx.getNodeParameter('limit', i, 50) as number),
		startCursor,
		includeNextCursor: opts.includeNextCursor === true,
	};
}

// ---------------------------------------------------------------------------------------------
// A node run: prepare every item → guard credits → send → wait → outputs

/** One item's work, decided in the prepare phase without any request. */
interface Plan {
	i: number;
	e: Endpoint;
	req: PreparedRequest;
	upload?: { propertyName: string };
	list?: ListSettings;
	/** One request for these input items, one entry of its list each (itemLists.ts). */
	items?: number[];
	job?: {
		settings: JobSettings;
		/** Max Credits per Run as set on this item (0: no limit). */
		maxCreditsPerRun: number;
		/** The estimate of the guard phase, when one was needed. */
		estimate?: number;
		/** Jobs an earlier try of this run started (n8n's Retry): waited for, not created. */
		restored?: IDataObject[];
		/** How `restored` is known: the node context (id and status) or MediaGen (the records). */
		restoredFrom?: 'memory' | 'mediagen';
	};
}

/** What the send phase gives back for an item: its output items, or the jobs it started. */
type Sent = INodeExecutionData[] | PendingJob[];

const json = (items: IDataObject[], itemIndex: number): INodeExecutionData[] =>
	items.map((j) => ({ json: j, pairedItem: { item: itemIndex } }));

/** The Idempotency Key option as typed (a number from an expression counts), or ''. */
function ownIdempotencyKey(ctx: IExecuteFunctions, itemIndex: number): string {
	const raw = options(ctx, itemIndex).idempotencyKey;
	const own = typeof raw === 'string' || typeof raw === 'number' ? String(raw).trim() : '';
	if (own.length > 120) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Idempotency Key must be at most 120 characters, got ${own.length}`,
			{ itemIndex },
		);
	}
	return own;
}

/** What every item of a node run shares: its run index, identity and memory of started jobs. */
interface RunState {
	runIndex: number;
	identity?: RunIdentity;
	memory: StartedJobs;
}

/** Whether an endpoint's requests carry an identity (keys, provenance) or start jobs. */
const needsIdentity = (e: Endpoint) => !!(e.idempotent || e.job) && !e.nodeOperation;

/** The body field of a job's create that takes a `context` object (POST /generations). */
const contextField = (e: Endpoint) =>
	e.job && !e.nodeOperation && e.body.context?.kind === 'json' ? 'context' : undefined;

/** The id of the job a Wait operation waits for: its path parameter or field `jobId`. */
function waitedJob(e: Endpoint, req: PreparedRequest): IDataObject[] {
	const name = e.nodeOperation?.jobId ?? 'id';
	return [{ id: String(req.params[name] ?? req.qs[name]), status: 'queued' }];
}

/** Phase 1: reads and validates one item's parameters and builds its request. No request. */
async function prepareItem(
	ctx: IExecuteFunctions,
	e: Endpoint,
	i: number,
	run: RunState,
	values: IDataObject = {},
): Promise<Plan> {
	if (e.binary === 'upload') {
		const propertyName = ctx.getNodeParameter('binaryPropertyName', i, 'data') as string;
		const file = await binaryFileInfo(ctx, i, propertyName);
		const req = prepareRequest(ctx, e, i, {
			filename: file.fileName,
			mimeType: file.mimeType,
			size: file.size,
		});
		return { i, e, req, upload: { propertyName } };
	}
	const req = prepareRequest(ctx, e, i, values);
	const plan: Plan = { i, e, req };
	if (e.paginate) plan.list = listSettings(ctx, e, i);
	if (e.idempotent && run.identity) {
		req.idempotencyKey =
			ownIdempotencyKey(ctx, i) ||
			defaultIdempotencyKey({
				executionId: run.identity.token,
				nodeId: ctx.getNode().id,
				runIndex: run.runIndex,
				itemIndex: i,
			});
		// Where the spec also (or only) names a body key, send the same key there.
		for (const [key, f] of Object.entries(e.body)) {
			if (f.derived === 'idempotencyKey' && req.body) req.body[key] = req.idempotencyKey;
		}
	}
	const field = contextField(e);
	if (field && req.body && run.identity) {
		// where the job came from, beside the user's own context fields (docs/batches.md)
		const own = (req.body[field] ?? {}) as IDataObject;
		req.body[field] = {
			...own,
			[PROVENANCE_KEY]: { ...provenanceOf(ctx, run.identity, run.runIndex, i) },
		};
	}
	if (e.nodeOperation?.kind === 'collect') collectQueryOf(ctx, req, i);
	if (e.job) {
		const waits = e.nodeOperation?.kind === 'wait';
		const remembered = waits ? undefined : run.memory.of(i);
		plan.job = {
			settings: waits ? { ...jobSettings(ctx, i), waitForCompletion: true } : jobSettings(ctx, i),
			maxCreditsPerRun: Number(options(ctx, i).maxCreditsPerRun ?? 0),
			restored: waits ? waitedJob(e, req) : remembered,
			restoredFrom: waits || remembered ? 'memory' : undefined,
		};
	}
	return plan;
}

/** The items (in order) that use the same Idempotency Key as an earlier item, with that item. */
function sharedKeys(plans: Plan[]): Map<number, { key: string; first: number }> {
	const firstOf = new Map<string, number>();
	const shared = new Map<number, { key: string; first: number }>();
	for (const p of plans) {
		const key = p.req.idempotencyKey;
		if (!key) continue;
		const first = firstOf.get(key);
		if (first === undefined) firstOf.set(key, p.i);
		else shared.set(p.i, { key, first });
	}
	return shared;
}

/** Whether the guard phase must estimate this item before anything is created. */
function needsEstimate(p: Plan, runLimit: number): boolean {
	if (!p.job || p.job.restored) return false;
	const intoEmpty = !!p.e.estimateInto && p.req.body?.[p.e.estimateInto.field] === undefined;
	return intoEmpty || (!!p.e.job?.estimate && (p.job.settings.maxCredits > 0 || runLimit > 0));
}

/**
 * Phase 2, one item: the estimates it needs (free), sent before the run creates anything: a
 * canvas run's confirmation (`estimateInto`, written into the body) and, where Max Credits or Max
 * Credits per Run is set, the job's cost (kept in `plan.job.estimate`); Max Credits checked.
 */
async function guardItem(ctx: IExecuteFunctions, p: Plan, runLimit: number): Promise<void> {
	const { e, req, i } = p;
	let estimated: number | undefined;
	if (e.estimateInto && req.body && req.body[e.estimateInto.field] === undefined) {
		estimated = await estimateCredits(ctx, jobPath(e.estimateInto.path, '', req.params), {}, i);
		req.body[e.estimateInto.field] = estimated;
	}
	const job = p.job;
	if (!job || !e.job?.estimate || (job.settings.maxCredits <= 0 && runLimit <= 0)) return;
	job.estimate =
		estimated !== undefined && e.job.estimate === e.estimateInto?.path
			? estimated
			: await estimateCredits(ctx, jobPath(e.job.estimate, '', req.params), req.body, i);
	if (job.settings.maxCredits > 0) checkMaxCredits(ctx, job.estimate, job.settings.maxCredits, i);
}

/** Phase 3, one item: its request(s). Jobs are remembered for n8n's Retry as they start. */
async function sendItem(ctx: IExecuteFunctions, p: Plan, run: RunState): Promise<Sent> {
	const { e, req, i } = p;
	if (p.upload) return json([await uploadBinary(ctx, i, p.upload.propertyName, req.body ?? {})], i);
	if (p.list) {
		const out: INodeExecutionData[] = [];
		const cursor = await walkPages(ctx, e, req, p.list, i, (record) =>
			out.push({ json: record, pairedItem: { item: i } }),
		);
		if (p.list.includeNextCursor) for (const item of out) item.json.nextCursor = cursor ?? null;
		return out;
	}
	if (e.binary === 'download' && isToolCall(ctx)) {
		return json([await fileAsLink(ctx, req.params.id, i)], i);
	}
	if (e.binary === 'download') {
		const propertyName = ctx.getNodeParameter('binaryPropertyName', i, 'data') as string;
		const file = await downloadAssetToBinary(ctx, req.params.id, { propertyName, itemIndex: i });
		const { url, ...info } = file.asset;
		const withUrl = options(ctx, i).includeDownloadUrl === true;
		return [
			{
				json: { assetId: req.params.id, ...info, ...(withUrl ? { url } : {}) },
				binary: { [file.propertyName]: file.binary },
				pairedItem: { item: i },
			},
		];
	}
	if (e.binary === 'text') {
		const text = String(await send(ctx, req, i));
		const format = String(req.qs.format ?? 'srt');
		// a tool's answer cannot carry the file: the text is in the JSON already
		if (isToolCall(ctx)) return json([{ id: req.params.id, format, text }], i);
		const propertyName = ctx.getNodeParameter('binaryPropertyName', i, 'data') as string;
		const binary = await ctx.helpers.prepareBinaryData(
			Buffer.from(text, 'utf8'),
			`${req.params.id ?? 'file'}.${format}`,
			format === 'vtt' ? 'text/vtt' : 'application/x-subrip',
		);
		return [
			{
				json: { id: req.params.id, format, text },
				binary: { [propertyName]: binary },
				pairedItem: { item: i },
			},
		];
	}
	if (p.job && e.job) {
		const { settings, restored, restoredFrom } = p.job;
		let started: IDataObject[];
		if (e.nodeOperation?.kind === 'collect')
			started = await collectByProvenance(ctx, collectQueryOf(ctx, req, i));
		else if (restored) started = restored;
		else {
			started = startedJobs(await send(ctx, req, i));
			run.memory.add(i, started, !settings.waitForCompletion);
		}
		if (!settings.waitForCompletion) return json(started, i);
		const poll = { ...e.job, path: e.job.poll };
		return started.map((r) =>
			pendingJob(
				i,
				// the node context keeps only id and status: read the whole record first
				restoredFrom === 'memory' ? { id: r.id, status: 'queued' } : r,
				poll,
				req.params,
				settings.timeoutMinutes,
			),
		);
	}
	if (e.binary === 'resultAsset') {
		const asset = (await send(ctx, req, i)) as IDataObject;
		if (!ctx.getNodeParameter('downloadFile', i, true)) return json([asset], i);
		if (isToolCall(ctx))
			return json([{ ...asset, file: await fileAsLink(ctx, String(asset.id), i) }], i);
		const propertyName = ctx.getNodeParameter('binaryPropertyName', i, 'data') as string;
		const file = await downloadAssetToBinary(ctx, String(asset.id), { propertyName, itemIndex: i });
		return [{ json: asset, binary: { [file.propertyName]: file.binary }, pairedItem: { item: i } }];
	}
	const answer = await send(ctx, req, i);
	const items = answerList(ctx, e, answer) ?? toItems(answer);
	return json(e.notice ? items.map((item) => ({ ...item, notice: e.notice })) : items, i);
}

/** Generation → Collect's query, checked before anything is sent. */
function collectQueryOf(ctx: IExecuteFunctions, req: PreparedRequest, itemIndex: number) {
	const text = (key: string) => String(req.qs[key] ?? '').trim();
	const query = {
		executionId: text('executionId'),
		workflowId: text('workflowId'),
		node: text('node'),
		hours: Number(req.qs.hours ?? 24),
	};
	if (!query.executionId && !query.workflowId) {
		throw new NodeOperationError(ctx.getNode(), 'Execution ID or Workflow ID is needed', {
			itemIndex,
			description:
				'Give the ID of the n8n execution whose generations to collect (as the Executions list shows it), or a workflow ID (and a node name). Nothing was sent to MediaGen.',
		});
	}
	return query;
}

/**
 * What the run's jobs cost, as an n8n execution hint on the node's output ("12 jobs, 48 credits
 * charged; 2 failed (credits returned)"), where the n8n version has hints.
 */
function addCostHint(ctx: IExecuteFunctions, waited: PendingJob[], plans: Plan[]): void {
	if (typeof ctx.addExecutionHints !== 'function' || isToolCall(ctx)) return;
	const unwaited = plans.filter(
		(p) => p.job && !p.job.settings.waitForCompletion && !p.e.nodeOperation,
	).length;
	if (!waited.length && !unwaited) return;
	const parts: string[] = [];
	if (waited.length) {
		const completed = waited.filter((j) => j.result);
		const charged = completed.reduce((n, j) => n + Number(j.result?.credits_charged ?? 0), 0);
		const ended = (status: string) => waited.filter((j) => j.record.status === status).length;
		const failed = ended('failed') + ended('cancelled');
		const open = waited.length - completed.length - failed;
		parts.push(
			`${waited.length} job${waited.length === 1 ? '' : 's'}, ${charged} credits charged`,
			...(failed ? [`${failed} failed (credits returned)`] : []),
			...(open ? [`${open} still running at MediaGen (charged if they succeed)`] : []),
		);
	}
	if (unwaited) {
		parts.push(
			`${unwaited} item${unwaited === 1 ? '' : 's'} started jobs without waiting (charged when they succeed)`,
		);
	}
	const failed = parts.some((p) => p.includes('failed'));
	ctx.addExecutionHints({
		message: parts.join('; '),
		type: failed ? 'warning' : 'info',
		location: 'outputPane',
	});
}

/** Phase "recover" (a retry of a crashed execution): jobs found at MediaGen become restored. */
async function recoverPlans(ctx: IExecuteFunctions, plans: Plan[], run: RunState): Promise<void> {
	const creating = plans.filter((p) => p.job && !p.job.restored);
	if (!creating.length || !run.identity) return;
	const found = await recoverStartedJobs(
		ctx,
		creating.map((p) => ({ itemIndex: p.i, endpoint: p.e, req: p.req })),
		run.identity,
		run.runIndex,
	);
	for (const p of creating) {
		const jobs = found.get(p.i);
		if (!jobs || !p.job) continue;
		p.job.restored = jobs;
		p.job.restoredFrom = 'mediagen';
		run.memory.add(p.i, jobs, !p.job.settings.waitForCompletion);
	}
}

function send(ctx: IExecuteFunctions, req: PreparedRequest, itemIndex: number) {
	return mediaGenRequest(ctx, {
		method: req.method,
		path: req.path,
		qs: req.qs,
		body: req.body,
		idempotencyKey: req.idempotencyKey,
		itemIndex,
	});
}

/**
 * Runs `work` for each entry, at most `widthOf(entry)` at a time (an entry of width 1 waits
 * until nothing else is in flight, so such entries go one by one in order). Failures are
 * collected by index; with `stopOnError`, no entry starts after the first failure.
 */
async function inWindow<T extends { i: number }>(
	entries: T[],
	widthOf: (entry: T) => number,
	work: (entry: T) => Promise<void>,
	errors: Map<number, unknown>,
	stopOnError: boolean,
): Promise<void> {
	const inFlight = new Set<Promise<void>>();
	for (const entry of entries) {
		const width = widthOf(entry);
		while (inFlight.size >= width) await Promise.race(inFlight);
		if (errors.size && stopOnError) break;
		const run: Promise<void> = work(entry)
			.catch((error: unknown) => void errors.set(entry.i, error))
			.finally(() => inFlight.delete(run));
		inFlight.add(run);
	}
	await Promise.all(inFlight);
}

/** A job's line in an error: item, id, status and charge. */
function jobLine(job: PendingJob): string {
	const record = job.result ?? job.record;
	const charged = job.result ? `, ${String(record.credits_charged ?? '?')} credits charged` : '';
	return `item ${job.itemIndex + 1}: ${job.id} (${String(record.status)}${charged})`;
}

/** Adds the jobs the run had started to the description of the error that stops the node. */
function withStartedJobs(error: NodeApiError | NodeOperationError, jobs: PendingJob[]) {
	if (!jobs.length) return error;
	error.description = [
		error.description,
		`Jobs this run had already started (${jobs.length}): ${jobs.map(jobLine).join('; ')}.`,
		'They keep running at MediaGen and are charged if they succeed. Retry this execution (Executions → Retry) to collect them: the node waits for these jobs instead of starting them again.',
	]
		.filter(Boolean)
		.join('\n');
	return error;
}

/**
 * An error of the prepare or guard phase, told truthfully: nothing was sent (prepare) or nothing
 * was started or charged (guard), for this item or, when the node stops, for any item.
 */
function beforeSending(
	ctx: IExecuteFunctions,
	error: unknown,
	i: number,
	count: number,
	phase: 'prepare' | 'guard',
	stops: boolean,
): NodeApiError | NodeOperationError {
	const err = asNodeError(ctx, error, i);
	const nothing =
		phase === 'prepare' ? 'Nothing was sent to MediaGen' : 'Nothing was started or charged';
	const own = (err.description ?? '').replace(/^Nothing was (sent|started)[^.]*\.\s*/, '');
	err.description = [
		`Item ${i + 1} of ${count}.`,
		stops ? `${nothing} for any item: fix the value and run again.` : `${nothing} for this item.`,
		own,
	]
		.filter(Boolean)
		.join(' ');
	return err;
}

/** The execute() of every catalog node: prepare → guard → send → wait → outputs. */
export async function executeCatalog(
	ctx: IExecuteFunctions,
	groups: Group[],
): Promise<INodeExecutionData[][]> {
	const count = ctx.getInputData().length;
	const continueOnFail = ctx.continueOnFail();
	const runIndex = runIndexOf(ctx);
	const run: RunState = { runIndex, memory: startedJobsMemory(ctx, runIndex) };
	const results: Array<INodeExecutionData[] | undefined> = [];
	const fail = (error: unknown, i: number) => {
		results[i] = [errorItem(error as Error, i)];
	};

	// 1. Prepare every item, no request. An invalid item stops the node before anything is sent
	// (with Continue On Fail it becomes an error item and the others go on).
	let plans: Plan[] = [];
	const invalid = new Map<number, unknown>();
	const endpoints = new Map<number, Endpoint>();
	for (let i = 0; i < count; i++) {
		try {
			endpoints.set(i, endpointOf(ctx, groups, i));
		} catch (error) {
			invalid.set(i, error);
		}
	}
	if ([...endpoints.values()].some(needsIdentity)) {
		// what n8n saved of this execution decides the run's identity (docs/batches.md)
		run.identity = identityOf(ctx, await savedExecutionData(ctx), rememberedToken(ctx));
		rememberToken(ctx, run.identity.token);
	}
	// Version 3: a list that comes from the input items makes one request of all of them.
	const e0 = endpoints.get(0);
	const fromItems =
		e0 && (await listFromItems(ctx, e0, (i, values) => prepareItem(ctx, e0, i, run, values)));
	if (fromItems?.plan) plans.push(fromItems.plan);
	for (const [i, error] of fromItems?.invalid ?? []) invalid.set(i, error);
	for (const [i, e] of fromItems ? [] : endpoints) {
		try {
			plans.push(await prepareItem(ctx, e, i, run));
		} catch (error) {
			invalid.set(i, error);
		}
	}
	for (const [i, shared] of sharedKeys(plans)) {
		invalid.set(
			i,
			new NodeOperationError(
				ctx.getNode(),
				`Idempotency Key '${shared.key}' of item ${i + 1} is also the key of item ${shared.first + 1}`,
				{
					itemIndex: i,
					description:
						'Each item needs its own key, or MediaGen would answer the second item with the first item’s job. Leave the option empty for a key per item, or build it from the item, e.g. {{ $json.id }}.',
				},
			),
		);
	}
	if (invalid.size) {
		const first = Math.min(...invalid.keys());
		if (!continueOnFail) {
			throw beforeSending(ctx, invalid.get(first), first, count, 'prepare', true);
		}
		for (const [i, error] of invalid)
			fail(beforeSending(ctx, error, i, count, 'prepare', false), i);
		plans = plans.filter((p) => !invalid.has(p.i));
	}

	// n8n's Retry of an execution that died while this node ran (its node context was not saved):
	// the jobs it had started are found at MediaGen and waited for, not started again.
	if (ctx.getMode() === 'retry' && run.identity && !run.memory.recorded()) {
		await recoverPlans(ctx, plans, run);
	}

	// 2. Guard credits: the estimates the run needs, all before the first create; Max Credits per
	// item, then per run (the smallest limit set on an item applies to the run).
	const limits = plans.map((p) => p.job?.maxCreditsPerRun ?? 0).filter((n) => n > 0);
	const runLimit = limits.length ? Math.min(...limits) : 0;
	const refused = new Map<number, unknown>();
	await inWindow(
		plans.filter((p) => needsEstimate(p, runLimit)),
		() => READS_IN_FLIGHT,
		(p) => guardItem(ctx, p, runLimit),
		refused,
		!continueOnFail,
	);
	if (refused.size) {
		const first = Math.min(...refused.keys());
		if (!continueOnFail) throw beforeSending(ctx, refused.get(first), first, count, 'guard', true);
		for (const [i, error] of refused) fail(beforeSending(ctx, error, i, count, 'guard', false), i);
		plans = plans.filter((p) => !refused.has(p.i));
	}
	if (runLimit > 0) {
		const creating = plans.filter((p) => p.job && !p.job.restored);
		const unknown = creating.find((p) => p.job?.estimate === undefined);
		const total = creating.reduce((sum, p) => sum + (p.job?.estimate ?? 0), 0);
		if (unknown || total > runLimit) {
			const error = new NodeOperationError(
				ctx.getNode(),
				unknown
					? `Max Credits per Run is set, but item ${unknown.i + 1} (${unknown.e.name}) has no estimate`
					: `Estimated cost of this run is ${total} credits for ${creating.length} jobs, above Max Credits per Run (${runLimit})`,
				{
					itemIndex: (unknown ?? creating[0]).i,
					description: `Nothing was started or charged for any item. ${unknown ? 'Remove Max Credits per Run for this operation.' : 'Raise Max Credits per Run, or send fewer items.'}`,
				},
			);
			if (!continueOnFail) throw error;
			for (const p of creating) fail(error, p.i);
			plans = plans.filter((p) => !creating.includes(p));
		}
	}

	// 3. Send: plain reads a few at a time, anything else one by one in item order.
	const jobs: Array<{ job: PendingJob; settings: JobSettings }> = [];
	const failed = new Map<number, unknown>();
	await inWindow(
		plans,
		(p) => (isPlainRead(p.e) ? READS_IN_FLIGHT : 1),
		async (p) => {
			const sent = pairWithItems(await sendItem(ctx, p, run), p.items);
			if (p.job?.settings.waitForCompletion) {
				for (const job of sent as PendingJob[]) jobs.push({ job, settings: p.job.settings });
			} else results[p.i] = sent as INodeExecutionData[];
		},
		failed,
		!continueOnFail,
	);
	jobs.sort((a, b) => a.job.itemIndex - b.job.itemIndex);
	const started = jobs.map((j) => j.job);
	if (failed.size) {
		const first = Math.min(...failed.keys());
		if (!continueOnFail) {
			// Stopped: the jobs already started are cancelled with the execution, or named.
			if (started.length && ctx.getExecutionCancelSignal()?.aborted) {
				await waitForJobs(ctx, started);
			}
			throw withStartedJobs(asNodeError(ctx, failed.get(first), first), started);
		}
		for (const [i, error] of failed) {
			for (const j of plans.find((p) => p.i === i)?.items ?? [i]) fail(error, j);
		}
	}

	// 4. Wait for every job of the run together, then 5. outputs: one per job, in item order.
	// A tool call waits a bounded time; a job still running then is answered as such.
	if (jobs.length) {
		const tool = isToolCall(ctx);
		await waitForJobs(
			ctx,
			started,
			tool ? { until: Date.now() + TOOL_MODE.waitSeconds * 1000 } : {},
		);
		const firstFailure = started.find((j) => j.error);
		if (firstFailure && !continueOnFail) {
			throw withStartedJobs(asNodeError(ctx, firstFailure.error, firstFailure.itemIndex), started);
		}
		for (const { job, settings } of jobs) {
			let out: INodeExecutionData;
			try {
				if (job.error) throw job.error;
				out =
					tool && !job.result
						? { json: stillRunning(job), pairedItem: { item: job.itemIndex } }
						: await jobOutput(ctx, job.result ?? job.record, settings, job.itemIndex);
			} catch (error) {
				if (!continueOnFail) throw withStartedJobs(asNodeError(ctx, error, job.itemIndex), started);
				out = errorItem(error as Error, job.itemIndex);
			}
			(results[job.itemIndex] ??= []).push(out);
		}
	}
	run.memory.clear();
	addCostHint(ctx, started, plans);
	for (const [i, items] of results.entries()) {
		if (items && ctx.getNodeParameter('output', i, 'raw') === 'simplified') {
			for (const item of items) item.json = simplify(item.json);
		}
	}
	const filled = results.filter((r): r is INodeExecutionData[] => r !== undefined);
	return [filled.length === 1 ? filled[0] : filled.flat()];
}
