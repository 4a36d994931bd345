/**
 * The execute() of every catalog node: one node run (all its items) in six phases, 1 prepare →
 * 2 recover (an earlier try's work found again) → 3 guard (credits, budget) → 4 send → 5 wait →
 * 6 outputs. It runs the phases; what an operation does in each phase is its behaviour's
 * (behaviours/). docs/architecture.md, docs/batches.md.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	NodeApiError,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { behaviourOf } from '../behaviours';
import type { ItemPlan, RunState, SendResult } from '../behaviours/behaviour';
import { addIdempotencyKey } from '../behaviours/idempotency';
import { guard, needsEstimate } from '../behaviours/job';
import { RunBudget } from '../budget/run';
import type { Endpoint, Group } from '../catalog/dsl';
import type { SavedView } from '../durable/memory';
import { runMemory } from '../durable/memory';
import { applyOutput } from '../form/output';
import type { JobSettings } from '../jobs/output';
import { jobOutput } from '../jobs/output';
import type { PendingJob } from '../jobs/poller';
import { waitForJobs } from '../jobs/poller';
import { isToolCall, stillRunning, TOOL_MODE } from '../jobs/toolCall';
import { asNodeError } from '../transport/errors';
import { listFromItems } from '../behaviours/itemLists';
import { beforeSending, costHint, errorItem, withStartedJobs } from './report';
import { continueAfterLostAnswers, establish, inFlight, recoverAll } from './start';

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

/**
 * How many items' plain reads (GET requests without a file or a job) one node run sends at once.
 * Reads change nothing, so their order on the wire does not matter; outputs stay in item order.
 * Writes, jobs and files go one item after the other, after every earlier read has finished.
 */
export const READS_IN_FLIGHT = 8;

/** Whether items of this endpoint may be sent concurrently (see READS_IN_FLIGHT). */
export function isPlainRead(endpoint: Endpoint): boolean {
	return endpoint.method === 'GET' && endpoint.binary === undefined && endpoint.job === undefined;
}

/** A node run across its phases. */
interface NodeRun extends RunState {
	ctx: IExecuteFunctions;
	count: number;
	continueOnFail: boolean;
	/** An item failed and became an error item (Continue On Fail). */
	failedItems?: boolean;
	plans: ItemPlan[];
	/** Output items by input item. */
	results: Array<INodeExecutionData[] | undefined>;
	/** The jobs the run waits for, in item order, with how each item asked to be answered. */
	waiting: Array<{ job: PendingJob; settings: JobSettings }>;
	/** What this execution's saved data says of earlier tries (runs with an identity). */
	view?: SavedView;
	/** The credit budget of the credential, when it sets one (budget/run.ts). */
	budget?: RunBudget;
}

/** This node's run index in the execution (n8n gives no direct getter to execute()). */
function runIndexOf(ctx: IExecuteFunctions): number {
	return ctx.getWorkflowDataProxy(0).$thisRunIndex;
}

/**
 * A node parameter as each item reads it: read once for the run when the node sets it without an
 * expression (then it is the same for every item), else for each item. n8n's `getNodeParameter`
 * resolves, copies and validates the value on every call (n8n-core,
 * NodeExecutionContext._getNodeParameter); bench/README.md, B1.
 */
export function parameterOf<T>(
	ctx: IExecuteFunctions,
	name: string,
	fallback?: T,
): (itemIndex: number) => T {
	const read = (itemIndex: number) => ctx.getNodeParameter(name, itemIndex, fallback) as T;
	const raw = ctx.getNode().parameters[name];
	// not set at all: the fallback for every item (without one, each item fails as it did)
	const fixed =
		raw === undefined
			? fallback !== undefined
			: typeof raw === 'string'
				? !raw.startsWith('=')
				: typeof raw === 'number' || typeof raw === 'boolean';
	if (!fixed) return read;
	let once: { value: T } | undefined;
	return (itemIndex) => (once ??= { value: read(itemIndex) }).value;
}

