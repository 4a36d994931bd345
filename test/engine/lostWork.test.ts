/**
 * Exact to the credit when an earlier try of a node run did work the run has no record of
 * (issue #29): an answer lost after MediaGen did the work, a failed run retried whose retry dies,
 * Stop while a create is in flight, job kinds found by the record they belong to, a lookup that
 * cannot reach back far enough, keys MediaGen no longer replays, and charged calls that answer at
 * once. In n8n-core's engine against the sandbox; every test counts what the sandbox created and
 * charged. (The workflow shapes of a crash, nodes after the MediaGen node, node order, loops and
 * sub-workflows: crashShapes.test.ts.)
 */
import type { IDataObject, INodeParameters, IRunExecutionData } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { MediaGenCanvas } from '../../nodes/MediaGenCanvas/MediaGenCanvas.node';
import { MediaGenCinema } from '../../nodes/MediaGenCinema/MediaGenCinema.node';
import { MediaGenEditor } from '../../nodes/MediaGenEditor/MediaGenEditor.node';
import { catalog } from '../../nodes/shared/catalog';
import { RECOVERY } from '../../nodes/shared/durable/recovery';
import { client, until } from '../harness/sandbox/helpers';
import type { RunResult, TestNode } from '../harness/engine/harness';
import {
	chain,
	mediaGen,
	retryCrashed,
	retryExecution,
	runWorkflow,
	SavedExecutions,
	startWorkflow,
} from '../harness/engine/harness';
import { fastJobs, generationCreate, nodeFactory, rl, useSandbox } from '../harness/engine/setup';

const { sb, creds } = useSandbox({ timeScale: 0.01 });
fastJobs();
const canvas = nodeFactory(new MediaGenCanvas());
const cinema = nodeFactory(new MediaGenCinema());
const editor = nodeFactory(new MediaGenEditor());

const api = () => client(sb, sb.keys.pro);
const balance = () => sb.control.credits('main').balance;
const posts = (path: RegExp) => sb.control.requests({ method: 'POST', path: path.source });
const CREATE = /\/generations$/;
const COST = 4;
const MISSING = '7d0c1f7e-8a3b-4c2d-9e1f-0a1b2c3d4e5f';

const generation = (extra: INodeParameters = {}, durationMs = 300) =>
	generationCreate(extra, durationMs);
const ids = (r: RunResult, node: string) => r.json(node).map((o) => String(o.id));
const provenance = (o: IDataObject) => (o.context as IDataObject).n8n as IDataObject;
const allGenerations = async () =>
	(await api()('GET', '/generations?status=all&limit=100')).body.data as IDataObject[];

/** Runs `workflow` as execution `id`, saved in `saved`: a try that fails or that n8n will lose. */
async function firstTry(workflow: ReturnType<typeof chain>, id: string, saved: SavedExecutions) {
	const startedAt = Date.now();
	const result = await runWorkflow(workflow, { credentials: creds(), executionId: id, saved });
	return { executionId: id, startedAt, result };
}

/** n8n's Retry of a failed execution (its node context saved), as execution `id`. */
const retryFailed = (
	workflow: ReturnType<typeof chain>,
	x: { result: RunResult },
	id: string,
	saved: SavedExecutions,
) => retryExecution(workflow, x.result.run, { credentials: creds(), executionId: id, saved });

/** n8n's Retry of an execution that died while `node` ran (only what n8n saved at its start). */
const retryDead = (
	workflow: ReturnType<typeof chain>,
	x: { executionId: string; startedAt: number },
	node: string,
	id: string,
	saved: SavedExecutions,
) => retryCrashed(workflow, x, ['Items'], node, { credentials: creds(), executionId: id, saved });

