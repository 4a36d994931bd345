/**
 * Which call of its parent a sub-execution (Execute Workflow) is. n8n saves nothing that names
 * the calling node: a sub-execution's data holds `parentExecution` with its caller's execution
 * and workflow ids only (n8n-nodes-base ExecuteWorkflow.node.js `execute`; packages/cli
 * workflow-execute-additional-data.ts `getRunData`). A parent that calls one sub-workflow twice
 * with the same items (two branches, a loop) starts two sub-executions that see the same saved
 * data; n8n's Retry of the parent starts both again as new executions. They are told apart by
 * their order: n8n numbers executions in the order it creates them (the execution entity's
 * generated id), and a parent runs its calls one after the other. docs/batches.md.
 */
import { createHash } from 'node:crypto';

import type { IDataObject, IExecuteFunctions, IRunData, IRunExecutionData } from 'n8n-workflow';

import { anchorOf, inWorkflow, isRecoveredRun, parentOf, provenanceIn } from './identity';
import type { Saved } from './identity';
import type { SavedView } from './memory';
import { viewKeptIn } from './memory';
import { firstRunsOf, nodesBefore, sameFirstRuns, savedExecutionData } from './savedRuns';

export const CALLS = {
	/** Executions read at most between a parent's id and its sub-execution's. */
	maxBetween: 25,
};

export const numberOf = (id: string) => (/^\d+$/.test(id) ? Number(id) : undefined);

/**
 * What a sub-execution was called with, as a hash of its start items' JSON: the start entry of
 * its stack while n8n has it saved (at the start, and when its process died), else the output of
 * its first node's first run (a finished sub-execution; passthrough: the same items).
 */
export function callItemsOf(data: IRunExecutionData | undefined): string | undefined {
	const stack = data?.executionData?.nodeExecutionStack ?? [];
	const start = stack.find(
		(e) => (e as { metadata?: { parentExecution?: unknown } }).metadata?.parentExecution,
	);
	let items = start?.data?.main?.[0];
	if (!items) {
		const first = Object.values(data?.resultData?.runData ?? {})
			.map((runs) => runs?.[0])
			.find((run) => run && !isRecoveredRun(run) && !(run.source ?? []).some((s) => s));
		items = first?.data?.main?.[0] ?? undefined;
	}
	if (!items) return undefined;
	return createHash('sha256')
		.update(JSON.stringify(items.map((i) => i?.json ?? null)))
		.digest('hex');
}

/**
 * The sub-executions a parent's saved data names: Execute Workflow's `metadata.subExecution`,
 * on its run (mode "once") or on each output item (mode "each").
 */
function namedSubExecutions(data: IRunExecutionData | undefined): string[] {
	const ids = new Set<string>();
	const add = (m: unknown) => {
		const id = (m as { subExecution?: { executionId?: unknown } } | undefined)?.subExecution
			?.executionId;
		if (typeof id === 'string' || typeof id === 'number') ids.add(String(id));
	};
	for (const runs of Object.values(data?.resultData?.runData ?? {}))
		for (const run of runs ?? []) {
			add(run.metadata);
			for (const output of run.data?.main ?? [])
				for (const item of output ?? []) add(item.metadata);
		}
	return [...ids];
}

/**
 * Which call of `parent`'s run `self` is among the calls with the same start items (1 for the
 * first): the sub-executions of the same parent with those items that n8n created before it
 * (ids between the parent's and its own), and those of an earlier try of the parent whose calls
 * the parent's saved data kept (n8n's Retry resumes after them). Undefined when the ids are not
 * n8n's numbers or more than CALLS.maxBetween executions lie between.
 */
export async function callRank(
	ctx: IExecuteFunctions,
	self: Saved,
	parent: Saved,
): Promise<number | undefined> {
	const selfNo = numberOf(self.id);
	const parentNo = numberOf(parent.id);
	if (selfNo === undefined || parentNo === undefined || selfNo <= parentNo) return undefined;
	if (selfNo - parentNo - 1 > CALLS.maxBetween) return undefined;
	const input = callItemsOf(self.data);
	if (input === undefined) return undefined;
	const earlier = new Set<string>();
	for (let n = parentNo + 1; n < selfNo; n++) {
		const data = await savedExecutionData(ctx, String(n));
		if (parentOf(data) === parent.id && callItemsOf(data) === input) earlier.add(String(n));
	}
	for (const id of namedSubExecutions(parent.data)) {
		if (id === self.id || earlier.has(id)) continue;
		const data = await savedExecutionData(ctx, id);
		if (data && parentOf(data) !== parent.id && callItemsOf(data) === input) earlier.add(id);
	}
	return earlier.size + 1;
}

