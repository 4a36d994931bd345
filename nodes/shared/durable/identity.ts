/**
 * A node run's identity: the token its default idempotency keys and its provenance derive from,
 * read from what n8n has saved of the execution (so that a retry of a crashed execution, which n8n
 * starts from that saved data, finds the same identity). docs/batches.md gives the n8n facts.
 */
import { randomUUID } from 'node:crypto';

import type { IDataObject, IExecuteFunctions, IRunExecutionData, ITaskData } from 'n8n-workflow';

import type { SavedView } from './memory';
import { fingerprintOf, hash, nodesBefore, savedExecutionData } from './savedRuns';
import { keptView, rememberedToken, rememberedView, rememberToken, rememberView } from './memory';

export interface RunIdentity {
	/** What default idempotency keys and the provenance's `run` derive from. */
	token: string;
	/** Whether n8n saved what the token derives from: a retry of this execution derives it too. */
	durable: boolean;
	/** The earliest start of this run n8n saved (ms): its jobs were created after it. */
	since?: number;
	/** What this run's saved data holds of the nodes before this one (see fingerprintOf). */
	fingerprint?: string;
	/**
	 * A sub-execution (Execute Workflow): its token derives from the parent's run and its items,
	 * the same in every call of the sub-workflow with the same items.
	 */
	sub?: boolean;
	/**
	 * The executions n8n's Retries of this run copied, where a copy named it (retriedOf): this
	 * Retry's, and those an earlier Retry of the run kept (establishRun).
	 */
	retried?: string[];
	/** The token an earlier Retry kept, which n8n saved nothing to derive (unproven.ts). */
	blind?: boolean;
}

/**
 * Whether this run's token proves what its lost try sent: n8n saved what it derives from, and it
 * is not a token an earlier Retry kept without that (`blind`): the keys it derives replay the lost
 * try's, and its provenance records name the lost try's jobs.
 */
export const tokenProvesLostTry = ({ durable, blind }: RunIdentity): boolean => durable && !blind;

/** The reserved key of a job's `context` that holds where in n8n it was started. */
export const PROVENANCE_KEY = 'n8n';

/**
 * Where in n8n a job was started (the job's `context.n8n`). `runIndex` is the run's position: n8n's
 * run index of the node less the runs its crash recovery added (the same in every try).
 */
export interface Provenance {
	workflowId: string;
	nodeId: string;
	node: string;
	executionId: string;
	run: string;
	runIndex: number;
	itemIndex: number;
	/**
	 * The item's request (requestIdOf): what it asked for and which of the run's equal requests it
	 * is. A job found again goes to the item whose request this is, never by position alone.
	 */
	request?: string;
}

/** Milliseconds since the epoch from an n8n task start (seconds in crash-recovered run data). */
function asMs(t: unknown): number | undefined {
	const n = Number(t);
	if (!Number.isFinite(n) || n <= 0) return undefined;
	return n < 1e11 ? n * 1000 : n;
}

/** The earliest start this saved data records: the execution's establishment or a first task. */
function sinceOf(data: IRunExecutionData | undefined): number | undefined {
	const starts: number[] = [];
	const established = asMs(data?.executionData?.runtimeData?.establishedAt);
	if (established) starts.push(established);
	for (const runs of Object.values(data?.resultData?.runData ?? {})) {
		const first = asMs(runs?.[0]?.startTime);
		if (first) starts.push(first);
	}
	return starts.length ? Math.min(...starts) : undefined;
}

/**
 * What of the saved data is unique to this execution and copied into its retries: n8n 2.x's
 * `resumeToken` (random, made with the execution's data before it is first saved), else the
 * `runtimeData.establishedAt` of its execution context when it was saved before this node ran.
 */
export function anchorOf(data: IRunExecutionData | undefined): string | undefined {
	if (typeof data?.resumeToken === 'string' && data.resumeToken) return `r:${data.resumeToken}`;
	const runtime = data?.executionData?.runtimeData;
	if (runtime?.establishedAt) return `e:${runtime.establishedAt}:${String(runtime.source)}`;
	return undefined;
}

/** An execution's id and its saved data. */
export interface Saved {
	id: string;
	data: IRunExecutionData | undefined;
}

