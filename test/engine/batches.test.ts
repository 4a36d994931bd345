/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only code (tests): never published, see package.json "files" */
/**
 * A node run is the unit of work (issue #12): many items through n8n-core's engine against the
 * sandbox, counting what the sandbox was asked and what it charged.
 * - every item is checked before anything is sent; Continue On Fail turns invalid items into
 *   error items; Max Credits (per item and per run) estimates every item before the first create;
 * - every job is accounted for: one output per job, a failed one never hides a charged one, and
 *   the error that stops the node names the jobs already started;
 * - n8n's Retry of a failed execution (mode `retry`, the failed execution's data) never starts a
 *   job twice; a new run does; number keys work; one key on two items is refused;
 * - Return All hands pages to the output, stops on a repeated cursor; manual paging by cursor.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { MediaGenAds } from '../../nodes/MediaGenAds/MediaGenAds.node';
import { MediaGenCinema } from '../../nodes/MediaGenCinema/MediaGenCinema.node';
import { client, until } from '../harness/sandbox/helpers';
import type { TestNode } from '../harness/engine/harness';
import { chain, mediaGen, retryExecution, runWorkflow, startWorkflow } from '../harness/engine/harness';
import { items, loop, shape } from '../harness/engine/shapes';
import { fastJobs, generationCreate, nodeFactory, rl, useSandbox } from '../harness/engine/setup';

const { sb, creds, runOne } = useSandbox({ timeScale: 0.01 });
fastJobs();
const cinema = nodeFactory(new MediaGenCinema());
const ads = nodeFactory(new MediaGenAds());

const balance = () => sb.control.credits('main').balance;
const creates = () => sb.control.requests({ method: 'POST', path: '/generations$' });
const estimates = () => sb.control.requests({ method: 'POST', path: '/generations/estimate$' });
const api = () => client(sb, sb.keys.pro);

const generation = (extra: INodeParameters = {}, durationMs = 500) =>
	generationCreate(extra, durationMs, 'a red bicycle at dawn');

const run = (parameters: INodeParameters, items: IDataObject[], node: Partial<TestNode> = {}) =>
	runOne(mediaGen('MediaGen', parameters, node), items);

/** The cost of one generation as generation() sends it. */
async function costOfOne(): Promise<number> {
	const res = await api()('POST', '/generations/estimate', {
		modelId: 'flux-pro',
		tool: 'image',
		prompt: 'a red bicycle at dawn',
		params: { sandbox: { durationMs: 500 } },
	});
	sb.control.clearRequests();
	return Number(res.body.credits);
}

const titles = (n: number, bad: number, length = 300) =>
	Array.from({ length: n }, (_, i) => ({ title: i === bad ? 'x'.repeat(length) : `item ${i}` }));
const titled = generation({ additionalFields: { title: '={{ $json.title }}' } });

