/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * Bytes and signed file URLs. Uploaded parts are kept on disk under os.tmpdir(); generated media
 * is small and kept in memory; large synthetic assets are a pattern generated while streaming.
 * Signed URLs carry `expires` (Unix seconds) and `signature` (HMAC-SHA256 hex of "path:expires").
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import {
	createReadStream,
	createWriteStream,
	mkdirSync,
	mkdtempSync,
	rmSync,
	unlink,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { IncomingMessage } from 'node:http';
import { ApiError } from './http';
import type { Blob } from './state';
import { patternStream } from './media';

export class FileStore {
	readonly dir = mkdtempSync(join(tmpdir(), 'mediagen-sandbox-'));
	private readonly key = randomBytes(32);
	private counter = 0;

	/** `{origin}{path}?expires=…&signature=…` valid for `ttlSeconds`. */
	sign(origin: string, path: string, ttlSeconds: number): { url: string; expiresAt: string } {
		const expires = Math.floor(Date.now() / 1000) + ttlSeconds;
		const signature = this.mac(path, expires);
		return {
			url: `${origin}${path}?expires=${expires}&signature=${signature}`,
			expiresAt: new Date(expires * 1000).toISOString(),
		};
	}

	/** 403 when the signature is missing, wrong or expired. */
	verify(path: string, query: URLSearchParams): void {
		const expires = Number(query.get('expires'));
		const sig = query.get('signature') ?? '';
		const expected = Buffer.from(this.mac(path, expires));
		const given = Buffer.from(sig);
		if (
			!Number.isFinite(expires) ||
			given.length !== expected.length ||
			!timingSafeEqual(given, expected)
		)
			throw new ApiError(403, 'invalid_signature', 'The URL signature is missing or invalid');
		if (expires * 1000 < Date.now())
			throw new ApiError(403, 'url_expired', 'The signed URL has expired');
	}

	private mac(path: string, expires: number): string {
		return createHmac('sha256', this.key).update(`${path}:${expires}`).digest('hex');
	}

	/**
	 * Streams a request body to disk (or nowhere, when `keep` is false) while hashing it.
	 * Fails with 413 when more than `maxBytes` arrive. Memory stays at one chunk.
	 */
	async receive(
		req: IncomingMessage,
		keep: boolean,
		maxBytes: number,
	): Promise<{ path: string | null; size: number; md5: string; sha256: string }> {
		const md5 = createHash('md5');
		const sha = createHash('sha256');
		let size = 0;
		const path = keep ? join(this.dir, `part-${++this.counter}`) : null;
		// Past the limit the rest is read and discarded (the connection stays usable), then 413.
		const meter = new Transform({
			transform(chunk: Buffer, _enc, cb) {
				size += chunk.length;
				if (size > maxBytes) return cb();
				md5.update(chunk);
				sha.update(chunk);
				cb(null, chunk);
			},
		});
		const sink = path ? createWriteStream(path) : new Writable({ write: (_c, _e, cb) => cb() });
		try {
			await pipeline(req, meter, sink);
		} catch (e) {
			if (path) unlink(path, () => undefined);
			throw new ApiError(
				400,
				'upload_interrupted',
				`Upload of the part failed: ${(e as Error).message}`,
			);
		}
		if (size > maxBytes) {
			if (path) unlink(path, () => undefined);
			throw new ApiError(
				413,
				'part_too_large',
				`A part may hold at most ${maxBytes} bytes; got ${size}`,
			);
		}
		return { path, size, md5: md5.digest('hex'), sha256: sha.digest('hex') };
	}

	/** A readable stream of a blob's bytes. */
	open(blob: Blob): Readable {
		switch (blob.type) {
			case 'buffer':
				return Readable.from([blob.data]);
			case 'pattern':
			case 'hashOnly':
				return patternStream(blob.size);
			case 'files':
				return Readable.from(concatFiles(blob.paths));
		}
	}

	remove(paths: string[]): void {
		for (const p of paths) unlink(p, () => undefined);
	}

	/** Removes every stored byte (reset). */
	clear(): void {
		rmSync(this.dir, { recursive: true, force: true });
		mkdirSync(this.dir, { recursive: true });
	}

	close(): void {
		rmSync(this.dir, { recursive: true, force: true });
	}
}

async function* concatFiles(paths: string[]): AsyncGenerator<Buffer> {
	for (const p of paths)
		for await (const chunk of createReadStream(p, { highWaterMark: 256 * 1024 }))
			yield chunk as Buffer;
}
