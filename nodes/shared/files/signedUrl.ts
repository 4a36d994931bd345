/**
 * The client of signed storage URLs (upload parts, downloads): plain requests without the
 * MediaGen credential, https only (plain http to a loopback host, straight to it), redirects only
 * within the URL's origin and by their method rules, answers as streams, retried with the
 * package's retry loop. The reasons: docs/files.md.
 */
import type { IHttpRequestOptions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { MediaGenContext } from '../transport/context';
import type { FullResponse } from '../transport/errors';
import { errorBodyOf } from '../transport/errors';
import { cancelSignalOf } from '../transport/request';
import { answerText, discard } from '../transport/responseBody';
import type { Attempt, RetryFailure } from '../transport/retry';
import { retryAfterMs, withRetries } from '../transport/retry';
import { directOverHttp, insecureUrlProblem, originOf } from '../transport/urlPolicy';

/** Same-origin redirects a signed URL may take before the answer counts as a failure. */
const MAX_SIGNED_REDIRECTS = 3;

/** Characters of a signed URL's error text kept for the message. */
const MAX_ERROR_TEXT_CHARS = 300;

export function cancelledError(ctx: MediaGenContext, itemIndex?: number): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), 'The execution was cancelled', { itemIndex });
}

export function throwIfCancelled(ctx: MediaGenContext, itemIndex?: number): void {
	if (cancelSignalOf(ctx)?.aborted) throw cancelledError(ctx, itemIndex);
}

/** A header's first value as text (n8n's helpers give header names in lower case). */
export function headerOf(
	headers: Record<string, unknown> | undefined,
	name: string,
): string | undefined {
	if (!headers) return undefined;
	const value = headers[name] ?? headers[name.toLowerCase()];
	const first = Array.isArray(value) ? value[0] : value;
	return first === undefined || first === null ? undefined : String(first);
}

/** The `{ error: { code, message } }` of a signed-URL answer, where it has one. */
export function answerError(body: unknown): { code?: string; message?: string } {
	const { error } = errorBodyOf(body, MAX_ERROR_TEXT_CHARS);
	const text = (value: unknown) => (typeof value === 'string' && value ? value : undefined);
	return { code: text(error?.code), message: text(error?.message) };
}

/** `status 403: url_expired: …`, for the messages of failed transfers. */
export function describeAnswer(response: FullResponse): string {
	const { code, message } = answerError(response.body);
	return [`status ${response.statusCode}`, code, message].filter(Boolean).join(': ');
}

/**
 * A byte count as MediaGen or n8n gives it, whatever its JSON type (a number, or a string of
 * digits): undefined when absent, NaN when present but not a size.
 */
export function sizeOf(value: unknown): number | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	const n =
		typeof value === 'number'
			? value
			: typeof value === 'string' && /^\s*\d+\s*$/.test(value)
				? Number(value)
				: NaN;
	return Number.isSafeInteger(n) && n >= 0 ? n : NaN;
}

/** Statuses of a signed URL worth another attempt. */
export const retryableStatus = (status: number) =>
	status >= 500 || status === 408 || status === 429;

/** The error of a file transfer (upload or download), with the storage's status where known. */
export function transferError(
	ctx: MediaGenContext,
	message: string,
	options: { itemIndex?: number; description?: string; httpCode?: number },
): NodeApiError {
	return new NodeApiError(
		ctx.getNode(),
		{ message, ...(options.httpCode ? { httpCode: String(options.httpCode) } : {}) } as JsonObject,
		{
			message,
			description: options.description,
			httpCode: options.httpCode ? String(options.httpCode) : undefined,
			itemIndex: options.itemIndex,
		},
	);
}

/** Why a signed URL is not sent to: see ../transport/urlPolicy.ts. */
function signedUrlError(
	ctx: MediaGenContext,
	problem: string,
	itemIndex: number | undefined,
): NodeApiError {
	return transferError(ctx, problem, {
		itemIndex,
		description:
			'Signed URLs are fetched over https only (plain http only for localhost), never redirected to another origin, and never with the MediaGen API key.',
	});
}

/**
 * The request that follows a redirect answered with `status`, by the method rules of HTTP (as
 * n8n's own redirects, @n8n/backend-network `redirectDowngradesToGet`): a 303 is a GET (HEAD stays
 * HEAD), and so is a 301 or 302 after a POST; the body and its content headers go only with the
 * method that keeps them (307, 308, and 301/302 of anything but POST).
 */
