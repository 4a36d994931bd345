/**
 * Durable runs (issue #24): n8n's Retry of an execution whose process died while a MediaGen node
 * ran (its node context lost, only what n8n had saved left) starts no job the dead run started,
 * waits for those jobs and outputs them, and sends once what was never sent. In n8n-core's engine
 * against the sandbox, with n8n's saved data as n8n 2.x and 1.x keep it (harness.retryCrashed
 * follows packages/cli's ExecutionRecoveryService and ExecutionService.retry). Also the rules of
 * the run's identity, Generation → Wait and Generation → Collect.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { MediaGenAds } from '../../nodes/MediaGenAds/MediaGenAds.node';
import { MediaGenCanvas } from '../../nodes/MediaGenCanvas/MediaGenCanvas.node';
import { MediaGenCinema } from '../../nodes/MediaGenCinema/MediaGenCinema.node';
import { MediaGenEditor } from '../../nodes/MediaGenEditor/MediaGenEditor.node';
import { client, until } from '../harness/sandbox/helpers';
import type { RunResult, TestNode } from '../harness/engine/harness';
import { chain, mediaGen, retryCrashed, runWorkflow, SavedExecutions } from '../harness/engine/harness';
import { fastJobs, generationCreate, nodeFactory, rl, useSandbox } from '../harness/engine/setup';

const { sb, creds } = useSandbox({ timeScale: 0.01 });
fastJobs();
const ads = nodeFactory(new MediaGenAds());
const canvas = nodeFactory(new MediaGenCanvas());
const cinema = nodeFactory(new MediaGenCinema());
const editor = nodeFactory(new MediaGenEditor());

const api = () => client(sb, sb.keys.pro);
const balance = () => sb.control.credits('main').balance;
const creates = () => sb.control.requests({ method: 'POST', path: '/generations$' });
const completedCount = async () =>
	(await api()('GET', '/generations?status=completed&limit=100')).body.data.length as number;

const generation = (extra: INodeParameters = {}, durationMs = 300) =>
	generationCreate(extra, durationMs);
const COST = 4;

/** Runs `workflow` as execution `id`, saved in `saved`: the run n8n will lose. */
async function dies(workflow: ReturnType<typeof chain>, id: string, saved: SavedExecutions) {
	const startedAt = Date.now();
	const r = await runWorkflow(workflow, { credentials: creds(), executionId: id, saved });
	return { executionId: id, startedAt, result: r };
}

const ids = (r: RunResult, node: string) => r.json(node).map((o) => String(o.id));

/** n8n's Retry of crashed execution `x` (its `node` died while running), as execution `id`. */
const retry = (
	workflow: ReturnType<typeof chain>,
	x: { executionId: string; startedAt: number },
	node: string,
	id: string,
	saved: SavedExecutions,
	n8nMajor: 1 | 2 = 2,
) =>
	retryCrashed(workflow, x, ['Items'], node, {
		credentials: creds(),
		executionId: id,
		saved,
		n8nMajor,
	});