describe('1. everything is checked before anything is sent', () => {
	test('an invalid 4th item: no request at all, nothing charged, the error names item, field and limit', async () => {
		const before = balance();
		const { error, out } = await run(titled, titles(4, 3));
		expect(error?.message).toBe('Title must be at most 200 characters, got 300');
		expect(error?.description).toMatch(
			/^Item 4 of 4\. Nothing was sent to MediaGen for any item: fix the value and run again\./,
		);
		expect(out).toEqual([]);
		expect(sb.control.requests()).toHaveLength(0);
		expect(balance()).toBe(before);
	});

	test('with Continue On Fail the invalid item is an error item and the valid ones go on', async () => {
		const before = balance();
		const r = await run(titled, titles(4, 1), { continueOnFail: true });
		expect(r.error).toBeUndefined();
		expect(r.out.map((o) => o.status ?? o.error)).toEqual([
			'completed',
			'Title must be at most 200 characters, got 300',
			'completed',
			'completed',
		]);
		expect(r.out[1].description).toMatch(
			/^Item 2 of 4\. Nothing was sent to MediaGen for this item\./,
		);
		expect(r.items('MediaGen').map((i) => i.pairedItem)).toEqual(
			[0, 1, 2, 3].map((item) => ({ item })),
		);
		expect(creates()).toHaveLength(3);
		const charged = r.out.reduce((n, o) => n + Number(o.credits_charged ?? 0), 0);
		expect(balance()).toBe(before - charged);
	});

	test('Max Credits per item: every item is estimated before the first create; one over the limit stops all', async () => {
		const cost = await costOfOne();
		const before = balance();
		const { error } = await run(generation({ options: { maxCredits: '={{ $json.max }}' } }), [
			{ max: cost },
			{ max: cost },
			{ max: cost - 1 },
			{ max: cost },
		]);
		expect(error?.message).toBe(
			`Estimated cost is ${cost} credits, above Max Credits (${cost - 1})`,
		);
		expect(error?.description).toMatch(
			/^Item 3 of 4\. Nothing was started or charged for any item: fix the value and run again\./,
		);
		expect(creates()).toHaveLength(0);
		expect(estimates().length).toBeGreaterThanOrEqual(3);
		expect(balance()).toBe(before);
	});

	test('Max Credits per item with Continue On Fail: the refused item is an error item, the others are created', async () => {
		const cost = await costOfOne();
		const before = balance();
		const r = await run(
			generation({ options: { maxCredits: '={{ $json.max }}' } }),
			[{ max: cost }, { max: cost - 1 }, { max: cost }],
			{ continueOnFail: true },
		);
		expect(r.out.map((o) => (o.error ? 'refused' : o.status))).toEqual([
			'completed',
			'refused',
			'completed',
		]);
		expect(r.out[1].description).toMatch(/Nothing was started or charged for this item/);
		// all three estimated before the first create
		const log = sb.control.requests({ method: 'POST', path: '/generations' });
		expect(log.map((e) => e.path.endsWith('/estimate'))).toEqual([true, true, true, false, false]);
		expect(balance()).toBe(before - 2 * cost);
	});
});

describe('2. Max Credits per Run', () => {
	test('20 items whose total is above the run limit: refused before any create, nothing charged', async () => {
		const cost = await costOfOne();
		const before = balance();
		const items = Array.from({ length: 20 }, () => ({}));
		const { error } = await run(generation({ options: { maxCreditsPerRun: 10 * cost } }), items);
		expect(error?.message).toBe(
			`Estimated cost of this run is ${20 * cost} credits for 20 jobs, above Max Credits per Run (${10 * cost})`,
		);
		expect(error?.description).toMatch(/^Nothing was started or charged for any item/);
		expect(estimates()).toHaveLength(20);
		expect(creates()).toHaveLength(0);
		expect(balance()).toBe(before);
	});

	test('a run within the limit goes on: every estimate first, then the creates; charged exactly the total', async () => {
		const cost = await costOfOne();
		const before = balance();
		const { error, out } = await run(generation({ options: { maxCreditsPerRun: 3 * cost } }), [
			{},
			{},
			{},
		]);
		expect(error).toBeUndefined();
		expect(out.map((o) => o.status)).toEqual(['completed', 'completed', 'completed']);
		const log = sb.control.requests({ method: 'POST', path: '/generations' });
		expect(log.map((e) => e.path.endsWith('/estimate'))).toEqual([
			true,
			true,
			true,
			false,
			false,
			false,
		]);
		expect(balance()).toBe(before - 3 * cost);
	});

	test('Continue On Fail: a refused run makes every job item an error item; nothing charged', async () => {
		const cost = await costOfOne();
		const before = balance();
		const r = await run(generation({ options: { maxCreditsPerRun: cost } }), [{}, {}], {
			continueOnFail: true,
		});
		expect(r.out.map((o) => o.error)).toEqual([
			expect.stringMatching(/above Max Credits per Run/),
			expect.stringMatching(/above Max Credits per Run/),
		]);
		expect(creates()).toHaveLength(0);
		expect(balance()).toBe(before);
	});
});