/** The endpoint each item asks for (resource and operation may differ per item). */
function endpointReader(ctx: IExecuteFunctions, groups: Group[]): (itemIndex: number) => Endpoint {
	const resourceOf = parameterOf<string>(ctx, 'resource');
	const operationOf = parameterOf<string>(ctx, 'operation');
	const found = new Map<string, Endpoint | undefined>();
	return (itemIndex) => {
		const resource = resourceOf(itemIndex);
		const operation = operationOf(itemIndex);
		const key = `${resource}/${operation}`;
		if (!found.has(key)) found.set(key, findEndpoint(groups, resource, operation));
		const endpoint = found.get(key);
		if (!endpoint) {
			throw new NodeOperationError(ctx.getNode(), `Unknown operation ${resource}/${operation}`, {
				itemIndex,
			});
		}
		return endpoint;
	};
}

/** Phase 1 (prepare), one item: its behaviour's prepare step, and its idempotency key. No request. */
async function prepareItem(
	run: NodeRun,
	endpoint: Endpoint,
	itemIndex: number,
	values: IDataObject = {},
): Promise<ItemPlan> {
	const plan = await behaviourOf(endpoint).prepare(run.ctx, endpoint, itemIndex, run, values);
	addIdempotencyKey(run.ctx, plan, run);
	return plan;
}

/** The items (in order) that use the same Idempotency Key as an earlier item, with that item. */
function sharedKeys(plans: ItemPlan[]): Map<number, { key: string; first: number }> {
	const firstOf = new Map<string, number>();
	const shared = new Map<number, { key: string; first: number }>();
	for (const { request, itemIndex } of plans) {
		const key = request.idempotencyKey;
		if (!key) continue;
		const first = firstOf.get(key);
		if (first === undefined) firstOf.set(key, itemIndex);
		else shared.set(itemIndex, { key, first });
	}
	return shared;
}

/** An item's error as its output item (its caller decides whether the node stops instead). */
function failItem(run: NodeRun, error: unknown, itemIndex: number): void {
	run.results[itemIndex] = [failedOutput(run, error, itemIndex)];
}

/**
 * A failed item's output (Continue On Fail), shaped for the error output when the node's On
 * Error sends it there (report.ts errorItem).
 */
function failedOutput(run: NodeRun, error: unknown, itemIndex: number): INodeExecutionData {
	run.failedItems = true;
	const toErrorOutput = run.ctx.getNode().onError === 'continueErrorOutput';
	return errorItem(error as Error, itemIndex, toErrorOutput);
}

/**
 * Refused items (prepare, recover or guard): without Continue On Fail the first stops the node, nothing
 * sent for any item; with it, each becomes an error item and the others go on.
 */
function refuse(
	run: NodeRun,
	refused: Map<number, unknown>,
	phase: 'prepare' | 'recover' | 'guard',
) {
	if (!refused.size) return;
	const first = Math.min(...refused.keys());
	const told = (error: unknown, itemIndex: number, stops: boolean) =>
		beforeSending(run.ctx, error, itemIndex, run.count, phase, stops);
	if (!run.continueOnFail) throw told(refused.get(first), first, true);
	for (const [itemIndex, error] of refused) failItem(run, told(error, itemIndex, false), itemIndex);
	run.plans = run.plans.filter((p) => !refused.has(p.itemIndex));
}

/**
 * Phase 1, prepare: every item read, checked and planned, no request. An invalid item stops the node
 * before anything is sent (with Continue On Fail it becomes an error item, the others go on).
 */