/**
 * Whether `lost` is `now`'s own run of the parent: the same execution, or one n8n's Retry copied
 * `now` from: the same anchor (2.x's resumeToken), else (1.x) every first run `lost` saved is in
 * `now`'s saved data with the same start (the Retry starts from a copy of it).
 */
export function sameParentRun(now: Saved, lost: Saved): boolean {
	if (now.id === lost.id) return true;
	const [a, b] = [anchorOf(now.data), anchorOf(lost.data)];
	if (a || b) return a === b;
	return sameFirstRuns(now.data, lost.data);
}

/**
 * What this call of the sub-workflow kept in an earlier try of its parent run (the node's view,
 * identity.ts SavedView, in the saved node context of that try's sub-execution): a sub-execution
 * is new in every try of the parent, so no node context reaches it the way a Retry copies a
 * workflow's own (identity.ts withEarlierTries). Read from the sub-executions n8n created below the
 * parent (at most CALLS.maxBetween) that a run the parent's data was copied from (sameParentRun)
 * called with the same start items at the same rank. On n8n 1.x without progress saving, an
 * earlier Retry that ran again from the start (after Stop) leaves its own runs in the parent's
 * data, later than the stopped try's work: its call's view says how far back that try may lie.
 */
export async function viewsOfEarlierCalls(
	ctx: IExecuteFunctions,
	self: Saved,
	parent: Saved,
): Promise<SavedView[]> {
	const parentNo = numberOf(parent.id);
	const input = callItemsOf(self.data);
	if (parentNo === undefined || input === undefined) return [];
	const rank = await callRank(ctx, self, parent);
	const views: SavedView[] = [];
	for (let n = parentNo - 1; n >= Math.max(1, parentNo - CALLS.maxBetween); n--) {
		const data = await savedExecutionData(ctx, String(n));
		const view = viewKeptIn(data, ctx.getNode().name);
		const caller = parentOf(data);
		if (!view || !caller || caller === parent.id || callItemsOf(data) !== input) continue;
		const them = { id: caller, data: await savedExecutionData(ctx, caller) };
		if (!sameParentRun(parent, them)) continue;
		const theirs =
			rank === undefined ? undefined : await callRank(ctx, { id: String(n), data }, them);
		if (theirs === undefined || theirs === rank) views.push(view);
	}
	return views;
}

/**
 * A parent whose saved data holds nothing to compare with another run's (no anchor, no first run
 * of a node: n8n 1.x without progress saving, its worker lost, or still running): the calls it
 * made may be this run's lost try's, and nothing tells (durable/unproven.ts, the same for a
 * run's own node). A parent whose data n8n deleted (a success the workflow does not save) is
 * not a lost try.
 */
const savedNothing = (parent: Saved) =>
	!!parent.data && !anchorOf(parent.data) && firstRunsOf(parent.data).length === 0;

/** A sub-execution's data and its parent's, as saved now. */
export async function withParent(
	ctx: IExecuteFunctions,
	id: string,
): Promise<{ self: Saved; parent?: Saved }> {
	const self = { id, data: await savedExecutionData(ctx, id) };
	const parentId = parentOf(self.data);
	if (!parentId) return { self };
	return { self, parent: { id: parentId, data: await savedExecutionData(ctx, parentId) } };
}

/** Records by the execution their provenance names. */
function byExecution(records: IDataObject[]): Map<string, IDataObject[]> {
	const map = new Map<string, IDataObject[]>();
	for (const r of records) {
		const id = provenanceIn(r)?.executionId ?? '';
		map.set(id, [...(map.get(id) ?? []), r]);
	}
	return map;
}

/**
 * Of the jobs other sub-executions made for an item's request (`list`: their records, each
 * naming the execution that made it), those this call made in an earlier try of the parent: made by a call of the same
 * parent run (sameParentRun) with the same start items and the same rank. `unsure`: made by a
 * call of the same parent run whose rank cannot be told (other ids than n8n's numbers, too many
 * executions between, or other start items: the parent's rows changed before its Retry).
 */
export async function sameCallJobs(
	ctx: IExecuteFunctions,
	list: IDataObject[] = [],
): Promise<{ jobs: IDataObject[]; unsure: IDataObject[] }> {
	const out = { jobs: [] as IDataObject[], unsure: [] as IDataObject[] };
	const records = byExecution(list);
	if (!records.size) return out;
	const me = await withParent(ctx, String(ctx.getExecutionId() ?? ''));
	const myRank = me.parent && (await callRank(ctx, me.self, me.parent));
	for (const [executionId, list] of records) {
		const them = await withParent(ctx, executionId);
		if (!me.parent || !them.parent) {
			out.unsure.push(...list);
			continue;
		}
		if (!sameParentRun(me.parent, them.parent)) {
			if (savedNothing(them.parent)) out.unsure.push(...list);
			continue;
		}
		// the parent's rows changed before its Retry: which call had which items cannot be told
		const sameInput = callItemsOf(them.self.data) === callItemsOf(me.self.data);
		const rank = sameInput ? await callRank(ctx, them.self, them.parent) : undefined;
		if (myRank === undefined || rank === undefined) out.unsure.push(...list);
		else if (rank === myRank) out.jobs.push(...list);
	}
	return out;
}