describe('an answer lost after MediaGen did the work, then Retry', () => {
	test('Generation → Create: the lost item’s job is found (no second job, no 409 dead end), the rest sent once', async () => {
		const saved = new SavedExecutions();
		const before = balance();
		// item 2's create is made at MediaGen, every answer to it (and its retries) lost
		sb.control.addFault({
			kind: 'drop',
			method: 'POST',
			path: '/generations$',
			skip: 1,
			count: 20,
		});
		const workflow = chain([{}, {}, {}], [mediaGen('MediaGen', generation())]);
		const x = await firstTry(workflow, 'lost-a', saved);
		sb.control.clearFaults();
		expect(x.result.error?.message).toMatch(/^Could not reach MediaGen/);
		const made = await allGenerations();
		expect(made).toHaveLength(2);

		sb.control.clearRequests();
		const r = await retryFailed(workflow, x, 'lost-a-retry', saved);
		expect(r.error).toBeUndefined();
		expect(posts(CREATE)).toHaveLength(1); // item 3 only
		const out = r.json('MediaGen');
		expect(out.map((o) => provenance(o).itemIndex)).toEqual([0, 1, 2]);
		expect(out.slice(0, 2).map((o) => o.id)).toEqual(made.map((g) => g.id).reverse());
		expect(before - balance()).toBe(3 * COST);
	});

	test('Canvas Run → Start (no key, never retried by the transport): the run is found, not started again', async () => {
		const saved = new SavedExecutions();
		const wf = await api()('POST', '/canvas', { name: 'Poster', templateId: 'text-to-image' });
		const estimate = (await api()('POST', `/canvas/${wf.body.id}/estimate`)).body.credits as number;
		const before = balance();
		sb.control.addFault({ kind: 'drop', method: 'POST', path: '/runs$', count: 1 });
		const workflow = chain(
			[{}],
			[
				canvas('Canvas', {
					resource: 'run',
					operation: 'start',
					canvasWorkflowId: rl(wf.body.id),
					additionalFields: { expectedCredits: estimate },
				}),
			],
		);
		const x = await firstTry(workflow, 'lost-c', saved);
		expect(x.result.error?.message).toMatch(/^Could not reach MediaGen/);
		sb.control.clearRequests();
		const r = await retryFailed(workflow, x, 'lost-c-retry', saved);
		expect(r.error).toBeUndefined();
		expect(posts(/\/runs$/)).toHaveLength(0);
		const runs = (await api()('GET', `/canvas/${wf.body.id}/runs`)).body.data as IDataObject[];
		expect(runs).toHaveLength(1);
		expect(ids(r, 'Canvas')).toEqual([String(runs[0].id)]);
		expect(before - balance()).toBe(estimate);
	});

	test('Retry On Fail in the same execution: the run sent without an answer is found, not started again', async () => {
		const wf = await api()('POST', '/canvas', { name: 'Poster', templateId: 'text-to-image' });
		const estimate = (await api()('POST', `/canvas/${wf.body.id}/estimate`)).body.credits as number;
		const before = balance();
		sb.control.addFault({ kind: 'drop', method: 'POST', path: '/runs$', count: 1 });
		const r = await runWorkflow(
			chain(
				[{}],
				[
					canvas(
						'Canvas',
						{
							resource: 'run',
							operation: 'start',
							canvasWorkflowId: rl(wf.body.id),
							additionalFields: { expectedCredits: estimate },
						},
						{ retryOnFail: true, maxTries: 3, waitBetweenTries: 0 },
					),
				],
			),
			{ credentials: creds() },
		);
		expect(r.error).toBeUndefined();
		expect(posts(/\/runs$/)).toHaveLength(1);
		const runs = (await api()('GET', `/canvas/${wf.body.id}/runs`)).body.data as IDataObject[];
		expect(runs).toHaveLength(1);
		expect(before - balance()).toBe(estimate);
	});
});

