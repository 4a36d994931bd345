/**
 * Standard Webhooks signatures as MediaGen uses them (https://www.standardwebhooks.com; the format
 * in docs/trigger-internals.md, Signatures): verify, sign, and a bounded cache of seen ids.
 * `node:crypto` only; nothing here ever returns or says the secret or the expected signature.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
export const SIGNATURE_VERSION = 'v1';
export const DEFAULT_TOLERANCE_SECONDS = 300;
/** More entries than this in one webhook-signature header are refused (bounds the work). */
export const MAX_SIGNATURE_ENTRIES = 32;

export type HeaderValue = string | string[] | number | undefined;
export type WebhookHeaders = Record<string, HeaderValue>;

export interface VerifyOptions {
	/** The endpoint's signing secret, `whsec_<base64>` (a secret without the prefix also works). */
	secret: string;
	/** Request headers (any case). */
	headers: WebhookHeaders;
	/** The request body exactly as received. */
	rawBody: Buffer | string;
	/** Current time in Unix seconds; defaults to the clock. */
	now?: number;
	toleranceSeconds?: number;
}

export type VerifyResult =
	| { ok: true; id: string; timestamp: number }
	/** badSignature: everything was well-formed and in time, only no signature matched. */
	| { ok: false; reason: string; badSignature?: boolean };

/** The HMAC key: the base64 decoding of the secret after `whsec_`. Undefined when unusable. */
export function secretKey(secret: string): Buffer | undefined {
	if (typeof secret !== 'string') return undefined;
	const encoded = secret.trim().startsWith(SECRET_PREFIX)
		? secret.trim().slice(SECRET_PREFIX.length)
		: secret.trim();
	if (!encoded || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return undefined;
	const key = Buffer.from(encoded, 'base64');
	return key.length ? key : undefined;
}

/** Whether a value looks like a usable signing secret (for parameter checks; never echoes it). */
export function isValidSecret(secret: string): boolean {
	return secretKey(secret) !== undefined;
}

function hmac(key: Buffer, id: string, timestamp: string, body: Buffer | string): string {
	return createHmac('sha256', key)
		.update(`${id}.${timestamp}.`)
		.update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body)
		.digest('base64');
}

/** The `v1,<base64>` signature entry of one message. */
export function signPayload(
	secret: string,
	id: string,
	timestamp: number | string,
	body: Buffer | string,
): string {
	const key = secretKey(secret);
	if (!key) throw new Error('The signing secret must be "whsec_" followed by base64');
	return `${SIGNATURE_VERSION},${hmac(key, id, String(timestamp), body)}`;
}

/**
 * Constant-time equality of two byte strings. Lengths are not secret (every valid entry has the
 * same length), but unequal lengths still go through one comparison of the same size, so both
 * paths do the same kind of work and timingSafeEqual never throws.
 */
export function constantTimeEqual(a: Buffer, b: Buffer): boolean {
	if (a.length !== b.length) {
		timingSafeEqual(a, a);
		return false;
	}
	return timingSafeEqual(a, b);
}

function header(headers: WebhookHeaders, name: string): string | undefined | null {
	let value: HeaderValue = headers[name];
	if (value === undefined) {
		const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
		value = key === undefined ? undefined : headers[key];
	}
	if (value === undefined) return undefined;
	if (Array.isArray(value)) return value.length === 1 ? value[0] : null;
	return String(value);
}

/**
 * Verifies one delivery. Checks, in order: the secret is usable, the three headers are present
 * (once each), the timestamp is a whole number of seconds within the tolerance either way, and one
 * of the `v1,` entries equals the expected signature (all entries are compared, in constant time).
 */
