/**
 * Workflow shapes for the engine harness: nodes in any `nodes` ARRAY order (the order n8n's crash
 * recovery walks), connected independently of it, with the workflow's settings (execution order
 * v1, as n8n gives new workflows; Save Execution Progress). Node factories for the test nodes of
 * ./testNodes.ts: items, slow, Wait, Loop Over Items, Execute Workflow and its trigger.
 */
import type { IConnections, IDataObject, IWorkflowBase, IWorkflowSettings } from 'n8n-workflow';

import type { TestNode } from './harness';
import { workflowOf } from './harness';

/** A connection: from node, to node, the from node's output (default 0: Loop's "done"). */
export type Edge = [from: string, to: string, output?: number];

export interface ShapeSpec {
	id?: string;
	name?: string;
	/** The nodes, in the order of the workflow's `nodes` array. */
	nodes: TestNode[];
	edges: Edge[];
	/** Over `{ executionOrder: 'v1' }`, e.g. `{ saveExecutionProgress: true }`. */
	settings?: IWorkflowSettings;
}

/** A workflow of `spec.nodes` in that array order, connected by `spec.edges`. */
export function shape(spec: ShapeSpec): IWorkflowBase {
	const connections: IConnections = {};
	for (const [from, to, output = 0] of spec.edges) {
		const main = ((connections[from] ??= { main: [] }).main ??= []);
		while (main.length <= output) main.push([]);
		(main[output] ??= []).push({ node: to, type: 'main', index: 0 });
	}
	return workflowOf(spec.nodes, connections, {
		id: spec.id ?? 'wf-test',
		name: spec.name ?? 'engine test',
		settings: { executionOrder: 'v1', ...spec.settings },
	});
}

/** `edges` for nodes connected one after the other. */
export const inOrder = (...names: string[]): Edge[] =>
	names.slice(1).map((to, i): Edge => [names[i], to]);

/** The same workflow with its `nodes` array in `order` (names; the others keep their place after). */
export function arrange(workflow: IWorkflowBase, order: string[]): IWorkflowBase {
	const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
	const nodes = workflow.nodes
		.map((n, i) => ({ n, i }))
		.sort((a, b) => rank(a.n.name) - rank(b.n.name) || a.i - b.i)
		.map(({ n }) => n);
	return { ...workflow, nodes };
}

/** The same workflow with other settings (merged). */
export const withSettings = (w: IWorkflowBase, settings: IWorkflowSettings): IWorkflowBase => ({
	...w,
	settings: { ...w.settings, ...settings },
});

/** A start node emitting `items`. */
export const items = (name: string, list: IDataObject[]): TestNode => ({
	name,
	type: 'test.items',
	parameters: { items: JSON.stringify(list) },
});

/**
 * A node that waits `ms` and passes its input on (n8n's Wait node under 65 s does the same), or
 * `retryMs` in a retry; either may be an expression, e.g. `={{ $execution.id === 'r2' ? 0 : 30000 }}`.
 */
export const slow = (
	name: string,
	ms: number | string,
	retryMs: number | string = -1,
): TestNode => ({
	name,
	type: 'test.slow',
	parameters: { ms, retryMs },
});

/** Wait (version 1.1) for `seconds` (under 65: n8n waits in-process), then passes its input on. */
export const wait = (name: string, seconds: number): TestNode => ({
	name,
	type: 'n8n-nodes-base.wait',
	typeVersion: 1.1,
	parameters: { resume: 'timeInterval', amount: seconds, unit: 'seconds' },
});

/** Loop Over Items (version 3): output 0 "done", output 1 "loop". */
export const loop = (name: string, batchSize = 1): TestNode => ({
	name,
	type: 'n8n-nodes-base.splitInBatches',
	typeVersion: 3,
	parameters: { batchSize, options: {} },
});

/** Execute Workflow Trigger (passthrough): the start of a sub-workflow. */
export const subTrigger = (name = 'When Executed by Another Workflow'): TestNode => ({
	name,
	type: 'n8n-nodes-base.executeWorkflowTrigger',
	typeVersion: 1.1,
	parameters: { inputSource: 'passthrough' },
});

/** Execute Workflow of workflow `workflowId`: once for all items, or once for each item. */
export const executeWorkflow = (
	name: string,
	workflowId: string,
	mode: 'once' | 'each' = 'once',
): TestNode => ({
	name,
	type: 'n8n-nodes-base.executeWorkflow',
	typeVersion: 1.2,
	parameters: { source: 'database', workflowId, mode },
});
