/**
 * The MediaGen Trigger does what the user meant (issue #37, findings 1 to 4 and 6): the events of
 * a week the user switched the workflow off, and of types the user no longer subscribes to, are
 * not replayed; a user's own "disable" in MediaGen stays; a brief MediaGen fault at a re-publish
 * does not leave the workflow deaf; someone with only the webhook URL can neither keep the secret
 * repair from happening nor cause more than a constant of requests. The real node in n8n-core's
 * contexts (triggerHarness.ts) against the sandbox, which delivers over HTTP on its schedule.
 */
import { checkSlot, KEEPER } from '../../nodes/MediaGenTrigger/catchUp';
import { DEACTIVATION } from '../../nodes/MediaGenTrigger/registration';
import { SECRET_REPAIR } from '../../nodes/MediaGenTrigger/secretRepair';
import { DELIVERY_RECOVERY } from '../../nodes/shared/webhooks/deliveries';
import { RETRY } from '../../nodes/shared/transport/retry';
import { runsPerEvent, useTriggerKit } from '../harness/engine/triggerKit';

const kit = useTriggerKit({ timeScale: 0.001 });
const { sb, logs, api, endpoints, until, fakeN8n, automatic, stored, generate } = kit;
const { signed, eventBody, post, deliveriesOf, outage } = kit;

const retry = { ...RETRY };
beforeAll(() => {
	DELIVERY_RECOVERY.retriesPerMinute = 60_000; // no pacing here (60 a minute in n8n)
	Object.assign(RETRY, { baseDelayMs: 5, maxDelayMs: 20, rateLimitRetries: 1, serverRetries: 1 });
});
afterAll(() => Object.assign(RETRY, retry));

describe('finding 3: a brief MediaGen fault at a re-publish leaves the endpoint registered', () => {
	test.each([
		['a 503', 503],
		['429s under load', 429],
	])(
		"the re-added trigger's check meets %s: the grace deletion is cancelled, the next event runs",
		async (_name, status) => {
			const n8n = await fakeN8n(automatic());
			await n8n.activate();
			const { id, secret } = stored(n8n) as { id: string; secret: string };
			// n8n 2.x publishes a changed trigger: removes it, adds it again; the check fails
			await n8n.deactivate();
			sb.control.addFault({ kind: 'fail', method: 'GET', path: '/webhooks$', status, count: 20 });
			n8n.setParameters(automatic(['generation.completed'], { includePings: true }));
			await n8n.activate('update');
			sb.control.clearFaults();
			const left = await kit.afterGrace();
			expect(left).toEqual([expect.objectContaining({ id, status: 'active' })]);
			expect(stored(n8n)).toMatchObject({ id, secret });
			await generate();
			await until(() => n8n.runs.length === 1);
		},
	);
});

describe('finding 1: the events of a week the workflow was switched off are not replayed', () => {
	test('the deletion after the grace period failed: the stale events stay failed, a new one runs', async () => {
		const n8n = await fakeN8n(automatic());
		await n8n.activate();
		const { id } = stored(n8n) as { id: string };
		// MediaGen unreachable for the grace period: the deactivated endpoint stays
		sb.control.addFault({ kind: 'fail', method: 'DELETE', path: '/webhooks/', count: 50 });
		await n8n.deactivate();
		const left = await kit.afterGrace();
		sb.control.clearFaults();
		expect(left.map((e) => e.id)).toEqual([id]);
		// a week switched off: every event fails against n8n's 404
		const stale = await outage(n8n, id, 3);
		logs.length = 0;
		sb.control.clearRequests();
		await n8n.activate();
		await n8n.settle();
		expect(n8n.runs).toHaveLength(0);
		expect(sb.control.requests({ method: 'POST', path: '/retry$' })).toHaveLength(0);
		expect(
			logs.some((l) =>
				l.includes('3 failed deliveries of events from while the workflow was deactivated'),
			),
		).toBe(true);
		expect((await deliveriesOf(id)).filter((d) => d.status === 'failed')).toHaveLength(
			stale.length,
		);
		// a restart later (a new activation) does not replay them either
		await n8n.activate('init');
		await n8n.fireCrons();
		await n8n.settle();
		expect(n8n.runs).toHaveLength(0);
		await generate();
		await until(() => n8n.runs.length === 1);
	});

	test('events of the active time around it are still replayed, each once', async () => {
		const n8n = await fakeN8n(automatic());
		await n8n.activate();
		const { id } = stored(n8n) as { id: string };
		const before = await outage(n8n, id, 2); // n8n down while active
		sb.control.addFault({ kind: 'fail', method: 'DELETE', path: '/webhooks/', count: 50 });
		await n8n.deactivate();
		await kit.afterGrace();
		sb.control.clearFaults();
		await outage(n8n, id, 2); // switched off
		await n8n.activate();
		await until(() => n8n.runs.length === 2);
		await n8n.settle();
		expect(runsPerEvent(n8n)).toEqual(Object.fromEntries(before.map((d) => [d.event_id, 1])));
	});
});