export function redirectedRequest(
	request: IHttpRequestOptions,
	status: number,
	url: string,
): IHttpRequestOptions {
	const method = (request.method ?? 'GET').toUpperCase();
	const toGet =
		(status === 303 && method !== 'GET' && method !== 'HEAD') ||
		((status === 301 || status === 302) && method === 'POST');
	if (!toGet) return { ...request, url };
	const headers = Object.fromEntries(
		Object.entries(request.headers ?? {}).filter(([name]) => !/^content-/i.test(name)),
	);
	const next: IHttpRequestOptions = { ...request, url, method: 'GET', headers };
	delete next.body;
	return next;
}

/**
 * One request to a signed storage URL (no MediaGen credential: the URL carries its signature).
 * Gives the answer whatever its status, its body as a stream (the caller reads what it needs or
 * lets it go), or why there was none; a cancelled execution ends it. The URL must be https
 * (loopback http allowed, sent straight to the host); redirects are followed by hand, within the
 * same origin only and by their method rules, and a redirect elsewhere is an error that no
 * attempt repeats.
 */
export async function signedUrlRequest(
	ctx: MediaGenContext,
	request: IHttpRequestOptions,
	itemIndex?: number,
): Promise<{ response?: FullResponse; failure: string }> {
	let current = request;
	const origin = originOf(request.url);
	for (let hop = 0; ; hop++) {
		const problem = insecureUrlProblem(current.url, 'The signed URL');
		if (problem) throw signedUrlError(ctx, problem, itemIndex);
		let response: FullResponse;
		try {
			response = (await ctx.helpers.httpRequest({
				...current,
				...directOverHttp(current.url),
				encoding: 'stream',
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				disableFollowRedirect: true,
				abortSignal: cancelSignalOf(ctx),
			})) as FullResponse;
		} catch (error) {
			throwIfCancelled(ctx, itemIndex);
			return { failure: (error as Error).message };
		}
		const location = headerOf(response.headers, 'location');
		if (response.statusCode < 300 || response.statusCode >= 400 || !location)
			return { response, failure: '' };
		discard(response.body);
		const next = originOf(location, current.url);
		if (next === undefined || next !== origin)
			throw signedUrlError(
				ctx,
				`The signed URL redirected to another origin (${next ?? location}); it was not followed`,
				itemIndex,
			);
		if (hop >= MAX_SIGNED_REDIRECTS)
			throw signedUrlError(
				ctx,
				`The signed URL redirected more than ${MAX_SIGNED_REDIRECTS} times`,
				itemIndex,
			);
		const url = new URL(location, current.url).toString();
		current = redirectedRequest(current, response.statusCode, url);
	}
}

/** An answer whose body is read for its message only (at most ANSWER.maxErrorBytes). */
export async function withErrorText(response: FullResponse): Promise<FullResponse> {
	return { ...response, body: await answerText(response.body) };
}

/** A failed transfer attempt: why (for the final message) and the storage's status. */
export interface TransferFailure extends RetryFailure<'transfer'> {
	reason: string;
	status?: number;
}

/** An attempt that failed for `reason` and is worth another (within the budget). */
export function retryTransfer<T>(reason: string, status?: number): Attempt<T, TransferFailure> {
	return { ok: false, failure: { budget: 'transfer', reason, status } };
}

/** An answer worth another attempt (see retryableStatus); a 429 waits for its Retry-After. */
export function retryAnswer<T>(response: FullResponse): Attempt<T, TransferFailure> {
	const waitMs =
		response.statusCode === 429
			? retryAfterMs(headerOf(response.headers, 'retry-after'))
			: undefined;
	return {
		ok: false,
		failure: {
			budget: 'transfer',
			reason: describeAnswer(response),
			status: response.statusCode,
			waitMs,
		},
	};
}

/**
 * Runs the attempts of one transfer: `retries` more after the first, with backoff (or
 * Retry-After), each starting only while the execution is not cancelled.
 */
export async function withTransferRetries<T>(
	ctx: MediaGenContext,
	itemIndex: number | undefined,
	retries: number,
	attempt: () => Promise<Attempt<T, TransferFailure>>,
	giveUp: (failure: TransferFailure, attempts: number) => Error,
): Promise<T> {
	return await withRetries<T, 'transfer', TransferFailure>({
		budgets: { transfer: retries },
		signal: cancelSignalOf(ctx),
		attempt: async () => {
			throwIfCancelled(ctx, itemIndex);
			return await attempt();
		},
		giveUp: (failure, spent) => giveUp(failure, spent.transfer + 1),
	});
}
