/**
 * Runs a node's operations from its catalog: one request (or one paginated walk, one job, one
 * file) per item, continue-on-fail per item with pairedItem, nothing sent for an item whose input
 * is invalid. Plain reads of several items are sent a few at a time (READS_IN_FLIGHT); jobs of
 * all items are started first and then awaited together.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { binaryFileInfo, downloadAssetToBinary, uploadBinary } from './binary';
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
import { pageOf } from './listSearch';
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

/** Walks a cursor-paginated list until `max` records (or the end when max is Infinity). */
export async function collectPages(
	ctx: IExecuteFunctions,
	e: Endpoint,
	req: PreparedRequest,
	max: number,
	itemIndex: number,
): Promise<IDataObject[]> {
	const out: IDataObject[] = [];
	let before: string | number | undefined;
	do {
		const limit = Math.min(PAGE_SIZE, max - out.length);
		const qs: IDataObject = { ...req.qs, limit };
		if (before !== undefined) qs.before = before;
		const response = await mediaGenRequest(ctx, {
			method: req.method,
			path: req.path,
			qs,
			itemIndex,
		});
		const { records, next } = pageOf(response);
		const extras: IDataObject = {};
		for (const key of e.listExtras ?? []) extras[key] = (response as IDataObject)?.[key];
		for (const r of records.slice(0, max - out.length)) out.push({ ...r, ...extras });
		before = records.length ? next : undefined;
	} while (before !== undefined && out.length < max);
	return out;
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

function idempotencyKeyFor(ctx: IExecuteFunctions, itemIndex: number): string {
	const raw = options(ctx, itemIndex).idempotencyKey;
	const own = typeof raw === 'string' ? raw.trim() : '';
	if (own.length > 120) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Idempotency Key must be at most 120 characters, got ${own.length}`,
			{ itemIndex, description: 'Nothing was sent to MediaGen: fix the value and run again.' },
		);
	}
	if (own) return own;
	return defaultIdempotencyKey({
		executionId: ctx.getExecutionId() ?? 'manual',
		nodeId: ctx.getNode().id,
		runIndex: runIndexOf(ctx),
		itemIndex,
	});
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

type ItemResult = INodeExecutionData[] | { jobs: PendingJob[]; settings: JobSettings };

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

const json = (items: IDataObject[], itemIndex: number): INodeExecutionData[] =>
	items.map((j) => ({ json: j, pairedItem: { item: itemIndex } }));

async function runItem(ctx: IExecuteFunctions, e: Endpoint, i: number): Promise<ItemResult> {
	if (e.binary === 'upload') {
		const propertyName = ctx.getNodeParameter('binaryPropertyName', i, 'data') as string;
		const file = await binaryFileInfo(ctx, i, propertyName);
		const req = prepareRequest(ctx, e, i, {
			filename: file.fileName,
			mimeType: file.mimeType,
			size: file.size,
		});
		return json([await uploadBinary(ctx, i, propertyName, req.body ?? {})], i);
	}
	const req = prepareRequest(ctx, e, i);
	if (e.paginate) {
		const returnAll = ctx.getNodeParameter('returnAll', i, false) as boolean;
		const max = returnAll ? Infinity : (ctx.getNodeParameter('limit', i, 50) as number);
		return json(await collectPages(ctx, e, req, max, i), i);
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
		const propertyName = ctx.getNodeParameter('binaryPropertyName', i, 'data') as string;
		const text = String(await send(ctx, req, i));
		const format = String(req.qs.format ?? 'srt');
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
	if (e.idempotent) {
		req.idempotencyKey = idempotencyKeyFor(ctx, i);
		// Where the spec also (or only) names a body key, send the same key there.
		for (const [key, f] of Object.entries(e.body)) {
			if (f.derived === 'idempotencyKey' && req.body) req.body[key] = req.idempotencyKey;
		}
	}
	let estimated: number | undefined;
	if (e.estimateInto && req.body && req.body[e.estimateInto.field] === undefined) {
		const path = jobPath(e.estimateInto.path, '', req.params);
		estimated = await estimateCredits(ctx, path, {}, i);
		req.body[e.estimateInto.field] = estimated;
	}
	if (e.job) {
		const settings = jobSettings(ctx, i);
		if (settings.maxCredits > 0 && e.job.estimate) {
			const path = jobPath(e.job.estimate, '', req.params);
			const credits =
				estimated !== undefined && e.job.estimate === e.estimateInto?.path
					? estimated
					: await estimateCredits(ctx, path, req.body, i);
			checkMaxCredits(ctx, credits, settings.maxCredits, i);
		}
		const started = startedJobs(await send(ctx, req, i));
		if (!settings.waitForCompletion) return json(started, i);
		const poll = { ...e.job, path: e.job.poll };
		return {
			jobs: started.map((r) => pendingJob(i, r, poll, req.params, settings.timeoutMinutes)),
			settings,
		};
	}
	if (e.binary === 'resultAsset') {
		const asset = (await send(ctx, req, i)) as IDataObject;
		if (!ctx.getNodeParameter('downloadFile', i, true)) return json([asset], i);
		const propertyName = ctx.getNodeParameter('binaryPropertyName', i, 'data') as string;
		const file = await downloadAssetToBinary(ctx, String(asset.id), { propertyName, itemIndex: i });
		return [{ json: asset, binary: { [file.propertyName]: file.binary }, pairedItem: { item: i } }];
	}
	const items = toItems(await send(ctx, req, i));
	return json(e.notice ? items.map((item) => ({ ...item, notice: e.notice })) : items, i);
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

/** The execute() of every catalog node. */
export async function executeCatalog(
	ctx: IExecuteFunctions,
	groups: Group[],
): Promise<INodeExecutionData[][]> {
	const items = ctx.getInputData();
	const results: Array<INodeExecutionData[] | undefined> = [];
	const jobs: Array<{ job: PendingJob; settings: JobSettings }> = [];
	const outputs = new Map<PendingJob, INodeExecutionData>();
	const continueOnFail = ctx.continueOnFail();

	const fail = (error: unknown, i: number) => {
		if (!continueOnFail) throw asNodeError(ctx, error, i);
		results[i] = [errorItem(error as Error, i)];
	};
	const record = (result: ItemResult, i: number) => {
		if (Array.isArray(result)) results[i] = result;
		else for (const job of result.jobs) jobs.push({ job, settings: result.settings });
	};

	// Items run through one window: up to READS_IN_FLIGHT plain reads at a time; anything else
	// waits until the node has nothing else in flight, so writes, jobs and files go one by one in
	// item order. Parameters are read in item order; errors are reported in item order at the end.
	const inFlight = new Set<Promise<void>>();
	const errors = new Map<number, unknown>();
	for (let i = 0; i < items.length; i++) {
		let e: Endpoint;
		try {
			e = endpointOf(ctx, groups, i);
		} catch (error) {
			errors.set(i, error);
			continue;
		}
		const width = isPlainRead(e) ? READS_IN_FLIGHT : 1;
		while (inFlight.size >= width) await Promise.race(inFlight);
		// Without continue-on-fail, a failed item stops the node: start no more.
		if (errors.size && !continueOnFail) break;
		const run: Promise<void> = runItem(ctx, e, i)
			.then(
				(result) => record(result, i),
				(error: unknown) => void errors.set(i, error),
			)
			.finally(() => inFlight.delete(run));
		inFlight.add(run);
	}
	await Promise.all(inFlight);
	for (const i of [...errors.keys()].sort((a, b) => a - b)) fail(errors.get(i), i);

	if (jobs.length) {
		await waitForJobs(
			ctx,
			jobs.map((j) => j.job),
		);
		const failed = new Set<number>();
		for (const { job, settings } of jobs) {
			if (failed.has(job.itemIndex)) continue;
			try {
				if (job.error) throw job.error;
				outputs.set(job, await jobOutput(ctx, job.result ?? job.record, settings, job.itemIndex));
			} catch (error) {
				failed.add(job.itemIndex);
				fail(error, job.itemIndex);
			}
		}
		for (const { job } of jobs) {
			const out = outputs.get(job);
			if (out && !failed.has(job.itemIndex)) (results[job.itemIndex] ??= []).push(out);
		}
	}
	return [results.flatMap((r) => r ?? [])];
}
