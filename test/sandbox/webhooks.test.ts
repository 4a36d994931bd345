/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sleep, until, useSandbox } from '../harness/sandbox/helpers';

interface Received {
	headers: IncomingHttpHeaders;
	body: string;
	at: number;
}

/** A local receiver that records requests and answers `status` (after `delayMs`). */
class Receiver {
	received: Received[] = [];
	status = 200;
	delayMs = 0;
	private server!: Server;
	url = '';
	async start(): Promise<void> {
		this.server = createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (c: Buffer) => chunks.push(c));
			req.on('end', () => {
				this.received.push({
					headers: req.headers,
					body: Buffer.concat(chunks).toString('utf8'),
					at: Date.now(),
				});
				setTimeout(() => {
					res.statusCode = this.status;
					res.end('ok');
				}, this.delayMs);
			});
		});
		await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
		this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
	}
	stop(): Promise<void> {
		this.server.closeAllConnections();
		return new Promise((r) => this.server.close(() => r()));
	}
}

/** Standard Webhooks verification, as a receiver would do it. */
function verify(secret: string, r: Received): boolean {
	const id = String(r.headers['webhook-id']);
	const ts = String(r.headers['webhook-timestamp']);
	if (Math.abs(Date.now() / 1000 - Number(ts)) > 300) return false;
	const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
	const expected = Buffer.from(
		`v1,${createHmac('sha256', key).update(`${id}.${ts}.${r.body}`).digest('base64')}`,
	);
	return String(r.headers['webhook-signature'])
		.split(' ')
		.some(
			(s) => Buffer.from(s).length === expected.length && timingSafeEqual(Buffer.from(s), expected),
		);
}

const { sb, pro, other, readOnly, starter } = useSandbox({
	allowHttpWebhooks: true,
	timeScale: 0.001,
});
let rx: Receiver;

beforeAll(async () => {
	rx = new Receiver();
	await rx.start();
});
afterAll(async () => {
	await rx.stop();
});
beforeEach(() => {
	rx.received = [];
	rx.status = 200;
	rx.delayMs = 0;
});

const generate = async (extra: Record<string, unknown> = {}) =>
	(
		await pro('POST', '/generations', {
			modelId: 'm',
			prompt: 'p',
			params: { sandbox: { durationMs: 10 } },
			...extra,
		})
	).body;

