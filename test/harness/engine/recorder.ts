/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * Local HTTP servers that record every request (a fake API, a file host, another origin, a
 * proxy) for the engine tests of what is sent where: real HTTP on 127.0.0.1, nothing mocked.
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Seen {
	method: string;
	/** The request line's target as sent: a path, or an absolute URL (absolute form). */
	target: string;
	/** Its path and query, whatever the form. */
	path: string;
	headers: IncomingHttpHeaders;
	/** Bytes of the request body. */
	bodyBytes: number;
	/** The request body's first 64 KiB as text. */
	body: string;
}

export interface Recorder {
	/** `http://127.0.0.1:<port>` */
	url: string;
	seen: Seen[];
	/** Bytes written by `stream` answers (see streamBody), until the client let go. */
	written: { bytes: number };
	close(): Promise<void>;
}

export type Reply = (res: ServerResponse, seen: Seen, req: IncomingMessage) => unknown;

/** A server that records every request (after reading its body); answers with `reply`. */
export async function recorder(reply: Reply = (res) => res.end('{}')): Promise<Recorder> {
	const seen: Seen[] = [];
	const written = { bytes: 0 };
	const server: Server = createServer((req, res) => {
		let bodyBytes = 0;
		const kept: Buffer[] = [];
		req.on('data', (chunk: Buffer) => {
			if (bodyBytes < 65536) kept.push(chunk.subarray(0, 65536 - bodyBytes));
			bodyBytes += chunk.length;
		});
		req.on('end', () => {
			const target = req.url ?? '';
			const url = new URL(target, 'http://recorder');
			const entry = {
				method: req.method ?? 'GET',
				target,
				path: `${url.pathname}${url.search}`,
				headers: req.headers,
				bodyBytes,
				body: Buffer.concat(kept).toString('utf8'),
			};
			seen.push(entry);
			void Promise.resolve(reply(res, entry, req)).catch(() => res.destroy());
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		seen,
		written,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

/**
 * Answers with `total` bytes written 1 MiB at a time as the client reads them (backpressure),
 * counting into `written` until the client closes: what a client read of an endless body.
 */
export async function streamBody(
	res: ServerResponse,
	written: { bytes: number },
	total: number,
): Promise<void> {
	const chunk = Buffer.alloc(1024 * 1024, 0x61);
	let closed = false;
	res.on('close', () => (closed = true));
	while (!closed && written.bytes < total) {
		const n = Math.min(chunk.length, total - written.bytes);
		written.bytes += n;
		if (!res.write(chunk.subarray(0, n)))
			await new Promise<void>((resolve) => {
				res.once('drain', resolve);
				res.once('close', resolve);
			});
	}
	if (!closed) res.end();
}
