/**
 * The crash harness itself (crashHarness.ts), checked against n8n's rules and independent of how
 * the MediaGen node recovers: a child process running the workflow is killed with SIGKILL; what
 * it saved and logged before dying is what n8n's recovery amends (ExecutionRecoveryService.amend:
 * array order, first started/finished message, artificial success or crashed run) and its Retry
 * runs (ExecutionService.retry: only lastNodeExecuted's errored run popped). Every assertion here
 * is about n8n's data and run indexes, none about what was charged.
 */
import type { IDataObject, IRunExecutionData, ITaskData } from 'n8n-workflow';
import { createRunExecutionData } from 'n8n-workflow';

import { client } from '../harness/sandbox/helpers';
import type { CrashedExecution, KillPoint } from '../harness/engine/crashHarness';
import { crashExecution, crashRetry, restart, retry } from '../harness/engine/crashHarness';
import { prepareRetry } from '../harness/engine/n8nRecovery';
import type { TestNode } from '../harness/engine/harness';
import { mediaGen } from '../harness/engine/harness';
import { SavedExecutions } from '../harness/engine/savedExecutions';
import type { Edge } from '../harness/engine/shapes';
import {
	executeWorkflow,
	inOrder,
	items,
	loop,
	shape,
	slow,
	subTrigger,
	wait,
} from '../harness/engine/shapes';
import { fastJobs, useSandbox } from '../harness/engine/setup';

const { sb, creds } = useSandbox({ timeScale: 0.01 });
fastJobs();

const ARTIFICIAL = { main: [[{ json: { isArtificialRecoveredEventItem: true } }]] };
const generation = (durationMs = 300) =>
	mediaGen('MediaGen', {
		resource: 'generation',
		operation: 'create',
		modelId: 'flux-pro',
		tool: 'image',
		prompt: 'a lighthouse in fog',
		additionalFields: { params: JSON.stringify({ sandbox: { durationMs } }) },
	});
/** Slow for 30 s in the execution that is killed, at once in a retry. */
const SLOW = slow('Slow', 30_000, 0);
const TWO = [{ row: 1 }, { row: 2 }];

const runs = (data: IRunExecutionData | undefined, node: string): ITaskData[] =>
	data?.resultData.runData[node] ?? [];
const statuses = (data: IRunExecutionData | undefined, node: string) =>
	runs(data, node).map((t) => t.executionStatus);
const eventList = (x: CrashedExecution) =>
	x.events.map((e) => `${e.eventName.slice(9)} ${e.payload.nodeName}`);
const generations = async () =>
	(await client(sb, sb.keys.pro)('GET', '/generations?status=all&limit=100')).body
		.data as IDataObject[];

async function crash(
	nodes: TestNode[],
	edges: Edge[],
	killAt: KillPoint,
	extra: { progress?: boolean; n8nMajor?: 1 | 2 } = {},
) {
	const saved = new SavedExecutions();
	const settings = extra.progress ? { saveExecutionProgress: true } : {};
	const workflow = shape({ nodes, edges, settings });
	const x = await crashExecution(workflow, {
		credentials: creds(),
		saved,
		sandbox: sb,
		killAt,
		n8nMajor: extra.n8nMajor,
	});
	return { x, saved, workflow };
}