describe.each([2, 1] as const)(
	'n8n %i.x: Retry of a crashed execution (Generation → Create)',
	(major) => {
		test('items 1–2 started, 3–4 not: the retry waits for 1–2 (same ids) and creates 3–4 once; charged once per item', async () => {
			const saved = new SavedExecutions();
			sb.control.setCredits('main', 2 * COST);
			const workflow = chain([{}, {}, {}, {}], [mediaGen('MediaGen', generation())]);
			const x = await dies(workflow, `x-${major}-1`, saved);
			expect(x.result.error?.message).toMatch(/^Not enough credits/);
			await until(async () => (await completedCount()) === 2);

			sb.control.setCredits('main', 10 * COST);
			sb.control.clearRequests();
			const r = await retry(workflow, x, 'MediaGen', `r-${major}-1`, saved, major);
			expect(r.error).toBeUndefined();
			const out = r.json('MediaGen');
			expect(out.map((o) => o.status)).toEqual([
				'completed',
				'completed',
				'completed',
				'completed',
			]);
			expect(creates()).toHaveLength(2); // items 3 and 4, once each
			expect(out.slice(0, 2).map((o) => (o.context as IDataObject).n8n)).toEqual([
				expect.objectContaining({ executionId: `x-${major}-1`, itemIndex: 0 }),
				expect.objectContaining({ executionId: `x-${major}-1`, itemIndex: 1 }),
			]);
			expect(out.slice(2).map((o) => (o.context as IDataObject).n8n)).toEqual([
				expect.objectContaining({ executionId: `r-${major}-1`, itemIndex: 2 }),
				expect.objectContaining({ executionId: `r-${major}-1`, itemIndex: 3 }),
			]);
			expect(balance()).toBe(10 * COST - 2 * COST);
			expect(new Set(out.map((o) => o.id)).size).toBe(4);
		});

		test('killed mid-send: the create of item 3 reached MediaGen but its answer was lost; the retry finds it and sends only item 4', async () => {
			const saved = new SavedExecutions();
			const before = balance();
			// items 1 and 2 are answered; item 3's create is done at MediaGen but every answer to it
			// (and to the transport's retries with the same key) is lost
			sb.control.addFault({
				kind: 'drop',
				method: 'POST',
				path: '/generations$',
				skip: 2,
				count: 20,
			});
			const workflow = chain([{}, {}, {}, {}], [mediaGen('MediaGen', generation())]);
			const x = await dies(workflow, `x-${major}-2`, saved);
			sb.control.clearFaults();
			expect(x.result.error).toBeDefined();
			const made = (await api()('GET', '/generations?status=all&limit=100')).body
				.data as IDataObject[];
			expect(made).toHaveLength(3); // items 1, 2 and the lost answer's item 3

			sb.control.clearRequests();
			const r = await retry(workflow, x, 'MediaGen', `r-${major}-2`, saved, major);
			expect(r.error).toBeUndefined();
			expect(creates()).toHaveLength(1);
			expect(ids(r, 'MediaGen').slice(0, 3).sort()).toEqual(made.map((g) => String(g.id)).sort());
			expect(before - balance()).toBe(4 * COST);
		});

		test('two crashes in a row, then Retry: still one job per item', async () => {
			const saved = new SavedExecutions();
			sb.control.setCredits('main', 1 * COST);
			const workflow = chain([{}, {}, {}], [mediaGen('MediaGen', generation())]);
			const x = await dies(workflow, `x-${major}-3`, saved);
			expect(x.result.error?.message).toMatch(/^Not enough credits/);
			sb.control.setCredits('main', 1 * COST);
			// the first retry starts item 2, then dies too (item 3: not enough credits)
			const y = { executionId: `y-${major}-3`, startedAt: Date.now() };
			const first = await retry(workflow, x, 'MediaGen', y.executionId, saved, major);
			expect(first.error?.message).toMatch(/^Not enough credits/);
			sb.control.setCredits('main', 10 * COST);
			sb.control.clearRequests();
			const second = await retry(workflow, y, 'MediaGen', `z-${major}-3`, saved, major);
			expect(second.error).toBeUndefined();
			expect(creates()).toHaveLength(1);
			const out = second.json('MediaGen');
			expect(out.map((o) => (o.context as IDataObject).n8n)).toEqual([
				expect.objectContaining({ executionId: `x-${major}-3` }),
				expect.objectContaining({ executionId: `y-${major}-3` }),
				expect.objectContaining({ executionId: `z-${major}-3` }),
			]);
			await until(async () => (await completedCount()) === 3);
			expect(balance()).toBe(10 * COST - COST);
		});

		test('a job that failed at MediaGen before the crash stays failed: reported, not created again', async () => {
			const saved = new SavedExecutions();
			const missing = '7d0c1f7e-8a3b-4c2d-9e1f-0a1b2c3d4e5f';
			const failing = generation({
				additionalFields: {
					params: '={{ JSON.stringify({ sandbox: { durationMs: 100, fail: $json.fail } }) }}',
					projectId: rl('={{ $json.project }}'),
				},
			});
			const workflow = chain(
				[{ fail: 'no luck' }, {}, { project: missing }],
				[mediaGen('MediaGen', failing, { continueOnFail: true })],
			);
			const x = await dies(workflow, `x-${major}-4`, saved);
			const outcome = (r: RunResult) => r.json('MediaGen').map((o) => o.status ?? o.error);
			expect(outcome(x.result)).toEqual([
				expect.stringMatching(/failed: no luck/),
				'completed',
				expect.stringMatching(/^Not found/),
			]);
			sb.control.clearRequests();
			const r = await retry(workflow, x, 'MediaGen', `r-${major}-4`, saved, major);
			expect(outcome(r)).toEqual(outcome(x.result));
			expect(ids(r, 'MediaGen').slice(0, 2)).toEqual(ids(x.result, 'MediaGen').slice(0, 2));
			expect(creates()).toHaveLength(1); // item 3 only (refused again)
		});
	},
);