describe("finding 1: MediaGen's own retries of an event of the switched-off time", () => {
	test('are acknowledged after the reactivation and run nothing', async () => {
		const n8n = await fakeN8n(automatic());
		await n8n.activate();
		const { id } = stored(n8n) as { id: string };
		sb.control.addFault({ kind: 'fail', method: 'DELETE', path: '/webhooks/', count: 50 });
		await n8n.deactivate();
		await kit.afterGrace();
		sb.control.clearFaults();
		sb.control.setConfig({ timeScale: 0.01 }); // MediaGen retries 0.3 s, 1.2 s, 6 s later
		try {
			await generate();
			await until(async () => (await deliveriesOf(id)).some((d) => d.attempts.length > 0));
			await n8n.activate();
			await until(
				async () => (await deliveriesOf(id)).some((d) => d.status === 'succeeded'),
				20_000,
			);
		} finally {
			sb.control.setConfig({ timeScale: 0.001 });
		}
		await n8n.settle();
		expect(n8n.runs).toHaveLength(0);
		expect(n8n.requests.filter((r) => r.status === 200).map((r) => r.response)).toEqual([
			expect.stringContaining('made while the workflow was deactivated'),
		]);
		await generate();
		await until(() => n8n.runs.length === 1);
	});
});

describe('finding 2: events of types the user unsubscribed from are not replayed', () => {
	test('subscribed to *, an outage, re-published for export.completed only', async () => {
		const n8n = await fakeN8n(automatic(['*']));
		await n8n.activate();
		const { id } = stored(n8n) as { id: string };
		await outage(n8n, id, 3); // generation.completed events
		await n8n.deactivate();
		n8n.setParameters(automatic(['export.completed']));
		logs.length = 0;
		sb.control.clearRequests();
		await n8n.activate('update');
		await n8n.settle();
		expect((await endpoints())[0]).toMatchObject({ id, events: ['export.completed'] });
		expect(n8n.runs).toHaveLength(0);
		expect(sb.control.requests({ method: 'POST', path: '/retry$' })).toHaveLength(0);
		expect(
			logs.some((l) => l.includes('3 failed deliveries of event types this trigger does not')),
		).toBe(true);
	});
});

describe("finding 4: the user's own disable in MediaGen stays", () => {
	test('neither the periodic check nor a start of n8n enables it; the log says why', async () => {
		const n8n = await fakeN8n(automatic());
		await n8n.activate();
		const { id } = stored(n8n) as { id: string };
		await api('PATCH', `/webhooks/${id}`, { status: 'disabled' });
		logs.length = 0;
		await n8n.fireCrons();
		await n8n.activate('init');
		await n8n.fireCrons();
		expect((await endpoints())[0]).toMatchObject({ id, status: 'disabled' });
		expect(sb.control.requests({ method: 'PATCH', path: `/webhooks/${id}$` })).toHaveLength(1);
		const said = logs.filter((l) => l.includes('was disabled in MediaGen, not after failed'));
		expect(said.length).toBeGreaterThanOrEqual(1);
		expect(logs.some((l) => l.includes('deliveries kept failing'))).toBe(false);
		// enabled again by the user: events run
		await api('PATCH', `/webhooks/${id}`, { status: 'active' });
		await generate();
		await until(() => n8n.runs.length === 1);
	});
});