describe('a kill in a node after the MediaGen node', () => {
	const nodes = () => [items('Items', TWO), generation(), SLOW];
	const edges = inOrder('Items', 'MediaGen', 'Slow');

	test('progress off: the data as created; amend: artificial successes, the crashed Slow; Retry runs MediaGen at run index 1', async () => {
		const { x, saved } = await crash(nodes(), edges, { nodeStarted: 'Slow' });
		expect(eventList(x)).toEqual([
			'started Items',
			'finished Items',
			'started MediaGen',
			'finished MediaGen',
			'started Slow',
		]);
		const atStart = saved.atStart(x.executionId)!;
		expect(typeof atStart.resumeToken).toBe('string');
		expect(atStart.executionData?.runtimeData?.establishedAt).toEqual(expect.any(Number));
		expect(saved.get(x.executionId)).toEqual(atStart); // nothing saved while it ran
		expect(saved.record(x.executionId)?.status).toBe('running');

		expect(restart(x)).toEqual([x.executionId]);
		const amended = saved.get(x.executionId)!;
		const at = (i: number) => x.events[i].ts;
		for (const [node, started, finished] of [
			['Items', 0, 1],
			['MediaGen', 2, 3],
		] as const) {
			expect(runs(amended, node)).toEqual([
				{
					startTime: Math.floor(at(started) / 1000),
					executionIndex: 0,
					executionTime: at(finished) - at(started),
					source: [null],
					executionStatus: 'success',
					data: ARTIFICIAL,
				},
			]);
		}
		expect(runs(amended, 'Slow')).toEqual([
			expect.objectContaining({
				startTime: Math.floor(at(4) / 1000),
				executionTime: 0,
				executionStatus: 'crashed',
				error: expect.objectContaining({
					name: 'NodeCrashedError',
					message: 'Execution stopped at this node',
				}),
			}),
		]);
		expect(amended.resultData.lastNodeExecuted).toBe('Slow');
		expect(amended.resultData.error).toMatchObject({ name: 'WorkflowCrashedError' });
		expect(saved.record(x.executionId)?.status).toBe('crashed');

		const r = await retry(saved, x.executionId, { credentials: creds(), executionId: 'r-1' });
		expect(r.error).toBeUndefined();
		expect(saved.record('r-1')).toMatchObject({ mode: 'retry', retryOf: x.executionId });
		const created = saved.atStart('r-1')!;
		expect(statuses(created, 'MediaGen')).toEqual(['success']);
		expect(runs(created, 'Slow')).toEqual([]); // the crashed run popped
		expect(created.resultData.error).toBeUndefined();
		const after = r.run.data;
		expect(runs(after, 'Items')).toHaveLength(2);
		expect(runs(after, 'MediaGen')).toHaveLength(2); // run index 1: the node ran again
		expect(runs(after, 'MediaGen')[1].data?.main[0]).toHaveLength(2);
		expect(statuses(after, 'Slow')).toEqual(['success']);
	});

	test('progress on: the runs saved after each node stay; the retry starts at Slow, MediaGen does not run again', async () => {
		const { x, saved } = await crash(nodes(), edges, { nodeStarted: 'Slow' }, { progress: true });
		const before = saved.get(x.executionId)!;
		expect(statuses(before, 'MediaGen')).toEqual(['success']);
		expect(runs(before, 'MediaGen')[0].data?.main[0]).toHaveLength(2);
		expect(before.resultData.lastNodeExecuted).toBe('MediaGen');
		expect(before.executionData?.nodeExecutionStack.map((s) => s.node.name)).toEqual(['Slow']);

		restart(x);
		const amended = saved.get(x.executionId)!;
		expect(runs(amended, 'MediaGen')).toEqual(runs(before, 'MediaGen'));
		expect(statuses(amended, 'Slow')).toEqual(['crashed']);
		expect(amended.resultData.lastNodeExecuted).toBe('Slow');

		const r = await retry(saved, x.executionId, { credentials: creds() });
		expect(r.error).toBeUndefined();
		expect(runs(r.run.data, 'Items')).toHaveLength(1);
		expect(runs(r.run.data, 'MediaGen')).toHaveLength(1);
		expect(statuses(r.run.data, 'Slow')).toEqual(['success']);
	});

	test('n8n 1.x saves: no resumeToken, no execution context; its progress save adds each run', async () => {
		const { x, saved } = await crash(
			nodes(),
			edges,
			{ nodeStarted: 'Slow' },
			{ progress: true, n8nMajor: 1 },
		);
		for (const data of [saved.atStart(x.executionId)!, saved.get(x.executionId)!]) {
			expect(data.resumeToken).toBeUndefined();
			expect(data.executionData?.runtimeData).toBeUndefined();
		}
		const before = saved.get(x.executionId)!;
		expect(statuses(before, 'Items')).toEqual(['success']);
		expect(statuses(before, 'MediaGen')).toEqual(['success']);
		expect(before.executionData?.nodeExecutionStack.map((s) => s.node.name)).toEqual(['Slow']);
		restart(x);
		const r = await retry(saved, x.executionId, { credentials: creds(), n8nMajor: 1 });
		expect(r.error).toBeUndefined();
		expect(runs(r.run.data, 'MediaGen')).toHaveLength(1);
	});
});