/** A cinema project with shots (one of them failing at the service when `failing`). */
async function cinemaProject(failing: boolean): Promise<string> {
	const call = api();
	const p = await call('POST', '/cinema', { name: 'Night Train' });
	const s = await call('POST', `/cinema/${p.body.id}/scenes`, { title: 'Platform' });
	for (const action of ['waits', failing ? 'explodes [sandbox:fail]' : 'leaves', 'smiles']) {
		const shot = await call('POST', `/cinema/scenes/${s.body.id}/shots`, { action });
		expect(shot.status).toBe(201);
	}
	sb.control.clearRequests();
	return String(p.body.id);
}

const storyboard = (projectId: string) =>
	cinema('Cinema', {
		resource: 'cinemaProject',
		operation: 'generate',
		cinemaProjectId: rl(projectId),
		kind: 'storyboard',
	});

describe('5. every job is accounted for', () => {
	test('one item, three jobs, one fails, without Continue On Fail: the error lists every job started, the charged ones too', async () => {
		const projectId = await cinemaProject(true);
		const before = balance();
		const r = await runWorkflow(chain([{}], [storyboard(projectId)]), { credentials: creds() });
		expect(r.error?.message).toMatch(/^Job [\w-]+ failed: Simulated failure/);
		const described = r.error?.description ?? '';
		expect(described).toMatch(/Jobs this run had already started \(3\)/);
		const listed = [...described.matchAll(/item 1: ([\w-]+) \((\w+)(, (\d+) credits charged)?\)/g)];
		expect(listed.map((m) => m[2]).sort()).toEqual(['completed', 'completed', 'failed']);
		const charged = listed.reduce((n, m) => n + Number(m[4] ?? 0), 0);
		expect(charged).toBe(8);
		expect(balance()).toBe(before - charged);
	});

	test('Run Matrix with failing jobs (failure rate 0.5) and Continue On Fail: one output per job, every charge in the output', async () => {
		const ad = await api()('POST', '/ads', {
			name: 'Spring',
			settings: { params: { sandbox: { durationMs: 300 } } },
		});
		const copy = await api()('POST', `/ads/${ad.body.id}/copy/generate`, {
			kinds: ['hook', 'script', 'cta'],
		});
		const byKind = (kind: string) =>
			(copy.body.data as IDataObject[]).filter((c) => c.kind === kind).map((c) => c.id);
		const combos = Array.from({ length: 8 }, (_, i) => ({
			language: `l${i}`,
			hook: byKind('hook')[0],
			script: byKind('script')[0],
			cta: byKind('cta')[0],
			presenter: 'none',
			style: 'ugc',
			aspect: '9:16',
			duration: 5,
		}));
		sb.control.setConfig({ failureRate: 0.5 });
		const before = balance();
		const r = await runOne(
			ads(
				'Ads',
				{
					resource: 'adProject',
					operation: 'runMatrix',
					adProjectId: rl(ad.body.id),
					combos: JSON.stringify(combos),
				},
				{ continueOnFail: true },
			),
			[{}],
		);
		expect(r.error).toBeUndefined();
		expect(r.out).toHaveLength(8);
		const done = r.out.filter((o) => o.status === 'completed');
		const failed = r.out.filter((o) => o.error);
		expect(done.length + failed.length).toBe(8);
		const charged = done.reduce((n, o) => n + Number(o.credits_charged), 0);
		expect(balance()).toBe(before - charged);
		// eslint-disable-next-line no-console
		console.log(
			`[batches] matrix of 8: ${done.length} completed (${charged} credits), ${failed.length} failed`,
		);
	});

	test('a create refused mid-run (402): the error names the jobs already started', async () => {
		const cost = await costOfOne();
		sb.control.setCredits('main', 2 * cost);
		const r = await run(generation(), [{}, {}, {}]);
		expect(r.error?.message).toMatch(/^Not enough credits/);
		expect(r.error?.description).toMatch(
			/Jobs this run had already started \(2\): item 1: [\w-]+ \(\w+\); item 2: [\w-]+ \(\w+\)/,
		);
		expect(creates()).toHaveLength(3);
	});
});