describe('finding 6: someone with only the webhook URL', () => {
	const forge = (id = `evt_forged_${Math.random().toString(16).slice(2)}`) =>
		signed(`whsec_${Buffer.alloc(24, 7).toString('base64')}`, eventBody(id), { id });

	test('cannot keep the repair of a secret rotated elsewhere from happening', async () => {
		const interval = SECRET_REPAIR.minIntervalMs;
		try {
			SECRET_REPAIR.minIntervalMs = 3_600_000;
			const n8n = await fakeN8n(automatic());
			await n8n.activate();
			const { id } = stored(n8n) as { id: string };
			await api('POST', `/webhooks/${id}/rotate-secret`); // rotated in MediaGen's settings
			// the attacker's request comes first and takes the look of this interval
			let f = forge();
			expect((await post(n8n.productionUrl, f.headers, f.body)).status).toBe(401);
			await n8n.settle();
			// MediaGen's delivery is refused (wrong secret); its attempt is recorded
			// MediaGen's retries 0.3 s, 1.2 s, 6 s apart: whenever they come, only a look proves them
			sb.control.setConfig({ timeScale: 0.01 });
			await generate();
			await until(async () =>
				(await deliveriesOf(id)).some((d) => d.attempts.some((a) => a.response_status === 401)),
			);
			await n8n.settle();
			// the next interval: the attacker again comes first
			SECRET_REPAIR.minIntervalMs = 0;
			f = forge();
			expect((await post(n8n.productionUrl, f.headers, f.body)).status).toBe(401);
			await n8n.settle();
			SECRET_REPAIR.minIntervalMs = 3_600_000;
			// MediaGen's next retry verifies
			await until(() => n8n.runs.length === 1, 20_000);
			expect(sb.control.requests({ method: 'POST', path: '/rotate-secret$' })).toHaveLength(2);
		} finally {
			SECRET_REPAIR.minIntervalMs = interval;
			sb.control.setConfig({ timeScale: 0.001 });
		}
	});

	test('100 forged requests cost at most 2 reads of the log, no rotation, no execution', async () => {
		const n8n = await fakeN8n(automatic());
		await n8n.activate();
		const { secret } = stored(n8n) as { secret: string };
		sb.control.clearRequests();
		for (let i = 0; i < 100; i++) {
			const f = forge();
			expect((await post(n8n.productionUrl, f.headers, f.body)).status).toBe(401);
		}
		await n8n.settle();
		expect(sb.control.requests({}).length).toBeLessThanOrEqual(2);
		expect(sb.control.requests({ method: 'POST', path: '/rotate-secret$' })).toHaveLength(0);
		expect(n8n.runs).toHaveLength(0);
		expect(stored(n8n)?.secret).toBe(secret);
	});
});

describe('finding 5 (in part): the periodic checks of many workflows spread over the 10 minutes', () => {
	test('200 node ids: each minute of the 10 holds at most 2x its share; a tick at another minute sends nothing', async () => {
		const perMinute = Array.from({ length: KEEPER.minutes }, () => 0);
		for (let i = 0; i < 200; i++)
			perMinute[checkSlot(crypto.randomUUID(), crypto.randomUUID()).minute]++;
		expect(Math.max(...perMinute)).toBeLessThanOrEqual(40);
		expect(Math.min(...perMinute)).toBeGreaterThan(0);

		const n8n = await fakeN8n(automatic());
		await n8n.activate();
		const { minute, second } = checkSlot(n8n.workflowId, n8n.node.id);
		expect(n8n.cronExpressions).toEqual([`${second} * * * * *`]);
		sb.control.clearRequests();
		const other = new Date();
		other.setUTCMinutes((minute + 1) % KEEPER.minutes);
		n8n.cronTicks[0](other); // n8n's tick at another minute: nothing
		await n8n.fireCrons(); // at its minute: the check runs
		expect(sb.control.requests({ method: 'GET', path: '/webhooks$' })).toHaveLength(1);
	});
});

test('the grace period in tests', () => expect(DEACTIVATION.graceMs).toBe(100));
