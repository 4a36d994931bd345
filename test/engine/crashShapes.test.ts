/**
 * n8n dies in every workflow shape (issue #29), then the Executions list's Retry: no job started
 * twice, nothing charged twice, every paid result with its own item. The execution runs in a
 * child process killed with SIGKILL (crashHarness.ts); n8n's start-up recovery and Retry are the
 * ports of ExecutionRecoveryService.amend and ExecutionService.retry. Shapes: n8n killed in a
 * node after the MediaGen node (also the two-step long-jobs pattern), a started node after the
 * MediaGen node in the `nodes` array, MediaGen inside Loop Over Items killed in a later iteration,
 * MediaGen in a sub-workflow (Execute Workflow); each with Save Execution Progress off (n8n's
 * default) and on, with what n8n 2.x and 1.x save.
 */
import type { IDataObject, INodeParameters, ITaskData } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { client } from '../harness/sandbox/helpers';
import type { KillPoint } from '../harness/engine/crashHarness';
import { crashExecution, restart, retry } from '../harness/engine/crashHarness';
import type { TestNode } from '../harness/engine/harness';
import { mediaGen, startWorkflow } from '../harness/engine/harness';
import { SavedExecutions } from '../harness/engine/savedExecutions';
import type { Edge } from '../harness/engine/shapes';
import { arrange, executeWorkflow, inOrder, items, loop, shape, slow, subTrigger } from '../harness/engine/shapes';
import { ACTION_NODES } from '../harness/actionNodes';
import { fastJobs, newEdit, nodeFactory, rl, useSandbox } from '../harness/engine/setup';

const { sb, creds } = useSandbox({ timeScale: 0.01 });
fastJobs();

const COST = 4;
const api = () => client(sb, sb.keys.pro);
const creates = () => sb.control.requests({ method: 'POST', path: '/generations$' });
const balance = () => sb.control.credits('main').balance;
const allGenerations = async () =>
	(await api()('GET', '/generations?status=all&limit=100')).body.data as IDataObject[];

/** Generation → Create for each item, its prompt naming the item's row. */
const create = (name = 'MediaGen', extra: INodeParameters = {}, durationMs = 300): TestNode =>
	mediaGen(
		name,
		{
			resource: 'generation',
			operation: 'create',
			modelId: 'flux-pro',
			tool: 'image',
			prompt: '={{ "row " + $json.row }}',
			additionalFields: { params: JSON.stringify({ sandbox: { durationMs } }) },
			...extra,
		},
		{ typeVersion: 2 },
	);
const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ row: i + 1 }));
/** Slow for 30 s in the execution that is killed, at once in a retry. */
const SLOW = slow('Slow', 30_000, 0);

const outputs = (runs: ITaskData[] | undefined) =>
	(runs ?? []).map((r) => (r.data?.main?.[0] ?? []).map((i) => i.json as IDataObject));
const settingsOf = (progress: boolean) => (progress ? { saveExecutionProgress: true } : {});

/**
 * Runs `nodes` (array order as given), kills n8n at `killAt`, restarts it (recovery) and retries
 * the execution; returns the retry and the creates and credits before and in it.
 */
async function crashAndRetry(
	spec: { nodes: TestNode[]; edges: Edge[]; progress: boolean; n8nMajor: 1 | 2 },
	killAt: KillPoint,
	workflows: ReturnType<typeof shape>[] = [],
	hold = false,
) {
	const saved = new SavedExecutions();
	// held jobs stay queued at MediaGen while n8n dies (released before the retry)
	if (hold) sb.control.holdJobs();
	const workflow = shape({
		nodes: spec.nodes,
		edges: spec.edges,
		settings: settingsOf(spec.progress),
	});
	const before = balance();
	const x = await crashExecution(workflow, {
		credentials: creds(),
		saved,
		sandbox: sb,
		killAt,
		n8nMajor: spec.n8nMajor,
		workflows,
	});
	if (hold) sb.control.releaseJobs();
	const createsBefore = creates().length;
	restart(x);
	sb.control.clearRequests();
	const r = await retry(saved, x.executionId, {
		credentials: creds(),
		workflows,
		n8nMajor: spec.n8nMajor,
	});
	return { r, x, saved, before, createsBefore, createsInRetry: creates().length };
}