test("the nodes array's order decides lastNodeExecuted: Items last in it, the crashed Slow's run is not popped", async () => {
	const nodes = [generation(), SLOW, items('Items', TWO)];
	const { x, saved } = await crash(nodes, inOrder('Items', 'MediaGen', 'Slow'), {
		nodeStarted: 'Slow',
	});
	restart(x);
	const amended = saved.get(x.executionId)!;
	expect(amended.resultData.lastNodeExecuted).toBe('Items');
	expect(statuses(amended, 'Slow')).toEqual(['crashed']);
	const r = await retry(saved, x.executionId, { credentials: creds() });
	expect(r.error).toBeUndefined();
	expect(statuses(r.run.data, 'Slow')).toEqual(['crashed', 'success']);
	expect(runs(r.run.data, 'MediaGen')).toHaveLength(2);
});

test('killed while the MediaGen node waits (its jobs held): MediaGen crashed and last, its run popped; the retry runs it at run index 0', async () => {
	sb.control.holdJobs();
	const { x, saved } = await crash(
		[items('Items', TWO), generation()],
		inOrder('Items', 'MediaGen'),
		{
			answered: 2,
			path: '/generations$',
			method: 'POST',
		},
	);
	sb.control.releaseJobs();
	expect(eventList(x)).toEqual(['started Items', 'finished Items', 'started MediaGen']);
	restart(x);
	const amended = saved.get(x.executionId)!;
	expect(amended.resultData.lastNodeExecuted).toBe('MediaGen');
	expect(statuses(amended, 'MediaGen')).toEqual(['crashed']);
	const r = await retry(saved, x.executionId, { credentials: creds() });
	expect(r.error).toBeUndefined();
	// progress off: the saved stack is the start node, which runs again at run index 1; MediaGen's
	// crashed run was popped, so it runs at run index 0
	expect(statuses(r.run.data, 'Items')).toEqual(['success', 'success']);
	expect(statuses(r.run.data, 'MediaGen')).toEqual(['success']);
});

test('killed while a create is in flight (made at the sandbox, its answer held): 2 jobs exist, the node had 1 answer', async () => {
	const three = [{ row: 1 }, { row: 2 }, { row: 3 }];
	const { x, saved } = await crash(
		[items('Items', three), generation()],
		inOrder('Items', 'MediaGen'),
		{
			held: { path: '/generations$', method: 'POST', skip: 1 },
		},
	);
	expect(await generations()).toHaveLength(2);
	expect(sb.control.requests({ method: 'POST', path: '/generations$' })).toHaveLength(1);
	expect(sb.control.faults()).toEqual([]); // the harness's delay fault is gone
	expect(eventList(x).at(-1)).toBe('started MediaGen');
	expect(saved.get(x.executionId)).toEqual(saved.atStart(x.executionId));
});

describe('MediaGen inside Loop Over Items, killed in the 3rd iteration', () => {
	const nodes = () => [
		items('Items', [{ row: 1 }, { row: 2 }, { row: 3 }]),
		loop('Loop'),
		generation(),
		SLOW,
	];
	const edges: Edge[] = [
		['Items', 'Loop'],
		['Loop', 'MediaGen', 1],
		['MediaGen', 'Loop'],
		['Loop', 'Slow', 0],
	];

	test('progress off: one artificial run each (the first messages), no crashed run; the retry runs the loop again from the start', async () => {
		const { x, saved } = await crash(nodes(), edges, { nodeStarted: 'MediaGen', run: 3 });
		expect(eventList(x).filter((e) => e === 'finished MediaGen')).toHaveLength(2);
		restart(x);
		const amended = saved.get(x.executionId)!;
		expect(runs(amended, 'Loop')).toEqual([expect.objectContaining({ data: ARTIFICIAL })]);
		expect(runs(amended, 'MediaGen')).toEqual([
			expect.objectContaining({ executionStatus: 'success', data: ARTIFICIAL }),
		]);
		expect(amended.resultData.error).toBeUndefined();
		expect(amended.resultData.lastNodeExecuted).toBe('MediaGen'); // last started in array order
		const r = await retry(saved, x.executionId, { credentials: creds() });
		expect(r.error).toBeUndefined();
		expect(runs(r.run.data, 'MediaGen')).toHaveLength(4); // run indexes 1, 2, 3
		expect(runs(r.run.data, 'Loop')).toHaveLength(5);
	});

	test('progress on: the runs and the loop node context saved; the retry runs the 3rd iteration (run index 2) and ends the loop', async () => {
		const { x, saved } = await crash(
			nodes(),
			edges,
			{ nodeStarted: 'MediaGen', run: 3 },
			{ progress: true },
		);
		const before = saved.get(x.executionId)!;
		expect(runs(before, 'MediaGen')).toHaveLength(2);
		expect(before.executionData?.contextData['node:Loop']).toMatchObject({ currentRunIndex: 2 });
		restart(x);
		expect(runs(saved.get(x.executionId), 'MediaGen')).toEqual(runs(before, 'MediaGen'));
		const r = await retry(saved, x.executionId, { credentials: creds() });
		expect(r.error).toBeUndefined();
		expect(runs(r.run.data, 'MediaGen')).toHaveLength(3);
		expect(runs(r.run.data, 'Slow')[0].data?.main[0]).toHaveLength(3);
	});
});