describe('the identity of a run', () => {
	test('a new execution of the same workflow starts new jobs, with new keys (saved data as n8n 2.x keeps it)', async () => {
		const saved = new SavedExecutions();
		const workflow = chain([{}, {}], [mediaGen('MediaGen', generation())]);
		const a = await runWorkflow(workflow, { credentials: creds(), executionId: 'new-a', saved });
		const b = await runWorkflow(workflow, { credentials: creds(), executionId: 'new-b', saved });
		expect(a.error).toBeUndefined();
		expect(b.error).toBeUndefined();
		expect(new Set(creates().map((c) => c.idempotencyKey)).size).toBe(4);
		expect(new Set([...ids(a, 'MediaGen'), ...ids(b, 'MediaGen')]).size).toBe(4);
	});

	test('n8n 1.x: a retry of a crashed execution never takes the jobs of another execution that had the same input', async () => {
		const saved = new SavedExecutions();
		const workflow = chain([{}, {}], [mediaGen('MediaGen', generation())]);
		const earlier = await runWorkflow(workflow, {
			credentials: creds(),
			executionId: 'same-a',
			saved,
		});
		expect(earlier.error).toBeUndefined();
		// the next execution dies before its MediaGen node sends anything
		sb.control.setCredits('main', 0);
		const x = await dies(workflow, 'same-b', saved);
		expect(x.result.error?.message).toMatch(/^Not enough credits/);
		sb.control.setCredits('main', 10 * COST);
		sb.control.clearRequests();
		const r = await retry(workflow, x, 'MediaGen', 'same-r', saved, 1);
		expect(r.error).toBeUndefined();
		expect(creates()).toHaveLength(2);
		expect(ids(r, 'MediaGen').some((id) => ids(earlier, 'MediaGen').includes(id))).toBe(false);
	});

	test('the node renamed and its prompt changed between the crash and the retry: each item gets a job of the prompt it has now, the earlier job is named in a warning (issue #36)', async () => {
		const saved = new SavedExecutions();
		sb.control.setCredits('main', 1 * COST);
		const workflow = chain([{}, {}], [mediaGen('Make', generation())]);
		const x = await dies(workflow, 'edit-x', saved);
		expect(x.result.error?.message).toMatch(/^Not enough credits/);
		const earlier = (await sb.control.requests({ method: 'POST', path: '/generations$' })).length;
		expect(earlier).toBeGreaterThan(0);
		sb.control.setCredits('main', 10 * COST);
		sb.control.clearRequests();
		// "Retry with the currently saved workflow": the node (same id) has a new name and prompt
		const edited = chain([{}, {}], [mediaGen('Make Image', generation({ prompt: 'a harbour' }))]);
		edited.nodes[1].id = workflow.nodes[1].id;
		const r = await retry(edited, x, 'Make', 'edit-r', saved);
		expect(r.error).toBeUndefined();
		const out = r.json('Make Image');
		// never the lighthouse job for a harbour prompt: each output is the job of its own request
		expect(out.map((o) => o.prompt)).toEqual(['a harbour', 'a harbour']);
		expect(creates()).toHaveLength(2);
		expect(balance()).toBe(10 * COST - 2 * COST);
		const hints = (r.run.data.resultData.runData['Make Image'] ?? []).flatMap((t) => t.hints ?? []);
		expect(hints.map((h) => h.message).join(' ')).toMatch(/for requests no item asks for now/);
	});

	test('a user-supplied Idempotency Key keeps precedence over the run identity', async () => {
		const saved = new SavedExecutions();
		const r = await runWorkflow(
			chain([{}], [mediaGen('MediaGen', generation({ options: { idempotencyKey: 'row-17' } }))]),
			{ credentials: creds(), executionId: 'own-key', saved },
		);
		expect(r.error).toBeUndefined();
		expect(creates().map((c) => c.idempotencyKey)).toEqual(['row-17']);
	});
});