async function prepareAll(run: NodeRun, groups: Group[]): Promise<void> {
	const { ctx } = run;
	const invalid = new Map<number, unknown>();
	const endpoints = new Map<number, Endpoint>();
	const endpointOf = endpointReader(ctx, groups);
	for (let itemIndex = 0; itemIndex < run.count; itemIndex++) {
		try {
			endpoints.set(itemIndex, endpointOf(itemIndex));
		} catch (error) {
			invalid.set(itemIndex, error);
		}
	}
	const needsIdentity = (e: Endpoint) => !!(e.idempotent || e.job || e.charged) && !e.nodeOperation;
	if ([...endpoints.values()].some(needsIdentity)) await establish(run);
	// version 3: a list that comes from the input items makes one request of all of them
	const first = endpoints.get(0);
	const fromItems =
		first &&
		(await listFromItems(ctx, first, (itemIndex, values) =>
			prepareItem(run, first, itemIndex, values),
		));
	if (fromItems?.plan) run.plans.push(fromItems.plan);
	for (const [itemIndex, error] of fromItems?.invalid ?? []) invalid.set(itemIndex, error);
	for (const [itemIndex, endpoint] of fromItems ? [] : endpoints) {
		try {
			run.plans.push(await prepareItem(run, endpoint, itemIndex));
		} catch (error) {
			invalid.set(itemIndex, error);
		}
	}
	for (const [itemIndex, { key, first: earlier }] of sharedKeys(run.plans)) {
		const message = `Idempotency Key '${key}' of item ${itemIndex + 1} is also the key of item ${earlier + 1}`;
		const description =
			'Each item needs its own key, or MediaGen would answer the second item with the first item’s job. Leave the option empty for a key per item, or build it from the item, e.g. {{ $json.id }}.';
		invalid.set(
			itemIndex,
			new NodeOperationError(ctx.getNode(), message, { itemIndex, description }),
		);
	}
	refuse(run, invalid, 'prepare');
}

/**
 * Runs `work` for each plan, at most `widthOf(plan)` at a time (a plan of width 1 waits until
 * nothing else is in flight, so such plans go one by one in order). Failures are collected by
 * item; with `stopOnError`, no plan starts after the first failure.
 */
async function inWindow(
	plans: ItemPlan[],
	widthOf: (plan: ItemPlan) => number,
	work: (plan: ItemPlan) => Promise<void>,
	errors: Map<number, unknown>,
	stopOnError: boolean,
): Promise<void> {
	const inFlight = new Set<Promise<void>>();
	for (const plan of plans) {
		const width = widthOf(plan);
		while (inFlight.size >= width) await Promise.race(inFlight);
		if (errors.size && stopOnError) break;
		const running: Promise<void> = work(plan)
			.catch((error: unknown) => void errors.set(plan.itemIndex, error))
			.finally(() => inFlight.delete(running));
		inFlight.add(running);
	}
	await Promise.all(inFlight);
}

/** Max Credits per Run against the sum of the estimates (the smallest limit set on an item). */
function checkRunLimit(run: NodeRun, runLimit: number): void {
	const creating = run.plans.filter((p) => p.job && !p.job.known);
	const unknown = creating.find((p) => p.job?.estimate === undefined);
	const total = creating.reduce((sum, p) => sum + (p.job?.estimate ?? 0), 0);
	if (!unknown && total <= runLimit) return;
	const error = new NodeOperationError(
		run.ctx.getNode(),
		unknown
			? `Max Credits per Run is set, but item ${unknown.itemIndex + 1} (${unknown.endpoint.name}) has no estimate`
			: `Estimated cost of this run is ${total} credits for ${creating.length} jobs, above Max Credits per Run (${runLimit})`,
		{
			itemIndex: (unknown ?? creating[0]).itemIndex,
			description: `Nothing was started or charged for any item. ${unknown ? 'Remove Max Credits per Run for this operation.' : 'Raise Max Credits per Run, or send fewer items.'}`,
		},
	);
	if (!run.continueOnFail) throw error;
	for (const plan of creating) failItem(run, error, plan.itemIndex);
	run.plans = run.plans.filter((p) => !creating.includes(p));
}

/**
 * Phase 3, guard: the estimates the run needs (free), all before the first create; Max Credits per
 * item, then per run.
 */
