import type { IExecuteFunctions, INode } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import { defaultIdempotencyKey } from '../../nodes/shared/durable/identity';
import {
	asNodeError,
	errorBodyOf,
	errorMessage,
	issuesText,
	statusOf,
} from '../../nodes/shared/transport/errors';
import {
	RETRY,
	backoffDelay,
	isRetrySafe,
	retryAfterMs,
	retryAfterWithJitter,
} from '../../nodes/shared/transport/retry';

describe('retry policy', () => {
	test('a POST is retried after a fault only with an idempotency key', () => {
		expect(isRetrySafe('POST')).toBe(false);
		expect(isRetrySafe('PATCH')).toBe(false);
		expect(isRetrySafe('POST', 'n8n-abc')).toBe(true);
		for (const m of ['GET', 'PUT', 'DELETE']) expect(isRetrySafe(m)).toBe(true);
	});
	test('backoff doubles, is jittered into [d/2, d], and is capped', () => {
		expect(backoffDelay(0, () => 0)).toBe(RETRY.baseDelayMs / 2);
		expect(backoffDelay(0, () => 1)).toBe(RETRY.baseDelayMs);
		expect(backoffDelay(2, () => 1)).toBe(RETRY.baseDelayMs * 4);
		expect(backoffDelay(30, () => 1)).toBe(RETRY.maxDelayMs);
	});
	test('Retry-After: seconds, HTTP date, bounded, unreadable', () => {
		expect(retryAfterMs('3')).toBe(3000);
		expect(retryAfterMs(['2'])).toBe(2000);
		const now = Date.parse('2026-01-01T00:00:00Z');
		expect(retryAfterMs('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
		expect(retryAfterMs('99999')).toBe(RETRY.maxRetryAfterSeconds * 1000);
		expect(retryAfterMs('soon')).toBeUndefined();
		expect(retryAfterMs(undefined)).toBeUndefined();
	});
});

test('Retry-After waits get jitter: at least the header, at most 10 % more (250 ms .. 2 s)', () => {
	expect(retryAfterWithJitter(3000, () => 0)).toBe(3000);
	expect(retryAfterWithJitter(3000, () => 1)).toBe(3300);
	expect(retryAfterWithJitter(1000, () => 1)).toBe(1250);
	expect(retryAfterWithJitter(60_000, () => 1)).toBe(62_000);
});

describe('idempotency keys', () => {
	const base = { token: '101', nodeId: 'node-a', position: 0, request: 'fp#1' };
	test('stable for the same run, node, position and item (every try of the run)', () => {
		expect(defaultIdempotencyKey(base)).toBe(defaultIdempotencyKey({ ...base }));
	});
	test('different for a new run, node, position, request (or rank of equal ones) or execution after a 409', () => {
		const keys = new Set([
			defaultIdempotencyKey(base),
			defaultIdempotencyKey({ ...base, token: '102' }),
			defaultIdempotencyKey({ ...base, nodeId: 'node-b' }),
			defaultIdempotencyKey({ ...base, position: 1 }),
			defaultIdempotencyKey({ ...base, request: 'fp#2' }),
			defaultIdempotencyKey({ ...base, request: 'other#1' }),
			defaultIdempotencyKey({ ...base, execution: 'x2' }),
		]);
		expect(keys.size).toBe(7);
	});
	test('within the spec limit of 120 characters', () => {
		expect(defaultIdempotencyKey(base).length).toBeLessThanOrEqual(120);
	});
});

describe('error meaning', () => {
	test('each status says what it means in the spec', () => {
		expect(errorMessage(401, {}, 0)).toMatch(/API key/);
		expect(errorMessage(402, { error: { details: { balance: 3, required: 20 } } }, 0)).toBe(
			'Not enough credits (balance 3, needed 20): nothing was charged',
		);
		expect(errorMessage(403, {}, 0)).toMatch(/scope/);
		expect(errorMessage(404, {}, 0)).toMatch(/another workspace/);
		expect(errorMessage(409, { error: { code: 'version_conflict' } }, 0)).toMatch(
			/current version/,
		);
		expect(errorMessage(422, {}, 0)).toMatch(/rejected/);
		expect(errorMessage(429, {}, 8)).toMatch(/8 retries/);
		expect(errorMessage(503, {}, 3)).toBe('MediaGen server error (503) after 3 retries');
	});
	test('every 422 issue is listed with its path', () => {
		expect(
			issuesText({
				issues: [
					{ path: 'name', message: 'too long' },
					{ path: ['inputs', 0, 'slot'], message: 'required' },
				],
			}),
		).toEqual(['name: too long', 'inputs.0.slot: required']);
	});
});

describe('errors of another n8n-workflow copy', () => {
	const node = { name: 'MediaGen', type: 'n8n-nodes-mediagen.mediaGen' } as INode;
	const ctx = { getNode: () => node } as unknown as IExecuteFunctions;
	/** What an error of n8n's own copy looks like from a package that has a second copy. */
	class NodeOperationError extends Error {
		override name = 'NodeOperationError';
		node = node;
		description = 'from n8n';
	}
	test('an error n8n threw (another copy, same shape) is passed on as it is, not wrapped', () => {
		const theirs = new NodeOperationError('binary property "data" missing');
		expect(asNodeError(ctx, theirs)).toBe(theirs);
	});
	test('our own errors pass, anything else is wrapped with its message', () => {
		const ours = new NodeApiError(node, { message: 'x' }, { httpCode: '404' });
		expect(asNodeError(ctx, ours)).toBe(ours);
		const plain = new Error('socket hang up');
		const wrapped = asNodeError(ctx, plain, 2);
		expect(wrapped).not.toBe(plain);
		expect(wrapped.name).toBe('NodeOperationError');
		expect(wrapped.message).toBe('socket hang up');
		// a look-alike without a node is not taken for n8n's error
		const fake = Object.assign(new Error('fake'), { name: 'NodeApiError' });
		expect(asNodeError(ctx, fake)).not.toBe(fake);
	});
});

test('a 403 names what is missing where the answer says it: the scope, or the plan and feature', () => {
	expect(errorMessage(403, { error: { details: { requiredScope: 'content.create' } } }, 0)).toBe(
		"The API key lacks the scope content.create: give the key that scope in MediaGen's settings (API section), or use another key",
	);
	expect(
		errorMessage(403, { error: { details: { feature: 'webhooks', requiredPlan: 'pro' } } }, 0),
	).toBe('The workspace plan lacks this feature (webhooks): it needs the pro plan');
	expect(errorMessage(403, {}, 0)).toMatch(/lacks the scope, or the workspace plan/);
});

describe('reading error answers, the one way for the API and the signed URLs', () => {
	test('a body is parsed where it is JSON, as text, bytes or an object', () => {
		const body = { error: { code: 'url_expired', message: 'expired' }, requestId: 'r1' };
		expect(errorBodyOf(body)).toEqual(body);
		expect(errorBodyOf(JSON.stringify(body))).toEqual(body);
		expect(errorBodyOf(Buffer.from(JSON.stringify(body)))).toEqual(body);
	});
	test('other text becomes the message, cut at the length asked', () => {
		expect(errorBodyOf('Bad Gateway')).toEqual({ error: { message: 'Bad Gateway' } });
		expect(errorBodyOf('x'.repeat(600)).error?.message).toHaveLength(500);
		expect(errorBodyOf('x'.repeat(600), 300).error?.message).toHaveLength(300);
	});
	test('no body, or JSON that is no object, reads as an empty answer', () => {
		for (const body of [undefined, null, '', 42, 'null', '7']) {
			const parsed = errorBodyOf(body);
			expect(parsed.error?.code).toBeUndefined();
			expect(parsed.requestId).toBeUndefined();
		}
	});
	test('the status of an error is its httpCode, or undefined when no answer came', () => {
		const node = { name: 'MediaGen', type: 'n8n-nodes-mediagen.mediaGen' } as INode;
		expect(statusOf(new NodeApiError(node, { message: 'x' }, { httpCode: '404' }))).toBe(404);
		expect(statusOf(new NodeApiError(node, { message: 'socket hang up' }))).toBeUndefined();
		expect(statusOf({ httpCode: 503 })).toBe(503);
		expect(statusOf(new Error('plain'))).toBeUndefined();
		expect(statusOf(undefined)).toBeUndefined();
	});
});
