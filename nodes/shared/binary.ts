/**
 * Binary in and out, streamed both ways so that memory stays bounded whatever the file size:
 *
 * - Download: `GET /assets/{id}/download` gives a short-lived signed URL; its body is streamed
 *   (`httpRequest` with `encoding: 'stream'`) straight into `prepareBinaryData`, which in n8n's
 *   filesystem mode writes it to disk chunk by chunk. (n8n's in-memory "default" mode keeps every
 *   binary file in memory as base64 anyway: there the file is necessarily held.)
 * - Upload: `POST /uploads` answers signed part URLs and a part size; the binary is read as a stream
 *   (`getBinaryStream` in filesystem mode, base64 decoded slice by slice in memory mode), one part
 *   is gathered into a single reused buffer and PUT to its URL (retried with backoff: a part PUT is
 *   idempotent), the ETags are collected, then `POST /uploads/{id}/complete`.
 *
 * Signed URLs are not API calls: no credential, plain `helpers.httpRequest`, not rate limited.
 */
import type {
	IBinaryData,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	IWebhookFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { MediaGenContext } from './transport';
import { insecureUrlProblem, originOf } from './urlPolicy';
import {
	RETRY,
	asNodeError,
	backoffDelay,
	cancellableSleep,
	mediaGenRequest,
	retryAfterMs,
} from './transport';

/** The Readable that n8n's binary helpers hand out (nodes may not import node:stream). */
type BinaryStream = Awaited<ReturnType<IExecuteFunctions['helpers']['getBinaryStream']>>;

/** Tunables, exported for tests and benchmarks. */
export const BINARY = {
	/** Chunk size asked of `getBinaryStream` and used to decode base64 in memory mode. */
	readChunkBytes: 256 * 1024,
	/** Attempts after a failed part PUT (network error, 5xx, 408, 429). */
	partRetries: 4,
	/** Attempts after a failed download of the signed URL (network error, 5xx, broken stream). */
	downloadRetries: 3,
	/** Bytes of an error answer from a signed URL kept for the error message. */
	maxErrorBodyBytes: 16 * 1024,
};

export interface BinaryFileInfo {
	fileName: string;
	mimeType: string;
	size: number;
}

interface UploadStart {
	id: string;
	partSize: number;
	parts: Array<{ partNumber: number; url: string }>;
	expiresAt?: string;
}

export interface DownloadLink {
	url: string;
	expiresAt?: string;
	filename?: string;
	mimeType?: string;
	size?: number;
}

interface RawResponse {
	statusCode: number;
	headers: Record<string, unknown>;
	body: unknown;
}

const cancelSignalOf = (ctx: MediaGenContext) =>
	'getExecutionCancelSignal' in ctx ? ctx.getExecutionCancelSignal() : undefined;

const cancelled = (ctx: MediaGenContext, itemIndex?: number) =>
	new NodeOperationError(ctx.getNode(), 'The execution was cancelled', { itemIndex });

function throwIfCancelled(ctx: MediaGenContext, itemIndex?: number): void {
	if (cancelSignalOf(ctx)?.aborted) throw cancelled(ctx, itemIndex);
}

/** Exact byte count of base64 text (n8n's in-memory binary data). */
function base64Size(data: string): number {
	return data ? Buffer.byteLength(data, 'base64') : 0;
}

async function fileInfoOf(
	ctx: IExecuteFunctions,
	binary: IBinaryData,
	itemIndex: number,
): Promise<BinaryFileInfo> {
	let size: number | undefined;
	let meta: { fileName?: string; mimeType?: string; fileSize?: number } | undefined;
	if (binary.id) {
		try {
			meta = await ctx.helpers.getBinaryMetadata(binary.id);
			size = meta.fileSize;
		} catch {
			size = undefined;
		}
		if (typeof size !== 'number' && typeof binary.bytes === 'number') size = binary.bytes;
	} else {
		size = base64Size(binary.data ?? '');
	}
	if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
		throw new NodeOperationError(ctx.getNode(), 'Could not tell the size of the binary file', {
			itemIndex,
			description: `Binary data ${binary.id ?? ''} has no readable size in n8n's binary data store.`,
		});
	}
	const extension = binary.fileExtension ? `.${binary.fileExtension}` : '';
	return {
		fileName: binary.fileName || meta?.fileName || `file${extension}`,
		mimeType: binary.mimeType || meta?.mimeType || 'application/octet-stream',
		size,
	};
}

