import { createHmac, randomBytes } from 'node:crypto';

import {
	constantTimeEqual,
	isValidSecret,
	MAX_SIGNATURE_ENTRIES,
	ReplayCache,
	secretKey,
	signPayload,
	verifyWebhook,
	type WebhookHeaders,
} from '../../nodes/MediaGenTrigger/webhookSignature';

// The Standard Webhooks published test vector
const VECTOR_WHSEC = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const ID = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
const TS = 1614265330;
const BODY = '{"test": 2432232314}';
const SIGNATURE = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';

function headers(overrides: Partial<Record<string, string | undefined>> = {}): WebhookHeaders {
	const base: Record<string, string | undefined> = {
		'webhook-id': ID,
		'webhook-timestamp': String(TS),
		'webhook-signature': SIGNATURE,
		...overrides,
	};
	return Object.fromEntries(Object.entries(base).filter(([, v]) => v !== undefined));
}

function verify(h: WebhookHeaders, body: Buffer | string = BODY, now = TS, secret = VECTOR_WHSEC) {
	return verifyWebhook({ secret, headers: h, rawBody: body, now });
}

describe('signPayload', () => {
	test('reproduces the Standard Webhooks test vector', () => {
		expect(signPayload(VECTOR_WHSEC, ID, TS, BODY)).toBe(SIGNATURE);
		expect(signPayload(VECTOR_WHSEC, ID, String(TS), Buffer.from(BODY))).toBe(SIGNATURE);
	});

	test('equals an independent HMAC-SHA256 over id.timestamp.body with the base64 key', () => {
		const secret = `whsec_${randomBytes(24).toString('base64')}`;
		const body = Buffer.from(JSON.stringify({ id: 'evt_1', type: 'generation.completed' }));
		const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
		const expected = createHmac('sha256', key)
			.update(`evt_1.1700000000.${body.toString('utf8')}`)
			.digest('base64');
		expect(signPayload(secret, 'evt_1', 1700000000, body)).toBe(`v1,${expected}`);
	});

	test('signs raw bytes, not re-encoded text (non-UTF-8 bytes change the signature)', () => {
		const bytes = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
		expect(signPayload(VECTOR_WHSEC, ID, TS, bytes)).not.toBe(
			signPayload(VECTOR_WHSEC, ID, TS, bytes.toString('utf8')),
		);
	});

	test('refuses an unusable secret without echoing it', () => {
		expect(() => signPayload('whsec_', ID, TS, BODY)).toThrow('must be "whsec_"');
		expect(() => signPayload('whsec_not base64!', ID, TS, BODY)).not.toThrow('not base64!');
		expect(() => signPayload('whsec_not base64!', ID, TS, BODY)).toThrow();
	});
});

