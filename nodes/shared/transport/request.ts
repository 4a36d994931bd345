/**
 * The one place that sends requests to the API: the credential, the https-only Base URL, retries,
 * answers read within a limit; failures as errors.ts makes them. The reasons: docs/files.md.
 */
import type {
	ICredentialsDecrypted,
	IDataObject,
	IHttpRequestMethods,
	IHttpRequestOptions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { CREDENTIAL, MediaGenContext } from './context';
import { FullResponse, networkError, toApiError } from './errors';
import { ANSWER, answerBody } from './responseBody';
import type { RetryFailure } from './retry';
import {
	RETRY,
	isRetrySafe,
	pause,
	retryAfterMs,
	retryAfterWithJitter,
	withRetries,
} from './retry';
import { insecureUrlProblem } from './urlPolicy';

export interface MediaGenRequest {
	method: IHttpRequestMethods;
	/** Path relative to the credential's base URL, e.g. `/projects/123`. */
	path: string;
	qs?: IDataObject;
	body?: unknown;
	/** Sent as the Idempotency-Key header; makes a POST safe to retry. */
	idempotencyKey?: string;
	itemIndex?: number;
	/**
	 * Sent after the execution was cancelled (cancelling its jobs at the service): its waits do
	 * not end at the cancel. The caller bounds the time it spends.
	 */
	ignoreCancel?: boolean;
	/** Called with a successful answer's headers (e.g. to read MediaGen's clock). */
	onHeaders?: (headers: Record<string, unknown>) => void;
	/** Awaited before each attempt, a retry's too (a turn of a pace of the key: keyPace.ts). */
	beforeSend?: () => Promise<void>;
}

/** The execution's cancel signal, where the context has one (not in list searches or hooks). */
export function cancelSignalOf(ctx: MediaGenContext): AbortSignal | undefined {
	return 'getExecutionCancelSignal' in ctx ? ctx.getExecutionCancelSignal() : undefined;
}

/** Waits, returning early (with an error) when the execution is cancelled. */
export async function cancellableSleep(ctx: MediaGenContext, ms: number): Promise<void> {
	await pause(ms, cancelSignalOf(ctx));
}

/**
 * The context as n8n's request helpers see it, without the execution's cancel signal: n8n's
 * `httpRequestWithAuthentication` aborts requests on that signal when the context has
 * `getExecutionCancelSignal`, and the requests that cancel jobs at the service after a Stop must
 * still go out.
 */
function withoutCancelSignal<T extends object>(ctx: T): T {
	return new Proxy(ctx, {
		has: (target, key) => key !== 'getExecutionCancelSignal' && key in target,
	});
}

const credentialsOf = new WeakMap<object, Promise<ICredentialsDecrypted>>();

/**
 * The credential, read (and decrypted) once per node run and handed to every request: n8n would
 * otherwise load and decrypt it from its database for each request (bench/README.md, B1).
 */
export async function credentialOf(ctx: MediaGenContext): Promise<ICredentialsDecrypted> {
	let cached = credentialsOf.get(ctx);
	if (!cached) {
		cached = ctx.getCredentials(CREDENTIAL).then((data) => ({
			id: ctx.getNode().credentials?.[CREDENTIAL]?.id ?? CREDENTIAL,
			name: ctx.getNode().credentials?.[CREDENTIAL]?.name ?? CREDENTIAL,
			type: CREDENTIAL,
			data,
		}));
		credentialsOf.set(ctx, cached);
		cached.catch(() => credentialsOf.delete(ctx));
	}
	return await cached;
}

/** The checked base URL of each context's credential (the check parses it: once per node run). */
const baseUrlsOf = new WeakMap<object, string>();

/**
 * The credential's base URL without a trailing slash. Refused unless https (or http to a loopback
 * host): every request to it carries the API key.
 */
export async function baseUrlOf(ctx: MediaGenContext, itemIndex?: number): Promise<string> {
	const checked = baseUrlsOf.get(ctx);
	if (checked !== undefined) return checked;
	const { data } = await credentialOf(ctx);
	const baseUrl = String(data?.baseUrl ?? '').replace(/\/+$/, '');
	const problem = insecureUrlProblem(baseUrl, 'The Base URL of the MediaGen API credential');
	if (problem)
		throw new NodeOperationError(ctx.getNode(), problem, {
			itemIndex,
			description:
				'Every request carries the API key; it is sent only over https. Change the Base URL in the credential. Nothing was sent.',
		});
	baseUrlsOf.set(ctx, baseUrl);
	return baseUrl;
}

/** Why one try of a request failed: the answer, or the error of a request that got none. */
interface RequestFailure extends RetryFailure<'rateLimited' | 'fault'> {
	response?: FullResponse;
	error?: Error;
}

/**
 * The n8n request options of a MediaGen request: JSON, every status answered, no redirect, the
 * body as a stream (read within a limit: answerBody).
 */
function requestOptions(baseUrl: string, request: MediaGenRequest): IHttpRequestOptions {
	const headers: IDataObject = { accept: 'application/json' };
	if (request.idempotencyKey) headers['idempotency-key'] = request.idempotencyKey;
	const options: IHttpRequestOptions = {
		method: request.method,
		url: `${baseUrl}${request.path}`,
		qs: request.qs && Object.keys(request.qs).length ? request.qs : undefined,
		headers,
		json: true,
		encoding: 'stream',
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		// A REST API does not redirect: a 3xx is an error, so the key never follows one to another
		// origin (n8n's default, sendCredentialsOnCrossOriginRedirect, would send it along).
		disableFollowRedirect: true,
		sendCredentialsOnCrossOriginRedirect: false,
	};
	if (request.body !== undefined) options.body = request.body as IDataObject;
	return options;
}

/** The refusal of an answer larger than the package reads (ANSWER.maxJsonBytes). */
function tooLargeAnswer(ctx: MediaGenContext, request: MediaGenRequest): NodeApiError {
	const limit = `${ANSWER.maxJsonBytes / 1024 / 1024} MiB`;
	return new NodeApiError(ctx.getNode(), { message: 'answer too large' } as JsonObject, {
		message: `MediaGen's answer to ${request.method} ${request.path} is larger than ${limit}: it was not read`,
		description: `The package reads at most ${limit} of an API answer; a list page or record is far smaller. Check the Base URL of the MediaGen API credential.`,
		itemIndex: request.itemIndex,
	});
}

/** A failed answer as the retry loop sees it: a 429 waits for Retry-After, a 5xx is a fault. */
function answerFailure(response: FullResponse): RequestFailure {
	if (response.statusCode === 429) {
		const after = retryAfterMs(response.headers['retry-after']);
		const waitMs = after === undefined ? undefined : retryAfterWithJitter(after);
		return { budget: 'rateLimited', waitMs, response };
	}
	return { budget: response.statusCode >= 500 ? 'fault' : undefined, response };
}

/**
 * Sends one request with the credential and returns the parsed body. 429s wait for Retry-After
 * and retry; 5xx and network errors retry with backoff only when safe (see isRetrySafe).
 */
export async function mediaGenRequest<T = unknown>(
	ctx: MediaGenContext,
	request: MediaGenRequest,
): Promise<T> {
	const baseUrl = await baseUrlOf(ctx, request.itemIndex);
	const options = requestOptions(baseUrl, request);
	const self = request.ignoreCancel ? withoutCancelSignal(ctx) : ctx;
	return await withRetries<T, 'rateLimited' | 'fault', RequestFailure>({
		budgets: {
			rateLimited: RETRY.rateLimitRetries,
			fault: isRetrySafe(request.method, request.idempotencyKey) ? RETRY.serverRetries : 0,
		},
		signal: request.ignoreCancel ? undefined : cancelSignalOf(ctx),
		attempt: async () => {
			await request.beforeSend?.();
			let response: FullResponse;
			let body: { value: unknown; whole: boolean };
			try {
				response = (await ctx.helpers.httpRequestWithAuthentication.call(
					self,
					CREDENTIAL,
					options,
					{ credentialsDecrypted: await credentialOf(ctx) },
				)) as FullResponse;
				const ok = response.statusCode >= 200 && response.statusCode < 300;
				body = await answerBody(response.body, ok ? ANSWER.maxJsonBytes : ANSWER.maxErrorBytes);
			} catch (error) {
				return { ok: false, failure: { budget: 'fault', error: error as Error } };
			}
			if (response.statusCode < 200 || response.statusCode >= 300)
				return { ok: false, failure: answerFailure({ ...response, body: body.value }) };
			if (!body.whole) throw tooLargeAnswer(ctx, request);
			request.onHeaders?.(response.headers ?? {});
			return { ok: true, value: body.value as T };
		},
		giveUp: ({ response, error }, retries) =>
			response
				? toApiError(
						ctx,
						response,
						response.statusCode === 429 ? retries.rateLimited : retries.fault,
						request.itemIndex,
					)
				: networkError(ctx, error as Error, retries.fault, request.itemIndex),
	});
}
