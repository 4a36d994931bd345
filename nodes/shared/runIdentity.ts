/**
 * A node run's identity: the token its default idempotency keys and its provenance derive from,
 * read from what n8n has saved of the execution (so that a retry of a crashed execution, which n8n
 * starts from that saved data, finds the same identity). docs/batches.md gives the n8n facts.
 */
import { createHash, randomUUID } from 'node:crypto';

import type { IDataObject, IExecuteFunctions, IRunExecutionData } from 'n8n-workflow';

export interface RunIdentity {
	/** What default idempotency keys and the provenance's `run` derive from. */
	token: string;
	/** Whether n8n saved what the token derives from: a retry of this execution derives it too. */
	durable: boolean;
	/** The earliest start of this run n8n saved (ms): its jobs were created after it. */
	since?: number;
	/** What this run's saved data holds of the nodes before this one (see fingerprintOf). */
	fingerprint?: string;
}

/** The reserved key of a job's `context` that holds where in n8n it was started. */
export const PROVENANCE_KEY = 'n8n';

/** Where in n8n a job was started (the job's `context.n8n`). */
export interface Provenance {
	workflowId: string;
	nodeId: string;
	node: string;
	executionId: string;
	run: string;
	runIndex: number;
	itemIndex: number;
}

const hash = (material: string) => createHash('sha256').update(material).digest('hex');

/** Milliseconds since the epoch from an n8n task start (seconds in crash-recovered run data). */
function asMs(t: unknown): number | undefined {
	const n = Number(t);
	if (!Number.isFinite(n) || n <= 0) return undefined;
	return n < 1e11 ? n * 1000 : n;
}

/**
 * The first start time of every node that ran before `nodeName`, as saved: equal in an execution
 * and in n8n's retry of it (which starts from a copy of its saved data), different in another
 * execution. Undefined when nothing before this node was saved.
 */
export function fingerprintOf(data: IRunExecutionData | undefined, nodeName: string) {
	const runData = data?.resultData?.runData ?? {};
	const firsts = Object.keys(runData)
		.filter((name) => name !== nodeName && runData[name]?.length)
		.sort()
		.map((name) => [name, runData[name][0].startTime, runData[name][0].executionIndex]);
	return firsts.length ? hash(JSON.stringify(firsts)) : undefined;
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
function anchorOf(data: IRunExecutionData | undefined): string | undefined {
	if (typeof data?.resumeToken === 'string' && data.resumeToken) return `r:${data.resumeToken}`;
	const runtime = data?.executionData?.runtimeData;
	if (runtime?.establishedAt) return `e:${runtime.establishedAt}:${String(runtime.source)}`;
	return undefined;
}

/** This execution's data as n8n saved it (undefined where n8n does not give it to nodes). */
export async function savedExecutionData(
	ctx: IExecuteFunctions,
): Promise<IRunExecutionData | undefined> {
	const executionId = ctx.getExecutionId();
	if (!executionId || typeof ctx.getExecutionDataById !== 'function') return undefined;
	try {
		return await ctx.getExecutionDataById(executionId);
	} catch {
		return undefined;
	}
}

/**
 * The identity of a node run. `remembered` is a token kept in the node context by an earlier try
 * of the same run (n8n's Retry of a failed execution): it wins. Otherwise the token derives from
 * the saved anchor when there is one (durable), else from the execution id (a crash of this
 * execution then loses it: its retry finds the run's jobs by their provenance and `fingerprint`).
 */
export function identityOf(
	ctx: IExecuteFunctions,
	saved: IRunExecutionData | undefined,
	remembered: string | undefined,
): RunIdentity {
	const nodeName = ctx.getNode().name;
	const since = sinceOf(saved);
	const fingerprint = fingerprintOf(saved, nodeName);
	if (remembered) return { token: remembered, durable: true, since, fingerprint };
	const anchor = anchorOf(saved);
	if (anchor) {
		const token = hash(`mediagen-run|${ctx.getWorkflow().id ?? ''}|${anchor}`).slice(0, 32);
		return { token, durable: true, since, fingerprint };
	}
	// no execution id (a tool called outside a saved execution): a token of this run alone
	return { token: ctx.getExecutionId() || randomUUID(), durable: false, since, fingerprint };
}

/** The provenance a job started by this node, run and item carries in its `context`. */
export function provenanceOf(
	ctx: IExecuteFunctions,
	identity: RunIdentity,
	runIndex: number,
	itemIndex: number,
): Provenance {
	const node = ctx.getNode();
	return {
		workflowId: String(ctx.getWorkflow().id ?? ''),
		nodeId: node.id,
		node: node.name,
		executionId: String(ctx.getExecutionId() ?? ''),
		run: identity.token,
		runIndex,
		itemIndex,
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
	};
}