describe('secrets', () => {
	test('key is the base64 decoding after whsec_; the prefix is optional', () => {
		expect(secretKey(VECTOR_WHSEC)?.toString('base64')).toBe('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
		expect(secretKey('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')?.equals(secretKey(VECTOR_WHSEC)!)).toBe(
			true,
		);
		expect(isValidSecret('')).toBe(false);
		expect(isValidSecret('whsec_')).toBe(false);
		expect(isValidSecret('whsec_***')).toBe(false);
		expect(isValidSecret(VECTOR_WHSEC)).toBe(true);
	});
});

describe('verifyWebhook', () => {
	test('accepts the test vector', () => {
		expect(verify(headers())).toEqual({ ok: true, id: ID, timestamp: TS });
		expect(verify(headers(), Buffer.from(BODY))).toEqual({ ok: true, id: ID, timestamp: TS });
	});

	test('header names are matched in any case', () => {
		const h = {
			'Webhook-Id': ID,
			'WEBHOOK-TIMESTAMP': String(TS),
			'Webhook-Signature': SIGNATURE,
		};
		expect(verify(h).ok).toBe(true);
	});

	describe('tamper matrix: every changed part is refused', () => {
		const bodyByte = Buffer.from(BODY);
		bodyByte[bodyByte.length - 2] ^= 0x01;
		const cases: Array<[string, () => ReturnType<typeof verify>, RegExp]> = [
			['changed body byte', () => verify(headers(), bodyByte), /No valid v1 signature/],
			['body with a trailing newline', () => verify(headers(), `${BODY}\n`), /No valid v1/],
			['re-serialised body', () => verify(headers(), '{"test":2432232314}'), /No valid v1/],
			['changed id', () => verify(headers({ 'webhook-id': `${ID}x` })), /No valid v1/],
			[
				'changed timestamp (still fresh)',
				() => verify(headers({ 'webhook-timestamp': String(TS + 1) })),
				/No valid v1/,
			],
			['stale timestamp (301 s)', () => verify(headers(), BODY, TS + 301), /more than 300 s old/],
			[
				'future timestamp (301 s)',
				() => verify(headers(), BODY, TS - 301),
				/more than 300 s in the future/,
			],
			[
				'missing webhook-id',
				() => verify(headers({ 'webhook-id': undefined })),
				/Missing webhook-id/,
			],
			[
				'missing webhook-timestamp',
				() => verify(headers({ 'webhook-timestamp': undefined })),
				/Missing webhook-timestamp/,
			],
			[
				'missing webhook-signature',
				() => verify(headers({ 'webhook-signature': undefined })),
				/Missing webhook-signature/,
			],
			['empty signature', () => verify(headers({ 'webhook-signature': '' })), /Missing/],
			[
				'non-numeric timestamp',
				() => verify(headers({ 'webhook-timestamp': '1614265330.5' })),
				/not a Unix time/,
			],
			[
				'timestamp in milliseconds',
				() => verify(headers({ 'webhook-timestamp': String(TS * 1000) })),
				/in the future/,
			],
			[
				'wrong secret',
				() => verify(headers(), BODY, TS, `whsec_${randomBytes(24).toString('base64')}`),
				/No valid v1/,
			],
			['no secret', () => verify(headers(), BODY, TS, ''), /secret is missing/],
			[
				'right signature under another version',
				() => verify(headers({ 'webhook-signature': SIGNATURE.replace('v1,', 'v2,') })),
				/No valid v1/,
			],
			[
				'signature without version',
				() => verify(headers({ 'webhook-signature': SIGNATURE.slice(3) })),
				/No valid v1/,
			],
			[
				'truncated signature',
				() => verify(headers({ 'webhook-signature': SIGNATURE.slice(0, -2) })),
				/No valid v1/,
			],
			[
				'signature with extra characters (lenient base64 would accept)',
				() => verify(headers({ 'webhook-signature': `${SIGNATURE}==` })),
				/No valid v1/,
			],
			[
				'repeated header',
				() =>
					verify({
						...headers(),
						'webhook-id': [ID, ID],
					}),
				/More than one webhook-id/,
			],
			[
				'too many entries',
				() =>
					verify(
						headers({
							'webhook-signature': [
								...Array.from({ length: MAX_SIGNATURE_ENTRIES }, () => 'v1,AAAA'),
								SIGNATURE,
							].join(' '),
						}),
					),
				/Too many/,
			],
		];
		test.each(cases)('%s', (_name, run, reason) => {
			const result = run();
			expect(result.ok).toBe(false);
			if (!result.ok) expect(result.reason).toMatch(reason);
		});

		test('the edges of the 300 s window are accepted', () => {
			expect(verify(headers(), BODY, TS + 300).ok).toBe(true);
			expect(verify(headers(), BODY, TS - 300).ok).toBe(true);
		});
	});

	test('a list with one good entry among bad ones is accepted (rotated secrets)', () => {
		const other = `whsec_${randomBytes(24).toString('base64')}`;
		const bad = signPayload(other, ID, TS, BODY);
		for (const list of [
			`${bad} ${SIGNATURE}`,
			`${SIGNATURE} ${bad}`,
			`v1a,xyz ${bad}  ${SIGNATURE} v2,abc`,
			`v1,AAAA ${SIGNATURE}`,
		]) {
			expect(verify(headers({ 'webhook-signature': list })).ok).toBe(true);
		}
		// and a secret rotated at the sender: old and new secret both verify a two-entry header
		const both = `${signPayload(other, ID, TS, BODY)} ${SIGNATURE}`;
		expect(verify(headers({ 'webhook-signature': both }), BODY, TS, other).ok).toBe(true);
		expect(verify(headers({ 'webhook-signature': both }), BODY, TS, VECTOR_WHSEC).ok).toBe(true);
		// only bad entries: refused
		expect(verify(headers({ 'webhook-signature': `${bad} v1,AAAA` })).ok).toBe(false);
	});

	test('reasons never contain the secret, its key or the expected signature', () => {
		const secret = `whsec_${randomBytes(24).toString('base64')}`;
		const key = secret.slice(6);
		const expected = signPayload(secret, ID, TS, BODY);
		const reasons = [
			verifyWebhook({ secret, headers: headers(), rawBody: BODY, now: TS }),
			verifyWebhook({ secret, headers: headers(), rawBody: BODY, now: TS + 1000 }),
			verifyWebhook({ secret, headers: headers({ 'webhook-id': undefined }), rawBody: BODY }),
			verifyWebhook({ secret: 'whsec_!!', headers: headers(), rawBody: BODY, now: TS }),
		].map((r) => JSON.stringify(r));
		for (const text of reasons) {
			expect(text).not.toContain(key);
			expect(text).not.toContain(expected.slice(3));
		}
	});
});

describe('constantTimeEqual', () => {
	test('equal-length buffers are compared with timingSafeEqual', () => {
		expect(constantTimeEqual(Buffer.from('abc'), Buffer.from('abc'))).toBe(true);
		expect(constantTimeEqual(Buffer.from('abc'), Buffer.from('abd'))).toBe(false);
	});

	test('unequal lengths return false without throwing', () => {
		expect(constantTimeEqual(Buffer.from('abc'), Buffer.from('abcd'))).toBe(false);
		expect(constantTimeEqual(Buffer.alloc(0), Buffer.from('a'))).toBe(false);
		expect(constantTimeEqual(Buffer.alloc(0), Buffer.alloc(0))).toBe(true);
	});

	test('entries of another length go through the same path (no throw, refused)', () => {
		for (const entry of ['v1,', 'v1,a', `${SIGNATURE}A`, `v1,${'A'.repeat(500)}`]) {
			expect(verify(headers({ 'webhook-signature': entry })).ok).toBe(false);
		}
	});
});

describe('ReplayCache', () => {
	test('drops a second sighting of an id within the time to live', () => {
		const cache = new ReplayCache({ maxEntries: 10, ttlSeconds: 600 });
		expect(cache.checkAndRemember('evt_a', 1000)).toBe(false);
		expect(cache.checkAndRemember('evt_a', 1001)).toBe(true);
		expect(cache.checkAndRemember('evt_a', 1599)).toBe(true);
		expect(cache.checkAndRemember('evt_b', 1599)).toBe(false);
	});

	test('forgets ids after the time to live', () => {
		const cache = new ReplayCache({ maxEntries: 10, ttlSeconds: 600 });
		cache.checkAndRemember('evt_a', 1000);
		expect(cache.has('evt_a', 1599)).toBe(true);
		expect(cache.has('evt_a', 1600)).toBe(false);
		expect(cache.checkAndRemember('evt_a', 1600)).toBe(false);
		cache.prune(5000);
		expect(cache.size).toBe(0);
	});

	test('is bounded: the oldest ids go first', () => {
		const cache = new ReplayCache({ maxEntries: 3, ttlSeconds: 600 });
		for (const [i, id] of ['a', 'b', 'c', 'd'].entries()) cache.checkAndRemember(id, 1000 + i);
		expect(cache.size).toBe(3);
		expect(cache.has('a', 1004)).toBe(false);
		expect(cache.has('d', 1004)).toBe(true);
	});

	test('10,000 entries: memory stays bounded and lookups stay fast', () => {
		const cache = new ReplayCache({ maxEntries: 10_000, ttlSeconds: 600 });
		const started = performance.now();
		for (let i = 0; i < 50_000; i++) cache.checkAndRemember(`evt_${i}`, 1000);
		expect(cache.size).toBe(10_000);
		expect(cache.has('evt_49999', 1000)).toBe(true);
		expect(cache.has('evt_39999', 1000)).toBe(false);
		// a bound for gross regressions (a scan or sort per event) that holds on a loaded machine
		expect(performance.now() - started).toBeLessThan(10_000);
	});

	test('round-trips through a plain record (static data) and ignores junk', () => {
		const cache = new ReplayCache({ maxEntries: 5, ttlSeconds: 600 });
		cache.checkAndRemember('evt_a', 1000);
		cache.checkAndRemember('evt_b', 1001);
		const record = cache.toRecord();
		expect(record).toEqual({ evt_a: 1000, evt_b: 1001 });
		const copy = ReplayCache.fromRecord(record, { maxEntries: 5, ttlSeconds: 600 }, 1002);
		expect(copy.checkAndRemember('evt_a', 1002)).toBe(true);
		expect(copy.checkAndRemember('evt_c', 1002)).toBe(false);
		expect(ReplayCache.fromRecord({ x: 'no', y: null, z: 1000 }, {}, 1001).toRecord()).toEqual({
			z: 1000,
		});
		expect(ReplayCache.fromRecord(undefined).size).toBe(0);
		expect(ReplayCache.fromRecord([1, 2]).size).toBe(0);
		// expired entries are not carried over
		expect(ReplayCache.fromRecord(record, { ttlSeconds: 600 }, 1700).size).toBe(0);
	});

	test('an id seen again after expiry is kept for its new time, not evicted with its old one', () => {
		const cache = new ReplayCache({ maxEntries: 10, ttlSeconds: 100 });
		cache.checkAndRemember('evt_a', 1000);
		cache.checkAndRemember('evt_b', 1050);
		expect(cache.checkAndRemember('evt_a', 1100)).toBe(false); // expired: new sighting
		expect(cache.has('evt_a', 1150)).toBe(true);
		expect(cache.has('evt_b', 1150)).toBe(false);
		cache.prune(1150);
		expect(cache.toRecord()).toEqual({ evt_a: 1100 });
	});

	test('forget lets an id through again', () => {
		const cache = new ReplayCache();
		cache.checkAndRemember('evt_a', 1);
		cache.forget('evt_a');
		expect(cache.checkAndRemember('evt_a', 2)).toBe(false);
	});
});
