/**
 * Upload of an item's binary file: `POST /uploads`, its parts streamed one at a time through one
 * reused buffer to their signed URLs, then `POST /uploads/{id}/complete`, remembered so that a
 * re-run finds the asset instead of making a second one. The reasons: docs/files.md.
 */
import { createHash } from 'node:crypto';

import type { IBinaryData, IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { asNodeError, statusOf } from '../transport/errors';
import { cancelSignalOf, mediaGenRequest } from '../transport/request';
import { discard } from '../transport/responseBody';
import type { RetryFailure } from '../transport/retry';
import { RETRY, withRetries } from '../transport/retry';
import type { BinaryFileInfo } from './file';
import { PartReader, binaryChunks } from './file';
import {
	describeAnswer,
	headerOf,
	retryAnswer,
	retryTransfer,
	retryableStatus,
	signedUrlRequest,
	sizeOf,
	throwIfCancelled,
	transferError,
	withErrorText,
	withTransferRetries,
} from './signedUrl';

/** One item's upload as remembered. */
export interface RememberedUpload {
	/** What the upload was for (uploadKey): another file or body is another upload. */
	key: string;
	uploadId: string;
	/** The parts the complete listed (kept until its answer is known). */
	parts?: Array<{ partNumber: number; etag: string }>;
	/** The asset the complete answered. */
	assetId?: string;
}

/** What an upload keeps of itself for a re-run (the run's memory keeps it: durable/memory.ts): a
 * re-run asks MediaGen for its asset, not for a new upload. */
export interface UploadMemory {
	/** The upload an earlier try of this run made for the item, if it was for the same thing. */
	remembered(): RememberedUpload | undefined;
	/** Notes an upload whose complete is about to be sent. */
	completing(uploadId: string, parts: Array<{ partNumber: number; etag: string }>): void;
	/** Notes the asset the complete answered. */
	completed(uploadId: string, assetId: string): void;
	/** Forgets the item's upload (it made no asset: a re-run starts a new one). */
	forget(): void;
}

/** Tunables, exported for tests and benchmarks. */
export const UPLOAD = {
	/** Attempts after a failed part PUT (network error, 5xx, 408, 429). */
	partRetries: 4,
};

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

type PartTag = { partNumber: number; etag: string };

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
			// only the ETag header is needed: the body is let go unread
			discard(response.body);
			const etag = headerOf(response.headers, 'etag');
			if (etag) return { ok: true as const, value: etag };
			throw transferError(ctx, `Upload of ${label} got no ETag from the signed URL`, {
				itemIndex,
				httpCode: response.statusCode,
				description:
					'The storage answered without an ETag header, so the upload cannot be completed.',
			});
		}
		const answer = await withErrorText(response);
		if (retryableStatus(answer.statusCode)) return retryAnswer<string>(answer);
		throw transferError(ctx, `Upload of ${label} was refused (${describeAnswer(answer)})`, {
			itemIndex,
			httpCode: answer.statusCode,
			description:
				answer.statusCode === 403
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
	const partSize = sizeOf(started?.partSize) ?? NaN;
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
	parts: PartTag[],
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

/** An item's upload: the file (checked in the prepare step) and where it comes from. */
export interface UploadSubject {
	itemIndex: number;
	propertyName: string;
	file: BinaryFileInfo;
}

/** The upload as it goes: the file, its announced size, the upload's id and part size. */
interface Upload extends UploadSubject {
	size: number;
	id: string;
	partSize: number;
}

/**
 * Whether a failed complete may still have made the asset: no answer, a 5xx, or a cancel while
 * waiting. A 4xx (refused, expired, unknown, rate limited) made none.
 */
function outcomeUnknown(error: unknown): boolean {
	const status = statusOf(error);
	return status === undefined || status >= 500;
}

/**
 * The error of a complete whose outcome is unknown: the upload id and what to check. The cause
 * goes in the description: n8n's node errors replace a message naming ECONNRESET… with their own.
 */
function lostComplete(
	ctx: IExecuteFunctions,
	subject: UploadSubject,
	uploadId: string,
	error: unknown,
): NodeApiError {
	const { itemIndex, propertyName, file } = subject;
	return transferError(
		ctx,
		`Upload ${uploadId} of '${propertyName}' may have been completed, but MediaGen's answer was lost`,
		{
			itemIndex,
			httpCode: statusOf(error),
			description: `${(error as Error).message}. n8n's Retry of this execution, or Retry On Fail, asks MediaGen for the asset of this same upload (by completing it again) instead of uploading the file again. To check now: Asset → Get Many, source "upload", file name "${file.fileName}", ${file.size} bytes. Uploading the file in another execution makes a second asset if this one was completed.`,
		},
	);
}

/** Sends the complete, remembering the upload first (its outcome may get lost). */
async function complete(
	ctx: IExecuteFunctions,
	subject: UploadSubject,
	uploadId: string,
	parts: PartTag[],
	memory: UploadMemory,
): Promise<IDataObject> {
	memory.completing(uploadId, parts);
	let asset: IDataObject;
	try {
		asset = await completeUpload(ctx, uploadId, parts, subject.itemIndex);
	} catch (error) {
		if (outcomeUnknown(error)) throw lostComplete(ctx, subject, uploadId, error);
		memory.forget();
		throw asNodeError(ctx, error, subject.itemIndex);
	}
	memory.completed(uploadId, String(asset.id));
	return asset;
}

/**
 * The asset of the upload an earlier try of this run made for the item (n8n's Retry, Retry On
 * Fail): read again when known, else the upload completed again (a completed upload answers its
 * asset). Undefined when that upload made no asset (or its asset is gone): upload anew.
 */
async function earlierAsset(
	ctx: IExecuteFunctions,
	subject: UploadSubject,
	memory: UploadMemory,
): Promise<IDataObject | undefined> {
	const earlier = memory.remembered();
	if (!earlier) return undefined;
	if (earlier.assetId === undefined)
		try {
			return await complete(ctx, subject, earlier.uploadId, earlier.parts ?? [], memory);
		} catch (error) {
			if (outcomeUnknown(error)) throw asNodeError(ctx, error, subject.itemIndex);
			return undefined;
		}
	try {
		const path = `/assets/${encodeURIComponent(earlier.assetId)}`;
		return await mediaGenRequest<IDataObject>(ctx, {
			method: 'GET',
			path,
			itemIndex: subject.itemIndex,
		});
	} catch (error) {
		if (statusOf(error) !== 404) throw asNodeError(ctx, error, subject.itemIndex);
		memory.forget();
		return undefined;
	}
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
): Promise<PartTag[]> {
	const { propertyName, size, partSize, itemIndex } = upload;
	// One buffer, reused for every part: memory is one part plus the chunk being split.
	const buffer = Buffer.allocUnsafeSlow(Math.min(partSize, size));
	const etags: PartTag[] = [];
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

/** What an upload is for: its POST /uploads body and the stored file it reads, if any. */
export function uploadKey(startBody: IDataObject, binaryId: string | undefined): string {
	const material = JSON.stringify({ body: startBody, file: binaryId ?? null });
	return createHash('sha256').update(material).digest('hex').slice(0, 32);
}

/**
 * Uploads an item's binary property (checked in the prepare step: binaryFileInfo) with an already
 * validated POST /uploads body; returns the asset. In a re-run of the same run position (n8n's run
 * index less the runs its crash recovery added: ../durable/memory.ts) and item (n8n's Retry, Retry On
 * Fail) the earlier upload's asset is looked up first: no second asset.
 */
export async function uploadBinary(
	ctx: IExecuteFunctions,
	subject: UploadSubject,
	startBody: IDataObject,
	memoryFor: (key: string) => UploadMemory,
): Promise<IDataObject> {
	const { itemIndex, propertyName, file } = subject;
	const binary: IBinaryData = ctx.helpers.assertBinaryData(itemIndex, propertyName);
	const size = sizeOf(startBody.size ?? file.size);
	if (size !== file.size) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The upload declares ${String(startBody.size)} bytes but the binary file '${propertyName}' holds ${file.size}`,
			{ itemIndex, description: 'Nothing was sent to MediaGen.' },
		);
	}
	const body = { ...startBody, size };
	const memory = memoryFor(uploadKey(body, binary.id));
	const earlier = await earlierAsset(ctx, subject, memory);
	if (earlier) return earlier;

	// Not idempotent: mediaGenRequest never retries a POST without an idempotency key.
	const started = await mediaGenRequest<UploadStart>(ctx, {
		method: 'POST',
		path: '/uploads',
		body,
		itemIndex,
	});
	const parts = checkUploadStart(ctx, started, size, itemIndex);
	const upload: Upload = { ...subject, size, id: started.id, partSize: Number(started.partSize) };
	const reader = new PartReader(binaryChunks(ctx, binary));
	let etags: PartTag[];
	try {
		etags = await sendParts(ctx, upload, parts, reader);
	} finally {
		await reader.close();
	}
	return await complete(ctx, subject, started.id, etags, memory);
}
