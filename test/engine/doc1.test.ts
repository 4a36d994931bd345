/**
 * The rest of spec doc 1 through n8n-core's engine against the sandbox: generations (wait,
 * failure, cancel, timeout, Max Credits, idempotency under lost responses), assets, webhooks,
 * voices, prompt assist, analytics.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { POLLING } from '../../nodes/shared/jobs/poller';
import type { TestNode } from '../harness/engine/harness';
import { chain, mediaGen, startWorkflow } from '../harness/engine/harness';
import { fastJobs, rl, useSandbox } from '../harness/engine/setup';
import { client, until, type Call } from '../harness/sandbox/helpers';

const { sb, creds, runOne } = useSandbox({ timeScale: 0.01, allowHttpWebhooks: true });
fastJobs();

const run = (
	parameters: INodeParameters,
	items: IDataObject[] = [{}],
	node: Partial<TestNode> = {},
	key?: string,
) => runOne(mediaGen('MediaGen', parameters, node), items, key);

const balance = () => sb.control.credits('main').balance;
/** The sandbox over HTTP with the Pro key (the sandbox starts in beforeAll). */
const pro: Call = async (method, path, body, headers) =>
	await client(sb, sb.keys.pro)(method, path, body, headers);
const creates = () => sb.control.requests({ method: 'POST', path: '/generations$' });

const generation = (extra: INodeParameters = {}, params: IDataObject = {}) => ({
	resource: 'generation',
	operation: 'create',
	modelId: 'flux-pro',
	tool: 'image',
	prompt: 'a red bicycle at dawn',
	additionalFields: { params: JSON.stringify({ sandbox: { durationMs: 500 }, ...params }) },
	...extra,
});