/** File name, MIME type and exact byte size of an item's binary property. */
export async function binaryFileInfo(
	ctx: IExecuteFunctions,
	itemIndex: number,
	propertyName: string,
): Promise<BinaryFileInfo> {
	const binary = ctx.helpers.assertBinaryData(itemIndex, propertyName);
	return await fileInfoOf(ctx, binary, itemIndex);
}

/** The bytes of a binary property as chunks: a file stream, or base64 decoded slice by slice. */
async function* binaryChunks(
	ctx: IExecuteFunctions,
	binary: IBinaryData,
): AsyncGenerator<Buffer, void, undefined> {
	if (binary.id) {
		const stream: BinaryStream = await ctx.helpers.getBinaryStream(
			binary.id,
			BINARY.readChunkBytes,
		);
		try {
			for await (const chunk of stream) {
				yield typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
			}
		} finally {
			stream.destroy();
		}
		return;
	}
	const data = binary.data ?? '';
	// 4 base64 characters are 3 bytes: slices of a multiple of 4 decode independently.
	const step = Math.ceil(BINARY.readChunkBytes / 3) * 4;
	for (let i = 0; i < data.length; i += step) yield Buffer.from(data.slice(i, i + step), 'base64');
}

/** Fills part buffers from a chunk source, keeping at most the one chunk being split. */
class PartReader {
	private rest: Buffer | undefined;
	private readBytes = 0;

	constructor(private readonly chunks: AsyncGenerator<Buffer, void, undefined>) {}

	/** Copies the next `length` bytes into `target`; returns how many there were. */
	async fill(target: Buffer, length: number): Promise<number> {
		let offset = 0;
		while (offset < length) {
			if (!this.rest?.length) {
				const next = await this.chunks.next();
				if (next.done) break;
				this.rest = next.value;
				this.readBytes += next.value.length;
			}
			const take = Math.min(length - offset, this.rest.length);
			this.rest.copy(target, offset, 0, take);
			this.rest = this.rest.subarray(take);
			offset += take;
		}
		return offset;
	}

	/** Whether any byte is left after the parts (the file is larger than announced). */
	async hasMore(): Promise<boolean> {
		while (!this.rest?.length) {
			const next = await this.chunks.next();
			if (next.done) return false;
			this.rest = next.value;
			this.readBytes += next.value.length;
		}
		return true;
	}

	get bytesRead(): number {
		return this.readBytes;
	}

	async close(): Promise<void> {
		await this.chunks.return(undefined);
	}
}

function headerOf(headers: Record<string, unknown> | undefined, name: string): string | undefined {
	if (!headers) return undefined;
	const value = headers[name] ?? headers[name.toLowerCase()];
	const first = Array.isArray(value) ? value[0] : value;
	return first === undefined || first === null ? undefined : String(first);
}

