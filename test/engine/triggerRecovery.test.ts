/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * The MediaGen Trigger loses no event and never goes deaf (issue #32): n8n down past MediaGen's
 * retries (the endpoint disabled), its periodic check while n8n runs, the retry of missed
 * deliveries under a 429, and what must not break it: a stale copy of static data saved over a new
 * registration, a copy of the workflow, bodies n8n cannot hand over, forged requests naming a
 * real event, a re-publish of a changed trigger. The real node in n8n-core's contexts
 * (triggerHarness.ts) against the sandbox, which delivers over HTTP on its (time-scaled) schedule.
 */
import { gzipSync } from 'node:zlib';

import type { IDataObject } from 'n8n-workflow';

import { KEEPER } from '../../nodes/MediaGenTrigger/catchUp';
import { DEACTIVATION } from '../../nodes/MediaGenTrigger/registration';
import { TRIGGER_DOWNLOADS } from '../../nodes/MediaGenTrigger/enrichment';
import { SECRET_REPAIR } from '../../nodes/MediaGenTrigger/secretRepair';
import { DELIVERY_RECOVERY } from '../../nodes/shared/webhooks/deliveries';
import { mediaGen } from '../harness/engine/harness';
import { rl } from '../harness/engine/setup';
import type { Delivery } from '../harness/engine/triggerKit';
import { runsPerEvent, useTriggerKit } from '../harness/engine/triggerKit';

const kit = useTriggerKit({ timeScale: 0.001 });
const { sb, logs, api, endpoints, until, fakeN8n, automatic, stored, generate } = kit;
const { signed, eventBody, post, sleep, deliveriesOf, outage } = kit;

beforeAll(() => {
	DELIVERY_RECOVERY.retriesPerMinute = 60_000; // no pacing here (60 a minute in n8n)
});

describe('n8n down past the retries: every event of the outage runs once when it is back', () => {
	test('the disabled endpoint is enabled again (same id and secret), its failed deliveries retried oldest first', async () => {
		const n8n = await fakeN8n(automatic());
		await n8n.activate();
		const { id, secret } = stored(n8n) as { id: string; secret: string };
		const failed = await outage(n8n, id, 16);
		// 15 failed events in a row: MediaGen disabled the endpoint
		expect((await endpoints())[0]).toMatchObject({ id, status: 'disabled' });
		expect(n8n.runs).toHaveLength(0);
		logs.length = 0;

		await n8n.activate('init'); // n8n starts again
		expect(await endpoints()).toEqual([expect.objectContaining({ id, status: 'active' })]);
		expect(stored(n8n)).toMatchObject({ id, secret });
		await until(() => n8n.runs.length === 16);
		await sleep(200);
		const events = failed.map((d) => d.event_id);
		expect(runsPerEvent(n8n)).toEqual(Object.fromEntries(events.map((e) => [e, 1])));
		// asked oldest first
		const byId = new Map(failed.map((d) => [d.id, d.created_at]));
		const asked = sb.control
			.requests({ method: 'POST', path: '/retry$' })
			.map((r) => byId.get(r.path.split('/')[4]) ?? '');
		expect(asked).toHaveLength(16);
		expect([...asked].sort()).toEqual(asked);
		expect(logs.some((l) => l.includes('MediaGen had disabled webhook endpoint'))).toBe(true);

		// and a new event runs too
		await generate();
		await until(() => n8n.runs.length === 17);
		// a second start retries nothing (each was delivered)
		sb.control.clearRequests();
		await n8n.activate('init');
		expect(sb.control.requests({ method: 'POST', path: '/retry$' })).toHaveLength(0);
	});

	test('under a 429 the retries wait for Retry-After and still deliver each event once', async () => {
		const n8n = await fakeN8n(automatic());
		await n8n.activate();
		const { id } = stored(n8n) as { id: string };
		const failed = await outage(n8n, id, 3);
		expect((await endpoints())[0].status).toBe('active'); // 3 failed events: not disabled
		sb.control.clearRequests();
		sb.control.addFault({ kind: 'fail', method: 'POST', path: '/retry$', status: 429, count: 2 });
		await n8n.activate('init');
		await until(() => n8n.runs.length === 3);
		expect(Object.values(runsPerEvent(n8n))).toEqual([1, 1, 1]);
		expect(Object.keys(runsPerEvent(n8n)).sort()).toEqual(failed.map((d) => d.event_id).sort());
		// 3 retries + the 2 answered 429
		expect(sb.control.requests({ method: 'POST', path: '/retry$' })).toHaveLength(5);
	});

	test('an endpoint deleted outside n8n: a new one, and a log line naming the lost events', async () => {
		const n8n = await fakeN8n(automatic());
		await n8n.activate();
		const { id } = stored(n8n) as { id: string };
		await api('DELETE', `/webhooks/${id}`);
		logs.length = 0;
		await n8n.activate('init');
		expect(stored(n8n)?.id).not.toBe(id);
		expect(logs.some((l) => l.includes(`endpoint ${id} was deleted at MediaGen`))).toBe(true);
		await generate();
		await until(() => n8n.runs.length === 1);
	});
});

describe('one replay pace per key (#37, finding 5)', () => {
	test('two trigger workflows on one key after one outage: their replays together stay within one burst and one rate', async () => {
		const saved = { ...DELIVERY_RECOVERY };
		// 4 at once, then one every 250 ms, for every workflow of the process on the key together
		Object.assign(DELIVERY_RECOVERY, { burst: 4, retriesPerMinute: 240 });
		try {
			const a = await fakeN8n(automatic());
			const b = await fakeN8n(automatic());
			await a.activate();
			await b.activate();
			const idA = (stored(a) as { id: string }).id;
			const idB = (stored(b) as { id: string }).id;
			b.offline = true; // both down: each event fails at both endpoints
			await outage(a, idA, 8);
			await until(async () => {
				const list = await deliveriesOf(idB);
				return list.length === 8 && list.every((d) => d.status === 'failed');
			});
			b.offline = false;
			sb.control.clearRequests();
			await Promise.all([a.activate('init'), b.activate('init')]); // n8n starts again
			await until(() => a.runs.length === 8 && b.runs.length === 8);
			const times = sb.control
				.requests({ method: 'POST', path: '/retry$' })
				.map((r) => Date.parse(r.time))
				.sort((x, y) => x - y);
			expect(times).toHaveLength(16);
			// by any retry, at most the burst plus one turn per 250 ms since the first (two turns of
			// slack for requests that took longer to arrive); a slow machine only sends fewer
			const over = times.filter((t, i) => i + 1 > 4 + Math.floor((t - times[0]) / 250) + 2);
			expect(over).toEqual([]);
		} finally {
			Object.assign(DELIVERY_RECOVERY, saved);
		}
	});
});

describe('the periodic checks of a key, at scale (#37, finding 5)', () => {
	/** `count` test pings of the endpoint (deliveries in its log), 10 at a time. */
	async function pings(endpointId: string, count: number): Promise<void> {
		for (let sent = 0; sent < count; sent += 10)
			await Promise.all(
				Array.from({ length: Math.min(10, count - sent) }, () =>
					api('POST', `/webhooks/${endpointId}/test`),
				),
			);
	}

	test('12 workflows on one key whose checks fall in one minute: one listing, their requests within the pace of the key', async () => {
		const saved = { ...KEEPER };
		// 3 at once, then one every 250 ms, for all the checks of the process on the key together
		Object.assign(KEEPER, { checkBurst: 3, checkRequestsPerMinute: 240, listingMaxAgeMs: 60_000 });
		try {
			const flows = [];
			for (let i = 0; i < 12; i++) flows.push(await fakeN8n(automatic()));
			for (const n8n of flows) await n8n.activate();
			sb.control.clearRequests();
			await Promise.all(flows.map(async (n8n) => await n8n.fireCrons()));
			const requests = sb.control.requests({ path: '^/v1/webhooks' });
			// one listing for all (before: one each), one read of each log
			expect(requests.filter((r) => /\/webhooks$/.test(r.path))).toHaveLength(1);
			expect(requests.filter((r) => /\/deliveries$/.test(r.path))).toHaveLength(12);
			expect(requests).toHaveLength(13);
			const times = requests.map((r) => Date.parse(r.time)).sort((x, y) => x - y);
			// by any request, at most the burst plus one turn per 250 ms since the first (two turns
			// of slack for requests that took longer to arrive)
			const over = times.filter((t, i) => i + 1 > 3 + Math.floor((t - times[0]) / 250) + 2);
			expect(over).toEqual([]);
		} finally {
			Object.assign(KEEPER, saved);
		}
	});

	test('a log of 1,050 deliveries: a check reads one page when nothing is new; a delivery pending at a check and failed by the next is retried', async () => {
		const n8n = await fakeN8n(automatic());
		await n8n.activate();
		const { id } = stored(n8n) as { id: string };
		await pings(id, 1050);
		await n8n.activate('init'); // n8n starts: the activation reads the log (its newest 1,000)
		sb.control.clearRequests();
		await n8n.fireCrons();
		expect(sb.control.requests({ method: 'GET', path: '/deliveries$' })).toHaveLength(1);
		await n8n.fireCrons();
		expect(sb.control.requests({ method: 'GET', path: '/deliveries$' })).toHaveLength(2);

		// an event n8n cannot take: its delivery is pending (MediaGen retries) at the next check
		const scale = sb.control.config().timeScale;
		sb.control.setConfig({ timeScale: 0.0005 }); // 11 h of retries in 20 s
		n8n.offline = true;
		await generate();
		const pending = (await until(async () =>
			(await deliveriesOf(id)).find((d) => d.event_type !== 'webhook.test'),
		)) as Delivery;
		await n8n.fireCrons();
		expect((await deliveriesOf(id)).find((d) => d.id === pending.id)?.status).toBe('pending');
		// then 150 newer deliveries, and it ends failed
		await pings(id, 150);
		await until(async () => (await deliveryStatus(id, pending.id)) === 'failed', 60_000);
		n8n.offline = false;
		sb.control.setConfig({ timeScale: scale });
		sb.control.clearRequests();
		await n8n.fireCrons();
		await until(() => n8n.runs.length === 1);
		expect(runsPerEvent(n8n)).toEqual({ [pending.event_id]: 1 });
		// the new deliveries and back to the one pending then: two pages, not ten
		expect(sb.control.requests({ method: 'GET', path: '/deliveries$' })).toHaveLength(2);
		expect(sb.control.requests({ method: 'POST', path: '/retry$' })).toHaveLength(1);
	});

	/** A delivery's status, from the endpoint's whole log. */
	async function deliveryStatus(endpointId: string, deliveryId: string): Promise<string> {
		let path = `/webhooks/${endpointId}/deliveries?limit=100`;
		for (;;) {
			const page = await api('GET', path);
			const found = (page.data as Delivery[]).find((d) => d.id === deliveryId);
			if (found || !page.nextCursor) return String(found?.status);
			path = `/webhooks/${endpointId}/deliveries?limit=100&before=${encodeURIComponent(page.nextCursor)}`;
		}
	}
});

describe('the periodic check while n8n runs', () => {
	test('brings back an endpoint MediaGen disabled and retries what failed, once per activation', async () => {
		const n8n = await fakeN8n(automatic());
		await n8n.activate();
		expect(n8n.crons).toHaveLength(1); // registered by the trigger method
		const { id, secret } = stored(n8n) as { id: string; secret: string };
		await outage(n8n, id, 15);
		expect((await endpoints())[0].status).toBe('disabled');
		await n8n.fireCrons();
		expect(await endpoints()).toEqual([expect.objectContaining({ id, status: 'active' })]);
		await until(() => n8n.runs.length === 15);
		expect(stored(n8n)?.secret).toBe(secret);

		// a later failure is retried by the next check; nothing is retried twice
		const [late] = await outage(n8n, id, 1);
		sb.control.clearRequests();
		await n8n.fireCrons();
		await until(() => n8n.runs.length === 16);
		expect(runsPerEvent(n8n)[late.event_id]).toBe(1);
		expect(sb.control.requests({ method: 'POST', path: '/retry$' })).toHaveLength(1);
		await n8n.fireCrons();
		expect(sb.control.requests({ method: 'POST', path: '/retry$' })).toHaveLength(1);
	});

	test('an endpoint deleted outside n8n: a new one is registered and named in a warning; events run (#37)', async () => {
		const n8n = await fakeN8n(automatic());
		await n8n.activate();
		const old = String(stored(n8n)?.id);
		await api('DELETE', `/webhooks/${old}`);
		logs.length = 0;
		await n8n.fireCrons();
		const list = await endpoints();
		expect(list).toEqual([expect.objectContaining({ url: n8n.productionUrl, status: 'active' })]);
		expect(
			logs.filter((l) => l.includes(`${old} was deleted outside n8n; registered a new one`)),
		).toHaveLength(1);
		// the check cannot save static data: the first delivery is refused, the node takes the new
		// endpoint over (a new secret), MediaGen's retry runs
		await generate();
		await until(() => n8n.runs.length === 1, 30_000);
		expect(stored(n8n)?.id).toBe(list[0].id);
	});
});

describe('a copy of static data saved over a newer registration is repaired on the next delivery', () => {
	test('an execution that writes static data, overlapping a re-registration', async () => {
		// the node after the trigger writes static data 1.5 s into its execution (a Code node can)
		const n8n = await fakeN8n(automatic(), false, sb.keys.pro, {
			afterParameters: { writeStaticData: true, delayMs: 1500 },
		});
		await n8n.activate();
		const first = String(stored(n8n)?.id);
		await generate();
		await until(() => n8n.requests.some((r) => r.started)); // its execution holds the old copy
		// meanwhile the endpoint is registered again (deleted at MediaGen, n8n restarted)
		await api('DELETE', `/webhooks/${first}`);
		await n8n.activate('init');
		const second = String(stored(n8n)?.id);
		expect(second).not.toBe(first);
		await until(() => n8n.runs.length === 1);
		expect(stored(n8n)?.id).toBe(first); // the execution saved its stale copy over it

		// the next event: refused once, the node takes the endpoint at its URL over, MediaGen's
		// retry verifies
		logs.length = 0;
		await generate();
		await until(() => n8n.runs.length === 2);
		expect(stored(n8n)?.id).toBe(second);
		// refused until the node has its new secret, then accepted
		const statuses = sb.control
			.deliveries()
			.filter((d) => d.webhookId === second)
			.map((d) => d.responseStatus);
		expect(statuses[0]).toBe(401);
		expect(statuses.slice(1)).toEqual([...Array(statuses.length - 2).fill(401), 200]);
		expect(logs.filter((l) => l.includes('a secret the node did not have'))).toHaveLength(1);
	});
});

describe('a copy of the workflow', () => {
	test("activating it leaves the original's endpoint alone; both receive every event once", async () => {
		const original = await fakeN8n(automatic());
		await original.activate();
		const theirs = String(stored(original)?.id);
		// an import of the workflow carries its static data; n8n gives it another webhook URL
		const copy = await fakeN8n(automatic(), false, sb.keys.pro, {
			staticData: original.staticData,
		});
		await copy.activate();
		const list = await endpoints();
		expect(list.map((e) => e.id)).toContain(theirs);
		expect(list.find((e) => e.id === theirs)?.status).toBe('active');
		expect(stored(copy)?.id).not.toBe(theirs);
		expect(stored(copy)?.url).toBe(copy.productionUrl);
		await generate();
		await until(() => original.runs.length === 1 && copy.runs.length === 1);
		await copy.deactivate();
		await kit.afterGrace();
		expect((await endpoints()).map((e) => e.id)).toEqual([theirs]);
		await generate();
		await until(() => original.runs.length === 2);
	});
});

describe('bodies n8n cannot hand over: answered 4xx, nothing started', () => {
	test("multipart (n8n's form parser consumed it), gzip that is not gzip", async () => {
		const n8n = await fakeN8n(automatic(['*']));
		await n8n.activate();
		const secret = String(stored(n8n)?.secret);
		const d = signed(secret, eventBody('evt_hostile'), { id: 'evt_hostile' });
		const form = new FormData();
		form.append('payload', d.body);
		const { 'content-type': json, ...signature } = d.headers;
		expect(json).toBe('application/json');
		const multipart = await fetch(n8n.productionUrl, {
			method: 'POST',
			headers: signature,
			body: form,
		});
		const gzip = await post(
			n8n.productionUrl,
			{ ...d.headers, 'content-type': 'application/octet-stream', 'content-encoding': 'gzip' },
			Buffer.from('not gzip at all'),
		);
		const notMediaGen = await post(
			n8n.productionUrl,
			{ 'content-type': 'application/octet-stream', 'content-encoding': 'gzip' },
			gzipSync(Buffer.alloc(10, 1)).subarray(0, 12),
		);
		for (const status of [multipart.status, gzip.status, notMediaGen.status]) {
			expect(status).toBeGreaterThanOrEqual(400);
			expect(status).toBeLessThan(500);
		}
		await n8n.settle();
		expect(n8n.requests.filter((r) => r.started || r.failedExecution)).toEqual([]);
		expect(n8n.runs).toHaveLength(0);
		// the genuine delivery as MediaGen sends it still runs
		expect((await post(n8n.productionUrl, d.headers, d.body)).status).toBe(200);
		await until(() => n8n.runs.length === 1);
	});
});

describe('a forged request cannot make the node rotate the secret', () => {
	const forge = (id: string, timestamp = Math.floor(Date.now() / 1000)) =>
		signed(`whsec_${Buffer.alloc(24, 7).toString('base64')}`, eventBody(id), { id, timestamp });

	test("the id of a delivery that ended failed, or a pending one's id at another time", async () => {
		const n8n = await fakeN8n(automatic());
		await n8n.activate();
		const { id, secret } = stored(n8n) as { id: string; secret: string };
		const [failed] = await outage(n8n, id, 1);
		sb.control.clearRequests();
		const first = forge(failed.event_id);
		expect((await post(n8n.productionUrl, first.headers, first.body)).status).toBe(401);
		await n8n.settle();
		expect(sb.control.requests({ method: 'GET', path: '/deliveries$' })).toHaveLength(1);
		expect(sb.control.requests({ method: 'POST', path: '/rotate-secret$' })).toHaveLength(0);

		// a pending delivery (its next attempt far away), forged at a second none of its attempts has
		sb.control.setConfig({ timeScale: 1 });
		n8n.offline = true;
		await generate();
		const pending = (await until(async () =>
			(await deliveriesOf(id)).find((d) => d.status === 'pending' && d.attempts.length === 1),
		)) as Delivery;
		n8n.offline = false;
		const attemptAt = Math.floor(Date.parse(pending.attempts[0].at) / 1000);
		const second = forge(pending.event_id, attemptAt - 100);
		// checked at once (not a minute after the first look)
		const interval = SECRET_REPAIR.minIntervalMs;
		SECRET_REPAIR.minIntervalMs = 0;
		sb.control.clearRequests();
		try {
			expect((await post(n8n.productionUrl, second.headers, second.body)).status).toBe(401);
			await n8n.settle();
			// looked at (twice: its attempt could have been on its way into the log)
			expect(sb.control.requests({ method: 'GET', path: '/deliveries$' })).toHaveLength(2);
		} finally {
			SECRET_REPAIR.minIntervalMs = interval;
		}
		expect(sb.control.requests({ method: 'POST', path: '/rotate-secret$' })).toHaveLength(0);
		expect(stored(n8n)?.secret).toBe(secret);
		await n8n.settle();
		expect(n8n.runs).toHaveLength(0);
	});
});

describe('re-publishing a changed trigger', () => {
	test('keeps the endpoint and its pending retries; an event in the gap arrives once', async () => {
		const n8n = await fakeN8n(automatic());
		await n8n.activate();
		const { id, secret } = stored(n8n) as { id: string; secret: string };
		// an event n8n could not take (its retry is pending), then n8n 2.x publishes a changed
		// trigger: it removes the old one and adds the new one
		n8n.offline = true;
		await generate();
		await until(async () => (await deliveriesOf(id)).some((d) => d.attempts.length > 0));
		n8n.offline = false;
		// the gap lasts as long as this test needs, however loaded the machine (15 s in n8n)
		const grace = DEACTIVATION.graceMs;
		DEACTIVATION.graceMs = 3000;
		try {
			await n8n.deactivate();
			await generate(); // in the gap: answered 404 (not registered), retried by MediaGen
			await until(async () => (await deliveriesOf(id)).length === 2);
			n8n.setParameters(automatic(['generation.completed'], { includePings: true }));
			await n8n.activate('update');
		} finally {
			DEACTIVATION.graceMs = grace;
		}
		expect(stored(n8n)).toMatchObject({ id, secret });
		await until(() => n8n.runs.length === 2);
		await kit.afterGrace();
		expect(Object.values(runsPerEvent(n8n))).toEqual([1, 1]);
		expect(await endpoints()).toEqual([expect.objectContaining({ id, status: 'active' })]);
		expect(sb.control.requests({ method: 'POST', path: '/webhooks$' })).toHaveLength(1);
	});
});

describe('Download Files runs in the execution, at most 10 files', () => {
	test('the request is answered and saves nothing; files beyond the cap are listed, not fetched', async () => {
		const cap = TRIGGER_DOWNLOADS.maxFiles;
		expect(cap).toBe(10);
		TRIGGER_DOWNLOADS.maxFiles = 2;
		try {
			const n8n = await fakeN8n(automatic(['generation.completed'], { downloadFiles: true }));
			await n8n.activate();
			const before = JSON.stringify(n8n.staticData);
			const generation = await generate({ count: 3 });
			await until(() => n8n.runs.length === 1);
			const [item] = n8n.outputs()[0];
			expect(Object.keys(item.binary ?? {}).sort()).toEqual(['data', 'data_1']);
			const errors = item.json.downloadErrors as IDataObject[];
			expect(errors).toHaveLength(1);
			expect(String(errors[0].message)).toMatch(/at most 2 files per event/);
			expect(sb.control.requests({ method: 'GET', path: '/download$' })).toHaveLength(2);
			// the downloads ran in the execution (the trigger's own run), not in the request
			const triggerRun = n8n.runs[0].data.resultData.runData['MediaGen Trigger'][0];
			expect(Object.keys(triggerRun.data?.main?.[0]?.[0]?.binary ?? {})).toHaveLength(2);
			expect(n8n.requests.find((r) => r.started)?.result?.noWebhookResponse).toBeUndefined();
			expect(JSON.stringify(n8n.staticData)).toBe(before);
			expect(generation.id).toBeTruthy();
		} finally {
			TRIGGER_DOWNLOADS.maxFiles = cap;
		}
	});
});

describe('MediaGen → Webhook → Retry Failed Deliveries (manual mode, from a schedule)', () => {
	const retryFailed = async (webhookId: string, extra: IDataObject = {}) =>
		await kit.runOne(
			mediaGen(
				'MediaGen',
				{
					resource: 'webhook',
					operation: 'retryFailedDeliveries',
					webhookId: rl(webhookId),
					...extra,
				},
				{ typeVersion: 2 },
			),
		);

	test('enables the endpoint MediaGen disabled and has it send every failed delivery again, once', async () => {
		// the user made the endpoint in MediaGen's settings and put its secret in the trigger
		const made = await api('POST', '/webhooks', { url: 'http://127.0.0.1:9/x', events: ['*'] });
		const n8n = await fakeN8n({ registration: 'manual', signingSecret: made.secret, options: {} });
		await api('PATCH', `/webhooks/${made.id}`, { url: n8n.productionUrl });
		await n8n.activate();
		const failed = await outage(n8n, made.id, 15);
		expect((await endpoints())[0].status).toBe('disabled');
		sb.control.clearRequests();

		const first = await retryFailed(made.id);
		expect(first.error).toBeUndefined();
		expect(first.out).toEqual([
			expect.objectContaining({
				webhook_id: made.id,
				status: 'active',
				enabled: true,
				failed: 15,
				retried: 15,
				delivered: 15,
				skipped: 0,
			}),
		]);
		await until(() => n8n.runs.length === 15);
		expect(runsPerEvent(n8n)).toEqual(Object.fromEntries(failed.map((d) => [d.event_id, 1])));
		expect(sb.control.requests({ method: 'PATCH', path: '/webhooks/' })).toHaveLength(1);

		// the next scheduled run finds nothing to do
		const second = await retryFailed(made.id);
		expect(second.out[0]).toMatchObject({ enabled: false, failed: 0, retried: 0 });
		expect(sb.control.requests({ method: 'POST', path: '/retry$' })).toHaveLength(15);
	});

	test('Enable If Disabled off: a disabled endpoint stays disabled; an unknown id is an error, nothing sent', async () => {
		const made = await api('POST', '/webhooks', { url: 'http://127.0.0.1:9/x', events: ['*'] });
		await api('PATCH', `/webhooks/${made.id}`, { status: 'disabled' });
		const off = await retryFailed(made.id, { enableEndpoint: false });
		expect(off.out[0]).toMatchObject({ status: 'disabled', enabled: false, failed: 0 });
		expect((await endpoints())[0].status).toBe('disabled');
		sb.control.clearRequests();
		const unknown = await retryFailed('00000000-0000-4000-8000-000000000000');
		expect(String(unknown.error?.message)).toMatch(/MediaGen has no webhook endpoint 00000000/);
		expect(sb.control.requests({ method: 'POST' })).toHaveLength(0);
		expect(sb.control.requests({ method: 'PATCH' })).toHaveLength(0);
	});
});