/** A node's output of its last run (the retry's, after runs n8n's recovery made up). */
const lastOut = (
	r: { run: { data: { resultData: { runData: Record<string, ITaskData[]> } } } },
	node: string,
) => outputs(r.run.data.resultData.runData[node]).at(-1) ?? [];

/** Every generation at the sandbox completed, and what it charged. */
async function settled(expected: number) {
	for (let i = 0; i < 200; i++) {
		const all = await allGenerations();
		if (all.length === expected && all.every((g) => g.status === 'completed')) return all;
		await sleep(50);
	}
	return await allGenerations();
}

const cases = [
	{ n8nMajor: 2, progress: false },
	{ n8nMajor: 2, progress: true },
	{ n8nMajor: 1, progress: false },
	{ n8nMajor: 1, progress: true },
] as const;
const label = (c: (typeof cases)[number]) =>
	`n8n ${c.n8nMajor}.x, progress ${c.progress ? 'on' : 'off'}`;

describe.each(cases.map((c) => [label(c), c] as const))('%s', (_, c) => {
	test('killed in a node after the MediaGen node: the retry creates nothing, outputs the paid jobs, each with its item', async () => {
		const { r, before, createsBefore, createsInRetry } = await crashAndRetry(
			{
				nodes: [items('Items', rows(3)), create(), SLOW],
				edges: inOrder('Items', 'MediaGen', 'Slow'),
				...c,
			},
			{ nodeStarted: 'Slow' },
		);
		expect(r.error).toBeUndefined();
		expect(createsBefore).toBe(3);
		expect(createsInRetry).toBe(0);
		const made = await settled(3);
		const slowIn = lastOut(r, 'Slow');
		expect(slowIn.map((o) => o.prompt)).toEqual(['row 1', 'row 2', 'row 3']);
		expect(new Set(slowIn.map((o) => o.id))).toEqual(new Set(made.map((g) => g.id)));
		expect(before - balance()).toBe(3 * COST);
	});

	test('the two-step long-jobs pattern (Create with Wait off, then Generation → Wait), killed during the Wait: nothing created again', async () => {
		const { r, before, createsBefore, createsInRetry } = await crashAndRetry(
			{
				nodes: [
					items('Items', rows(3)),
					create('Start', { waitForCompletion: false }, 3000),
					mediaGen(
						'Wait',
						{ resource: 'generation', operation: 'wait', generationId: rl('={{ $json.id }}') },
						{ typeVersion: 2 },
					),
				],
				edges: inOrder('Items', 'Start', 'Wait'),
				...c,
			},
			{ nodeStarted: 'Wait', afterMs: 200 },
			[],
			true,
		);
		expect(r.error).toBeUndefined();
		expect(createsBefore).toBe(3);
		expect(createsInRetry).toBe(0);
		expect(r.json('Wait').map((o) => [o.prompt, o.status])).toEqual([
			['row 1', 'completed'],
			['row 2', 'completed'],
			['row 3', 'completed'],
		]);
		await settled(3);
		expect(before - balance()).toBe(3 * COST);
	});

	test('killed while the MediaGen node waits, another started node after it in the nodes array: nothing created again', async () => {
		const { r, before, createsBefore, createsInRetry } = await crashAndRetry(
			{
				// Prep runs before MediaGen but stands after it in the array (added to the canvas later)
				nodes: [items('Items', rows(3)), create(), slow('Prep', 0)],
				edges: inOrder('Items', 'Prep', 'MediaGen'),
				...c,
			},
			{ answered: 3, path: '/generations$', method: 'POST' },
			[],
			true,
		);
		expect(r.error).toBeUndefined();
		expect(createsBefore).toBe(3);
		expect(createsInRetry).toBe(0);
		const out = lastOut(r, 'MediaGen');
		expect(out.map((o) => [o.prompt, o.status])).toEqual([
			['row 1', 'completed'],
			['row 2', 'completed'],
			['row 3', 'completed'],
		]);
		await settled(3);
		expect(before - balance()).toBe(3 * COST);
	});

	test('MediaGen inside Loop Over Items, killed in the 3rd of 4 iterations: iterations 1–2 (and 3’s create) not created again, each iteration with its own image', async () => {
		const { r, before, createsBefore, createsInRetry } = await crashAndRetry(
			{
				nodes: [items('Items', rows(4)), loop('Loop'), create(), SLOW],
				edges: [
					['Items', 'Loop'],
					['Loop', 'MediaGen', 1],
					['MediaGen', 'Loop'],
					['Loop', 'Slow', 0],
				],
				...c,
			},
			{ answered: 3, path: '/generations$', method: 'POST' },
		);
		expect(r.error).toBeUndefined();
		expect(createsBefore).toBe(3);
		expect(createsInRetry).toBe(1); // the 4th iteration only
		const made = await settled(4);
		expect(lastOut(r, 'Slow').map((o) => o.prompt)).toEqual(['row 1', 'row 2', 'row 3', 'row 4']);
		expect(new Set(lastOut(r, 'Slow').map((o) => o.id))).toEqual(new Set(made.map((g) => g.id)));
		for (const g of made) expect(String(g.prompt)).toMatch(/^row \d$/);
		expect(before - balance()).toBe(4 * COST);
	});
});

