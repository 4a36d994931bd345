/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * Webhook engine: URL policy, secrets, Standard Webhooks signing, real HTTP deliveries with a
 * timeout, the spec's retry schedule (scaled by timeScale), delivery records, and disabling an
 * endpoint after 15 failed events in a row.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { conflict } from './http';
import {
	now,
	recBase,
	type DeliveryRec,
	type SandboxConfig,
	type WebhookRec,
	type Workspace,
} from './state';
import type { Scheduler } from './timers';

export const EVENT_TYPES = [
	'generation.completed',
	'generation.failed',
	'publication.published',
	'publication.failed',
	'workflow.completed',
	'workflow.failed',
	'export.completed',
	'export.failed',
] as const;
export const EVENT_TYPES_WITH_ALL = [...EVENT_TYPES, '*'] as const;
/** Type of the test ping sent by POST /webhooks/{id}/test (its shape is not in the spec). */
export const PING_TYPE = 'webhook.test';

/** Delays before the 2nd..8th attempts, in unscaled milliseconds: 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h. */
export const RETRY_DELAYS_MS = [
	30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000,
];
export const DISABLE_AFTER_FAILED_EVENTS = 15;

export const newSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

/** Standard Webhooks signature header value for one secret. */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
	const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
	return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export function isPrivateAddress(host: string): boolean {
	const h = host.replace(/^\[|\]$/g, '').toLowerCase();
	if (
		h === 'localhost' ||
		h.endsWith('.localhost') ||
		h.endsWith('.local') ||
		h.endsWith('.internal')
	)
		return true;
	const v = isIP(h);
	if (v === 4) {
		const [a, b] = h.split('.').map(Number);
		return (
			a === 10 ||
			a === 127 ||
			a === 0 ||
			(a === 169 && b === 254) ||
			(a === 172 && b >= 16 && b <= 31) ||
			(a === 192 && b === 168) ||
			(a === 100 && b >= 64 && b <= 127) ||
			a >= 224
		);
	}
	if (v === 6)
		return (
			h === '::1' ||
			h === '::' ||
			/^f[cd]/.test(h) ||
			/^fe[89ab]/.test(h) ||
			h.startsWith('::ffff:')
		);
	return false;
}

/** Why a webhook URL is refused, or null when accepted. */
export function urlProblem(raw: string, allowHttpLocal: boolean): string | null {
	let u: URL;
	try {
		u = new URL(raw);
	} catch {
		return 'Invalid URL';
	}
	const local = LOCAL_HOSTS.has(u.hostname.toLowerCase());
	if (allowHttpLocal && local && (u.protocol === 'http:' || u.protocol === 'https:')) return null;
	if (u.protocol !== 'https:') return 'Webhook URLs must use https';
	if (isPrivateAddress(u.hostname)) return 'Private network addresses are refused';
	return null;
}

/** One HTTP request the sandbox sent to a webhook endpoint (control: list of deliveries sent). */
export interface SentDelivery {
	deliveryId: string;
	webhookId: string;
	url: string;
	eventId: string;
	eventType: string;
	attempt: number;
	headers: Record<string, string>;
	body: string;
	responseStatus: number | null;
	error: string | null;
	at: string;
}

/** A notification the service would send to the endpoint's creator (endpoint disabled). */
export interface Notification {
	webhookId: string;
	workspaceId: string;
	message: string;
	at: string;
}

/** What the webhook engine uses of the sandbox (app.ts's App, which builds the engine). */
export interface HooksHost {
	readonly config: SandboxConfig;
	readonly scheduler: Scheduler;
	log(message: string): void;
}

export class Hooks {
	readonly sent: SentDelivery[] = [];
	readonly notifications: Notification[] = [];
	private readonly timers = new Map<string, NodeJS.Timeout>();
	private readonly inflight = new Set<AbortController>();
	/** Bumped by reset: attempts that were under way then are forgotten when they finish. */
	private epoch = 0;

	constructor(private readonly app: HooksHost) {}

	reset(): void {
		this.epoch++;
		for (const t of this.timers.values()) this.app.scheduler.cancel(t);
		this.timers.clear();
		for (const a of this.inflight) a.abort();
		this.inflight.clear();
		this.sent.length = 0;
		this.notifications.length = 0;
	}

	/** Creates one delivery per subscribed active endpoint and sends it now (retries on schedule). */
	emit(ws: Workspace, type: string, data: unknown): void {
		for (const w of ws.webhooks.all()) {
			if (w.status !== 'active' || !(w.events.includes(type) || w.events.includes('*'))) continue;
			const d = this.newDelivery(ws, w, type, data, true);
			void this.attempt(ws, d);
		}
	}

	/** POST /webhooks/{id}/test: one attempt now, no retries; resolves with the delivery. */
	async test(ws: Workspace, w: WebhookRec): Promise<DeliveryRec> {
		const d = this.newDelivery(
			ws,
			w,
			PING_TYPE,
			{ webhook_id: w.id, message: 'Test ping from the Media Generation Service sandbox' },
			false,
		);
		await this.attempt(ws, d);
		return d;
	}

	/** POST /webhooks/deliveries/{id}/retry: one more attempt now of a failed delivery. */
	async retry(ws: Workspace, d: DeliveryRec): Promise<DeliveryRec> {
		if (d.status !== 'failed')
			throw conflict(`Only failed deliveries can be retried; ${d.id} is ${d.status}`, {
				status: d.status,
			});
		d.status = 'pending';
		d.scheduled = false;
		await this.attempt(ws, d);
		return d;
	}

	/** Forgets the timers of a deleted endpoint's deliveries. */
	forget(deliveryIds: string[]): void {
		for (const id of deliveryIds) {
			this.app.scheduler.cancel(this.timers.get(id));
			this.timers.delete(id);
		}
	}