/** A job endpoint without an idempotency key or provenance: found again by its own list. */
describe('job kinds without an idempotency key: the retry of a crashed run sends no second create', () => {
	async function crashThenRetry(
		node: TestNode,
		items: IDataObject[],
		createPath: RegExp,
		tag: string,
	) {
		const saved = new SavedExecutions();
		const workflow = chain(items, [{ ...node, continueOnFail: false }]);
		const x = await dies(workflow, `x-${tag}`, saved);
		const firstCreates = sb.control.requests({ method: 'POST', path: createPath.source }).length;
		sb.control.clearRequests();
		const r = await retryCrashed(workflow, x, ['Items'], node.name, {
			credentials: creds(),
			executionId: `r-${tag}`,
			saved,
		});
		const again = sb.control.requests({ method: 'POST', path: createPath.source });
		return { x, r, firstCreates, again };
	}

	test('canvas Run → Start (listed by GET /canvas/{id}/runs): item 1 found, item 2 (a missing workflow) tried again', async () => {
		const wf = await api()('POST', '/canvas', { name: 'Poster', templateId: 'text-to-image' });
		const estimate = await api()('POST', `/canvas/${wf.body.id}/estimate`);
		const { x, r, firstCreates, again } = await crashThenRetry(
			canvas('Canvas', {
				resource: 'run',
				operation: 'start',
				canvasWorkflowId: rl('={{ $json.wf }}'),
				additionalFields: { expectedCredits: '={{ $json.credits }}' },
			}),
			[
				{ wf: wf.body.id, credits: estimate.body.credits },
				{ wf: '7d0c1f7e-8a3b-4c2d-9e1f-0a1b2c3d4e5f', credits: 1 },
			],
			/\/runs$/,
			'canvas',
		);
		expect(x.result.error?.message).toMatch(/^Not found/);
		expect(firstCreates).toBe(2);
		expect(r.error?.message).toMatch(/^Not found/);
		expect(again.map((a) => a.path)).toEqual([
			'/v1/canvas/7d0c1f7e-8a3b-4c2d-9e1f-0a1b2c3d4e5f/runs',
		]);
		const runs = (await api()('GET', `/canvas/${wf.body.id}/runs`)).body.data;
		expect(runs).toHaveLength(1);
	});

	test('Ad Project → Run Matrix (a batch of generations): the batch is found, not run again', async () => {
		const ad = await api()('POST', '/ads', {
			name: 'Autumn',
			settings: { params: { sandbox: { durationMs: 200 } } },
		});
		const copy = await api()('POST', `/ads/${ad.body.id}/copy/generate`, {
			kinds: ['hook', 'script', 'cta'],
			count: 1,
		});
		const [hook, script, cta] = (copy.body.data as IDataObject[]).map((c) => String(c.id));
		const combos = [1, 2].map((duration) => ({
			language: 'en',
			hook,
			script,
			cta,
			presenter: 'none',
			style: 'ugc',
			aspect: '9:16',
			duration,
		}));
		const before = balance();
		const { x, r, firstCreates, again } = await crashThenRetry(
			ads('Ads', {
				resource: 'adProject',
				operation: 'runMatrix',
				adProjectId: rl('={{ $json.ad }}'),
				combos: JSON.stringify(combos),
			}),
			[{ ad: ad.body.id }, { ad: '7d0c1f7e-8a3b-4c2d-9e1f-0a1b2c3d4e5f' }],
			/\/matrix\/run$/,
			'matrix',
		);
		expect(x.result.error?.message).toMatch(/^Not found/);
		expect(firstCreates).toBe(2);
		expect(again).toHaveLength(1); // only item 2, again refused
		expect(r.error?.message).toMatch(/^Not found/);
		await until(async () => (await completedCount()) === 2);
		const variants = (await api()('GET', `/ads/${ad.body.id}/variants`)).body.data;
		expect(variants).toHaveLength(2);
		expect(before - balance()).toBe(20 + 4 * 1 + (20 + 4 * 2));
	});

	test('Edit → Render (an export in the edit record): found in the edit’s exports, not rendered again', async () => {
		const asset = await api()('GET', '/assets?limit=1');
		let sourceAssetId = asset.body.data[0]?.id as string | undefined;
		if (!sourceAssetId) {
			const g = await api()('POST', '/generations', {
				modelId: 'flux-pro',
				tool: 'image',
				params: { sandbox: { durationMs: 50 } },
			});
			await until(
				async () => (await api()('GET', `/generations/${g.body.id}`)).body.status === 'completed',
				10_000,
			);
			sourceAssetId = (await api()('GET', `/generations/${g.body.id}`)).body.outputs[0].asset_id;
		}
		const edit = await api()('POST', '/edits', { sourceAssetId });
		const { r, firstCreates, again } = await crashThenRetry(
			editor('Editor', {
				resource: 'edit',
				operation: 'render',
				editId: rl('={{ $json.edit }}'),
			}),
			[{ edit: edit.body.id }, { edit: '7d0c1f7e-8a3b-4c2d-9e1f-0a1b2c3d4e5f' }],
			/\/render$/,
			'render',
		);
		expect(firstCreates).toBe(2);
		expect(again).toHaveLength(1);
		expect(r.error?.message).toMatch(/^Not found/);
		const exports = (await api()('GET', `/edits/${edit.body.id}`)).body.exports;
		expect(exports).toHaveLength(1);
	});

	test('Cinema Project → Generate (one job per shot, a batch): found, not generated again', async () => {
		const p = await api()('POST', '/cinema', { name: 'Dawn' });
		const s = await api()('POST', `/cinema/${p.body.id}/scenes`, { title: 'Pier' });
		for (const action of ['waits', 'leaves'])
			await api()('POST', `/cinema/scenes/${s.body.id}/shots`, { action });
		const before = balance();
		const { r, firstCreates, again } = await crashThenRetry(
			cinema('Cinema', {
				resource: 'cinemaProject',
				operation: 'generate',
				cinemaProjectId: rl('={{ $json.project }}'),
				kind: 'storyboard',
			}),
			[{ project: p.body.id }, { project: '7d0c1f7e-8a3b-4c2d-9e1f-0a1b2c3d4e5f' }],
			/\/generate$/,
			'cinema',
		);
		expect(firstCreates).toBe(2);
		expect(again).toHaveLength(1);
		expect(r.error?.message).toMatch(/^Not found/);
		await until(async () => (await completedCount()) === 2);
		expect(before - balance()).toBe(2 * 4);
	});
});