describe('a node before the MediaGen node failed, then Retry', () => {
	// n8n's saved data shows no try of the node, but a Retry that Stop canceled without progress
	// saving leaves the data it started from: another run on the record may be such a Retry's
	test('Canvas Run → Start had never run, another execution ran the same canvas workflow: refused and named, not taken; sent when told to', async () => {
		const saved = new SavedExecutions();
		const wf = await api()('POST', '/canvas', { name: 'Poster', templateId: 'text-to-image' });
		const estimate = (await api()('POST', `/canvas/${wf.body.id}/estimate`)).body.credits as number;
		sb.control.setCredits('main', 0);
		const workflowWith = (options: INodeParameters = {}) =>
			chain(
				[{}],
				[
					mediaGen('Generate', generation()),
					canvas('Canvas', {
						resource: 'run',
						operation: 'start',
						canvasWorkflowId: rl(wf.body.id),
						additionalFields: { expectedCredits: estimate },
						options,
					}),
				],
			);
		const workflow = workflowWith();
		const x = await firstTry(workflow, 'up-x', saved);
		expect(x.result.error?.message).toMatch(/^Not enough credits/);
		sb.control.setCredits('main', 1000);
		// meanwhile another execution runs the same canvas workflow
		const other = await api()('POST', `/canvas/${wf.body.id}/runs`, { expectedCredits: estimate });
		sb.control.clearRequests();
		const r = await retryFailed(workflow, x, 'up-r', saved);
		expect(r.error?.message).toBe(
			'Cannot tell whether an earlier try of this run already started or charged item 1',
		);
		expect(r.error?.description).toContain(String(other.body.id));
		expect(posts(/\/runs$/)).toHaveLength(0);
		// nothing charged for the canvas workflow: its only run is the other execution's
		const runsNow = (await api()('GET', `/canvas/${wf.body.id}/runs`)).body.data as IDataObject[];
		expect(runsNow.map((x) => x.id)).toEqual([other.body.id]);

		// Send Again When Unsure: the run is started, the other execution's is not output
		const r2 = await retryFailed(workflowWith({ sendWhenUnsure: true }), x, 'up-r2', saved);
		expect(r2.error).toBeUndefined();
		expect(posts(/\/runs$/)).toHaveLength(1);
		expect(ids(r2, 'Canvas')).not.toContain(String(other.body.id));
		const runs = (await api()('GET', `/canvas/${wf.body.id}/runs`)).body.data as IDataObject[];
		expect(runs).toHaveLength(2);
	});
});

describe('a failed run retried, the retry dies, then Retry again', () => {
	test('the jobs the dead retry started are found although the node context of the first failure says nothing of them', async () => {
		const saved = new SavedExecutions();
		sb.control.setCredits('main', 1 * COST);
		const workflow = chain([{}, {}, {}, {}], [mediaGen('MediaGen', generation())]);
		const a = await firstTry(workflow, 'fail-a', saved);
		expect(a.result.error?.message).toMatch(/^Not enough credits/);
		// the first Retry starts items 2 and 3, then stops at item 4: n8n died there (only what it
		// saved when the retry started is left: the first failure's data and node context)
		sb.control.setCredits('main', 2 * COST);
		const bStart = Date.now();
		const b = await retryFailed(workflow, a, 'fail-b', saved);
		expect(b.error?.message).toMatch(/^Not enough credits/);
		sb.control.setCredits('main', 10 * COST);
		sb.control.clearRequests();
		const c = await retryDead(
			workflow,
			{ executionId: 'fail-b', startedAt: bStart },
			'MediaGen',
			'fail-c',
			saved,
		);
		expect(c.error).toBeUndefined();
		expect(posts(CREATE)).toHaveLength(1); // item 4 only
		const out = c.json('MediaGen');
		expect(out.map((o) => provenance(o).itemIndex)).toEqual([0, 1, 2, 3]);
		expect(out.map((o) => provenance(o).executionId)).toEqual([
			'fail-a',
			'fail-b',
			'fail-b',
			'fail-c',
		]);
		expect(new Set(out.map((o) => o.id)).size).toBe(4);
		expect(await allGenerations()).toHaveLength(4);
	});
});

describe('Stop while a create is in flight', () => {
	test('the job whose answer had not come is found and cancelled with the others: nothing charged', async () => {
		const before = balance();
		// item 2's create is done at MediaGen, its answer held back until the test lets it go
		sb.control.addFault({
			kind: 'delay',
			method: 'POST',
			path: '/generations$',
			skip: 1,
			delayMs: 600_000,
		});
		const started = startWorkflow(
			chain([{}, {}, {}], [mediaGen('MediaGen', generation({}, 600_000))]),
			{ credentials: creds() },
		);
		// (the sandbox logs a request when its answer is written: item 2's create is not logged yet)
		await until(async () => (await allGenerations()).length === 2);
		started.cancel();
		const r = await started.done;
		sb.control.releaseDelays();
		const made = await allGenerations();
		expect(made).toHaveLength(2);
		await until(
			async () => (await allGenerations()).every((g) => g.status === 'cancelled'),
			10_000,
		);
		// the in-flight one among the cancelled
		expect(r.error?.message).toMatch(/^The execution was cancelled: cancelled 2 job/);
		expect(r.error?.message).toContain(String(made[0].id));
		expect(balance()).toBe(before);
	});
});

