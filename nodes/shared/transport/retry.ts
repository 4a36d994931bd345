/**
 * The one retry loop of the package and its policy: how many retries, how long between them
 * (backoff, Retry-After), which requests may be sent twice. The reasons: docs/files.md, Retries.
 */
import { sleep } from 'n8n-workflow';

/** Retry policy; exported so tests and benchmarks can read it. */
export const RETRY = {
	/** Attempts after a 429 before giving up. */
	rateLimitRetries: 8,
	/** Longest Retry-After the node waits for, in seconds. */
	maxRetryAfterSeconds: 120,
	/** Attempts after a 5xx or network error, for safe requests only. */
	serverRetries: 4,
	/** First backoff delay in ms; doubles each attempt, capped, with jitter. */
	baseDelayMs: 500,
	maxDelayMs: 8000,
};

/** Exponential backoff with full jitter in [delay/2, delay]. */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
	const delay = Math.min(RETRY.baseDelayMs * 2 ** attempt, RETRY.maxDelayMs);
	return Math.round(delay / 2 + (random() * delay) / 2);
}

/** Retry-After in ms (seconds or an HTTP date), bounded; undefined if absent or unreadable. */
export function retryAfterMs(header: unknown, now = Date.now()): number | undefined {
	const value = Array.isArray(header) ? header[0] : header;
	if (typeof value !== 'string' && typeof value !== 'number') return undefined;
	const seconds = Number(value);
	let ms: number;
	if (Number.isFinite(seconds)) ms = seconds * 1000;
	else {
		const date = Date.parse(String(value));
		if (Number.isNaN(date)) return undefined;
		ms = date - now;
	}
	return Math.min(Math.max(ms, 0), RETRY.maxRetryAfterSeconds * 1000);
}

/**
 * The wait after a 429: Retry-After plus up to 10 % (at least 250 ms, at most 2 s) of random
 * jitter, so that the requests a limit stopped together do not all come back in the same instant.
 */
export function retryAfterWithJitter(ms: number, random: () => number = Math.random): number {
	return Math.round(ms + random() * Math.min(2000, Math.max(250, ms * 0.1)));
}

/** A request may be sent again after a server fault only when that cannot do the work twice. */
export function isRetrySafe(method: string, idempotencyKey?: string): boolean {
	return ['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'].includes(method) || !!idempotencyKey;
}

/** Waits `ms`; with a signal, rejects as soon as it is aborted (and at once if it already is). */
export async function pause(ms: number, signal?: AbortSignal): Promise<void> {
	if (!signal) return await sleep(ms);
	if (signal.aborted) throw new Error('The execution was cancelled');
	let onAbort: () => void = () => {};
	const aborted = new Promise<never>((_, reject) => {
		onAbort = () => reject(new Error('The execution was cancelled'));
		signal.addEventListener('abort', onAbort, { once: true });
	});
	try {
		await Promise.race([sleep(ms), aborted]);
	} finally {
		signal.removeEventListener('abort', onAbort);
	}
}

/** Why an attempt failed, as far as the retry loop needs to know. */
export interface RetryFailure<Budget extends string> {
	/** The budget this failure spends a retry of; undefined: it is not retried. */
	budget?: Budget;
	/** The wait before the next attempt (a Retry-After); undefined: the backoff of the budget. */
	waitMs?: number;
	/** Try again at once: spends a retry of the budget without waiting and without the limit. */
	now?: boolean;
}

/** What one attempt gave: its value, or why it failed. */
export type Attempt<T, Failure> = { ok: true; value: T } | { ok: false; failure: Failure };

export interface RetryLoop<T, Budget extends string, Failure extends RetryFailure<Budget>> {
	/** Retries allowed per budget (each kind of failure counts on its own). */
	budgets: Record<Budget, number>;
	attempt: () => Promise<Attempt<T, Failure>>;
	/** The error thrown for a failure that is not retried, with the retries spent per budget. */
	giveUp: (failure: Failure, retries: Record<Budget, number>) => Error;
	/** Ends a wait between attempts when aborted (the execution's cancel signal). */
	signal?: AbortSignal;
}

/**
 * Runs `attempt` until it succeeds or fails past its budget. The k-th retry of a budget waits the
 * failure's `waitMs`, else `backoffDelay(k - 1)`. An attempt may also throw: that ends the loop.
 */
export async function withRetries<T, Budget extends string, Failure extends RetryFailure<Budget>>(
	loop: RetryLoop<T, Budget, Failure>,
): Promise<T> {
	const spent = Object.fromEntries(
		Object.keys(loop.budgets).map((budget) => [budget, 0]),
	) as Record<Budget, number>;
	for (;;) {
		const outcome = await loop.attempt();
		if (outcome.ok) return outcome.value;
		const { failure } = outcome;
		const budget = failure.budget;
		if (budget !== undefined && failure.now) {
			spent[budget]++;
			continue;
		}
		if (budget === undefined || spent[budget] >= loop.budgets[budget])
			throw loop.giveUp(failure, { ...spent });
		const wait = failure.waitMs ?? backoffDelay(spent[budget]);
		spent[budget]++;
		await pause(wait, loop.signal);
	}
}