async function guardAll(run: NodeRun): Promise<void> {
	const limits = run.plans.map((p) => p.job?.maxCreditsPerRun ?? 0).filter((n) => n > 0);
	const runLimit = limits.length ? Math.min(...limits) : 0;
	const refused = new Map<number, unknown>();
	await inWindow(
		run.plans.filter((p) => needsEstimate(p, runLimit)),
		() => READS_IN_FLIGHT,
		(plan) => guard(run.ctx, plan, runLimit),
		refused,
		!run.continueOnFail,
	);
	refuse(run, refused, 'guard');
	if (runLimit > 0) checkRunLimit(run, runLimit);
	run.budget = await RunBudget.of(run);
	if (run.budget) refuse(run, await run.budget.guard(), 'guard');
}

/**
 * Pairs what the one request gave (its started jobs, or their records when not waiting) with the
 * input items the entries came from: the answer lists its jobs in the order of the list sent.
 * If it lists another number of jobs, each output is paired with all the items.
 */
export function pairWithItems(sent: SendResult, items: number[] | undefined): SendResult {
	if (!items) return sent;
	const count = sent.kind === 'items' ? sent.items.length : sent.jobs.length;
	const byPosition = count === items.length;
	if (sent.kind === 'jobs') {
		for (const [k, job] of sent.jobs.entries()) job.itemIndex = byPosition ? items[k] : items[0];
	} else {
		for (const [k, out] of sent.items.entries()) {
			out.pairedItem = byPosition ? { item: items[k] } : items.map((item) => ({ item }));
		}
	}
	return sent;
}

/**
 * Stop while sending: the jobs already started, and those whose create was in flight (found a
 * second later), are cancelled; the error (the cancel's) names what was in flight and not found.
 */
async function stopSending(
	run: NodeRun,
	started: PendingJob[],
	failed: Map<number, unknown>,
	error: NodeApiError | NodeOperationError,
): Promise<void> {
	const flying = await inFlight(run, [...failed.keys()], started);
	started.push(...flying.jobs);
	const told = (e: NodeApiError | NodeOperationError) => {
		if (flying.unknown.size)
			e.description = [
				e.description,
				`Sent when the execution was stopped, without an answer: ${[...flying.unknown.values()].join('; ')}. Check these at MediaGen and cancel them there if they run.`,
			]
				.filter(Boolean)
				.join('\n');
		return e;
	};
	if (!started.length) throw told(error);
	try {
		await waitForJobs(run.ctx, started);
	} catch (stopped) {
		throw told(asNodeError(run.ctx, stopped));
	}
}

/** Phase 4, send: plain reads a few at a time, anything else one by one in item order. */
async function sendAll(run: NodeRun): Promise<void> {
	const failed = new Map<number, unknown>();
	await inWindow(
		run.plans,
		(plan) => (isPlainRead(plan.endpoint) ? READS_IN_FLIGHT : 1),
		async (plan) => {
			if (run.budget && !(await run.budget.allows(plan))) return;
			const sent = pairWithItems(
				await behaviourOf(plan.endpoint).send(run.ctx, plan, run),
				plan.items,
			);
			run.budget?.sent(plan, sent);
			if (sent.kind === 'items') run.results[plan.itemIndex] = sent.items;
			else if (plan.job)
				for (const job of sent.jobs) run.waiting.push({ job, settings: plan.job.settings });
		},
		failed,
		!run.continueOnFail,
	);
	for (const [item, error] of (await run.budget?.afterSending()) ?? []) failed.set(item, error);
	run.waiting.sort((a, b) => a.job.itemIndex - b.job.itemIndex);
	if (!failed.size) return;
	const started = run.waiting.map((w) => w.job);
	const first = Math.min(...failed.keys());
	if (!run.continueOnFail) {
		const error = asNodeError(run.ctx, failed.get(first), first);
		// stopped: the jobs already started (and those whose create was in flight) are cancelled
		// with the execution, or named
		if (run.ctx.getExecutionCancelSignal()?.aborted) await stopSending(run, started, failed, error);
		throw withStartedJobs(error, started);
	}
	await continueAfterLostAnswers(run, failed, run.waiting);
	for (const [itemIndex, error] of failed) {
		const plan = run.plans.find((p) => p.itemIndex === itemIndex);
		for (const item of plan?.items ?? [itemIndex]) failItem(run, error, item);
	}
}