test('a retry that crashes again, then Retry: the popped Slow ([]) is not amended, nothing is popped, MediaGen runs at run index 1', async () => {
	const slowUnlessR2 = slow('Slow', "={{ $execution.id === 'r-2' ? 0 : 30000 }}");
	const nodes = [items('Items', TWO), generation(), slowUnlessR2];
	const { x, saved } = await crash(nodes, inOrder('Items', 'MediaGen', 'Slow'), {
		nodeStarted: 'Slow',
	});
	restart(x);
	const options = { credentials: creds(), sandbox: sb, executionId: 'r-1' };
	const x2 = await crashRetry(saved, x.executionId, {
		...options,
		killAt: { nodeStarted: 'Slow' },
	});
	expect(saved.atStart('r-1')?.resultData.runData.Slow).toEqual([]);
	expect(eventList(x2)).toEqual(eventList(x));
	expect(restart(x2)).toEqual(['r-1']); // the first one is crashed already
	const amended = saved.get('r-1')!;
	expect(runs(amended, 'Slow')).toEqual([]);
	expect(amended.resultData.error).toBeUndefined();
	expect(amended.resultData.lastNodeExecuted).toBe('Slow');
	const r = await retry(saved, 'r-1', { credentials: creds(), executionId: 'r-2' });
	expect(r.error).toBeUndefined();
	expect(saved.record('r-2')?.retryOf).toBe('r-1');
	expect(runs(r.run.data, 'MediaGen')).toHaveLength(2);
	expect(statuses(r.run.data, 'Slow')).toEqual(['success']);
});

test('a failed execution (402 at the second item), then Retry from the store: only the errored run is popped', async () => {
	sb.control.setCredits('main', 4);
	const saved = new SavedExecutions();
	const workflow = shape({
		nodes: [items('Items', TWO), generation(), SLOW],
		edges: inOrder('Items', 'MediaGen', 'Slow'),
	});
	const failed = await crashExecution(workflow, {
		credentials: creds(),
		saved,
		sandbox: sb,
		killAt: { afterMs: 60_000 },
	}).catch((e: Error) => e);
	expect(String(failed)).toMatch(/ended \(error\) before the kill point/);
	const [id] = saved.executions().map((e) => e.id);
	expect(saved.record(id)?.status).toBe('error');
	expect(statuses(saved.get(id), 'MediaGen')).toEqual(['error']);
	sb.control.setCredits('main', 100);
	const r = await retry(saved, id, { credentials: creds() });
	expect(r.error).toBeUndefined();
	expect(statuses(r.run.data, 'Items')).toEqual(['success']);
	expect(statuses(r.run.data, 'MediaGen')).toEqual(['success']);
});