/** `{ error: { code, message } }` of a signed-URL answer, if it is one. */
function errorOf(body: unknown): { code?: string; message?: string } {
	let parsed = body;
	if (typeof body === 'string') {
		try {
			parsed = JSON.parse(body);
		} catch {
			return { message: body.slice(0, 300) || undefined };
		}
	} else if (Buffer.isBuffer(body)) {
		return errorOf(body.toString('utf8'));
	}
	const error = (parsed as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
	return {
		code: typeof error?.code === 'string' ? error.code : undefined,
		message: typeof error?.message === 'string' ? error.message : undefined,
	};
}

const describeAnswer = (res: RawResponse): string => {
	const { code, message } = errorOf(res.body);
	return [`status ${res.statusCode}`, code, message].filter(Boolean).join(': ');
};

/** Statuses of a signed URL worth another attempt. */
const retryableStatus = (status: number) => status >= 500 || status === 408 || status === 429;

function fileError(
	ctx: MediaGenContext,
	message: string,
	opts: { itemIndex?: number; description?: string; httpCode?: number; cause?: unknown },
): NodeApiError {
	return new NodeApiError(
		ctx.getNode(),
		{
			message,
			...(opts.httpCode ? { httpCode: String(opts.httpCode) } : {}),
			...(opts.cause instanceof Error ? { cause: opts.cause.message } : {}),
		} as JsonObject,
		{
			message,
			description: opts.description,
			httpCode: opts.httpCode ? String(opts.httpCode) : undefined,
			itemIndex: opts.itemIndex,
		},
	);
}

const discard = (body: unknown) => {
	if (body && typeof (body as BinaryStream).destroy === 'function')
		(body as BinaryStream).destroy();
};

/** Same-origin redirects a signed URL may take before the answer counts as a failure. */
const MAX_SIGNED_REDIRECTS = 3;

/** Why a signed URL is not sent to: see ./urlPolicy.ts. */
function signedUrlError(
	ctx: MediaGenContext,
	problem: string,
	itemIndex: number | undefined,
): NodeApiError {
	return fileError(ctx, problem, {
		itemIndex,
		description:
			'Signed URLs are fetched over https only (plain http only for localhost), never redirected to another origin, and never with the MediaGen API key.',
	});
}

/**
 * One request to a signed storage URL (no MediaGen credential: the URL carries its signature).
 * Gives the raw answer whatever its status, or why there was none; a cancelled execution ends it.
 * The URL must be https (loopback http allowed); redirects are followed by hand, within the same
 * origin only, and a redirect elsewhere is an error that no attempt repeats.
 */
async function signedUrlRequest(
	ctx: MediaGenContext,
	request: IHttpRequestOptions,
	itemIndex?: number,
): Promise<{ res?: RawResponse; failure: string }> {
	let url = request.url;
	const origin = originOf(url);
	for (let hop = 0; ; hop++) {
		const problem = insecureUrlProblem(url, 'The signed URL');
		if (problem) throw signedUrlError(ctx, problem, itemIndex);
		let res: RawResponse;
		try {
			res = (await ctx.helpers.httpRequest({
				...request,
				url,
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				disableFollowRedirect: true,
				abortSignal: cancelSignalOf(ctx),
			})) as RawResponse;
		} catch (error) {
			throwIfCancelled(ctx, itemIndex);
			return { failure: (error as Error).message };
		}
		const location = headerOf(res.headers, 'location');
		if (res.statusCode < 300 || res.statusCode >= 400 || !location) return { res, failure: '' };
		discard(res.body);
		const next = originOf(location, url);
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
		url = new URL(location, url).toString();
	}
}

/** PUTs one part to its signed URL, retrying what may be retried; returns the part's ETag. */
async function putPart(
	ctx: IExecuteFunctions,
	part: { partNumber: number; url: string },
	body: Buffer,
	partCount: number,
	itemIndex: number,
): Promise<string> {
	const label = `part ${part.partNumber} of ${partCount}`;
	for (let attempt = 0; ; attempt++) {
		throwIfCancelled(ctx, itemIndex);
		let wait: number | undefined;
		const sent = await signedUrlRequest(
			ctx,
			{
				method: 'PUT',
				url: part.url,
				body,
				headers: { 'content-type': 'application/octet-stream' },
			},
			itemIndex,
		);
		const { res } = sent;
		let { failure } = sent;
		if (res && res.statusCode >= 200 && res.statusCode < 300) {
			const etag = headerOf(res.headers, 'etag');
			if (etag) return etag;
			throw fileError(ctx, `Upload of ${label} got no ETag from the signed URL`, {
				itemIndex,
				httpCode: res.statusCode,
				description:
					'The storage answered without an ETag header, so the upload cannot be completed.',
			});
		}
		if (res) {
			failure = describeAnswer(res);
			if (!retryableStatus(res.statusCode)) {
				throw fileError(ctx, `Upload of ${label} was refused (${failure})`, {
					itemIndex,
					httpCode: res.statusCode,
					description:
						res.statusCode === 403
							? 'The signed part URL was refused: it may have expired (part URLs live 1 hour). Run the upload again.'
							: 'The signed part URL refused the bytes; the upload was not completed.',
				});
			}
			if (res.statusCode === 429) wait = retryAfterMs(headerOf(res.headers, 'retry-after'));
		}
		if (attempt >= BINARY.partRetries) {
			throw fileError(ctx, `Upload of ${label} failed after ${attempt + 1} attempts (${failure})`, {
				itemIndex,
				httpCode: res?.statusCode,
				description: 'The upload was not completed; run it again.',
			});
		}
		await cancellableSleep(ctx, wait ?? backoffDelay(attempt));
	}
}

function checkUploadStart(
	ctx: IExecuteFunctions,
	started: UploadStart,
	size: number,
	itemIndex: number,
): Array<{ partNumber: number; url: string }> {
	const parts = Array.isArray(started?.parts)
		? [...started.parts].sort((a, b) => a.partNumber - b.partNumber)
		: [];
	const partSize = Number(started?.partSize);
	const expected = size === 0 ? 1 : Math.ceil(size / partSize);
	const valid =
		typeof started?.id === 'string' &&
		Number.isSafeInteger(partSize) &&
		partSize > 0 &&
		parts.length === expected &&
		parts.every((p, i) => p.partNumber === i + 1 && typeof p.url === 'string');
	if (!valid) {
		throw new NodeOperationError(
			ctx.getNode(),
			'MediaGen answered the upload start with an unexpected list of parts',
			{
				itemIndex,
				description: `Expected ${expected} part URL(s) numbered from 1 for ${size} bytes in parts of ${partSize} bytes; got ${parts.length}.`,
			},
		);
	}
	return parts;
}

/** Sends `POST /uploads/{id}/complete`; completing twice answers the same asset, so retry faults. */
async function completeUpload(
	ctx: IExecuteFunctions,
	uploadId: string,
	parts: Array<{ partNumber: number; etag: string }>,
	itemIndex: number,
): Promise<IDataObject> {
	const request = {
		method: 'POST' as const,
		path: `/uploads/${encodeURIComponent(uploadId)}/complete`,
		body: { parts },
		itemIndex,
	};
	for (let attempt = 0; attempt < RETRY.serverRetries; attempt++) {
		try {
			return await mediaGenRequest<IDataObject>(ctx, request);
		} catch (error) {
			const httpCode = Number((error as NodeApiError).httpCode ?? 0);
			const transient = error instanceof NodeApiError && (httpCode === 0 || httpCode >= 500);
			if (!transient) throw asNodeError(ctx, error, itemIndex);
		}
		await cancellableSleep(ctx, backoffDelay(attempt));
	}
	return await mediaGenRequest<IDataObject>(ctx, request);
}

/** Uploads an item's binary property with an already validated POST /uploads body; returns the asset. */
export async function uploadBinary(
	ctx: IExecuteFunctions,
	itemIndex: number,
	propertyName: string,
	startBody: IDataObject,
): Promise<IDataObject> {
	const binary = ctx.helpers.assertBinaryData(itemIndex, propertyName);
	const file = await fileInfoOf(ctx, binary, itemIndex);
	const size = Number(startBody.size ?? file.size);
	if (size !== file.size) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The upload declares ${size} bytes but the binary file '${propertyName}' holds ${file.size}`,
			{ itemIndex, description: 'Nothing was sent to MediaGen.' },
		);
	}

	// Not idempotent: mediaGenRequest never retries a POST without an idempotency key.
	const started = await mediaGenRequest<UploadStart>(ctx, {
		method: 'POST',
		path: '/uploads',
		body: { ...startBody, size },
		itemIndex,
	});
	const parts = checkUploadStart(ctx, started, size, itemIndex);
	const partSize = Number(started.partSize);

	// One buffer, reused for every part: memory is one part plus the chunk being split.
	const buffer = Buffer.allocUnsafeSlow(Math.min(partSize, size));
	const reader = new PartReader(binaryChunks(ctx, binary));
	const etags: Array<{ partNumber: number; etag: string }> = [];
	try {
		for (const part of parts) {
			throwIfCancelled(ctx, itemIndex);
			const start = (part.partNumber - 1) * partSize;
			const length = Math.min(partSize, size - start);
			let got: number;
			try {
				got = await reader.fill(buffer, length);
			} catch (error) {
				throw new NodeOperationError(
					ctx.getNode(),
					`Reading the binary file '${propertyName}' failed at part ${part.partNumber} of ${parts.length}: ${(error as Error).message}`,
					{ itemIndex, description: `Upload ${started.id} was not completed.` },
				);
			}
			if (got !== length) {
				throw new NodeOperationError(
					ctx.getNode(),
					`The binary file '${propertyName}' ended after ${start + got} bytes, ${size} were announced (part ${part.partNumber} of ${parts.length})`,
					{ itemIndex, description: `Upload ${started.id} was not completed.` },
				);
			}
			const etag = await putPart(ctx, part, buffer.subarray(0, length), parts.length, itemIndex);
			etags.push({ partNumber: part.partNumber, etag });
		}
		if (await reader.hasMore()) {
			throw new NodeOperationError(
				ctx.getNode(),
				`The binary file '${propertyName}' holds more than the ${size} bytes announced`,
				{ itemIndex, description: `Upload ${started.id} was not completed.` },
			);
		}
	} finally {
		await reader.close();
	}
	return await completeUpload(ctx, started.id, etags, itemIndex);
}

/** Reads at most a few KiB of a stream (an error answer), then lets it go. */
async function smallText(stream: unknown): Promise<string> {
	if (typeof stream === 'string') return stream;
	if (!stream || typeof (stream as BinaryStream)[Symbol.asyncIterator] !== 'function') return '';
	const readable = stream as BinaryStream;
	const chunks: Buffer[] = [];
	let total = 0;
	try {
		for await (const chunk of readable) {
			const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
			chunks.push(buf);
			total += buf.length;
			if (total >= BINARY.maxErrorBodyBytes) break;
		}
	} catch {
		// The text is only for the message.
	} finally {
		readable.destroy();
	}
	return Buffer.concat(chunks).subarray(0, BINARY.maxErrorBodyBytes).toString('utf8');
}

/** The asset's short-lived signed download URL, with its expiry, file name, MIME type and size. */
export async function downloadLink(
	ctx: MediaGenContext,
	assetId: string,
	itemIndex?: number,
): Promise<DownloadLink> {
	const link = await mediaGenRequest<DownloadLink>(ctx, {
		method: 'GET',
		path: `/assets/${encodeURIComponent(assetId)}/download`,
		itemIndex,
	});
	if (!link || typeof link.url !== 'string') {
		throw new NodeOperationError(
			ctx.getNode(),
			`MediaGen gave no download URL for asset ${assetId}`,
			{
				itemIndex,
			},
		);
	}
	return link;
}

/**
 * Counts the bytes of a response stream as its consumer reads them and breaks it off past `limit`
 * (every chunk read, by pipe, listener or iteration, is emitted as 'data'). `prependListener`,
 * unlike `on`, does not switch the stream to flowing: no chunk flows before the consumer starts.
 * Returns whether the limit was passed.
 */
function limitStream(body: unknown, limit: number): () => boolean {
	const stream = body as BinaryStream;
	let total = 0;
	let exceeded = false;
	if (!Number.isFinite(limit) || typeof stream?.prependListener !== 'function') return () => false;
	stream.prependListener('data', (chunk: Buffer | string) => {
		total += chunk.length;
		if (total > limit && !exceeded) {
			exceeded = true;
			stream.destroy(new Error(`more than ${limit} bytes`));
		}
	});
	return () => exceeded;
}

export interface DownloadOptions {
	propertyName?: string;
	itemIndex?: number;
	/** Refuse files larger than this many bytes (announced, or found while streaming). */
	maxBytes?: number;
	/** Said after a refusal for size (what to do instead). */
	tooLargeHint?: string;
}

/**
 * Streams an asset's file into n8n binary data. The size MediaGen announced for the asset is
 * checked before (Content-Length), while (the stream is broken off past it) and after the transfer.
 */
export async function downloadAssetToBinary(
	ctx: IExecuteFunctions | IWebhookFunctions,
	assetId: string,
	opts: DownloadOptions = {},
): Promise<{ propertyName: string; binary: IBinaryData; asset: IDataObject }> {
	const { itemIndex } = opts;
	const propertyName = opts.propertyName ?? 'data';
	let link = await downloadLink(ctx, assetId, itemIndex);
	let renewed = false;
	const tooLarge = (size: number | string, limit: number, what: string) =>
		fileError(
			ctx,
			`Download of asset ${assetId} refused: ${what} ${size} bytes, ${limit} allowed`,
			{
				itemIndex,
				description: opts.tooLargeHint,
			},
		);
	const maxBytes = opts.maxBytes ?? Infinity;
	if (typeof link.size === 'number' && link.size > maxBytes)
		throw tooLarge(link.size, maxBytes, 'the file is');

	for (let attempt = 0; ; attempt++) {
		throwIfCancelled(ctx, itemIndex);
		let wait: number | undefined;
		const sent = await signedUrlRequest(
			ctx,
			{ method: 'GET', url: link.url, encoding: 'stream' },
			itemIndex,
		);
		const { res } = sent;
		let { failure } = sent;

		if (res && res.statusCode >= 200 && res.statusCode < 300) {
			const mimeType =
				link.mimeType || headerOf(res.headers, 'content-type') || 'application/octet-stream';
			const fileName = link.filename || assetId;
			const expected = typeof link.size === 'number' ? link.size : undefined;
			const limit = Math.min(expected ?? Infinity, maxBytes);
			const length = headerOf(res.headers, 'content-length');
			if (length !== undefined && Number(length) > limit) {
				discard(res.body);
				throw Number(length) > maxBytes
					? tooLarge(length, maxBytes, 'the signed URL sends')
					: fileError(
							ctx,
							`Download of asset ${assetId} refused: the signed URL sends ${length} bytes, MediaGen announced ${expected}`,
							{ itemIndex },
						);
			}
			const exceeded = limitStream(res.body, limit);
			try {
				const binary = await ctx.helpers.prepareBinaryData(
					res.body as BinaryStream,
					fileName,
					mimeType,
				);
				if (expected === undefined || binary.bytes === undefined || binary.bytes === expected) {
					return {
						propertyName,
						binary,
						asset: {
							filename: fileName,
							mimeType,
							size: expected ?? binary.bytes,
							expiresAt: link.expiresAt,
							url: link.url,
						},
					};
				}
				failure = `received ${binary.bytes} bytes, expected ${expected}`;
			} catch (error) {
				if (cancelSignalOf(ctx)?.aborted) throw cancelled(ctx, itemIndex);
				discard(res.body);
				if (exceeded())
					throw limit < maxBytes
						? fileError(
								ctx,
								`Download of asset ${assetId} broken off: the signed URL sent more than the ${limit} bytes MediaGen announced`,
								{ itemIndex },
							)
						: tooLarge(`more than ${limit}`, maxBytes, 'the signed URL sends');
				failure = `the transfer broke off: ${(error as Error).message}`;
			}
		} else if (res) {
			const answer: RawResponse = { ...res, body: await smallText(res.body) };
			failure = describeAnswer(answer);
			const { code } = errorOf(answer.body);
			if (res.statusCode === 403 && !renewed && (code === 'url_expired' || !code)) {
				// The signed URL lived too short (15 min); ask for a fresh one, once.
				renewed = true;
				link = await downloadLink(ctx, assetId, itemIndex);
				continue;
			}
			if (!retryableStatus(res.statusCode)) {
				throw fileError(ctx, `Download of asset ${assetId} was refused (${failure})`, {
					itemIndex,
					httpCode: res.statusCode,
					description: 'The signed download URL refused the request.',
				});
			}
			if (res.statusCode === 429) wait = retryAfterMs(headerOf(res.headers, 'retry-after'));
		}

		if (attempt >= BINARY.downloadRetries) {
			throw fileError(
				ctx,
				`Download of asset ${assetId} failed after ${attempt + 1} attempts (${failure})`,
				{ itemIndex },
			);
		}
		await cancellableSleep(ctx, wait ?? backoffDelay(attempt));
	}
}
