/**
 * Where a node run stands in the workflow's loops: whether it may run more than once in one
 * execution, and whether this run is a loop's last.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

/**
 * Whether this node may run more than once in one execution: it stands in a cycle of the
 * workflow (Loop Over Items, or a loop wired back by hand), found with n8n's getParentNodes
 * (Workflow.getParentNodes: every node upstream). Then work found on one record belongs to the
 * run's positions in order; else a surplus of it is another execution's.
 */
export function repeatsInExecution(ctx: IExecuteFunctions): boolean {
	if (typeof ctx.getParentNodes !== 'function') return true;
	const name = ctx.getNode().name;
	try {
		const parents = ctx.getParentNodes(name);
		return parents.some((p) => p.name === name || p.type === 'n8n-nodes-base.splitInBatches');
	} catch {
		return true;
	}
}

/**
 * Whether this run is the last one of the loops it stands in: every Loop Over Items upstream
 * (n8n's SplitInBatches, which keeps `noItemsLeft` in its node context, read through
 * `$node[name].context` of n8n's workflow data proxy) has handed out its last batch.
 * `undefined` when no such node tells (a loop wired back by hand, or none).
 */
export function loopEnds(ctx: IExecuteFunctions): boolean | undefined {
	if (typeof ctx.getParentNodes !== 'function') return undefined;
	try {
		const loops = ctx
			.getParentNodes(ctx.getNode().name)
			.filter((p) => p.type === 'n8n-nodes-base.splitInBatches');
		if (!loops.length) return undefined;
		const $node = ctx.getWorkflowDataProxy(0).$node as Record<
			string,
			{ context?: { noItemsLeft?: unknown } }
		>;
		const left = loops.map((l) => $node[l.name]?.context?.noItemsLeft);
		if (left.some((l) => typeof l !== 'boolean')) return undefined;
		return left.every((l) => l === true);
	} catch {
		return undefined;
	}
}