test("Retry with the currently saved workflow: the stack gets the Workflow's nodes, with the defaults n8n does not save", () => {
	// ExecutionService.retry builds a Workflow of the current workflow before it takes its nodes
	// into the stack; a node saved with a parameter left at its default runs with that default
	const saved = new SavedExecutions();
	const ran = shape({
		nodes: [items('Items', TWO), wait('Wait', 0.3)],
		edges: inOrder('Items', 'Wait'),
	});
	const data = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [{ node: ran.nodes[1], data: { main: [[{ json: {} }]] }, source: null }],
		},
	});
	saved.save('w-1', data, { mode: 'manual', workflowData: ran, status: 'error', createdAt: 0 });
	const current = shape({
		nodes: [
			items('Items', TWO),
			// as n8n saves it: only the parameter that is not at its default
			{ ...wait('Wait', 2), parameters: { amount: 2 } },
		],
		edges: inOrder('Items', 'Wait'),
	});
	const { start } = prepareRetry(saved, 'w-1', { loadWorkflow: true, currentWorkflow: current });
	expect(start.data.executionData?.nodeExecutionStack[0].node.parameters).toEqual({
		resume: 'timeInterval',
		amount: 2,
		unit: 'seconds',
	});
});

describe('Execute Workflow: MediaGen in a sub-workflow', () => {
	const sub = shape({
		id: 'wf-sub',
		nodes: [subTrigger('Start'), generation()],
		edges: inOrder('Start', 'MediaGen'),
	});
	const parent = () =>
		shape({
			id: 'wf-parent',
			nodes: [items('Items', TWO), executeWorkflow('Call', 'wf-sub'), SLOW],
			edges: inOrder('Items', 'Call', 'Slow'),
		});
	const run = (killAt: KillPoint) => {
		const saved = new SavedExecutions();
		const options = { credentials: creds(), saved, sandbox: sb, workflows: [sub], killAt };
		return crashExecution(parent(), options).then((x) => ({ x, saved }));
	};

	test('killed in the parent after the call: the sub-execution was saved as n8n creates it; the retry calls it again (a new sub-execution)', async () => {
		const { x, saved } = await run({ nodeStarted: 'Slow' });
		const [main, child] = saved.executions();
		expect(main.id).toBe(x.executionId);
		expect(child).toMatchObject({
			mode: 'integrated',
			parentExecutionId: x.executionId,
			status: 'success',
		});
		const created = saved.atStart(child.id)!;
		const parentExecution = { executionId: x.executionId, workflowId: 'wf-parent' };
		// n8n-core's executeWorkflow adds the caller's execution context to it
		expect(created.parentExecution).toMatchObject(parentExecution);
		expect(created.executionData?.nodeExecutionStack[0].metadata).toEqual({
			parentExecution: created.parentExecution,
		});
		expect(created.executionData?.runtimeData).toBeUndefined(); // established when it runs
		expect(restart(x)).toEqual([x.executionId]);
		expect(statuses(saved.get(x.executionId), 'Call')).toEqual(['success']);
		// n8n numbers executions in the order it creates them (the sub-execution tells its call by them)
		const r = await retry(saved, x.executionId, { credentials: creds(), workflows: [sub] });
		expect(r.error).toBeUndefined();
		expect(runs(r.run.data, 'Call')).toHaveLength(2);
		const subs = saved.executions().filter((e) => e.mode === 'integrated');
		expect(subs.map((e) => e.parentExecutionId)).toEqual([x.executionId, r.executionId]);
		expect(subs.map((e) => Number(e.id))).toEqual([2, 4]);
	});

	test("killed while the sub-workflow's MediaGen waits: both executions recovered, each with its own crashed node", async () => {
		sb.control.holdJobs();
		const { x, saved } = await run({ answered: 2, path: '/generations$', method: 'POST' });
		sb.control.releaseJobs();
		const ids = saved.executions().map((e) => e.id);
		expect(restart(x)).toEqual(ids);
		expect(statuses(saved.get(ids[0]), 'Call')).toEqual(['crashed']);
		expect(statuses(saved.get(ids[1]), 'MediaGen')).toEqual(['crashed']);
		expect(statuses(saved.get(ids[1]), 'Start')).toEqual(['success']);
		const r = await retry(saved, x.executionId, { credentials: creds(), workflows: [sub] });
		expect(r.error).toBeUndefined();
		expect(statuses(r.run.data, 'Call')).toEqual(['success']);
		expect(saved.executions().map((e) => e.mode)).toEqual([
			'manual',
			'integrated',
			'retry',
			'integrated',
		]);
	});
});