describe('job kinds found by the record they belong to', () => {
	test('Cinema Project → Generate: an earlier run’s shots on the same project seconds before are not taken for the lost run’s: unsure, both named', async () => {
		const p = await api()('POST', '/cinema', { name: 'Dawn' });
		const s = await api()('POST', `/cinema/${p.body.id}/scenes`, { title: 'Pier' });
		await api()('POST', `/cinema/scenes/${s.body.id}/shots`, { action: 'waits' });
		const node = cinema(
			'Cinema',
			{
				resource: 'cinemaProject',
				operation: 'generate',
				cinemaProjectId: rl('={{ $json.project }}'),
				kind: 'storyboard',
			},
			{ continueOnFail: true },
		);
		// an earlier execution on the same project, a few seconds before
		const earlier = await runWorkflow(chain([{ project: p.body.id }], [node]), {
			credentials: creds(),
		});
		expect(earlier.error).toBeUndefined();
		await sleep(5000);
		const saved = new SavedExecutions();
		const workflow = chain([{ project: p.body.id }, { project: MISSING }], [node]);
		const x = await firstTry(workflow, 'rec-x', saved);
		const lost = ids(x.result, 'Cinema')[0];
		expect(lost).not.toBe(ids(earlier, 'Cinema')[0]);
		sb.control.clearRequests();
		const r = await retryDead(workflow, x, 'Cinema', 'rec-r', saved);
		expect(posts(/\/generate$/)).toHaveLength(1); // item 2, refused again
		// the earlier run's shot lies in the band where n8n's clock may have been stepped: it may
		// be the lost try's, and the lost try's then another execution's; neither is taken, both
		// are named, nothing is sent again for item 1
		expect(r.json('Cinema').map((o) => o.error)).toEqual([
			expect.stringMatching(/^Cannot tell whether an earlier try of this run already started/),
			expect.stringMatching(/^Not found/),
		]);
		const why = String(r.json('Cinema')[0].description);
		expect(why).toContain(String(lost));
		expect(why).toContain(String(ids(earlier, 'Cinema')[0]));
		expect(await allGenerations()).toHaveLength(2);
	});
});

describe('a lookup that cannot reach back to the lost try', () => {
	const bounds = { ...RECOVERY };
	afterEach(() => Object.assign(RECOVERY, bounds));

	test('the items it cannot clear are refused and named, nothing is sent; Send Again When Unsure sends them', async () => {
		const saved = new SavedExecutions();
		sb.control.setCredits('main', 1 * COST);
		const node = (options: IDataObject = {}, extra: Partial<TestNode> = {}) =>
			mediaGen('MediaGen', generation({ options: options as INodeParameters }), extra);
		const x = await firstTry(chain([{}, {}], [node()]), 'bound-x', saved);
		expect(x.result.error?.message).toMatch(/^Not enough credits/);
		sb.control.setCredits('main', 100 * COST);
		for (let i = 0; i < 3; i++)
			await api()('POST', '/generations', {
				modelId: 'flux-pro',
				params: { sandbox: { durationMs: 10 } },
			});
		Object.assign(RECOVERY, { pageSize: 2, maxPages: 1 });
		sb.control.clearRequests();
		const r = await retryDead(chain([{}, {}], [node()]), x, 'MediaGen', 'bound-r', saved);
		expect(r.error?.message).toBe(
			'Cannot tell whether an earlier try of this run already started or charged item 1',
		);
		expect(r.error?.description).toMatch(
			/^Item 1 of 2\. Nothing was sent to MediaGen for any item\./,
		);
		expect(r.error?.description).toContain('Send Again When Unsure');
		expect(posts(CREATE)).toHaveLength(0);

		// sent anyway: item 2 is created; item 1's create had been made by the lost try with the
		// same key, so MediaGen refuses it (409) and nothing is charged twice
		const anyway = await retryDead(
			chain([{}, {}], [node({ sendWhenUnsure: true }, { continueOnFail: true })]),
			x,
			'MediaGen',
			'bound-r2',
			saved,
		);
		expect(posts(CREATE)).toHaveLength(2);
		const [first, second] = anyway.json('MediaGen');
		expect(first.error).toBe(
			'An earlier try of this run made item 1’s job with the same Idempotency-Key',
		);
		expect(String(first.description)).toContain('idempotency_key');
		expect(second.status).toBe('completed');
		expect(await allGenerations()).toHaveLength(5); // the lost try's, 3 others, item 2's
	});
});