describe('the nodes array in another order', () => {
	test('MediaGen first in the array (a trigger added later stands after it), killed in the node after it', async () => {
		const nodes = [items('Items', rows(2)), create(), SLOW];
		const { r, createsInRetry } = await crashAndRetry(
			{
				nodes: arrange(shape({ nodes, edges: inOrder('Items', 'MediaGen', 'Slow') }), [
					'MediaGen',
					'Slow',
					'Items',
				]).nodes.map((n) => nodes.find((t) => t.name === n.name)!),
				edges: inOrder('Items', 'MediaGen', 'Slow'),
				progress: false,
				n8nMajor: 2,
			},
			{ nodeStarted: 'Slow' },
		);
		expect(r.error).toBeUndefined();
		expect(createsInRetry).toBe(0);
		expect(lastOut(r, 'Slow').map((o) => o.prompt)).toEqual(['row 1', 'row 2']);
	});
});

describe('Execute Workflow: MediaGen in a sub-workflow, the parent retried', () => {
	const sub = shape({
		id: 'wf-sub',
		nodes: [subTrigger('Start'), create()],
		edges: inOrder('Start', 'MediaGen'),
	});
	const parent = (progress: boolean) => ({
		nodes: [items('Items', rows(2)), executeWorkflow('Call', 'wf-sub'), SLOW],
		edges: inOrder('Items', 'Call', 'Slow'),
		progress,
		n8nMajor: 2 as const,
	});

	test.each([false, true])(
		'killed in the parent after the call (progress %s): the new sub-execution creates nothing',
		async (progress) => {
			const { r, before, createsBefore, createsInRetry } = await crashAndRetry(
				parent(progress),
				{ nodeStarted: 'Slow' },
				[sub],
			);
			expect(r.error).toBeUndefined();
			expect(createsBefore).toBe(2);
			expect(createsInRetry).toBe(0);
			await settled(2);
			expect(lastOut(r, 'Slow').map((o) => o.prompt)).toEqual(['row 1', 'row 2']);
			expect(before - balance()).toBe(2 * COST);
		},
	);

	test('killed while the sub-workflow’s MediaGen waits: nothing created again', async () => {
		const { r, before, createsInRetry } = await crashAndRetry(
			parent(false),
			{ answered: 2, path: '/generations$', method: 'POST' },
			[sub],
			true,
		);
		expect(r.error).toBeUndefined();
		expect(createsInRetry).toBe(0);
		await settled(2);
		expect(lastOut(r, 'Slow').map((o) => o.prompt)).toEqual(['row 1', 'row 2']);
		expect(before - balance()).toBe(2 * COST);
	});

	test('called once for each item, two items alike: two runs, two jobs (the pairing of the items tells them apart)', async () => {
		const saved = new SavedExecutions();
		const workflow = shape({
			id: 'wf-parent-each',
			nodes: [items('Items', [{ row: 1 }, { row: 1 }]), executeWorkflow('Call', 'wf-sub', 'each')],
			edges: inOrder('Items', 'Call'),
		});
		const r = await startWorkflow(workflow, { credentials: creds(), saved, workflows: [sub] }).done;
		expect(r.error).toBeUndefined();
		expect(creates()).toHaveLength(2);
		const made = await settled(2);
		expect(new Set(made.map((g) => g.id)).size).toBe(2);
	});
});

