/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * n8n 2.40.7's handling of a webhook request body before the node's `webhook` method runs, played
 * on node:http's request for the trigger harness (triggerHarness.ts):
 * - `rawBodyReader` (dist/middlewares/body-parser.js): `req.readRawBody()` reads the stream on
 *   demand, through gunzip / inflate for a `content-encoding`, else checked against
 *   `content-length` (raw-body: "request size did not match content length"), and refuses a
 *   stream already consumed ("Request body stream was aborted or is not readable");
 * - `parseRequestBody` (dist/webhooks/webhook-helpers.js): multipart/form-data goes to the
 *   form-data parser (formidable), which consumes the stream; for a node of version > 1 only JSON,
 *   text, urlencoded and XML bodies are read and parsed (`parseBody`; a body that does not parse
 *   is a 422), any other type is left for the node to read; version 1 reads every other type.
 */
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { createGunzip, createInflate } from 'node:zlib';

/** An error n8n answers with its status (its ResponseError below 500), starting nothing. */
export class N8nResponseError extends Error {
	constructor(
		readonly status: number,
		message: string,
	) {
		super(message);
	}
}

/** The request as n8n's middlewares leave it for the webhook node. */
export type N8nRequest = IncomingMessage & {
	rawBody?: Buffer;
	body?: unknown;
	contentType?: string;
	readRawBody: () => Promise<void>;
	query: Record<string, string>;
	params: Record<string, string>;
};

/** Reads a stream to its end; with `length`, the bytes must add up to it (raw-body's check). */
async function readAll(stream: Readable, length: number | undefined): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of stream) chunks.push(chunk as Buffer);
	const body = Buffer.concat(chunks);
	if (length !== undefined && body.length !== length)
		throw new Error('request size did not match content length');
	return body;
}

/** n8n's rawBodyReader: adds `readRawBody` and `contentType` to the request. */
export function rawBodyReader(req: IncomingMessage): N8nRequest {
	const request = req as N8nRequest;
	request.contentType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
	Object.assign(request, { query: {}, params: {} });
	request.readRawBody = async () => {
		if (request.rawBody) return;
		let stream: Readable = req;
		let length: number | undefined;
		const encoding = req.headers['content-encoding'];
		if (encoding === 'gzip') stream = req.pipe(createGunzip());
		else if (encoding === 'deflate') stream = req.pipe(createInflate());
		else if (req.headers['content-length'] !== undefined)
			length = Number(req.headers['content-length']);
		if (req.destroyed || !stream.readable || req.readableEnded)
			throw new N8nResponseError(400, 'Request body stream was aborted or is not readable');
		request.rawBody = await readAll(stream, length);
	};
	return request;
}

const PARSED_TYPES = (type: string) =>
	type.startsWith('application/json') ||
	type.startsWith('text/plain') ||
	type.startsWith('application/x-www-form-urlencoded') ||
	type.endsWith('/xml') ||
	type.endsWith('+xml');

/** n8n's parseBody for the types it reads (JSON parsed; the others kept as text). */
async function parseBody(req: N8nRequest): Promise<void> {
	await req.readRawBody();
	const raw = req.rawBody;
	if (!raw?.length) return;
	if (req.contentType === 'application/json') {
		try {
			req.body = JSON.parse(raw.toString('utf8'));
		} catch (error) {
			throw new N8nResponseError(422, `Failed to parse request body: ${(error as Error).message}`);
		}
	} else if (req.contentType === 'text/plain') req.body = raw.toString('utf8');
}

/** n8n's parseRequestBody, before the node's `webhook` method. */
export async function parseRequestBody(req: N8nRequest, nodeVersion: number): Promise<void> {
	req.body = {};
	if (req.contentType === 'multipart/form-data') {
		// formidable reads the whole stream into fields and files
		await readAll(req, undefined);
		req.body = { data: {}, files: {} };
		return;
	}
	if (nodeVersion > 1 ? PARSED_TYPES(req.contentType ?? '') : true) await parseBody(req);
}