describe('generation', () => {
	test('estimate returns the cost without charging', async () => {
		const before = balance();
		const { out } = await run({ ...generation(), operation: 'estimate' });
		expect(out[0].credits).toBeGreaterThan(0);
		expect(balance()).toBe(before);
	});

	test('create waits for completion by default and returns the charged job', async () => {
		const before = balance();
		const { out, error } = await run(generation());
		expect(error).toBeUndefined();
		expect(out[0]).toMatchObject({ status: 'completed', tool: 'image', model_id: 'flux-pro' });
		expect(out[0].credits_charged).toBeGreaterThan(0);
		expect((out[0].outputs as IDataObject[])[0]).toMatchObject({ kind: 'image' });
		expect(balance()).toBe(before - Number(out[0].credits_charged));
		expect(creates()[0].idempotencyKey).toMatch(/^n8n-[0-9a-f]{48}$/);
	});

	test('without waiting, the started job comes back at once', async () => {
		const { out } = await run(generation({ waitForCompletion: false }));
		expect(['queued', 'running']).toContain(out[0].status);
	});

	test('items wait together: every job is started before the first one is polled', async () => {
		sb.control.clearRequests();
		const { out } = await run(generation({}, { sandbox: { durationMs: 20_000 } }), [{}, {}, {}]);
		expect(out.map((o) => o.status)).toEqual(['completed', 'completed', 'completed']);
		// the order of the requests, not the wall clock: three creates, then one wait for all three
		// (how long that takes is benchmark B4's business, bench/README.md)
		const log = sb.control.requests({ path: '^/v1/generations' });
		const firstPoll = log.findIndex((r) => r.method === 'GET');
		expect(log.slice(0, firstPoll).map((r) => `${r.method} ${r.path}`)).toEqual(
			Array(3).fill('POST /v1/generations'),
		);
	});

	test('a failed job fails its item with the job error; credits are returned; others go on', async () => {
		const before = balance();
		const { out } = await run(
			{
				...generation(),
				additionalFields: {
					params: '={{ JSON.stringify({ sandbox: { durationMs: 300, fail: $json.fail } }) }}',
				},
			},
			[{ fail: false }, { fail: 'model overloaded' }],
			{ continueOnFail: true },
		);
		expect(out[0].status).toBe('completed');
		expect(out[1].error).toMatch(/failed: model overloaded/);
		expect(out[1].description).toMatch(/credits were returned/);
		expect(balance()).toBe(before - Number(out[0].credits_charged));
	});

	test('Max Credits refuses above the estimate: nothing created, nothing charged', async () => {
		const before = balance();
		const { error } = await run(generation({ options: { maxCredits: 1 } }));
		expect(error?.message).toMatch(/^Estimated cost is \d+ credits, above Max Credits \(1\)/);
		expect(sb.control.requests({ method: 'POST', path: '/generations/estimate' })).toHaveLength(1);
		expect(creates()).toHaveLength(0);
		expect(balance()).toBe(before);
	});

	test('402 shows the balance', async () => {
		sb.control.setCredits('main', 1);
		const { error } = await run(generation());
		expect(error?.message).toMatch(/^Not enough credits \(balance 1, needed \d+\)/);
	});

	test('timeout names the job and points to the trigger', async () => {
		const { error } = await run(
			// the job runs for 10 minutes (scaled): the 0.6 s timeout always comes first
			generation({ options: { timeoutMinutes: 0.01 } }, { sandbox: { durationMs: 60_000_000 } }),
		);
		expect(error?.message).toMatch(/^Job [\w-]+ is still (queued|running) after 0.01 minutes/);
		expect(error?.description).toMatch(/MediaGen Trigger/);
	});

	test('cancelling the execution stops the wait at once', async () => {
		// a wait that does not hear the cancel sleeps 20 s or more between polls
		Object.assign(POLLING, { minMs: 20_000, maxMs: 30_000 });
		try {
			const started = startWorkflow(
				chain(
					[{}],
					[mediaGen('MediaGen', generation({}, { sandbox: { durationMs: 60_000_000 } }))],
				),
				{ credentials: creds() },
			);
			await until(() => creates().length === 1);
			await sleep(100);
			const at = Date.now();
			started.cancel();
			const result = await started.done;
			expect(Date.now() - at).toBeLessThan(10_000);
			expect(result.run.status).toBe('canceled');
		} finally {
			Object.assign(POLLING, { minMs: 20, maxMs: 200 });
		}
	});

	test('lost create responses, 20 in a row, with retries on: one job and one charge per item', async () => {
		const before = balance();
		sb.control.addFault({ kind: 'drop', method: 'POST', path: '/generations$', count: 20 });
		const { out, error } = await run(generation(), [{}, {}, {}], {
			retryOnFail: true,
			maxTries: 5,
			waitBetweenTries: 0,
		});
		expect(error).toBeUndefined();
		expect(out).toHaveLength(3);
		const ids = new Set(out.map((o) => o.id));
		expect(ids.size).toBe(3);
		const list = await run({ resource: 'generation', operation: 'getAll', returnAll: true });
		expect(list.out).toHaveLength(3);
		const charged = out.reduce((n, o) => n + Number(o.credits_charged), 0);
		expect(balance()).toBe(before - charged);
		// sent again with each item's own key until answered: by the transport's retries, then by
		// Retry On Fail after a look at MediaGen for the items sent without an answer
		expect(creates().length).toBeGreaterThan(6);
		expect(new Set(creates().map((r) => r.idempotencyKey)).size).toBe(3);
	});

	test('get, get many with filters, cancel, retry, subtitles', async () => {
		sb.control.holdJobs(); // the job is still active for the get many and the cancel
		const started = await run(generation({ waitForCompletion: false }));
		const id = started.out[0].id;
		const got = await run({ resource: 'generation', operation: 'get', generationId: rl(id) });
		expect(got.out[0].id).toBe(id);
		const active = await run({
			resource: 'generation',
			operation: 'getAll',
			returnAll: true,
			filters: { status: 'active', tool: 'image' },
		});
		expect(active.out.map((g) => g.id)).toEqual([id]);

		const before = balance();
		const cancelled = await run({
			resource: 'generation',
			operation: 'cancel',
			generationId: rl(id),
		});
		expect(cancelled.out[0].status).toBe('cancelled');
		expect(balance()).toBeGreaterThanOrEqual(before);
		sb.control.releaseJobs();

		const failed = await run(
			generation({ waitForCompletion: false }, { sandbox: { durationMs: 100, fail: true } }),
		);
		await until(
			async () => (await pro('GET', `/generations/${failed.out[0].id}`)).body.status === 'failed',
		);
		const retried = await run({
			resource: 'generation',
			operation: 'retry',
			generationId: rl(failed.out[0].id),
		});
		expect(retried.error).toBeUndefined();

		const video = await run(
			generation(
				{ tool: 'video', modelId: 'clip-1' },
				{ duration: 4, sandbox: { durationMs: 300 } },
			),
		);
		const subs = await run({
			resource: 'generation',
			operation: 'getSubtitles',
			generationId: rl(video.out[0].id),
			format: 'vtt',
			binaryPropertyName: 'subs',
		});
		expect(subs.error).toBeUndefined();
		expect(String(subs.out[0].text)).toMatch(/^WEBVTT/);
		const file = subs.items('MediaGen')[0].binary?.subs;
		expect(file).toMatchObject({ mimeType: 'text/vtt', fileExtension: 'vtt' });
	});
});

describe('asset (JSON operations)', () => {
	test('get, update, duplicate, versions, list filters, delete many', async () => {
		const a = sb.control.createLargeAsset({ size: 100, mimeType: 'image/png', filename: 'a.png' });
		const b = sb.control.createLargeAsset({ size: 100 });
		const got = await run({ resource: 'asset', operation: 'get', assetId: rl(a.id) });
		expect(got.out[0].id).toBe(a.id);
		const upd = await run({
			resource: 'asset',
			operation: 'update',
			assetId: rl(a.id),
			updateFields: {
				title: 'Hero',
				tags: 'spring, launch',
				favorite: true,
				visibility: 'unlisted',
			},
		});
		expect(upd.out[0]).toMatchObject({
			title: 'Hero',
			tags: ['spring', 'launch'],
			favorite: true,
			visibility: 'unlisted',
		});
		const versions = await run({ resource: 'asset', operation: 'getVersions', assetId: rl(a.id) });
		expect(versions.error).toBeUndefined();
		const favs = await run({
			resource: 'asset',
			operation: 'getAll',
			returnAll: true,
			filters: { favorite: true, tag: 'spring' },
		});
		expect(favs.out.map((x) => x.id)).toEqual([a.id]);
		const dup = await run({ resource: 'asset', operation: 'duplicate', assetId: rl(a.id) });
		expect(dup.out[0].id).not.toBe(a.id);
		const del = await run({ resource: 'asset', operation: 'delete', ids: `${a.id},${b.id}` });
		expect(del.error).toBeUndefined();
		const left = await run({ resource: 'asset', operation: 'getAll', returnAll: true });
		expect(left.out.map((x) => x.id)).toEqual([dup.out[0].id]);
	});
});