describe('endpoints', () => {
	it('needs the Pro plan and the webhooks.manage scope', async () => {
		const s = await starter('GET', '/webhooks');
		expect(s.status).toBe(403);
		expect(s.body.error.code).toBe('plan_required');
		const r = await readOnly('GET', '/webhooks');
		expect(r.status).toBe(403);
		expect(r.body.error.code).toBe('forbidden_scope');
	});

	it('create returns the secret once; list carries eventTypes; patch, rotate, delete', async () => {
		const c = await pro('POST', '/webhooks', {
			url: 'https://hooks.example.com/in',
			events: ['generation.completed'],
		});
		expect(c.status).toBe(201);
		expect(c.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
		expect(Buffer.from(c.body.secret.slice(6), 'base64')).toHaveLength(24);
		expect(c.body).toMatchObject({
			description: '',
			status: 'active',
			events: ['generation.completed'],
		});
		const list = await pro('GET', '/webhooks');
		expect(list.body.eventTypes).toContain('export.failed');
		expect(list.body.data[0].secret).toBeUndefined();
		expect(list.body.nextCursor).toBeNull();
		const p = await pro('PATCH', `/webhooks/${c.body.id}`, {
			status: 'disabled',
			description: 'd',
			events: ['*'],
		});
		expect(p.body).toMatchObject({ status: 'disabled', description: 'd', events: ['*'] });
		expect(p.body.secret).toBeUndefined();
		const rot = await pro('POST', `/webhooks/${c.body.id}/rotate-secret`);
		expect(rot.body.secret).toMatch(/^whsec_/);
		expect(rot.body.secret).not.toBe(c.body.secret);
		expect((await pro('DELETE', `/webhooks/${c.body.id}`)).body).toEqual({
			id: c.body.id,
			deleted: true,
		});
		expect((await pro('GET', `/webhooks/${c.body.id}/deliveries`)).status).toBe(404);
	});

	it('refuses non-https, private addresses, bad events; localhost only in test mode', async () => {
		const issues = async (body: unknown) =>
			(await pro('POST', '/webhooks', body)).body.error?.details?.issues;
		expect(await issues({ url: 'http://hooks.example.com', events: ['*'] })).toEqual([
			expect.objectContaining({ path: 'url', message: 'Webhook URLs must use https' }),
		]);
		expect(await issues({ url: 'https://10.1.2.3/x', events: ['*'] })).toEqual([
			expect.objectContaining({ path: 'url', message: 'Private network addresses are refused' }),
		]);
		expect(await issues({ url: 'https://192.168.0.4/x', events: ['*'] })).toHaveLength(1);
		expect(await issues({ url: 'not a url', events: ['order.created'] })).toHaveLength(2);
		expect(await issues({ url: 'https://ok.example.com' })).toEqual([
			expect.objectContaining({ path: 'events' }),
		]);
		expect((await pro('POST', '/webhooks', { url: rx.url, events: ['*'] })).status).toBe(201);
		sb.control.setConfig({ allowHttpWebhooks: false });
		expect((await pro('POST', '/webhooks', { url: rx.url, events: ['*'] })).status).toBe(422);
		expect(
			(await pro('POST', '/webhooks', { url: 'https://localhost/x', events: ['*'] })).status,
		).toBe(422);
	});
});

describe('deliveries', () => {
	it('delivers generation.completed signed per Standard Webhooks', async () => {
		const w = (await pro('POST', '/webhooks', { url: rx.url, events: ['generation.completed'] }))
			.body;
		const g = await generate();
		await until(() => rx.received.length === 1);
		const r = rx.received[0];
		expect(r.headers['content-type']).toBe('application/json');
		expect(r.headers['webhook-id']).toMatch(/^evt_[0-9a-f]+$/);
		expect(verify(w.secret, r)).toBe(true);
		const otherSecret = `whsec_${Buffer.from('another secret of 24 byte').toString('base64')}`;
		expect(verify(otherSecret, r)).toBe(false);
		const event = JSON.parse(r.body);
		expect(Object.keys(event).sort()).toEqual(['created_at', 'data', 'id', 'type', 'workspace_id']);
		expect(event).toMatchObject({
			id: r.headers['webhook-id'],
			type: 'generation.completed',
			workspace_id: '6f1c2a7e-1b4d-4c8e-9a51-0d2f3b4c5a61',
		});
		expect(Object.keys(event.data).sort()).toEqual(
			[
				'credits_charged',
				'error',
				'id',
				'mode',
				'model_id',
				'outputs',
				'project_id',
				'status',
				'tool',
			].sort(),
		);
		expect(event.data).toMatchObject({
			id: g.id,
			status: 'completed',
			credits_charged: 4,
			error: null,
			outputs: [{ asset_id: expect.any(String), kind: 'image' }],
		});
		// the receiver records before it answers: wait for the sandbox to see the answer
		const d = await until(async () =>
			(await pro('GET', `/webhooks/${w.id}/deliveries`)).body.data.find(
				(x: { status: string }) => x.status !== 'pending',
			),
		);
		expect(d).toMatchObject({
			event_id: event.id,
			event_type: 'generation.completed',
			status: 'succeeded',
			response_status: 200,
			attempt_count: 1,
		});
		expect(sb.control.deliveries()).toHaveLength(1);
	});

	it('generation.failed on failure and on cancel; filters by event type; * gets everything', async () => {
		await pro('POST', '/webhooks', {
			url: `${rx.url}?only=completed`,
			events: ['generation.completed'],
		});
		await pro('POST', '/webhooks', { url: `${rx.url}?all`, events: ['*'] });
		sb.control.holdJobs(); // the second job is still queued when the cancel arrives
		await generate({ params: { sandbox: { durationMs: 10, fail: true } } });
		const slow = await generate();
		await pro('POST', `/generations/${slow.id}/cancel`);
		sb.control.releaseJobs();
		await until(() => rx.received.length === 2);
		await sleep(50);
		expect(rx.received).toHaveLength(2);
		const types = rx.received.map((r) => JSON.parse(r.body));
		expect(types.map((e) => e.type)).toEqual(['generation.failed', 'generation.failed']);
		expect(types.map((e) => e.data.status).sort()).toEqual(['cancelled', 'failed']);
		expect(types.every((e) => e.data.credits_charged === 0)).toBe(true);
	});

	it('test ping answers the delivery result', async () => {
		const w = (await pro('POST', '/webhooks', { url: rx.url, events: ['generation.completed'] }))
			.body;
		const ok = await pro('POST', `/webhooks/${w.id}/test`);
		expect(ok.body).toMatchObject({ status: 'succeeded', response_status: 200, attempt_count: 1 });
		expect(verify(w.secret, rx.received[0])).toBe(true);
		const rotated = (await pro('POST', `/webhooks/${w.id}/rotate-secret`)).body.secret;
		await pro('POST', `/webhooks/${w.id}/test`);
		expect(verify(rotated, rx.received[1])).toBe(true);
		expect(verify(w.secret, rx.received[1])).toBe(false);
		expect(JSON.parse(rx.received[1].body)).toMatchObject({
			type: 'webhook.test',
			data: { webhook_id: w.id },
		});
		rx.status = 500;
		const bad = await pro('POST', `/webhooks/${w.id}/test`);
		expect(bad.body).toMatchObject({ status: 'failed', response_status: 500 });
		expect((await pro('GET', '/webhooks')).body.data[0].consecutive_failures).toBe(0);
	});

	it('retries 7 more times on the spec schedule (scaled), same webhook-id, then a manual retry', async () => {
		// Held: no retry is sent until the test steps it, so each attempt's announced next attempt is
		// read before the next one is sent, whatever the machine's load (no wall-clock gap measured).
		sb.control.setConfig({ timeScale: 0.0001 });
		sb.control.holdJobs();
		rx.status = 503;
		const w = (await pro('POST', '/webhooks', { url: rx.url, events: ['generation.completed'] }))
			.body;
		await generate();
		const delivery = async () =>
			(await pro('GET', `/webhooks/${w.id}/deliveries`)).body.data[0] as
				| {
						id: string;
						status: string;
						next_attempt_at: string | null;
						attempts: Array<{ at: string; duration_ms: number }>;
				  }
				| undefined;
		// the generation moves one step at a time until its event's first attempt is made
		await until(async () => (await delivery()) ?? (sb.control.stepJobs(), undefined));
		const announced: number[] = [];
		for (let attempt = 1; attempt <= 8; attempt++) {
			const d = await until(async () => {
				const x = await delivery();
				return x?.attempts.length === attempt && (attempt === 8 || x.next_attempt_at)
					? x
					: undefined;
			});
			expect(rx.received).toHaveLength(attempt);
			if (attempt < 8) {
				const last = d.attempts[attempt - 1];
				// next_attempt_at is set in the same synchronous step as the attempt's duration
				announced.push(Date.parse(d.next_attempt_at!) - Date.parse(last.at) - last.duration_ms);
				expect(sb.control.stepJobs().ran).toBe(1); // the one retry, sent now
			}
		}
		const expected = [30, 120, 600, 1800, 3600, 10800, 21600].map((s) => s * 1000 * 0.0001);
		announced.forEach((a, i) => {
			expect(a).toBeGreaterThanOrEqual(expected[i] - 1);
			// its own step of the schedule, not the next one (the 6 h wait is the last)
			expect(a).toBeLessThan(i < 6 ? expected[i + 1] : expected[i] * 2);
		});
		const d = await until(async () => {
			const x = await delivery();
			return x?.status === 'failed' ? x : undefined;
		});
		const ids = new Set(rx.received.map((r) => r.headers['webhook-id']));
		expect(ids.size).toBe(1);
		expect(rx.received.every((r) => verify(w.secret, r))).toBe(true);
		expect(d).toMatchObject({
			status: 'failed',
			attempt_count: 8,
			response_status: 503,
			next_attempt_at: null,
		});
		expect((await pro('GET', `/webhooks/${w.id}`)).status).toBe(405);
		expect((await pro('GET', '/webhooks')).body.data[0].consecutive_failures).toBe(1);

		rx.status = 204;
		const again = await pro('POST', `/webhooks/deliveries/${d.id}/retry`);
		expect(again.body).toMatchObject({
			status: 'succeeded',
			response_status: 204,
			attempt_count: 9,
		});
		expect(rx.received[8].headers['webhook-id']).toBe(rx.received[0].headers['webhook-id']);
		expect((await pro('POST', `/webhooks/deliveries/${d.id}/retry`)).status).toBe(409);
		expect((await other('POST', `/webhooks/deliveries/${d.id}/retry`)).status).toBe(404);
	});

	it('disables the endpoint after 15 failed events in a row and notifies', async () => {
		sb.control.setConfig({ timeScale: 0.000001, concurrentJobs: 20 });
		rx.status = 500;
		const w = (await pro('POST', '/webhooks', { url: rx.url, events: ['generation.completed'] }))
			.body;
		for (let i = 0; i < 15; i++) await generate({ params: { sandbox: { durationMs: 0 } } });
		await until(
			async () => (await pro('GET', '/webhooks')).body.data[0].status === 'disabled',
			20_000,
			50,
		);
		const ep = (await pro('GET', '/webhooks')).body.data[0];
		expect(ep).toMatchObject({ status: 'disabled', consecutive_failures: 15 });
		expect(sb.control.notifications()).toEqual([expect.objectContaining({ webhookId: w.id })]);
		const count = rx.received.length;
		await generate({ params: { sandbox: { durationMs: 0 } } });
		await sleep(100);
		expect(rx.received.length).toBe(count);
		expect((await pro('PATCH', `/webhooks/${w.id}`, { status: 'active' })).body).toMatchObject({
			status: 'active',
			consecutive_failures: 0,
		});
	});

	it('counts a slow receiver as a failure (timeout)', async () => {
		sb.control.setConfig({ webhookTimeoutMs: 100 });
		rx.delayMs = 400;
		const w = (await pro('POST', '/webhooks', { url: rx.url, events: ['*'] })).body;
		const r = await pro('POST', `/webhooks/${w.id}/test`);
		expect(r.body.status).toBe('failed');
		expect(r.body.attempts[0].error).toContain('No answer within 100 ms');
	});
});