/**
 * The ids of the jobs that the package's other nodes before this one output in this execution
 * (n8n's data proxy: each node's last run, every output): never this node's own work, so no
 * lookup of this node takes one of them. Two MediaGen nodes asking the same of one record (two
 * Edit → Dub nodes dubbing one edit into one language): in a Retry the first node's lookup may
 * take the second's job of the lost try (nothing on the record tells the nodes apart), and the
 * second then makes its own instead of handing the same job to both.
 */
export function jobsOutputBefore(ctx: IExecuteFunctions): string[] {
	const own = ctx.getNode();
	const before = nodesBefore(ctx, own.name);
	if (!before?.size) return [];
	const pkg = own.type.split('.')[0];
	const ids: string[] = [];
	try {
		const proxy = ctx.getWorkflowDataProxy(0);
		for (const parent of ctx.getParentNodes(own.name)) {
			if (!before.has(parent.name) || parent.type.split('.')[0] !== pkg) continue;
			let items: Array<{ json?: IDataObject }> = [];
			try {
				items = (proxy.$(parent.name) as { all: () => Array<{ json?: IDataObject }> }).all();
			} catch {
				continue; // not run in this execution
			}
			ids.push(...jobIdsOf(items));
		}
	} catch {
		return ids;
	}
	return ids;
}

/**
 * In n8n's Retry, the ids of the jobs output by runs saved under a node name the workflow has no
 * longer: this node renamed before a Retry that resumes with progress saving (its finished loop
 * iterations' outputs are restored under the old name). No iteration of this run takes them.
 */
export async function jobsOfRenamedRuns(ctx: IExecuteFunctions): Promise<string[]> {
	return jobsOutput(
		(await savedExecutionData(ctx))?.resultData?.runData,
		(name) => !inWorkflow(ctx, name),
	);
}

/** The ids of the jobs output by the saved runs of the nodes `of` picks by name. */
const jobsOutput = (runData: IRunData | undefined, of: (name: string) => boolean) =>
	Object.entries(runData ?? {})
		.filter(([name]) => of(name))
		.flatMap(([, runs]) => (runs ?? []).flatMap((r) => (r.data?.main ?? []).flatMap(jobIdsOf)));

/** The job ids among output items (their `id`). */
const jobIdsOf = (items: Array<{ json?: IDataObject } | null | undefined> | null) =>
	(items ?? []).flatMap((item) => (typeof item?.json?.id === 'string' ? [item.json.id] : []));

/**
 * In a sub-execution, the ids of the jobs this node output in its parent run's earlier calls:
 * the sub-executions n8n created for the same parent before this one (ids between the parent's
 * and its own, at most CALLS.maxBetween read), and those of the parent's lost try that n8n's
 * Retry kept (the calls its saved data names: the Retry resumes after them, with Save Execution
 * Progress, and does not call them again). Never this call's own. The node's runs under its name
 * or a name no node of the workflow has (renamed before the Retry: the earlier call ran under the
 * old one). A keyed kind (no provenance) in a sub-workflow called twice with the same items
 * derives one key in both calls: in the parent's Retry the second call would get the first
 * call's job back under it (spec credit rule 6).
 */
export async function jobsOfEarlierCalls(ctx: IExecuteFunctions): Promise<string[]> {
	const me = await withParent(ctx, String(ctx.getExecutionId() ?? ''));
	const selfNo = numberOf(me.self.id);
	const parentNo = me.parent && numberOf(me.parent.id);
	if (!me.parent || selfNo === undefined || parentNo === undefined) return [];
	const calls = new Map<string, IRunExecutionData | undefined>();
	for (let n = Math.max(parentNo + 1, selfNo - CALLS.maxBetween); n < selfNo; n++) {
		const data = await savedExecutionData(ctx, String(n));
		if (parentOf(data) === me.parent.id) calls.set(String(n), data);
	}
	for (const id of namedSubExecutions(me.parent.data))
		if (id !== me.self.id && !calls.has(id)) calls.set(id, await savedExecutionData(ctx, id));
	// its runs under its name, or under an old one (renamed before the Retry: no node has it now)
	const mine = (name: string) => name === ctx.getNode().name || !inWorkflow(ctx, name);
	return [...calls.values()].flatMap((data) => jobsOutput(data?.resultData?.runData, mine));
}