describe("7. n8n's Retry of a failed execution never starts a job twice", () => {
	test('402 at item 3, credits topped up, Retry: items 1 and 2 are collected, only item 3 is created; charged once per item', async () => {
		const cost = await costOfOne();
		sb.control.setCredits('main', 2 * cost);
		const workflow = chain([{}, {}, {}], [mediaGen('MediaGen', generation())]);
		const failed = await runWorkflow(workflow, { credentials: creds() });
		expect(failed.error?.message).toMatch(/^Not enough credits/);
		expect(creates()).toHaveLength(3); // two started, the third refused with 402
		await until(() => balance() === 0);

		sb.control.setCredits('main', 10 * cost);
		const retried = await retryExecution(workflow, failed.run, { credentials: creds() });
		expect(retried.error).toBeUndefined();
		const out = retried.json('MediaGen');
		expect(out.map((o) => o.status)).toEqual(['completed', 'completed', 'completed']);
		expect(creates()).toHaveLength(4);
		// the 4th create is item 3's, with the key of the failed execution's item 3
		expect(creates()[3].idempotencyKey).toBe(creates()[2].idempotencyKey);
		expect(balance()).toBe(10 * cost - cost);
		expect(new Set(out.map((o) => o.id)).size).toBe(3);
	});

	test('without Wait for Completion: Retry returns the jobs the failed execution started as they were answered', async () => {
		const cost = await costOfOne();
		sb.control.setCredits('main', 2 * cost);
		const workflow = chain(
			[{}, {}, {}],
			[mediaGen('MediaGen', generation({ waitForCompletion: false }))],
		);
		const failed = await runWorkflow(workflow, { credentials: creds() });
		expect(failed.error?.message).toMatch(/^Not enough credits/);
		const started = creates().slice(0, 2);
		sb.control.setCredits('main', 10 * cost);
		const retried = await retryExecution(workflow, failed.run, { credentials: creds() });
		expect(retried.error).toBeUndefined();
		const out = retried.json('MediaGen');
		expect(out).toHaveLength(3);
		expect(out.slice(0, 2).map((o) => o.idempotency_key)).toEqual(
			started.map((c) => c.idempotencyKey),
		);
		expect(creates()).toHaveLength(4);
		expect(new Set(out.map((o) => o.id)).size).toBe(3);
	});

	test("n8n's Retry On Fail (node setting): the second try waits for the first try's jobs, no second create", async () => {
		const cost = await costOfOne();
		sb.control.setCredits('main', 2 * cost);
		const r = await run(generation(), [{}, {}, {}], {
			retryOnFail: true,
			maxTries: 2,
			waitBetweenTries: 0,
		});
		expect(r.error?.message).toMatch(/^Not enough credits/);
		expect(r.error?.description).toMatch(/Jobs this run had already started \(2\)/);
		// try 1: items 1 and 2 created, item 3 refused; try 2: only item 3 sent (refused again)
		expect(creates()).toHaveLength(4);
		expect(creates()[3].idempotencyKey).toBe(creates()[2].idempotencyKey);
	});

	test('a timeout, then Retry once the jobs ended: no create, the outputs of the jobs already charged', async () => {
		const cost = await costOfOne();
		const before = balance();
		const workflow = chain(
			[{}, {}, {}],
			[mediaGen('MediaGen', generation({ options: { timeoutMinutes: 0.002 } }, 100_000))],
		);
		// held: the jobs run, and cannot end before the node's timeout, however slow the machine
		sb.control.holdJobs();
		const started = startWorkflow(workflow, { credentials: creds() });
		await until(() => creates().length === 3);
		sb.control.stepJobs(); // queued -> running
		const failed = await started.done;
		expect(failed.error?.message).toMatch(/^Job [\w-]+ is still running/);
		expect(failed.error?.description).toMatch(/Jobs this run had already started \(3\)/);
		// the jobs go on at MediaGen: they complete (and are charged)
		sb.control.releaseJobs();
		sb.control.stepJobs();
		const completed = async () =>
			(await api()('GET', '/generations?status=completed')).body.data.length === 3;
		await until(completed);
		sb.control.clearRequests();

		const retried = await retryExecution(workflow, failed.run, { credentials: creds() });
		expect(retried.error).toBeUndefined();
		expect(retried.json('MediaGen').map((o) => o.status)).toEqual([
			'completed',
			'completed',
			'completed',
		]);
		expect(creates()).toHaveLength(0);
		expect(balance()).toBe(before - 3 * cost);
	});

	test('an endpoint without Idempotency-Key (cinema generate): Retry waits for the jobs it started, no second Generate', async () => {
		const projectId = await cinemaProject(false);
		const before = balance();
		const workflow = chain(
			[{ project: projectId }, { project: '5d0c1f7e-8a3b-4c2d-9e1f-0a1b2c3d4e5f' }],
			[
				cinema('Cinema', {
					resource: 'cinemaProject',
					operation: 'generate',
					cinemaProjectId: rl('={{ $json.project }}'),
					kind: 'storyboard',
				}),
			],
		);
		const failed = await runWorkflow(workflow, { credentials: creds() });
		expect(failed.error?.message).toMatch(/^Not found/);
		expect(failed.error?.description).toMatch(/Jobs this run had already started \(3\)/);
		const generates = () => sb.control.requests({ method: 'POST', path: '/generate$' });
		expect(generates()).toHaveLength(2);

		const retried = await retryExecution(workflow, failed.run, { credentials: creds() });
		expect(retried.error?.message).toMatch(/^Not found/); // item 2's project still does not exist
		expect(generates().filter((g) => g.path.includes(projectId))).toHaveLength(1);
		await until(() => balance() === before - 12);
	});

	test('an intentional new run makes new jobs: new keys, new jobs, each charged', async () => {
		const workflow = chain([{}, {}], [mediaGen('MediaGen', generation())]);
		const first = await runWorkflow(workflow, { credentials: creds() });
		const second = await runWorkflow(workflow, { credentials: creds() });
		expect(first.error).toBeUndefined();
		expect(second.error).toBeUndefined();
		const keys = creates().map((c) => c.idempotencyKey);
		expect(keys).toHaveLength(4);
		expect(new Set(keys).size).toBe(4);
		expect(
			new Set([...first.json('MediaGen'), ...second.json('MediaGen')].map((o) => o.id)).size,
		).toBe(4);
	});

	test('a number from an Idempotency Key expression is sent as the key', async () => {
		const { error } = await run(
			generation({ options: { idempotencyKey: '={{ 1000 + $itemIndex }}' } }),
			[{}, {}],
		);
		expect(error).toBeUndefined();
		expect(creates().map((c) => c.idempotencyKey)).toEqual(['1000', '1001']);
	});

	test('the same key on two items is a named error before anything is sent', async () => {
		const { error } = await run(generation({ options: { idempotencyKey: 'campaign-7' } }), [
			{},
			{},
			{},
		]);
		expect(error?.message).toBe("Idempotency Key 'campaign-7' of item 2 is also the key of item 1");
		expect(error?.description).toMatch(/^Item 2 of 3\. Nothing was sent to MediaGen for any item/);
		expect(sb.control.requests()).toHaveLength(0);
	});

	test('Loop Over Items, the same prompt each row, 402 at the second iteration, Retry: the first iteration’s job stays its own; one more create', async () => {
		const cost = await costOfOne();
		sb.control.setCredits('main', cost);
		const workflow = shape({
			nodes: [
				items('Rows', [{}, {}]),
				loop('Loop'),
				mediaGen('MediaGen', generation({ waitForCompletion: false })),
			],
			edges: [
				['Rows', 'Loop'],
				['Loop', 'MediaGen', 1],
				['MediaGen', 'Loop'],
			],
		});
		const failed = await runWorkflow(workflow, { credentials: creds() });
		expect(failed.error?.message).toMatch(/^Not enough credits/);
		expect(creates()).toHaveLength(2);
		const first = String(failed.json('MediaGen')[0]?.id);

		sb.control.setCredits('main', 10 * cost);
		const retried = await retryExecution(workflow, failed.run, { credentials: creds() });
		expect(retried.error).toBeUndefined();
		// the Retry resumes at the failed second iteration: n8n hands it the first one's output
		// and node context; the lost try's job of the first iteration (same request) is not its
		const second = retried.run.data.resultData.runData.MediaGen.at(-1)?.data?.main[0]?.[0]?.json;
		expect(creates()).toHaveLength(3);
		expect(second?.id).toBeDefined();
		expect(second?.id).not.toBe(first);
	});
});

