/**
 * An item's binary file as an upload reads it: what it is (name, MIME type, exact size), checked
 * before anything is sent, and its bytes as chunks gathered into parts. The reasons:
 * docs/files.md, Upload.
 */
import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { BinaryStream } from '../transport/responseBody';
import { sizeOf } from './signedUrl';

/** Tunables, exported for tests and benchmarks. */
export const READ = {
	/** Chunk size asked of `getBinaryStream` and used to decode base64 in memory mode. */
	chunkBytes: 256 * 1024,
};

export interface BinaryFileInfo {
	fileName: string;
	mimeType: string;
	size: number;
}

/**
 * What n8n writes in `data` of a binary kept outside the item, in its store (n8n-core
 * `BinaryDataService.store`: the mode's name; `STORED_MODES` of its binary-data utils): not the
 * file's bytes. Such a binary without its `id` has lost its file.
 */
const STORE_MARKERS = new Set(['filesystem', 'filesystem-v2', 's3', 'azure', 'database']);

/**
 * Base64 as Node decodes it slice by slice (standard or URL alphabet, padding only at the end, no
 * whitespace), so that 4-character slices decode independently and the length gives the exact
 * byte count.
 */
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** The refusal of an item's file before anything is sent, naming the item and the property. */
function unreadable(
	ctx: IExecuteFunctions,
	where: { itemIndex: number; propertyName: string },
	why: string,
	description: string,
): NodeOperationError {
	return new NodeOperationError(
		ctx.getNode(),
		`The binary file '${where.propertyName}' of item ${where.itemIndex} ${why}`,
		{ itemIndex: where.itemIndex, description: `${description} Nothing was sent to MediaGen.` },
	);
}

/** The exact size of a binary kept in the item as base64 (n8n's in-memory mode), checked. */
function inMemorySize(
	ctx: IExecuteFunctions,
	binary: IBinaryData,
	where: { itemIndex: number; propertyName: string },
): number {
	const data: unknown = binary.data;
	if (typeof data !== 'string')
		throw unreadable(ctx, where, 'has no data', 'It has neither a file id nor base64 data.');
	if (STORE_MARKERS.has(data))
		throw unreadable(
			ctx,
			where,
			`has no file id: its data is '${data}', n8n's mark of a file kept in its binary data store, not the file`,
			'The binary lost its `id` (often a Code node that rebuilt it): pass the binary property on as n8n gave it.',
		);
	const padded = data.endsWith('=');
	if (!BASE64.test(data) || (padded ? data.length % 4 !== 0 : data.length % 4 === 1))
		throw unreadable(
			ctx,
			where,
			'is not base64 text, as n8n keeps a file in memory',
			'Its data has characters that are not base64 (line breaks, spaces) or a length no base64 has.',
		);
	return Buffer.byteLength(data, 'base64');
}

/** Reads the first chunk of a stored file (so that a missing or unreadable file is found now). */
async function assertReadable(ctx: IExecuteFunctions, id: string): Promise<void> {
	const stream: BinaryStream = await ctx.helpers.getBinaryStream(id, READ.chunkBytes);
	try {
		for await (const chunk of stream) {
			if (chunk !== undefined) break;
		}
	} finally {
		stream.destroy();
	}
}

/** The exact size of a binary in n8n's store (filesystem, S3, database), its file read first. */
async function storedSize(
	ctx: IExecuteFunctions,
	binary: IBinaryData & { id: string },
	where: { itemIndex: number; propertyName: string },
): Promise<{ size: number; meta: { fileName?: string; mimeType?: string } }> {
	let meta: { fileName?: string; mimeType?: string; fileSize?: unknown };
	try {
		meta = await ctx.helpers.getBinaryMetadata(binary.id);
		await assertReadable(ctx, binary.id);
	} catch (error) {
		// the cause in the description: n8n's node errors replace a message naming ENOENT…
		throw unreadable(
			ctx,
			where,
			'cannot be read',
			`${(error as Error).message}: n8n's binary data store has no readable file ${binary.id} (pinned data, or an execution whose files were pruned?).`,
		);
	}
	const stored = sizeOf(meta.fileSize);
	const recorded = sizeOf(binary.bytes);
	const size = stored ?? recorded;
	if (size === undefined || Number.isNaN(size))
		throw unreadable(ctx, where, 'has no readable size', `Binary data ${binary.id} records none.`);
	if (recorded !== undefined && recorded !== size)
		throw unreadable(
			ctx,
			where,
			`holds ${size} bytes, but the item says ${String(binary.bytes)} (its \`bytes\`)`,
			'The binary does not describe the file it points to.',
		);
	return { size, meta };
}

/**
 * File name, MIME type and exact byte size of an item's binary property, checked before anything
 * is sent: a stored file must exist and be readable, in-memory data must be base64 (not n8n's
 * mark of a stored file), and the size must agree with the `bytes` n8n recorded, where it did.
 */
export async function binaryFileInfo(
	ctx: IExecuteFunctions,
	itemIndex: number,
	propertyName: string,
): Promise<BinaryFileInfo> {
	const binary = ctx.helpers.assertBinaryData(itemIndex, propertyName);
	const where = { itemIndex, propertyName };
	let size: number;
	let meta: { fileName?: string; mimeType?: string } | undefined;
	if (binary.id) {
		({ size, meta } = await storedSize(ctx, binary as IBinaryData & { id: string }, where));
	} else {
		size = inMemorySize(ctx, binary, where);
		const recorded = sizeOf(binary.bytes);
		if (recorded !== undefined && recorded !== size)
			throw unreadable(
				ctx,
				where,
				`holds ${size} bytes of base64 data, but the item says ${String(binary.bytes)} (its \`bytes\`)`,
				'The binary does not describe its data.',
			);
	}
	const extension = binary.fileExtension ? `.${binary.fileExtension}` : '';
	return {
		fileName: binary.fileName || meta?.fileName || `file${extension}`,
		mimeType: binary.mimeType || meta?.mimeType || 'application/octet-stream',
		size,
	};
}

/** The bytes of a binary property as chunks: a file stream, or base64 decoded slice by slice. */
export async function* binaryChunks(
	ctx: IExecuteFunctions,
	binary: IBinaryData,
): AsyncGenerator<Buffer, void, undefined> {
	if (binary.id) {
		const stream: BinaryStream = await ctx.helpers.getBinaryStream(binary.id, READ.chunkBytes);
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
	const step = Math.ceil(READ.chunkBytes / 3) * 4;
	for (let offset = 0; offset < data.length; offset += step)
		yield Buffer.from(data.slice(offset, offset + step), 'base64');
}

/** Fills part buffers from a chunk source, keeping at most the one chunk being split. */
export class PartReader {
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