/** A sub-execution's parent, as n8n 2.x and 1.x save it (`parentExecution`), if any. */
export function parentOf(data: IRunExecutionData | undefined): string | undefined {
	const id = (data as { parentExecution?: { executionId?: unknown } } | undefined)?.parentExecution
		?.executionId;
	return typeof id === 'string' && id ? id : undefined;
}

/**
 * The items a sub-execution was started with (the start entry of its stack, which n8n saves when
 * it creates the execution), as a hash: a sub-workflow called twice in one parent run with other
 * items, or with equal items from other input items (their `pairedItem`), is another run.
 */
export function subInputOf(data: IRunExecutionData | undefined): string {
	const stack = data?.executionData?.nodeExecutionStack ?? [];
	const start = stack.find(
		(e) => (e as { metadata?: { parentExecution?: unknown } }).metadata?.parentExecution,
	);
	const items = start?.data?.main?.[0] ?? [];
	// with the items' pairing to the caller's input: two calls with equal items are two runs
	return hash(JSON.stringify(items.map((i) => [i?.json ?? null, i?.pairedItem ?? null])));
}

/**
 * The identity of a node run. `remembered` is a token kept in the node context by an earlier try
 * of the same run (n8n's Retry of a failed execution): it wins. Otherwise the token derives from
 * the saved anchor when there is one (durable), else from the execution id (a crash of this
 * execution then loses it: its retry finds the run's jobs by their provenance and `fingerprint`).
 * A sub-execution (Execute Workflow) derives it from its parent's anchor and its start items
 * (`parent`: the parent's saved data), so that the parent's Retry, which starts the sub-workflow
 * again as a new execution, finds the same identity.
 */
export function identityOf(
	ctx: IExecuteFunctions,
	saved: IRunExecutionData | undefined,
	remembered: string | undefined,
	parent?: IRunExecutionData,
): RunIdentity {
	const nodeName = ctx.getNode().name;
	// a sub-execution's lost try ran in another sub-execution of the parent's lost try: after the
	// parent's saved start (its retry's copy keeps it), not after this sub-execution's start
	const since = (parentOf(saved) ? sinceOf(parent) : undefined) ?? sinceOf(saved);
	const fingerprint = fingerprintOf(saved, nodeName, nodesBefore(ctx, nodeName));
	const sub = !!parentOf(saved);
	const retried = retriedOf(ctx, saved);
	const known = { since, fingerprint, sub, ...(retried ? { retried } : {}) };
	if (remembered) return { token: remembered, durable: true, ...known };
	const parentAnchor = parentOf(saved) ? anchorOf(parent) : undefined;
	const anchor = parentAnchor ? `p:${parentAnchor}:${subInputOf(saved)}` : anchorOf(saved);
	if (anchor) {
		const token = hash(`mediagen-run|${ctx.getWorkflow().id ?? ''}|${anchor}`).slice(0, 32);
		return { token, durable: true, ...known };
	}
	// no execution id (a tool called outside a saved execution): a token of this run alone
	return { token: ctx.getExecutionId() || randomUUID(), durable: false, ...known };
}

/**
 * The execution n8n's Retry copied, where the copy names it: a canceled execution keeps the error
 * Stop wrote (ExecutionService.stopDuringRun: ManualExecutionCancelledError, its `extra` holding
 * the execution's id), and the Retry removes it only where the data names a last node executed.
 * So a Retry of an execution stopped without progress saving knows whose provenance is its lost
 * try's although n8n 1.x saved nothing (no resumeToken, no execution context, no runs) to derive
 * the same token or fingerprint from.
 */
function retriedOf(ctx: IExecuteFunctions, saved: IRunExecutionData | undefined) {
	if (ctx.getMode?.() !== 'retry') return undefined;
	const error = saved?.resultData?.error as IDataObject | undefined;
	const id = (error?.extra as IDataObject | undefined)?.executionId;
	return typeof id === 'string' && id !== ctx.getExecutionId() ? [id] : undefined;
}

