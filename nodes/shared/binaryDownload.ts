/**
 * Download of an asset into n8n binary data: its short-lived signed URL from
 * `GET /assets/{id}/download`, the body streamed into `prepareBinaryData` within the size MediaGen
 * announced. The reasons: docs/files.md.
 */
import type { IBinaryData, IDataObject, IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Attempt } from './retry';
import type { BinaryStream, TransferFailure } from './signedUrl';
import {
	answerError,
	cancelledError,
	describeAnswer,
	discard,
	headerOf,
	retryAnswer,
	retryTransfer,
	retryableStatus,
	signedUrlRequest,
	transferError,
	withTransferRetries,
} from './signedUrl';
import type { FullResponse, MediaGenContext } from './transport';
import { cancelSignalOf, mediaGenRequest } from './transport';

/** Tunables, exported for tests and benchmarks. */
export const DOWNLOAD = {
	/** Attempts after a failed download of the signed URL (network error, 5xx, broken stream). */
	retries: 3,
	/** Bytes of an error answer from a signed URL kept for the error message. */
	maxErrorBodyBytes: 16 * 1024,
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
	return link;
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
			const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
			chunks.push(bytes);
			total += bytes.length;
			if (total >= DOWNLOAD.maxErrorBodyBytes) break;
		}
	} catch {
		// The text is only for the message.
	} finally {
		readable.destroy();
	}
	return Buffer.concat(chunks).subarray(0, DOWNLOAD.maxErrorBodyBytes).toString('utf8');
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

/** Streams a successful answer into binary data, within the announced size and Max Bytes. */
async function receive(
	download: Download,
	response: FullResponse,
): Promise<Attempt<DownloadedAsset, TransferFailure>> {
	const { ctx, assetId, link, maxBytes, itemIndex } = download;
	const mimeType =
		link.mimeType || headerOf(response.headers, 'content-type') || 'application/octet-stream';
	const fileName = link.filename || assetId;
	const expected = typeof link.size === 'number' ? link.size : undefined;
	const limit = Math.min(expected ?? Infinity, maxBytes);
	const length = headerOf(response.headers, 'content-length');
	if (length !== undefined && Number(length) > limit) {
		discard(response.body);
		throw Number(length) > maxBytes
			? tooLarge(download, length, 'the signed URL sends')
			: moreThanAnnounced(
					download,
					`refused: the signed URL sends ${length} bytes, MediaGen announced ${expected}`,
				);
	}
	const exceeded = limitStream(response.body, limit);
	let binary: IBinaryData;
	try {
		binary = await ctx.helpers.prepareBinaryData(response.body as BinaryStream, fileName, mimeType);
	} catch (error) {
		if (cancelSignalOf(ctx)?.aborted) throw cancelledError(ctx, itemIndex);
		discard(response.body);
		if (exceeded())
			throw limit < maxBytes
				? moreThanAnnounced(
						download,
						`broken off: the signed URL sent more than the ${limit} bytes MediaGen announced`,
					)
				: tooLarge(download, `more than ${limit}`, 'the signed URL sends');
		return retryTransfer(`the transfer broke off: ${(error as Error).message}`);
	}
	if (expected !== undefined && binary.bytes !== undefined && binary.bytes !== expected)
		return retryTransfer(`received ${binary.bytes} bytes, expected ${expected}`);
	const size = expected ?? binary.bytes;
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
	const answer: FullResponse = { ...response, body: await smallText(response.body) };
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
	if (typeof announced === 'number' && announced > download.maxBytes)
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