	private newDelivery(
		ws: Workspace,
		w: WebhookRec,
		type: string,
		data: unknown,
		scheduled: boolean,
	): DeliveryRec {
		const event_id = `evt_${randomBytes(12).toString('hex')}`;
		const payload = JSON.stringify({
			id: event_id,
			type,
			created_at: now(),
			workspace_id: ws.id,
			data,
		});
		return ws.deliveries.put({
			...recBase(),
			webhook_id: w.id,
			event_id,
			event_type: type,
			payload,
			status: 'pending',
			attempts: [],
			next_attempt_at: null,
			scheduled,
		});
	}

	private async attempt(ws: Workspace, d: DeliveryRec): Promise<void> {
		this.timers.delete(d.id);
		const w = ws.webhooks.find(d.webhook_id);
		if (!w || !ws.deliveries.find(d.id)) return;
		if (w.status !== 'active' && d.scheduled) {
			d.status = 'failed';
			d.next_attempt_at = null;
			d.updated_at = now();
			return;
		}
		const started = Date.now();
		const timestamp = Math.floor(started / 1000);
		const headers = {
			'content-type': 'application/json',
			'user-agent': 'MediaGen-Webhooks-Sandbox/1.0',
			'webhook-id': d.event_id,
			'webhook-timestamp': String(timestamp),
			'webhook-signature': sign(w.secret, d.event_id, timestamp, d.payload),
		};
		const epoch = this.epoch;
		const result = await this.send(w.url, headers, d.payload);
		if (epoch !== this.epoch) return;
		const number = d.attempts.length + 1;
		d.attempts.push({
			attempt: number,
			at: new Date(started).toISOString(),
			response_status: result.status,
			error: result.error,
			duration_ms: Date.now() - started,
		});
		this.sent.push({
			deliveryId: d.id,
			webhookId: w.id,
			url: w.url,
			eventId: d.event_id,
			eventType: d.event_type,
			attempt: number,
			headers,
			body: d.payload,
			responseStatus: result.status,
			error: result.error,
			at: new Date(started).toISOString(),
		});
		if (this.sent.length > 5000) this.sent.shift();
		d.updated_at = now();
		const ok = result.status !== null && result.status >= 200 && result.status < 300;
		if (ok) {
			d.status = 'succeeded';
			d.next_attempt_at = null;
			if (d.event_type !== PING_TYPE) w.consecutive_failures = 0;
			return;
		}
		if (d.scheduled && number <= RETRY_DELAYS_MS.length) {
			const delay = RETRY_DELAYS_MS[number - 1];
			d.next_attempt_at = new Date(Date.now() + this.app.scheduler.real(delay)).toISOString();
			this.timers.set(
				d.id,
				this.app.scheduler.after(delay, () => void this.attempt(ws, d)),
			);
			return;
		}
		d.status = 'failed';
		d.next_attempt_at = null;
		if (d.scheduled) this.countFailedEvent(ws, w);
	}

	private countFailedEvent(ws: Workspace, w: WebhookRec): void {
		w.consecutive_failures++;
		if (w.consecutive_failures < DISABLE_AFTER_FAILED_EVENTS || w.status === 'disabled') return;
		w.status = 'disabled';
		w.disabled_reason = `${DISABLE_AFTER_FAILED_EVENTS} failed events in a row`;
		w.updated_at = now();
		this.notifications.push({
			webhookId: w.id,
			workspaceId: ws.id,
			message: `Webhook endpoint ${w.url} was disabled after ${DISABLE_AFTER_FAILED_EVENTS} failed events in a row`,
			at: now(),
		});
		this.app.log(
			`sandbox: webhook ${w.id} disabled after ${DISABLE_AFTER_FAILED_EVENTS} failed events`,
		);
	}

	/** One POST; redirects are not followed (a 3xx is a failure); private targets are refused. */
	private async send(
		url: string,
		headers: Record<string, string>,
		body: string,
	): Promise<{ status: number | null; error: string | null }> {
		const u = new URL(url);
		const local = LOCAL_HOSTS.has(u.hostname.toLowerCase());
		if (!(local && this.app.config.allowHttpWebhooks)) {
			const problem = urlProblem(url, false);
			if (problem) return { status: null, error: problem };
			try {
				const addrs = await lookup(u.hostname.replace(/^\[|\]$/g, ''), { all: true });
				if (addrs.some((a) => isPrivateAddress(a.address)))
					return { status: null, error: 'Resolves to a private network address; refused' };
			} catch (e) {
				return { status: null, error: `DNS lookup failed: ${(e as Error).message}` };
			}
		}
		const abort = new AbortController();
		this.inflight.add(abort);
		try {
			const timeoutMs = this.app.config.webhookTimeoutMs;
			return await new Promise((resolve) => {
				const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)(
					u,
					{
						method: 'POST',
						headers: { ...headers, 'content-length': Buffer.byteLength(body) },
						signal: abort.signal,
					},
					(res) => {
						res.resume();
						res.on('end', () => done({ status: res.statusCode ?? null, error: null }));
						res.on('error', (e) => done({ status: res.statusCode ?? null, error: e.message }));
					},
				);
				// the whole exchange must finish within the timeout (spec: answer within 10 s)
				const timer = setTimeout(
					() => req.destroy(new Error(`No answer within ${timeoutMs} ms`)),
					timeoutMs,
				);
				const done = (r: { status: number | null; error: string | null }) => {
					clearTimeout(timer);
					resolve(r);
				};
				req.on('error', (e) => done({ status: null, error: e.message }));
				req.end(body);
			});
		} finally {
			this.inflight.delete(abort);
		}
	}
}