/**
 * What an earlier Retry of this run kept (its view, in the node context this Retry copied) and
 * this execution's data no longer says: the run began no later than that Retry knew (no bound
 * where it knew none: n8n saved no start of its lost try), and the executions it copied are this
 * run's lost tries too (a Retry of a Retry whose own saved error is the node's, not Stop's).
 */
function withEarlierTries(view: SavedView, before: SavedView): void {
	view.since =
		before.since === undefined || view.since === undefined
			? undefined
			: Math.min(before.since, view.since);
	// flat: a view an earlier version of the package kept holds one id, not a list
	const retried = new Set([...[before.retried ?? []].flat(), ...(view.retried ?? [])]);
	if (retried.size) view.retried = [...retried];
}

/** Whether a run of a node is one n8n's crash recovery made up (ExecutionRecoveryService.amend). */
export function isRecoveredRun(task: ITaskData | undefined): boolean {
	if (!task) return false;
	if (task.executionStatus === 'crashed') return true;
	const first = task.data?.main?.[0]?.[0]?.json as IDataObject | undefined;
	return first?.isArtificialRecoveredEventItem === true;
}

/** Whether the workflow has a node of that name (not one renamed or removed since a run saved). */
export const inWorkflow = (ctx: IExecuteFunctions, name: string) =>
	typeof ctx.getParentNodes !== 'function' ||
	typeof ctx.getChildNodes !== 'function' ||
	ctx.getParentNodes(name).length > 0 ||
	ctx.getChildNodes(name).length > 0;

/**
 * Whether the saved data an n8n Retry starts from shows every node its lost try started: n8n saved
 * the execution whole when it failed (the Retry removed the failed node's last run, leaving it
 * without runs) or its crash recovery amended it from the event log (the runs it made up). Not
 * so for a canceled execution (the data read at Stop: ExecutionService.stopDuringRun), a crashed
 * one without its event log (the data last saved: queue mode's recovery, a lost log), data
 * with runs of a node the workflow has no longer (renamed before the Retry: its runs are under
 * the old name, which no connection names), or data whose runs all began well after the run's
 * execution context was established (`establishedAt`, copied into every Retry): an earlier
 * Retry's, which ran again from the start after a try this data does not show (a Stop, a crash).
 */
function showsEveryStart(ctx: IExecuteFunctions, saved: IRunExecutionData | undefined): boolean {
	const runData = saved?.resultData?.runData ?? {};
	if (runsOfGoneNodes(ctx, saved)) return false;
	const runs = Object.values(runData);
	if (ranAgainFromStart(saved)) return false;
	return runs.some((r) => r?.length === 0) || runs.flat().some(isRecoveredRun);
}

/**
 * Whether the saved data holds runs of a node the workflow has no longer (renamed or removed
 * before n8n's Retry, which ran the workflow as saved): a try before the edit ran under that
 * name, so this node's runs under its name are of later tries.
 */
const runsOfGoneNodes = (ctx: IExecuteFunctions, saved: IRunExecutionData | undefined) =>
	Object.keys(saved?.resultData?.runData ?? {}).some(
		(name) => name !== ctx.getNode().name && !inWorkflow(ctx, name),
	);

/**
 * Whether the saved runs all began well after the run's execution context was established: an
 * earlier Retry's, which ran again from the start after a try this data does not show (a Stop,
 * a crash), and may have taken that try's jobs, made before its own runs.
 */
function ranAgainFromStart(saved: IRunExecutionData | undefined): boolean {
	const runs = Object.values(saved?.resultData?.runData ?? {}).flat();
	const established = asMs(saved?.executionData?.runtimeData?.establishedAt);
	const first = Math.min(...runs.map((r) => asMs(r?.startTime) ?? Infinity));
	return !!established && first - established > RETRY_GAP_MS;
}

/** How much later than its establishment an execution's first saved run may start (ms): n8n's
 * crash recovery saves whole seconds. */
const RETRY_GAP_MS = 1_000;

/**
 * What this execution's saved data says of this node's earlier tries (read once per execution):
 * how many runs n8n's crash recovery added (the retry runs the node with a run index that much
 * higher), and a time that precedes the lost try's runs (the first recovered run's start, in whole
 * seconds, or the end of the last run n8n saved with progress saving).
 */
