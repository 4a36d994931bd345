/**
 * Download of an asset into n8n binary data: its short-lived signed URL from
 * `GET /assets/{id}/download`, the body streamed into `prepareBinaryData` within the size MediaGen
 * announced. The reasons: docs/files.md.
 */
import type { IBinaryData, IDataObject, IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { MediaGenContext } from '../transport/context';
import type { FullResponse } from '../transport/errors';
import { cancelSignalOf, mediaGenRequest } from '../transport/request';
import type { BinaryStream } from '../transport/responseBody';
import { discard } from '../transport/responseBody';
import type { Attempt } from '../transport/retry';
import type { TransferFailure } from './signedUrl';
import {
	answerError,
	cancelledError,
	describeAnswer,
	headerOf,
	retryAnswer,
	retryTransfer,
	retryableStatus,
	signedUrlRequest,
	sizeOf,
	transferError,
	withErrorText,
	withTransferRetries,
} from './signedUrl';

/** Tunables, exported for tests and benchmarks. */
export const DOWNLOAD = {
	/** Attempts after a failed download of the signed URL (network error, 5xx, broken stream). */
	retries: 3,
};

export interface DownloadLink {
	url: string;
	expiresAt?: string;
	filename?: string;
	mimeType?: string;
	size?: number;
}

export interface DownloadOptions {
	propertyName?: string;
	itemIndex?: number;
	/** Refuse files larger than this many bytes (announced, or found while streaming). */
	maxBytes?: number;
	/** Said after a refusal for size (what to do instead). */
	tooLargeHint?: string;
}

export interface DownloadedAsset {
	propertyName: string;
	binary: IBinaryData;
	asset: IDataObject;
}

/** One asset's download: where it goes, its current link and its limits. */
interface Download {
	ctx: IExecuteFunctions | IWebhookFunctions;
	assetId: string;
	propertyName: string;
	itemIndex?: number;
	link: DownloadLink;
	/** The link was asked for again after the signed URL had expired (once at most). */
	renewed: boolean;
	maxBytes: number;
	tooLargeHint?: string;
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
	// a size in any JSON type is read as a number; one that is not a size stops the download
	const size = sizeOf(link.size);
	if (size !== undefined && Number.isNaN(size))
		throw new NodeOperationError(
			ctx.getNode(),
			`MediaGen announced no readable size for asset ${assetId} (${JSON.stringify(link.size)})`,
			{
				itemIndex,
				description: 'Without its size the download cannot be checked; nothing was downloaded.',
			},
		);
	return { ...link, size };
}

/** What became of a response stream while n8n read it (see watchStream). */
interface StreamWatch {
	/** More than the limit arrived (the stream was broken off). */
	exceeded(): boolean;
	/**
	 * Whether `error` (what n8n's storing threw) is the stream's own failure (the network, the
	 * server): the stream's error itself, or its cause. Not when n8n's store failed first and then
	 * let go of the stream (which makes the stream fail after it: "aborted").
	 */
	failedWith(error: unknown): boolean;
	/** The stream ended: every byte arrived, so a failure after it is n8n's storing. */
	ended(): boolean;
}

/**
 * Watches a response stream as its consumer reads it: counts its bytes and breaks it off past
 * `limit` (every chunk read, by pipe, listener or iteration, is emitted as 'data'), and notes
 * its first error and whether it ended. `prependListener`, unlike `on`, does not switch the
 * stream to flowing: no chunk flows before the consumer starts.
 */
function watchStream(body: unknown, limit: number): StreamWatch {
	const stream = body as BinaryStream;
	const seen: { total: number; exceeded: boolean; ended: boolean; error?: unknown } = {
		total: 0,
		exceeded: false,
		ended: false,
	};
	if (typeof stream?.prependListener === 'function') {
		if (Number.isFinite(limit))
			stream.prependListener('data', (chunk: Buffer | string) => {
				seen.total += chunk.length;
				if (seen.total > limit && !seen.exceeded) {
					seen.exceeded = true;
					stream.destroy(new Error(`more than ${limit} bytes`));
				}
			});
		stream.prependListener('error', (error: unknown) => (seen.error ??= error));
		stream.prependListener('end', () => (seen.ended = true));
	}
	return {
		exceeded: () => seen.exceeded,
		failedWith: (error) =>
			seen.error !== undefined &&
			(error === seen.error || (error as { cause?: unknown } | null)?.cause === seen.error),
		ended: () => seen.ended,
	};
}

/** n8n's error codes and messages of a cause on this machine, each with what to do. */
const LOCAL_CAUSES: Array<{ test: (code: string, error: Error) => boolean; what: string }> = [
	{
		test: (code) => code === 'ENOSPC' || code === 'EDQUOT',
		what: "the disk that holds n8n's binary data is full",
	},
	{
		test: (code, error) =>
			code === 'ERR_STRING_TOO_LONG' ||
			code === 'ERR_BUFFER_TOO_LARGE' ||
			error.name === 'RangeError' ||
			/string longer than|Invalid string length|allocation failed/i.test(error.message),
		what: "the file is larger than n8n's in-memory binary data mode can hold (it keeps a file as base64 text: at most about 400 MB); set N8N_DEFAULT_BINARY_DATA_MODE=filesystem",
	},
	{
		test: (code) => ['EACCES', 'EPERM', 'EROFS'].includes(code),
		what: 'n8n may not write to its binary data folder (N8N_BINARY_DATA_STORAGE_PATH)',
	},
];

/**
 * Why n8n could not store a download that did not fail on the network, when the cause is on
 * this machine and would be the same on every attempt: a known cause, a file-system error
 * (it names a `syscall`), or any error once every byte had arrived. `what` for the message,
 * `detail` (n8n's error) for the description: n8n-workflow's node errors replace a message that
 * names ENOTDIR, EACCES… with a text of their own. Undefined otherwise (a stalled or closed
 * stream: worth another attempt).
 */
export function localCause(
	error: unknown,
	ended: boolean,
): { what: string; detail: string } | undefined {
	// not `instanceof Error`: n8n's and Node's errors may come from another realm
	const err = (
		error && typeof (error as Error).message === 'string' ? error : new Error(String(error))
	) as Error & { code?: unknown; syscall?: unknown };
	const { code, syscall } = err;
	const text = typeof code === 'string' ? code : '';
	const known = LOCAL_CAUSES.find((cause) => cause.test(text, err));
	const detail = !text || err.message.startsWith(text) ? err.message : `${text}: ${err.message}`;
	if (known) return { what: known.what, detail };
	if (ended || typeof syscall === 'string') return { what: 'n8n could not store the file', detail };
	return undefined;
}

/** The refusal of a file larger than Max Bytes allows. */
function tooLarge(download: Download, size: number | string, what: string) {
	const { ctx, assetId, maxBytes, itemIndex, tooLargeHint } = download;
	return transferError(
		ctx,
		`Download of asset ${assetId} refused: ${what} ${size} bytes, ${maxBytes} allowed`,
		{ itemIndex, description: tooLargeHint },
	);
}

/** The refusal of a signed URL that sends more than MediaGen announced for the asset. */
function moreThanAnnounced(download: Download, message: string) {
	const { ctx, assetId, itemIndex } = download;
	return transferError(ctx, `Download of asset ${assetId} ${message}`, { itemIndex });
}

/**
 * Refuses a Content-Length above the limit before reading. Only above: n8n's client decompresses
 * a compressed answer, whose Content-Length is then not the file's size; the bytes received are
 * counted instead (receive).
 */
function checkLength(download: Download, response: FullResponse, expected: number | undefined) {
	const length = sizeOf(headerOf(response.headers, 'content-length'));
	const limit = Math.min(expected ?? Infinity, download.maxBytes);
	if (length === undefined || Number.isNaN(length) || length <= limit) return;
	discard(response.body);
	if (length > download.maxBytes) throw tooLarge(download, length, 'the signed URL sends');
	throw moreThanAnnounced(
		download,
		`refused: the signed URL sends ${length} bytes, MediaGen announced ${expected}`,
	);
}

/** The failure of prepareBinaryData: cancelled, too large, retried (the network) or local. */
function storeFailure(
	download: Download,
	error: unknown,
	watch: StreamWatch,
	limit: number,
): TransferFailure {
	const { ctx, assetId, maxBytes, itemIndex } = download;
	if (cancelSignalOf(ctx)?.aborted) throw cancelledError(ctx, itemIndex);
	if (watch.exceeded())
		throw limit < maxBytes
			? moreThanAnnounced(
					download,
					`broken off: the signed URL sent more than the ${limit} bytes MediaGen announced`,
				)
			: tooLarge(download, `more than ${limit}`, 'the signed URL sends');
	const local = watch.failedWith(error) ? undefined : localCause(error, watch.ended());
	if (local)
		throw new NodeOperationError(
			ctx.getNode(),
			`Download of asset ${assetId} could not be stored: ${local.what}`,
			{
				itemIndex,
				description: `${local.detail}. Not retried: the cause is on the n8n machine, another attempt would fail the same way.`,
			},
		);
	return { budget: 'transfer', reason: `the transfer broke off: ${(error as Error).message}` };
}

/** Streams a successful answer into binary data, within the announced size and Max Bytes. */
async function receive(
	download: Download,
	response: FullResponse,
): Promise<Attempt<DownloadedAsset, TransferFailure>> {
	const { ctx, assetId, link, maxBytes } = download;
	const mimeType =
		link.mimeType || headerOf(response.headers, 'content-type') || 'application/octet-stream';
	const fileName = link.filename || assetId;
	const expected = link.size;
	checkLength(download, response, expected);
	const limit = Math.min(expected ?? Infinity, maxBytes);
	const watch = watchStream(response.body, limit);
	let binary: IBinaryData;
	try {
		binary = await ctx.helpers.prepareBinaryData(response.body as BinaryStream, fileName, mimeType);
	} catch (error) {
		discard(response.body);
		return { ok: false, failure: storeFailure(download, error, watch, limit) };
	}
	const received = sizeOf(binary.bytes);
	if (expected !== undefined && received !== undefined && received !== expected)
		return retryTransfer(`received ${received} bytes, expected ${expected}`);
	const size = expected ?? received;
	const asset = { filename: fileName, mimeType, size, expiresAt: link.expiresAt, url: link.url };
	return { ok: true, value: { propertyName: download.propertyName, binary, asset } };
}

/** One attempt of a download: the signed URL's answer received, renewed once, or refused. */
async function downloadAttempt(
	download: Download,
): Promise<Attempt<DownloadedAsset, TransferFailure>> {
	const { ctx, assetId, itemIndex } = download;
	const request = { method: 'GET' as const, url: download.link.url, encoding: 'stream' as const };
	const { response, failure } = await signedUrlRequest(ctx, request, itemIndex);
	if (!response) return retryTransfer(failure);
	if (response.statusCode >= 200 && response.statusCode < 300)
		return await receive(download, response);
	const answer = await withErrorText(response);
	const { code } = answerError(answer.body);
	if (response.statusCode === 403 && !download.renewed && (code === 'url_expired' || !code)) {
		// The signed URL lived too short (15 min); ask for a fresh one, once.
		download.renewed = true;
		download.link = await downloadLink(ctx, assetId, itemIndex);
		return { ok: false, failure: { budget: 'transfer', now: true, reason: 'renewed' } };
	}
	if (retryableStatus(response.statusCode)) return retryAnswer(answer);
	throw transferError(ctx, `Download of asset ${assetId} was refused (${describeAnswer(answer)})`, {
		itemIndex,
		httpCode: response.statusCode,
		description: 'The signed download URL refused the request.',
	});
}

/**
 * Streams an asset's file into n8n binary data. The size MediaGen announced for the asset is
 * checked before (Content-Length), while (the stream is broken off past it) and after the transfer.
 */
export async function downloadAssetToBinary(
	ctx: IExecuteFunctions | IWebhookFunctions,
	assetId: string,
	options: DownloadOptions = {},
): Promise<DownloadedAsset> {
	const { itemIndex } = options;
	const download: Download = {
		ctx,
		assetId,
		propertyName: options.propertyName ?? 'data',
		itemIndex,
		link: await downloadLink(ctx, assetId, itemIndex),
		renewed: false,
		maxBytes: options.maxBytes ?? Infinity,
		tooLargeHint: options.tooLargeHint,
	};
	const announced = download.link.size;
	if (announced !== undefined && announced > download.maxBytes)
		throw tooLarge(download, announced, 'the file is');
	return await withTransferRetries(
		ctx,
		itemIndex,
		DOWNLOAD.retries,
		async () => await downloadAttempt(download),
		(failed, attempts) =>
			transferError(
				ctx,
				`Download of asset ${assetId} failed after ${attempts} attempts (${failed.reason})`,
				{ itemIndex },
			),
	);
}
