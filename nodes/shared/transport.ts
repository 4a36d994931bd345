/**
 * The one place that sends requests to the service: authentication, base URL, retries and the
 * mapping of error responses to NodeApiError with the spec's meaning.
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
	IWebhookFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { insecureUrlProblem } from './urlPolicy';

export const CREDENTIAL = 'mediaGenApi';
/** The credential holding the MediaGen Trigger's manual-mode signing secrets (node version 3). */
export const WEBHOOK_SECRET_CREDENTIAL = 'mediaGenWebhookSecretApi';

export type MediaGenContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IWebhookFunctions;

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
}

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

/** Waits, returning early (with an error) when the execution is cancelled. */
export async function cancellableSleep(ctx: MediaGenContext, ms: number): Promise<void> {
	const signal = 'getExecutionCancelSignal' in ctx ? ctx.getExecutionCancelSignal() : undefined;
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

interface FullResponse {
	statusCode: number;
	headers: Record<string, unknown>;
	body: unknown;
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

interface ErrorBody {
	error?: { code?: string; message?: string; details?: IDataObject };
	requestId?: string;
}

function asErrorBody(body: unknown): ErrorBody {
	if (typeof body === 'string') {
		try {
			return JSON.parse(body) as ErrorBody;
		} catch {
			return { error: { message: body.slice(0, 500) } };
		}
	}
	return body && typeof body === 'object' ? (body as ErrorBody) : {};
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
	res: FullResponse,
	retries: number,
	itemIndex?: number,
): NodeApiError {
	const body = asErrorBody(res.body);
	const requestId = body.requestId ?? (res.headers['x-request-id'] as string | undefined);
	const location = res.statusCode >= 300 && res.statusCode < 400 ? res.headers.location : undefined;
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
		{ ...(body as JsonObject), httpCode: String(res.statusCode) } as JsonObject,
		{
			message: errorMessage(res.statusCode, body, retries),
			description: lines.join('\n'),
			httpCode: String(res.statusCode),
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

/**
 * Sends one request with the credential and returns the parsed body. 429s wait for Retry-After
 * and retry; 5xx and network errors retry with backoff only when safe (see isRetrySafe).
 */
export async function mediaGenRequest<T = unknown>(
	ctx: MediaGenContext,
	req: MediaGenRequest,
): Promise<T> {
	const baseUrl = await baseUrlOf(ctx, req.itemIndex);
	const headers: IDataObject = { accept: 'application/json' };
	if (req.idempotencyKey) headers['idempotency-key'] = req.idempotencyKey;
	const options: IHttpRequestOptions = {
		method: req.method,
		url: `${baseUrl}${req.path}`,
		qs: req.qs && Object.keys(req.qs).length ? req.qs : undefined,
		headers,
		json: true,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		// A REST API does not redirect: a 3xx is an error, so the key never follows one to another
		// origin (n8n's default, sendCredentialsOnCrossOriginRedirect, would send it along).
		disableFollowRedirect: true,
		sendCredentialsOnCrossOriginRedirect: false,
	};
	if (req.body !== undefined) options.body = req.body as IDataObject;
	const safe = isRetrySafe(req.method, req.idempotencyKey);

	let limited = 0;
	let faults = 0;
	const pause = (ms: number) => (req.ignoreCancel ? sleep(ms) : cancellableSleep(ctx, ms));
	for (;;) {
		let res: FullResponse;
		try {
			const self = req.ignoreCancel ? withoutCancelSignal(ctx) : ctx;
			res = (await ctx.helpers.httpRequestWithAuthentication.call(self, CREDENTIAL, options, {
				credentialsDecrypted: await credentialOf(ctx),
			})) as FullResponse;
		} catch (error) {
			if (safe && faults < RETRY.serverRetries) {
				await pause(backoffDelay(faults++));
				continue;
			}
			throw networkError(ctx, error as Error, faults, req.itemIndex);
		}
		const status = res.statusCode;
		if (status >= 200 && status < 300) return res.body as T;
		if (status === 429 && limited < RETRY.rateLimitRetries) {
			const after = retryAfterMs(res.headers['retry-after']);
			const wait = after === undefined ? backoffDelay(limited) : retryAfterWithJitter(after);
			limited++;
			await pause(wait);
			continue;
		}
		if (status >= 500 && safe && faults < RETRY.serverRetries) {
			await pause(backoffDelay(faults++));
			continue;
		}
		throw toApiError(ctx, res, status === 429 ? limited : faults, req.itemIndex);
	}
}