export function savedViewOf(
	ctx: IExecuteFunctions,
	saved: IRunExecutionData | undefined,
	identity: RunIdentity,
	parent?: IRunExecutionData,
): SavedView {
	const saving = saved?.resultData?.runData?.[ctx.getNode().name];
	const runs = saving ?? [];
	const recovered = runs.filter(isRecoveredRun);
	const real = runs.filter((r) => !isRecoveredRun(r));
	const times = [
		asMs(recovered[0]?.startTime),
		...real.map((r) => (asMs(r.startTime) ?? 0) + Math.max(0, Number(r.executionTime) || 0)),
	].filter((t): t is number => !!t);
	const parentNodes = Object.values(parent?.resultData?.runData ?? {});
	// n8n's Retry of the parent: runs its crash recovery made up, or a node left without runs
	// (ExecutionService.retry removes the last node's failed or crashed run)
	const parentRetried =
		parentNodes.flat().some(isRecoveredRun) || parentNodes.some((runs) => runs?.length === 0);
	return {
		executionId: String(ctx.getExecutionId() ?? ''),
		...identity,
		shift: recovered.length,
		// not bounded by an earlier Retry's runs: it may have taken jobs made before them (a Retry
		// that ran again from the start, or the node's runs since it was renamed)
		lostAfter:
			times.length && !ranAgainFromStart(saved) && !runsOfGoneNodes(ctx, saved)
				? Math.max(...times)
				: undefined,
		parentRecovered: parentRetried,
		ranBefore:
			saving !== undefined ||
			!!rememberedToken(ctx) ||
			(ctx.getMode?.() === 'retry' && !showsEveryStart(ctx, saved)),
	};
}

/** The provenance a job started by this node, run and item carries in its `context`. */
export function provenanceOf(
	ctx: IExecuteFunctions,
	identity: RunIdentity,
	position: number,
	itemIndex: number,
	request?: string,
): Provenance {
	const node = ctx.getNode();
	return {
		workflowId: String(ctx.getWorkflow().id ?? ''),
		nodeId: node.id,
		node: node.name,
		executionId: String(ctx.getExecutionId() ?? ''),
		run: identity.token,
		runIndex: position,
		itemIndex,
		...(request ? { request } : {}),
	};
}

/** The provenance in a job record's context, if it has one. */
export function provenanceIn(record: IDataObject | undefined): Provenance | undefined {
	const context = record?.context as IDataObject | undefined;
	const p = context?.[PROVENANCE_KEY] as IDataObject | undefined;
	if (!p || typeof p !== 'object' || typeof p.run !== 'string') return undefined;
	return {
		workflowId: String(p.workflowId ?? ''),
		nodeId: String(p.nodeId ?? ''),
		node: String(p.node ?? ''),
		executionId: String(p.executionId ?? ''),
		run: p.run,
		runIndex: Number(p.runIndex ?? 0),
		itemIndex: Number(p.itemIndex ?? 0),
		...(typeof p.request === 'string' ? { request: p.request } : {}),
	};
}

/** A node run's identity, its position, and what its execution's saved data says of earlier tries. */
export interface EstablishedRun {
	identity: RunIdentity;
	/** n8n's run index of the node less the runs its crash recovery added: the same in every try. */
	position: number;
	view: SavedView;
}

/**
 * The identity and position of this run of the node: what n8n saved of the execution (and of its
 * parent, for a sub-execution) is read once per execution and node and kept in the node context.
 */
