/**
 * MediaGen's error answers as n8n errors with the spec's meaning (401 the key, 402 credits, 403
 * scope or plan, 404, 409, 422 with every issue, 429), and the one check of what an error is.
 */
import type { MediaGenContext } from './context';
import type { IDataObject, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

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

export function toApiError(
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

export function networkError(
	ctx: MediaGenContext,
	error: Error,
	retries: number,
	itemIndex?: number,
) {
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

/** Whether an error is MediaGen's 409 for a key an earlier try sent with another body. */
export function isReusedKey(error: unknown): boolean {
	const answer = (error as { errorResponse?: unknown } | undefined)?.errorResponse;
	return statusOf(error) === 409 && errorBodyOf(answer).error?.code === 'idempotency_key_reused';
}
