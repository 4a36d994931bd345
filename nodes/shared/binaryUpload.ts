/**
 * Upload of an item's binary file: `POST /uploads`, its parts streamed one at a time through one
 * reused buffer to their signed URLs, then `POST /uploads/{id}/complete`. The reasons:
 * docs/files.md.
 */
import type { IBinaryData, IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { RETRY, withRetries } from './retry';
import type { RetryFailure } from './retry';
import type { BinaryStream } from './signedUrl';
import {
	describeAnswer,
	headerOf,
	retryAnswer,
	retryTransfer,
	retryableStatus,
	signedUrlRequest,
	throwIfCancelled,
	transferError,
	withTransferRetries,
} from './signedUrl';
import { asNodeError, cancelSignalOf, mediaGenRequest, statusOf } from './transport';

/** Tunables, exported for tests and benchmarks. */
export const UPLOAD = {
	/** Chunk size asked of `getBinaryStream` and used to decode base64 in memory mode. */
	readChunkBytes: 256 * 1024,
	/** Attempts after a failed part PUT (network error, 5xx, 408, 429). */
	partRetries: 4,
};

export interface BinaryFileInfo {
	fileName: string;
	mimeType: string;
	size: number;
}

interface UploadPart {
	partNumber: number;
	url: string;
}

interface UploadStart {
	id: string;
	partSize: number;
	parts: UploadPart[];
	expiresAt?: string;
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
			UPLOAD.readChunkBytes,
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
	const step = Math.ceil(UPLOAD.readChunkBytes / 3) * 4;
	for (let offset = 0; offset < data.length; offset += step)
		yield Buffer.from(data.slice(offset, offset + step), 'base64');
}

/** Fills part buffers from a chunk source, keeping at most the one chunk being split. */
class PartReader {
	private rest: Buffer | undefined;

	constructor(private readonly chunks: AsyncGenerator<Buffer, void, undefined>) {}

	/** Copies the next `length` bytes into `target`; returns how many there were. */
	async fill(target: Buffer, length: number): Promise<number> {
		let offset = 0;
		while (offset < length) {
			if (!this.rest?.length) {
				const next = await this.chunks.next();
				if (next.done) break;
				this.rest = next.value;
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
		}
		return true;
	}

	async close(): Promise<void> {
		await this.chunks.return(undefined);
	}
}

/** PUTs one part to its signed URL, retrying what may be retried; returns the part's ETag. */
async function putPart(
	ctx: IExecuteFunctions,
	part: UploadPart,
	body: Buffer,
	partCount: number,
	itemIndex: number,
): Promise<string> {
	const label = `part ${part.partNumber} of ${partCount}`;
	const request = {
		method: 'PUT' as const,
		url: part.url,
		body,
		headers: { 'content-type': 'application/octet-stream' },
	};
	const attempt = async () => {
		const { response, failure } = await signedUrlRequest(ctx, request, itemIndex);
		if (!response) return retryTransfer<string>(failure);
		if (response.statusCode >= 200 && response.statusCode < 300) {
			const etag = headerOf(response.headers, 'etag');
			if (etag) return { ok: true as const, value: etag };
			throw transferError(ctx, `Upload of ${label} got no ETag from the signed URL`, {
				itemIndex,
				httpCode: response.statusCode,
				description:
					'The storage answered without an ETag header, so the upload cannot be completed.',
			});
		}
		if (retryableStatus(response.statusCode)) return retryAnswer<string>(response);
		throw transferError(ctx, `Upload of ${label} was refused (${describeAnswer(response)})`, {
			itemIndex,
			httpCode: response.statusCode,
			description:
				response.statusCode === 403
					? 'The signed part URL was refused: it may have expired (part URLs live 1 hour). Run the upload again.'
					: 'The signed part URL refused the bytes; the upload was not completed.',
		});
	};
	return await withTransferRetries(
		ctx,
		itemIndex,
		UPLOAD.partRetries,
		attempt,
		(failed, attempts) =>
			transferError(
				ctx,
				`Upload of ${label} failed after ${attempts} attempts (${failed.reason})`,
				{
					itemIndex,
					httpCode: failed.status,
					description: 'The upload was not completed; run it again.',
				},
			),
	);
}

function checkUploadStart(
	ctx: IExecuteFunctions,
	started: UploadStart,
	size: number,
	itemIndex: number,
): UploadPart[] {
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
		parts.every((part, index) => part.partNumber === index + 1 && typeof part.url === 'string');
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
	return await withRetries<IDataObject, 'fault', RetryFailure<'fault'> & { error: unknown }>({
		budgets: { fault: RETRY.serverRetries },
		signal: cancelSignalOf(ctx),
		attempt: async () => {
			try {
				return { ok: true, value: await mediaGenRequest<IDataObject>(ctx, request) };
			} catch (error) {
				const status = statusOf(error);
				const transient = error instanceof NodeApiError && (!status || status >= 500);
				if (!transient) throw asNodeError(ctx, error, itemIndex);
				return { ok: false, failure: { budget: 'fault', error } };
			}
		},
		giveUp: ({ error }) => error as Error,
	});
}

/** The upload as it goes: the file, its announced size, the upload's id and part size. */
interface Upload {
	propertyName: string;
	size: number;
	id: string;
	partSize: number;
	itemIndex: number;
}

/** An error of reading the binary file; the upload stays incomplete at MediaGen. */
function readError(ctx: IExecuteFunctions, upload: Upload, message: string): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), message, {
		itemIndex: upload.itemIndex,
		description: `Upload ${upload.id} was not completed.`,
	});
}

/** Reads the file part by part into one reused buffer and PUTs each part; returns the ETags. */
async function sendParts(
	ctx: IExecuteFunctions,
	upload: Upload,
	parts: UploadPart[],
	reader: PartReader,
): Promise<Array<{ partNumber: number; etag: string }>> {
	const { propertyName, size, partSize, itemIndex } = upload;
	// One buffer, reused for every part: memory is one part plus the chunk being split.
	const buffer = Buffer.allocUnsafeSlow(Math.min(partSize, size));
	const etags: Array<{ partNumber: number; etag: string }> = [];
	for (const part of parts) {
		throwIfCancelled(ctx, itemIndex);
		const where = `part ${part.partNumber} of ${parts.length}`;
		const start = (part.partNumber - 1) * partSize;
		const length = Math.min(partSize, size - start);
		let got: number;
		try {
			got = await reader.fill(buffer, length);
		} catch (error) {
			const reason = (error as Error).message;
			throw readError(
				ctx,
				upload,
				`Reading the binary file '${propertyName}' failed at ${where}: ${reason}`,
			);
		}
		if (got !== length) {
			const message = `The binary file '${propertyName}' ended after ${start + got} bytes, ${size} were announced (${where})`;
			throw readError(ctx, upload, message);
		}
		const etag = await putPart(ctx, part, buffer.subarray(0, length), parts.length, itemIndex);
		etags.push({ partNumber: part.partNumber, etag });
	}
	if (await reader.hasMore()) {
		const message = `The binary file '${propertyName}' holds more than the ${size} bytes announced`;
		throw readError(ctx, upload, message);
	}
	return etags;
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
	const upload = {
		propertyName,
		size,
		id: started.id,
		partSize: Number(started.partSize),
		itemIndex,
	};
	const reader = new PartReader(binaryChunks(ctx, binary));
	let etags: Array<{ partNumber: number; etag: string }>;
	try {
		etags = await sendParts(ctx, upload, parts, reader);
	} finally {
		await reader.close();
	}
	return await completeUpload(ctx, started.id, etags, itemIndex);
}