export function verifyWebhook(options: VerifyOptions): VerifyResult {
	const { headers, rawBody } = options;
	const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
	const key = secretKey(options.secret);
	if (!key) return { ok: false, reason: 'The signing secret is missing or not a whsec_ secret' };

	const id = header(headers, 'webhook-id');
	const timestampText = header(headers, 'webhook-timestamp');
	const signatures = header(headers, 'webhook-signature');
	for (const [name, value] of [
		['webhook-id', id],
		['webhook-timestamp', timestampText],
		['webhook-signature', signatures],
	] as const) {
		if (value === undefined || value === '') return { ok: false, reason: `Missing ${name} header` };
		if (value === null) return { ok: false, reason: `More than one ${name} header` };
	}
	if (!id || !timestampText || !signatures) return { ok: false, reason: 'Missing headers' };

	if (!/^\d{1,15}$/.test(timestampText))
		return { ok: false, reason: 'The webhook-timestamp header is not a Unix time in seconds' };
	const timestamp = Number(timestampText);
	const now = options.now ?? Math.floor(Date.now() / 1000);
	if (now - timestamp > tolerance)
		return { ok: false, reason: `The webhook-timestamp is more than ${tolerance} s old` };
	if (timestamp - now > tolerance)
		return { ok: false, reason: `The webhook-timestamp is more than ${tolerance} s in the future` };

	const entries = signatures.split(' ').filter(Boolean);
	if (entries.length > MAX_SIGNATURE_ENTRIES)
		return { ok: false, reason: 'Too many entries in the webhook-signature header' };

	const expected = Buffer.from(
		`${SIGNATURE_VERSION},${hmac(key, id, timestampText, rawBody)}`,
		'utf8',
	);
	let matched = false;
	for (const entry of entries) {
		// only v1 entries count; others (future versions, asymmetric v1a) are skipped
		if (!entry.startsWith(`${SIGNATURE_VERSION},`)) continue;
		// no early exit: every entry is compared
		if (constantTimeEqual(Buffer.from(entry, 'utf8'), expected)) matched = true;
	}
	if (!matched)
		return {
			ok: false,
			reason: 'No valid v1 signature in the webhook-signature header',
			badSignature: true,
		};
	return { ok: true, id, timestamp };
}

export interface ReplayCacheOptions {
	/** Most ids kept; the oldest are forgotten first. */
	maxEntries?: number;
	/** How long an id is remembered, in seconds. */
	ttlSeconds?: number;
}

/**
 * Remembers recently seen webhook-ids (id -> first seen, Unix seconds), bounded in count and age.
 * Ids are also queued in arrival order, so expiry and eviction look at the front of the queue
 * only: every operation is O(1) amortised, whatever the size.
 */
export class ReplayCache {
	readonly maxEntries: number;

	readonly ttlSeconds: number;

	private readonly seen = new Map<string, number>();

	private queue: Array<[string, number]> = [];

	private head = 0;

	constructor(options: ReplayCacheOptions = {}) {
		this.maxEntries = Math.max(1, options.maxEntries ?? 10_000);
		this.ttlSeconds = Math.max(1, options.ttlSeconds ?? 600);
	}

	/** A cache filled from a plain record (as kept in workflow static data). */
	static fromRecord(record: unknown, options: ReplayCacheOptions = {}, now = nowSeconds()) {
		const cache = new ReplayCache(options);
		if (record && typeof record === 'object' && !Array.isArray(record)) {
			const entries = Object.entries(record as Record<string, unknown>)
				.filter((e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1]))
				.sort((a, b) => a[1] - b[1]);
			for (const [id, at] of entries) cache.add(id, at);
		}
		cache.prune(now);
		return cache;
	}

	get size(): number {
		return this.seen.size;
	}

	/** Whether the id was seen within the time to live. */
	has(id: string, now = nowSeconds()): boolean {
		const at = this.seen.get(id);
		return at !== undefined && now - at < this.ttlSeconds;
	}

	/** Records the id; returns true when it had been seen already (a duplicate). */
	checkAndRemember(id: string, now = nowSeconds()): boolean {
		this.prune(now);
		if (this.has(id, now)) return true;
		this.add(id, now);
		this.prune(now);
		return false;
	}

	/** Forgets an id (for example when the work it started could not be handed over). */
	forget(id: string): void {
		this.seen.delete(id);
	}

	/** Drops expired entries, then the oldest beyond the maximum count. */
	prune(now = nowSeconds()): void {
		while (this.head < this.queue.length && now - this.queue[this.head][1] >= this.ttlSeconds)
			this.evictFront();
		while (this.seen.size > this.maxEntries && this.head < this.queue.length) this.evictFront();
		if (this.head > 1024 && this.head * 2 > this.queue.length) {
			this.queue = this.queue.slice(this.head);
			this.head = 0;
		}
	}

	/** The entries as a plain record, oldest first. */
	toRecord(): Record<string, number> {
		return Object.fromEntries(this.seen);
	}

	private add(id: string, at: number): void {
		this.seen.delete(id);
		this.seen.set(id, at);
		this.queue.push([id, at]);
	}

	/** Removes the queue's first entry, and the id with it unless it was seen again since. */
	private evictFront(): void {
		const [id, at] = this.queue[this.head];
		this.head++;
		if (this.seen.get(id) === at) this.seen.delete(id);
	}
}

function nowSeconds(): number {
	return Math.floor(Date.now() / 1000);
}