describe('Generation → Wait and Generation → Collect (node version 2)', () => {
	const v2 = { typeVersion: 2 };

	test('Create with Wait for Completion off, then Wait: the outputs of Create, no second job', async () => {
		const r = await runWorkflow(
			chain(
				[{}, {}],
				[
					mediaGen('Start', generation({ waitForCompletion: false }), v2),
					mediaGen(
						'Wait',
						{ resource: 'generation', operation: 'wait', generationId: rl('={{ $json.id }}') },
						v2,
					),
				],
			),
			{ credentials: creds() },
		);
		expect(r.error).toBeUndefined();
		expect(r.json('Start').map((o) => o.status)).toEqual(['queued', 'queued']);
		expect(r.json('Wait').map((o) => o.status)).toEqual(['completed', 'completed']);
		expect(ids(r, 'Wait')).toEqual(ids(r, 'Start'));
		expect(creates()).toHaveLength(2);
		expect(r.json('Wait')[0].outputs).toHaveLength(1);
	});

	test('a job id that does not exist is an error item naming it; the others are waited for', async () => {
		const g = await api()('POST', '/generations', {
			modelId: 'flux-pro',
			params: { sandbox: { durationMs: 100 } },
		});
		const missing = '7d0c1f7e-8a3b-4c2d-9e1f-0a1b2c3d4e5f';
		const r = await runWorkflow(
			chain(
				[{ id: g.body.id }, { id: missing }],
				[
					mediaGen(
						'Wait',
						{ resource: 'generation', operation: 'wait', generationId: rl('={{ $json.id }}') },
						{ ...v2, continueOnFail: true },
					),
				],
			),
			{ credentials: creds() },
		);
		expect(r.json('Wait').map((o) => o.status ?? o.error)).toEqual([
			'completed',
			`Job ${missing} was not found at MediaGen`,
		]);
	});

	test('Collect From Execution: the generations an execution started (found by provenance), waited for, none created', async () => {
		const saved = new SavedExecutions();
		sb.control.setCredits('main', 3 * COST);
		const x = await dies(
			chain([{}, {}, {}, {}], [mediaGen('MediaGen', generation())]),
			'lost-7',
			saved,
		);
		expect(x.result.error?.message).toMatch(/^Not enough credits/);
		sb.control.clearRequests();
		const r = await runWorkflow(
			chain(
				[{}],
				[
					mediaGen(
						'Collect',
						{ resource: 'generation', operation: 'collect', executionId: 'lost-7' },
						v2,
					),
				],
			),
			{ credentials: creds() },
		);
		expect(r.error).toBeUndefined();
		const out = r.json('Collect');
		expect(out.map((o) => o.status)).toEqual(['completed', 'completed', 'completed']);
		expect(out.map((o) => ((o.context as IDataObject).n8n as IDataObject).itemIndex)).toEqual([
			0, 1, 2,
		]);
		expect(creates()).toHaveLength(0);
	});

	test('Collect needs an execution or a workflow: refused before any request', async () => {
		const r = await runWorkflow(
			chain([{}], [mediaGen('Collect', { resource: 'generation', operation: 'collect' }, v2)]),
			{ credentials: creds() },
		);
		expect(r.error?.message).toBe('Execution ID or Workflow ID is needed');
		expect(sb.control.requests()).toHaveLength(0);
	});
});