/**
 * Phases 5 and 6, wait and outputs: every job of the run waited for together, then one output per job, in item
 * order. A tool call waits a bounded time; a job still running then is answered as such.
 */
async function waitAndOutput(run: NodeRun): Promise<void> {
	const { ctx } = run;
	const started = run.waiting.map((w) => w.job);
	if (!started.length) return;
	const tool = isToolCall(ctx);
	await waitForJobs(ctx, started, {
		...(tool ? { until: Date.now() + TOOL_MODE.waitSeconds * 1000 } : {}),
		onLook: run.budget?.onLook,
	});
	const firstFailure = started.find((j) => j.error);
	if (firstFailure && !run.continueOnFail) {
		throw withStartedJobs(asNodeError(ctx, firstFailure.error, firstFailure.itemIndex), started);
	}
	for (const { job, settings } of run.waiting) {
		let out: INodeExecutionData;
		try {
			if (job.error) throw job.error;
			out =
				tool && !job.result
					? { json: stillRunning(job), pairedItem: { item: job.itemIndex } }
					: await jobOutput(ctx, job.result ?? job.record, settings, job.itemIndex);
		} catch (error) {
			if (!run.continueOnFail)
				throw withStartedJobs(asNodeError(ctx, error, job.itemIndex), started);
			out = failedOutput(run, error, job.itemIndex);
		}
		(run.results[job.itemIndex] ??= []).push(out);
	}
}

/**
 * Whether a plan's work is found again by the record it belongs to (not by its provenance or
 * key): its ids must stay claimed, so that a later run of the node does not take them.
 */
function foundByRecord(plan: ItemPlan): boolean {
	const rule = plan.endpoint.job?.recover;
	return !!plan.endpoint.charged || (!!rule && rule.by !== 'provenance');
}

/** The node's output: every item's results in item order, simplified where asked. */
function outputOf(run: NodeRun): INodeExecutionData[][] {
	const { ctx } = run;
	if (typeof ctx.addExecutionHints === 'function' && !isToolCall(ctx)) {
		const unwaited = run.plans.filter(
			(p) => p.job && !p.job.settings.waitForCompletion && !p.endpoint.nodeOperation,
		).length;
		const hint = costHint(
			run.waiting.map((w) => w.job),
			unwaited,
			run.budget?.hint(),
		);
		if (hint) ctx.addExecutionHints(hint);
	}
	const outputAs = parameterOf<string>(ctx, 'output', 'raw');
	for (const [itemIndex, items] of run.results.entries()) {
		if (items) applyOutput(outputAs(itemIndex), items);
	}
	const filled = run.results.filter((r): r is INodeExecutionData[] => r !== undefined);
	return [filled.length === 1 ? filled[0] : filled.flat()];
}

/** The execute() of every catalog node: prepare → recover → guard → send → wait → outputs. */
export async function executeCatalog(
	ctx: IExecuteFunctions,
	groups: Group[],
): Promise<INodeExecutionData[][]> {
	const runIndex = runIndexOf(ctx);
	const run: NodeRun = {
		ctx,
		position: runIndex,
		memory: runMemory(ctx, runIndex),
		count: ctx.getInputData().length,
		continueOnFail: ctx.continueOnFail(),
		plans: [],
		results: [],
		waiting: [],
	};
	await prepareAll(run, groups);
	refuse(run, await recoverAll(run), 'recover');
	await guardAll(run);
	await sendAll(run);
	await waitAndOutput(run);
	// in a loop, a later position's lookup must not take what this one made (nor, with progress
	// saved, what n8n's Retry restores of it). A run with failed items (Continue On Fail) did not
	// end well: with Retry On Fail n8n runs the node again when its first item failed
	// (WorkflowExecute checkFailure), and that try must know what this one started, was charged
	// for or sent without an answer, as after a run that threw
	const keepClaims = run.plans.some(foundByRecord) || !!run.lookup?.repeats;
	if (!run.failedItems) run.memory.clear(keepClaims);
	else if (keepClaims) run.memory.claim(run.memory.claimed());
	return outputOf(run);
}