describe('8. Return All at scale, cursors', () => {
	async function projects(n: number): Promise<void> {
		const call = api();
		for (let i = 0; i < n; i++) await call('POST', '/projects', { name: `p${i}` });
		sb.control.clearRequests();
	}
	const list = (extra: INodeParameters) => ({ resource: 'project', operation: 'getAll', ...extra });

	test('Return All of 250 records: three pages, every record once, in order', async () => {
		await projects(250);
		const { out, error } = await run(list({ returnAll: true }), [{}]);
		expect(error).toBeUndefined();
		expect(out).toHaveLength(250);
		expect(new Set(out.map((o) => o.id)).size).toBe(250);
		expect(sb.control.requests({ method: 'GET', path: '/projects$' })).toHaveLength(3);
	});

	test('manual paging: Limit with Include Next Cursor, then Start Cursor, until the cursor is null', async () => {
		await projects(7);
		const seen: unknown[] = [];
		let cursor = '';
		const pages: number[] = [];
		do {
			const { out, error } = await run(
				list({ limit: 3, options: { includeNextCursor: true, startCursor: cursor } }),
				[{}],
			);
			expect(error).toBeUndefined();
			pages.push(out.length);
			seen.push(...out.map((o) => o.id));
			cursor = String(out[out.length - 1]?.nextCursor ?? '');
		} while (cursor);
		expect(pages).toEqual([3, 3, 1]);
		expect(new Set(seen).size).toBe(7);
	});

	test('a list that repeats its cursor stops with an error instead of looping', async () => {
		// A faulty service (the sandbox never repeats a cursor): every page says "next: c2".
		let pages = 0;
		const server = createServer((req, res) => {
			pages++;
			res.setHeader('content-type', 'application/json');
			res.end(
				JSON.stringify({ data: [{ id: `r${pages}` }], nextCursor: pages === 1 ? 'c1' : 'c2' }),
			);
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		try {
			const { port } = server.address() as AddressInfo;
			const r = await runWorkflow(chain([{}], [mediaGen('MediaGen', list({ returnAll: true }))]), {
				credentials: { mediaGenApi: { apiKey: 'k', baseUrl: `http://127.0.0.1:${port}/v1` } },
			});
			expect(r.error?.message).toBe(
				'MediaGen returned the page cursor c2 a second time, after 3 records: stopped instead of looping',
			);
			expect(pages).toBe(3);
		} finally {
			server.close();
		}
	});
});

describe('9. the execution hint says what the run cost (issue #25)', () => {
	test('three jobs, one failing, Continue On Fail: "3 jobs, 8 credits charged; 1 failed (credits returned)"', async () => {
		const cost = await costOfOne();
		const before = balance();
		const r = await run(
			generation({
				additionalFields: {
					params: '={{ JSON.stringify({ sandbox: { durationMs: 100, fail: $json.fail } }) }}',
				},
			}),
			[{}, { fail: 'no luck' }, {}],
			{ continueOnFail: true },
		);
		expect(r.error).toBeUndefined();
		expect(before - balance()).toBe(2 * cost);
		expect(r.taskData('MediaGen')?.hints).toEqual([
			{
				message: `3 jobs, ${2 * cost} credits charged; 1 failed (credits returned)`,
				type: 'warning',
				location: 'outputPane',
			},
		]);
	});

	test('without Wait for Completion: the items started jobs, charged when they succeed', async () => {
		const r = await run(generation({ waitForCompletion: false }), [{}, {}]);
		expect(r.taskData('MediaGen')?.hints).toEqual([
			{
				message: '2 items started jobs without waiting (charged when they succeed)',
				type: 'info',
				location: 'outputPane',
			},
		]);
	});

	test('a run that starts no job adds no hint', async () => {
		const r = await run({ resource: 'credit', operation: 'getBalance' }, [{}]);
		expect(r.error).toBeUndefined();
		expect(r.taskData('MediaGen')?.hints ?? []).toEqual([]);
	});
});