describe('job kinds found by their record, and charged calls, in a loop and before another node', () => {
	const loopOver = (node: TestNode, list: IDataObject[]) => ({
		nodes: [items('Items', list), loop('Loop'), node, SLOW],
		edges: [
			['Items', 'Loop'],
			['Loop', node.name, 1],
			[node.name, 'Loop'],
			['Loop', 'Slow', 0],
		] as Edge[],
		progress: false,
		n8nMajor: 2 as const,
	});
	const posts = (path: string) => sb.control.requests({ method: 'POST', path }).length;
	const canvas = nodeFactory(ACTION_NODES.mediaGenCanvas);
	const editor = nodeFactory(ACTION_NODES.mediaGenEditor);
	const canvasStart = (workflowId: string): TestNode =>
		canvas(
			'Canvas',
			{ resource: 'run', operation: 'start', canvasWorkflowId: rl(workflowId) },
			{ typeVersion: 2 },
		);
	const captions = (editId: string): TestNode =>
		editor(
			'Editor',
			{ resource: 'edit', operation: 'createCaptions', editId: rl(editId) },
			{ typeVersion: 2 },
		);
	const captionTasks = async (edit: string) =>
		((await api()('GET', `/edits/${edit}`)).body.aiTasks as IDataObject[]).filter(
			(t) => t.type === 'captions',
		);

	test('Canvas Run → Start of one canvas workflow in each of 3 loop iterations, killed after the 2nd run started: each iteration its own run, 1 started in the retry', async () => {
		const wf = String(
			(await api()('POST', '/canvas', { name: 'Poster', templateId: 'text-to-image' })).body.id,
		);
		const { r, before, createsBefore } = await crashAndRetry(loopOver(canvasStart(wf), rows(3)), {
			answered: 2,
			path: '/runs$',
			method: 'POST',
		});
		expect(createsBefore).toBe(0); // no generation: canvas runs
		expect(r.error).toBeUndefined();
		expect(posts('/runs$')).toBe(1);
		const runs = (await api()('GET', `/canvas/${wf}/runs`)).body.data as IDataObject[];
		expect(runs).toHaveLength(3);
		const out = (r.run.data.resultData.runData.Canvas ?? [])
			.slice(1)
			.map((t) => String((t.data?.main?.[0]?.[0]?.json as IDataObject).id));
		expect(new Set(out)).toEqual(new Set(runs.map((x) => String(x.id))));
		const estimate = (await api()('POST', `/canvas/${wf}/estimate`)).body.credits as number;
		expect(before - balance()).toBe(3 * estimate);
	});

	test('Create Captions of one edit in each of 3 loop iterations, killed after the 2nd was charged: each iteration its own task, 1 charged in the retry', async () => {
		const edit = await newEdit(sb);
		const { r, before } = await crashAndRetry(loopOver(captions(edit), rows(3)), {
			answered: 2,
			path: '/captions$',
			method: 'POST',
		});
		expect(r.error).toBeUndefined();
		expect(posts('/captions$')).toBe(1);
		expect(await captionTasks(edit)).toHaveLength(3);
		expect(before - balance()).toBe(3 * 2); // 2 credits for a clip of up to a minute
	});

	test('Create Captions with a node after it, killed in that node: nothing charged again', async () => {
		const edits = [await newEdit(sb), await newEdit(sb)];
		const node = captions('={{ $json.edit }}');
		const { r, before } = await crashAndRetry(
			{
				nodes: [
					items(
						'Items',
						edits.map((edit) => ({ edit })),
					),
					node,
					SLOW,
				],
				edges: inOrder('Items', 'Editor', 'Slow'),
				progress: false,
				n8nMajor: 2,
			},
			{ nodeStarted: 'Slow' },
		);
		expect(r.error).toBeUndefined();
		expect(posts('/captions$')).toBe(0);
		expect(lastOut(r, 'Slow').map((o) => o.id)).toEqual(edits);
		for (const edit of edits) expect(await captionTasks(edit)).toHaveLength(1);
		expect(before - balance()).toBe(2 * 2);
	});
});