describe('keys MediaGen no longer replays (the lost try was more than a day ago)', () => {
	/** What n8n saved, as if the execution had started a day and an hour earlier. */
	class DayOld extends SavedExecutions {
		atStart(executionId: string): IRunExecutionData | undefined {
			const data = super.atStart(executionId);
			const runtime = data?.executionData?.runtimeData;
			if (runtime) runtime.establishedAt -= 25 * 3_600_000;
			return data;
		}
	}

	test('Effect → Run: the lost try’s job is found by its key in the generation records, not run again', async () => {
		const saved = new DayOld();
		sb.control.setCredits('main', 1 * COST);
		const node = editor('Editor', {
			resource: 'effect',
			operation: 'run',
			id: '={{ $json.effect }}',
			additionalFields: { params: JSON.stringify({ sandbox: { durationMs: 100 } }) },
		});
		const workflow = chain([{ effect: 'glitch' }, { effect: 'glitch' }], [node]);
		const x = await firstTry(workflow, 'day-x', saved);
		expect(x.result.error?.message).toMatch(/^Not enough credits/);
		sb.control.expireIdempotencyKeys('main');
		sb.control.setCredits('main', 10 * COST);
		sb.control.clearRequests();
		const r = await retryDead(
			workflow,
			{ executionId: 'day-x', startedAt: x.startedAt - 25 * 3_600_000 },
			'Editor',
			'day-r',
			saved,
		);
		expect(r.error).toBeUndefined();
		expect(posts(/\/effects\/glitch\/run$/)).toHaveLength(1); // item 2 only
		await until(
			async () => (await allGenerations()).every((g) => g.status === 'completed'),
			10_000,
		);
		expect(await allGenerations()).toHaveLength(2);
		expect(balance()).toBe(10 * COST - COST);
	});
});

