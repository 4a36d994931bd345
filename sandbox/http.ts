/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * HTTP building blocks of the sandbox: the error type, the reply shapes handlers return, and the
 * helpers that read request bodies and write replies. Nothing here knows about resources.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';

import { clock } from './clock';

export class ApiError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
		readonly details: Record<string, unknown> = {},
		readonly headers: Record<string, string> = {},
	) {
		super(message);
	}
}

export const notFound = (what: string, id?: string): ApiError =>
	new ApiError(
		404,
		'not_found',
		id ? `${what} ${id} not found` : `${what} not found`,
		id ? { id } : {},
	);

export const conflict = (
	message: string,
	details: Record<string, unknown> = {},
	code = 'conflict',
): ApiError => new ApiError(409, code, message, details);

/** One 422 issue, as listed in `details.issues`. */
export interface Issue {
	path: string;
	message: string;
	code: string;
}

export const validationError = (issues: Issue[]): ApiError =>
	new ApiError(
		422,
		'validation_failed',
		`Validation failed: ${issues.map((i) => `${i.path || '(body)'}: ${i.message}`).join('; ')}`,
		{ issues },
	);

/** What a handler answers. Exactly one of json / text / stream (or none for an empty body). */
export interface Reply {
	status: number;
	headers?: Record<string, string | number>;
	json?: unknown;
	text?: string | Buffer;
	stream?: Readable;
}

export const json = (
	json: unknown,
	status = 200,
	headers?: Record<string, string | number>,
): Reply => ({ status, json, headers });

export const errorBody = (err: ApiError, requestId: string) => ({
	error: { code: err.code, message: err.message, details: err.details },
	requestId,
});

export const errorReply = (err: ApiError, requestId: string): Reply => ({
	status: err.status,
	headers: err.headers,
	json: errorBody(err, requestId),
});

/** Reads a JSON body. Empty body = undefined. Malformed = 400 invalid_json. Larger than maxBytes = 413. */
export async function readJsonBody(
	req: IncomingMessage,
	maxBytes = 5 * 1024 * 1024,
): Promise<unknown> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of req) {
		size += (chunk as Buffer).length;
		if (size > maxBytes)
			throw new ApiError(413, 'payload_too_large', `Request body larger than ${maxBytes} bytes`);
		chunks.push(chunk as Buffer);
	}
	const raw = Buffer.concat(chunks).toString('utf8');
	if (raw.trim() === '') return undefined;
	try {
		return JSON.parse(raw);
	} catch (e) {
		throw new ApiError(400, 'invalid_json', `Malformed JSON body: ${(e as Error).message}`);
	}
}

/** Drains whatever is left of a request body (so keep-alive connections stay usable). */
export function drain(req: IncomingMessage): void {
	if (!req.readableEnded) req.resume();
}

/** Writes a reply. Streams are piped with backpressure; an error mid-stream destroys the socket. */
export function writeReply(res: ServerResponse, reply: Reply, method: string): void {
	const headers: Record<string, string | number> = { ...(reply.headers ?? {}) };
	let payload: string | Buffer | undefined;
	if (reply.json !== undefined) {
		payload = JSON.stringify(reply.json);
		headers['content-type'] ??= 'application/json; charset=utf-8';
	} else if (reply.text !== undefined) {
		payload = reply.text;
		headers['content-type'] ??= 'text/plain; charset=utf-8';
	}
	if (payload !== undefined) headers['content-length'] = Buffer.byteLength(payload);
	// MediaGen's clock, as its records' times read it (Node's own Date header ignores a test's
	// shifted Date: the simulation's first run a day back)
	headers.date = new Date(Date.now() + clock.offsetMs).toUTCString();
	res.writeHead(reply.status, headers);
	if (reply.stream) {
		if (method === 'HEAD') {
			reply.stream.destroy();
			res.end();
			return;
		}
		reply.stream.on('error', () => res.destroy());
		reply.stream.pipe(res);
		return;
	}
	res.end(method === 'HEAD' ? undefined : payload);
}

/** Lower-cased single header value. */
export function header(req: IncomingMessage, name: string): string | undefined {
	const v = req.headers[name.toLowerCase()];
	return Array.isArray(v) ? v[0] : v;
}
