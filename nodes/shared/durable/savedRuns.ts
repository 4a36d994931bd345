/**
 * What n8n saved of an execution's runs, read to tell a run's lost try from another execution:
 * the saved data itself (`getExecutionDataById`), each node's first run, and the nodes that run
 * before a node in every try. docs/batches.md gives the n8n facts.
 */
import { createHash } from 'node:crypto';

import type { IExecuteFunctions, IRunExecutionData } from 'n8n-workflow';

export const hash = (material: string) => createHash('sha256').update(material).digest('hex');

/** An execution's data as n8n saved it (this one's by default; undefined where n8n gives none). */
export async function savedExecutionData(
	ctx: IExecuteFunctions,
	executionId = ctx.getExecutionId(),
): Promise<IRunExecutionData | undefined> {
	if (!executionId || typeof ctx.getExecutionDataById !== 'function') return undefined;
	try {
		return await ctx.getExecutionDataById(executionId);
	} catch {
		return undefined;
	}
}

/**
 * The first start time of every node that ran before `nodeName`, as saved: equal in an execution
 * and in n8n's retry of it (which starts from a copy of its saved data), different in another
 * execution. Undefined when nothing before this node was saved. `before`: the nodes that run
 * before it in every try (nodesBefore); a node after it may have run in a later try and not in
 * the lost one (a Retry killed after the node: its recovered runs are in the copy the next Retry
 * starts from).
 */
export function fingerprintOf(
	data: IRunExecutionData | undefined,
	nodeName: string,
	before?: Set<string>,
) {
	const firsts = firstRunsOf(data).filter(
		([name]) => name !== nodeName && (!before || before.has(name)),
	);
	return firsts.length ? hash(JSON.stringify(firsts)) : undefined;
}

/**
 * Whether `lost`'s saved data may be an earlier try of the run whose saved data is `now`: each
 * first run `lost` saved (of the nodes in `before`, but `nodeName`) is in `now` with the same
 * start and index (n8n's Retry starts from a copy of it). Compared over the nodes `lost` ran: a
 * node added before a Retry (Retry with the saved workflow) ran in later tries only, and a
 * killed Retry's recovered run of it is in the copy the next Retry starts from.
 */
export function sameFirstRuns(
	now: IRunExecutionData | undefined,
	lost: IRunExecutionData | undefined,
	nodeName = '',
	before?: Set<string>,
): boolean {
	const ran = new Set(
		firstRunsOf(lost)
			.map(([name]) => name)
			.filter((name) => !before || before.has(name)),
	);
	const theirs = fingerprintOf(lost, nodeName, ran);
	return theirs !== undefined && theirs === fingerprintOf(now, nodeName, ran);
}

/**
 * sameFirstRuns of this execution's saved data, by the nodes before this one (beforeThisNode;
 * `nodeName`: the name the lost try saved this node under).
 */
export async function sameRunsBefore(
	ctx: IExecuteFunctions,
	lost: IRunExecutionData | undefined,
	nodeName: string,
): Promise<boolean> {
	return sameFirstRuns(
		await savedExecutionData(ctx),
		lost,
		nodeName,
		beforeThisNode(ctx, nodeName),
	);
}

/**
 * nodesBefore this node, found in the workflow by its name now, less `savedName`: the name an
 * earlier try saved its runs and provenance under (the node renamed before n8n's Retry: the
 * workflow no longer holds that name, or another node holds it now).
 */
export function beforeThisNode(ctx: IExecuteFunctions, savedName: string): Set<string> | undefined {
	const before = nodesBefore(ctx, ctx.getNode().name);
	before?.delete(savedName);
	return before;
}

/**
 * The nodes of the workflow that run before `nodeName` in every execution: those it comes after
 * (its parents, their parents, …) and not also before (a loop's nodes are both). Undefined where
 * n8n gives a node no view of the workflow's connections.
 */
export function nodesBefore(ctx: IExecuteFunctions, nodeName: string): Set<string> | undefined {
	if (typeof ctx.getParentNodes !== 'function' || typeof ctx.getChildNodes !== 'function')
		return undefined;
	const after = new Set(ctx.getChildNodes(nodeName).map((n) => n.name));
	return new Set(
		ctx
			.getParentNodes(nodeName)
			.map((n) => n.name)
			.filter((name) => name !== nodeName && !after.has(name)),
	);
}

/**
 * Each node's first run as saved (name, start time, execution index), by name: a crashed or
 * failed first run is left out (n8n's Retry removes the last node's: saved in the lost
 * execution, gone from its retry's copy).
 */
export function firstRunsOf(data: IRunExecutionData | undefined): Array<[string, number, number]> {
	const runData = data?.resultData?.runData ?? {};
	return Object.keys(runData)
		.filter((name) => runData[name]?.length)
		.filter((name) => !runData[name][0].error && runData[name][0].executionStatus !== 'crashed')
		.sort()
		.map((name) => [name, runData[name][0].startTime, runData[name][0].executionIndex]);
}