export async function establishRun(
	ctx: IExecuteFunctions,
	runIndex: number,
	caller?: {
		/** Whether the parent is n8n's Retry of an earlier execution (parentRun.ts). */
		parentRetried: (self: Saved, parent: Saved) => Promise<boolean>;
		/** What this call kept in the parent's earlier tries (calls.ts viewsOfEarlierCalls). */
		earlierCalls: (self: Saved, parent: Saved) => Promise<SavedView[]>;
	},
): Promise<EstablishedRun> {
	let view = rememberedView(ctx);
	if (!view) {
		// an earlier Retry's view, kept in the node context this execution copied
		const before = keptView(ctx);
		const saved = await savedExecutionData(ctx);
		const parentId = parentOf(saved);
		const parent = parentId ? await savedExecutionData(ctx, parentId) : undefined;
		const identity = identityOf(ctx, saved, rememberedToken(ctx), parent);
		view = savedViewOf(ctx, saved, identity, parent);
		if (before && (!before.durable || before.blind) && rememberedToken(ctx)) view.blind = true;
		if (before && rememberedToken(ctx)) withEarlierTries(view, before);
		const self = { id: view.executionId, data: saved };
		const parentRun = { id: parentId ?? '', data: parent };
		if (parentId && !view.parentRecovered && caller?.parentRetried)
			view.parentRecovered = await caller.parentRetried(self, parentRun);
		// a sub-execution of a Retry: what this call kept in the parent's earlier tries
		if (parentId && view.parentRecovered && !before && caller?.earlierCalls)
			for (const earlier of await caller.earlierCalls(self, parentRun))
				withEarlierTries(view, earlier);
		rememberView(ctx, view);
		rememberToken(ctx, view.token);
	}
	const { token, durable, since, fingerprint, sub, retried, blind } = view;
	return {
		identity: {
			token,
			durable,
			since,
			fingerprint,
			sub,
			...(retried ? { retried } : {}),
			...(blind ? { blind } : {}),
		},
		position: Math.max(0, runIndex - view.shift),
		view,
	};
}

/**
 * The default Idempotency-Key: the same in every try of one item of one run position of one node
 * (n8n's Retry On Fail, its Retry: the run's token and position are the same), different for a
 * new run, another node, another run of the node, another item.
 */
export function defaultIdempotencyKey(parts: {
	/** The run's token (identity.ts). */
	token: string;
	nodeId: string;
	/** The run's position: n8n's run index less the runs its crash recovery added. */
	position: number;
	/** The item's request (requestIdOf): not its index, which changes when the input does. */
	request: string;
	/** Another execution made a job with the key this run derives (a sub-workflow called twice). */
	execution?: string;
}): string {
	const own = parts.execution ? `|x:${parts.execution}` : '';
	const material = `${parts.token}|${parts.nodeId}|${parts.position}|q:${parts.request}${own}`;
	return `n8n-${hash(material).slice(0, 48)}`;
}

/** The fields of a request body that say where it came from, not what it asks for. */
const notAsked = (body: IDataObject, derivedKeys: string[]): IDataObject => {
	const rest: IDataObject = { ...body };
	for (const key of derivedKeys) delete rest[key];
	const context = rest.context as IDataObject | undefined;
	if (context && typeof context === 'object' && PROVENANCE_KEY in context) {
		const own: IDataObject = { ...context };
		delete own[PROVENANCE_KEY];
		rest.context = own;
	}
	return rest;
};

/** JSON with object keys sorted: equal values give equal text. */
export function stableJson(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
	if (value && typeof value === 'object') {
		const entries = Object.keys(value as object)
			.sort()
			.map((k) => `${JSON.stringify(k)}:${stableJson((value as IDataObject)[k])}`);
		return `{${entries.join(',')}}`;
	}
	return JSON.stringify(value ?? null);
}

/**
 * What an item asks MediaGen for: method, path, query and body, less its key and provenance (the
 * same request in a retry gives the same fingerprint, whatever the item's position).
 */
export function requestFingerprint(
	request: { method: string; path: string; qs: IDataObject; body?: IDataObject },
	derivedKeys: string[] = [],
): string {
	const asked = [
		request.method,
		request.path,
		request.qs,
		notAsked(request.body ?? {}, derivedKeys),
	];
	return hash(stableJson(asked)).slice(0, 32);
}

/**
 * An item's request id: its fingerprint and which of the run's equal requests it is (`seen`
 * counts them, in item order): `fp#1`, `fp#2`… The same rows in another order, or with rows
 * added and removed, keep their ids; duplicates are told apart by their rank.
 */
export function requestIdOf(fingerprint: string, seen: Map<string, number>): string {
	const rank = (seen.get(fingerprint) ?? 0) + 1;
	seen.set(fingerprint, rank);
	return `${fingerprint}#${rank}`;
}