describe('webhook endpoints', () => {
	test('create (secret once, said so), list with event types, update, rotate, test, deliveries, delete', async () => {
		const created = await run({
			resource: 'webhook',
			operation: 'create',
			url: 'http://127.0.0.1:9/hook',
			events: ['generation.completed', 'generation.failed'],
		});
		expect(created.error).toBeUndefined();
		expect(String(created.out[0].secret)).toMatch(/^whsec_/);
		expect(created.out[0].notice).toMatch(/shown only this once/);
		const id = created.out[0].id;

		const list = await run({ resource: 'webhook', operation: 'getAll', returnAll: true });
		expect(list.out).toHaveLength(1);
		expect(list.out[0].eventTypes).toContain('generation.completed');
		expect(list.out[0].secret).toBeUndefined();

		const disabled = await run({
			resource: 'webhook',
			operation: 'update',
			webhookId: rl(id),
			updateFields: { status: 'disabled', events: ['*'] },
		});
		expect(disabled.out[0]).toMatchObject({ status: 'disabled', events: ['*'] });
		const rotated = await run({
			resource: 'webhook',
			operation: 'rotateSecret',
			webhookId: rl(id),
		});
		expect(rotated.out[0].secret).not.toBe(created.out[0].secret);

		const ping = await run({ resource: 'webhook', operation: 'test', webhookId: rl(id) });
		expect(ping.error).toBeUndefined();
		const deliveries = await run({
			resource: 'webhook',
			operation: 'getDeliveries',
			webhookId: rl(id),
			returnAll: true,
		});
		expect(deliveries.out.length).toBeGreaterThanOrEqual(1);
		const retry = await run({
			resource: 'webhook',
			operation: 'retryDelivery',
			id: String(deliveries.out[0].id),
		});
		expect(retry.error).toBeUndefined();

		const del = await run({ resource: 'webhook', operation: 'delete', webhookId: rl(id) });
		expect(del.out[0]).toMatchObject({ deleted: true });
	});
	test('the URL must be a URL before anything is sent', async () => {
		const { error } = await run({
			resource: 'webhook',
			operation: 'create',
			url: 'not a url',
			events: ['*'],
		});
		expect(error?.message).toBe("URL must be a URL, got 'not a url'");
		expect(sb.control.requests()).toHaveLength(0);
	});
	test('a Starter-plan workspace gets 403 with the plan meaning', async () => {
		const { error } = await run(
			{ resource: 'webhook', operation: 'getAll', returnAll: true },
			[{}],
			{},
			sb.keys.starter,
		);
		expect(error?.message).toMatch(/plan/);
	});
});

describe('voices, prompt assist, analytics', () => {
	test('voices: one item per voice', async () => {
		const { out } = await run({ resource: 'voice', operation: 'getAll' });
		expect(out.length).toBeGreaterThan(1);
		expect(out[0].voice_id).toBeTruthy();
	});
	test('prompt assist: variations with a count; count out of range refused locally', async () => {
		const { out } = await run({
			resource: 'prompt',
			operation: 'assist',
			action: 'variations',
			prompt: 'a cat',
			additionalFields: { count: 3 },
		});
		expect(out[0]).toBeTruthy();
		const bad = await run({
			resource: 'prompt',
			operation: 'assist',
			action: 'variations',
			prompt: 'a cat',
			additionalFields: { count: 7 },
		});
		expect(bad.error?.message).toBe('Count must be between 2 and 6, got 7');
	});
	test('analytics: overview, compare (dimension), creative report', async () => {
		const overview = await run({
			resource: 'analytics',
			operation: 'overview',
			additionalFields: { days: 30, channel: 'shortclip' },
		});
		expect(overview.out[0]).toHaveProperty('engagement');
		const compare = await run({ resource: 'analytics', operation: 'compare', dimension: 'hook' });
		expect(compare.error).toBeUndefined();
		expect(sb.control.requests({ path: '/analytics/compare' })[0].query.dimension).toBe('hook');
		const a = sb.control.createLargeAsset({ size: 10 });
		const creative = await run({ resource: 'analytics', operation: 'creative', assetId: rl(a.id) });
		expect(creative.out[0]).toHaveProperty('origin');
	});
});
