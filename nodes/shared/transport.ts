/**
 * The one place that sends requests to the API: credential, base URL, retries, and error answers
 * as NodeApiError with the spec's meaning. The reasons: docs/files.md, API requests.
 */
import { createHash } from 'node:crypto';

import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	ICredentialsDecrypted,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	ITriggerFunctions,
	IWebhookFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { RetryFailure } from './retry';
import {
	RETRY,
	isRetrySafe,
	pause,
	retryAfterMs,
	retryAfterWithJitter,
	withRetries,
} from './retry';
import { ANSWER, answerBody } from './responseBody';
import { insecureUrlProblem } from './urlPolicy';

export const CREDENTIAL = 'mediaGenApi';
/** The credential holding the MediaGen Trigger's manual-mode signing secrets (node version 3). */
export const WEBHOOK_SECRET_CREDENTIAL = 'mediaGenWebhookSecretApi';

export type MediaGenContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IWebhookFunctions
	| ITriggerFunctions;

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
}

/**
 * The default Idempotency-Key: the same for n8n's Retry On Fail of one item in one run of one
 * execution, different for a new execution, another node, another run of the node, another item.
 */
export function defaultIdempotencyKey(parts: {
	executionId: string;
	nodeId: string;
	runIndex: number;
	itemIndex: number;
}): string {
	const material = `${parts.executionId}|${parts.nodeId}|${parts.runIndex}|${parts.itemIndex}`;
	return `n8n-${createHash('sha256').update(material).digest('hex').slice(0, 48)}`;
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

/**
 * The credential's base URL without a trailing slash. Refused unless https (or http to a loopback
 * host): every request to it carries the API key.
 */
export async function baseUrlOf(ctx: MediaGenContext, itemIndex?: number): Promise<string> {
	const { data } = await credentialOf(ctx);
	const baseUrl = String(data?.baseUrl ?? '').replace(/\/+$/, '');
	const problem = insecureUrlProblem(baseUrl, 'The Base URL of the MediaGen API credential');
	if (problem)
		throw new NodeOperationError(ctx.getNode(), problem, {
			itemIndex,
			description:
				'Every request carries the API key; it is sent only over https. Change the Base URL in the credential. Nothing was sent.',
		});
	return baseUrl;
}

/** An answer as n8n's request helpers give it with `returnFullResponse`, whatever its status. */
export interface FullResponse {
	statusCode: number;
	headers: Record<string, unknown>;
	body: unknown;
}

/** The error answer of MediaGen (and of its signed URLs): `{ error: { code, message, details } }`. */
export interface ErrorBody {
	error?: { code?: string; message?: string; details?: IDataObject };
	requestId?: string;
}

/** An error answer's body, parsed where it is JSON text; other text becomes its message. */
export function errorBodyOf(body: unknown, maxTextChars = 500): ErrorBody {
	if (Buffer.isBuffer(body)) return errorBodyOf(body.toString('utf8'), maxTextChars);
	let parsed = body;
	if (typeof body === 'string') {
		try {
			parsed = JSON.parse(body);
		} catch {
			return { error: { message: body.slice(0, maxTextChars) } };
		}
	}
	return parsed && typeof parsed === 'object' ? (parsed as ErrorBody) : {};
}

/** The HTTP status a request error carries (`httpCode`), or undefined when no answer came. */
export function statusOf(error: unknown): number | undefined {
	const code = (error as { httpCode?: unknown } | null | undefined)?.httpCode;
	if (code === undefined || code === null || code === '') return undefined;
	const status = Number(code);
	return Number.isFinite(status) ? status : undefined;
}

/** Lists every `details.issues` entry as `path: message`. */
export function issuesText(details: IDataObject | undefined): string[] {
	const issues = details?.issues;
	if (!Array.isArray(issues)) return [];
	return issues.map((issue) => {
		const { path, message } = (issue ?? {}) as { path?: unknown; message?: unknown };
		const where = Array.isArray(path) ? path.join('.') : path ? String(path) : '';
		return where ? `${where}: ${String(message)}` : String(message);
	});
}

/** The spec's meaning of each error status, for the error message. */
export function errorMessage(status: number, body: ErrorBody, retries: number): string {
	const details = body.error?.details;
	switch (status) {
		case 400:
			return 'MediaGen could not read the request';
		case 401:
			return 'MediaGen rejected the API key: check the key in the MediaGen API credential';
		case 402: {
			const balance = details?.balance ?? details?.available;
			const required = details?.required ?? details?.credits;
			const figures = [
				balance !== undefined ? `balance ${String(balance)}` : '',
				required !== undefined ? `needed ${String(required)}` : '',
			].filter(Boolean);
			return `Not enough credits${figures.length ? ` (${figures.join(', ')})` : ''}: nothing was charged`;
		}
		case 403: {
			// name what is missing where the answer says it (details.requiredScope / requiredPlan)
			if (details?.requiredScope !== undefined)
				return `The API key lacks the scope ${String(details.requiredScope)}: give the key that scope in MediaGen's settings (API section), or use another key`;
			if (details?.requiredPlan !== undefined || details?.feature !== undefined)
				return `The workspace plan lacks this feature${details.feature !== undefined ? ` (${String(details.feature)})` : ''}${details.requiredPlan !== undefined ? `: it needs the ${String(details.requiredPlan)} plan` : ''}`;
			return 'The API key is not allowed to do this: it lacks the scope, or the workspace plan lacks the feature';
		}
		case 404:
			return 'Not found: it does not exist, or it belongs to another workspace';
		case 409:
			return body.error?.code === 'version_conflict'
				? 'Conflict: the record was changed since this version; get it again and retry with its current version'
				: `Conflict: ${body.error?.message ?? 'the request clashes with the current state of the record'}`;
		case 422:
			return 'MediaGen rejected the values sent';
		case 301:
		case 302:
		case 303:
		case 307:
		case 308:
			return `MediaGen answered with a redirect (${status}), which API requests do not follow: check the Base URL of the MediaGen API credential`;
		case 429:
			return `MediaGen rate limit reached; still limited after ${retries} retries`;
		default:
			return status >= 500
				? `MediaGen server error (${status})${retries ? ` after ${retries} retries` : ''}`
				: `MediaGen answered with status ${status}`;
	}
}

function toApiError(
	ctx: MediaGenContext,
	response: FullResponse,
	retries: number,
	itemIndex?: number,
): NodeApiError {
	const body = errorBodyOf(response.body);
	const requestId = body.requestId ?? (response.headers['x-request-id'] as string | undefined);
	const location =
		response.statusCode >= 300 && response.statusCode < 400 ? response.headers.location : undefined;
	const lines = [
		location
			? `The redirect points to ${String(location)}; the API key is never sent there.`
			: undefined,
		body.error?.message,
		...issuesText(body.error?.details).map((line) => `- ${line}`),
		body.error?.code ? `Code: ${body.error.code}` : undefined,
		requestId ? `Request ID: ${requestId}` : undefined,
	].filter(Boolean);
	return new NodeApiError(
		ctx.getNode(),
		{ ...(body as JsonObject), httpCode: String(response.statusCode) } as JsonObject,
		{
			message: errorMessage(response.statusCode, body, retries),
			description: lines.join('\n'),
			httpCode: String(response.statusCode),
			itemIndex,
		},
	);
}

function networkError(ctx: MediaGenContext, error: Error, retries: number, itemIndex?: number) {
	return new NodeApiError(ctx.getNode(), { message: error.message } as JsonObject, {
		message: `Could not reach MediaGen: ${error.message}`,
		description: retries
			? `Tried ${retries + 1} times.`
			: 'Not retried: the request could have done its work twice (a POST without an idempotency key).',
		itemIndex,
	});
}

/**
 * A NodeApiError or NodeOperationError of this package's n8n-workflow, or of another copy of it:
 * n8n's own, whose helpers threw it, when a manual install put a second copy beside the package
 * (README, Install). Such an error is passed on as it is, so n8n recognises it as its own.
 */
export function isNodeError(error: unknown): error is NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return true;
	return (
		error instanceof Error &&
		(error.name === 'NodeApiError' || error.name === 'NodeOperationError') &&
		typeof (error as Error & { node?: unknown }).node === 'object'
	);
}

/** The error as n8n shows it: NodeApiError and NodeOperationError pass, anything else is wrapped. */
export function asNodeError(
	ctx: MediaGenContext,
	error: unknown,
	itemIndex?: number,
): NodeApiError | NodeOperationError {
	if (isNodeError(error)) return error;
	return new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
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