describe('charged calls that answer at once (Edit → Create Captions)', () => {
	const CAPTIONS = 2; // credits for a clip of up to a minute

	async function edits(n: number) {
		const list: string[] = [];
		for (let i = 0; i < n; i++) {
			const source = sb.control.createLargeAsset({
				size: 4096,
				mimeType: 'video/mp4',
				filename: `clip-${i}.mp4`,
			}).id;
			list.push(String((await api()('POST', '/edits', { sourceAssetId: source })).body.id));
		}
		return list;
	}
	const captions = (extra: Partial<TestNode> = {}): TestNode =>
		editor(
			'Editor',
			{ resource: 'edit', operation: 'createCaptions', editId: rl('={{ $json.edit }}') },
			extra,
		);
	const captionPosts = () => posts(/\/captions$/);
	const tasks = async (edit: string) =>
		((await api()('GET', `/edits/${edit}`)).body.aiTasks as IDataObject[]).filter(
			(t) => t.type === 'captions',
		);

	test.each([
		[
			'the node failed at item 3 (402), then Retry: the answers of items 1–2 are output as they were',
			'failed',
		],
		['n8n died at item 3, then Retry: the captions of items 1–2 are found at MediaGen', 'died'],
	] as const)('%s; nothing charged again, item 3 once', async (_, how) => {
		const saved = new SavedExecutions();
		const list = await edits(3);
		sb.control.setCredits('main', 2 * CAPTIONS);
		const workflow = chain(
			list.map((edit) => ({ edit })),
			[captions()],
		);
		const x = await firstTry(workflow, `cap-${how}`, saved);
		expect(x.result.error?.message).toMatch(/^Not enough credits/);
		sb.control.setCredits('main', 10 * CAPTIONS);
		sb.control.clearRequests();
		const r =
			how === 'failed'
				? await retryFailed(workflow, x, `cap-${how}-retry`, saved)
				: await retryDead(workflow, x, 'Editor', `cap-${how}-retry`, saved);
		expect(r.error).toBeUndefined();
		expect(captionPosts()).toHaveLength(1);
		// MediaGen's clock is read once for the run, not once per item
		expect(sb.control.requests({ method: 'GET', path: '/workspace$' })).toHaveLength(1);
		const out = r.json('Editor');
		expect(out.map((o) => o.id)).toEqual(list);
		expect(out.every((o) => ((o.timeline as IDataObject).captions as IDataObject).enabled)).toBe(
			true,
		);
		for (const edit of list) expect(await tasks(edit)).toHaveLength(1);
		expect(balance()).toBe(10 * CAPTIONS - CAPTIONS);
	});

	test('the answer of item 2 lost (the node failed), then Retry: item 2 found, item 3 sent once', async () => {
		const saved = new SavedExecutions();
		const list = await edits(3);
		const before = balance();
		sb.control.addFault({ kind: 'drop', method: 'POST', path: '/captions$', skip: 1, count: 1 });
		const workflow = chain(
			list.map((edit) => ({ edit })),
			[captions()],
		);
		const x = await firstTry(workflow, 'cap-c', saved);
		expect(x.result.error?.message).toMatch(/^Could not reach MediaGen/);
		sb.control.clearRequests();
		const r = await retryFailed(workflow, x, 'cap-c-retry', saved);
		expect(r.error).toBeUndefined();
		expect(captionPosts()).toHaveLength(1);
		for (const edit of list) expect(await tasks(edit)).toHaveLength(1);
		expect(before - balance()).toBe(3 * CAPTIONS);
	});

	test('Retry On Fail after a lost answer: found, not charged again', async () => {
		const list = await edits(2);
		const before = balance();
		sb.control.addFault({ kind: 'drop', method: 'POST', path: '/captions$', count: 1 });
		const r = await runWorkflow(
			chain(
				list.map((edit) => ({ edit })),
				[captions({ retryOnFail: true, maxTries: 2, waitBetweenTries: 0 })],
			),
			{ credentials: creds() },
		);
		expect(r.error).toBeUndefined();
		expect(captionPosts()).toHaveLength(2);
		for (const edit of list) expect(await tasks(edit)).toHaveLength(1);
		expect(before - balance()).toBe(2 * CAPTIONS);
	});

	/** Every charged call that answers at once, with what it needs of its edit. */
	const tour: Array<[string, IDataObject, (edit: string) => Promise<void>]> = [
		['createCaptions', {}, async () => {}],
		[
			'translateCaptions',
			{ language: 'de' },
			async (edit) => void (await api()('POST', `/edits/${edit}/captions`, {})),
		],
		['cleanup', {}, async () => {}],
		['highlights', { additionalFields: { count: 2 } }, async () => {}],
		['analyze', { additionalFields: { transcribe: true } }, async () => {}],
		['aiEdit', { instruction: 'Add a title', baseVersion: '={{ $json.version }}' }, async () => {}],
	];

	test('the tour holds every charged call of the catalog', () => {
		const charged = Object.values(catalog)
			.flat()
			.flatMap((g) => g.endpoints)
			.filter((e) => e.charged)
			.map((e) => e.operation);
		expect(charged.sort()).toEqual(tour.map(([operation]) => operation).sort());
	});

	test.each(tour)(
		'%s: n8n died after item 1 was charged, then Retry: item 1 found, not charged again',
		async (operation, parameters, setup) => {
			const [edit] = await edits(1);
			await setup(edit);
			const version = (await api()('GET', `/edits/${edit}`)).body.version as number;
			const saved = new SavedExecutions();
			const node = editor(
				'Editor',
				{
					resource: 'edit',
					operation,
					editId: rl('={{ $json.edit }}'),
					...parameters,
				} as INodeParameters,
				{ continueOnFail: true },
			);
			const workflow = chain(
				[
					{ edit, version },
					{ edit: MISSING, version: 1 },
				],
				[node],
			);
			const before = balance();
			const x = await firstTry(workflow, `tour-${operation}`, saved);
			const first = x.result.json('Editor');
			expect(first.at(-1)?.error).toMatch(/^Not found/);
			const charged = before - balance();
			expect(charged).toBeGreaterThan(0);
			sb.control.clearRequests();
			const r = await retryDead(workflow, x, 'Editor', `tour-${operation}-r`, saved);
			const path = new RegExp(`/edits/${edit}/`);
			expect(sb.control.requests({ method: 'POST', path: path.source })).toHaveLength(0);
			expect(before - balance()).toBe(charged);
			const out = r.json('Editor');
			expect(out.slice(0, -1).map((o) => o.id)).toEqual(first.slice(0, -1).map((o) => o.id));
			expect(out.at(-1)?.error).toMatch(/^Not found/);
		},
	);
});
