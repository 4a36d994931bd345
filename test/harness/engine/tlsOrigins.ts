/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * Real origins on this machine for the tests of where the API key goes on a redirect: names under
 * `localhost` (api.localhost, x.api.localhost, other.localhost) led to 127.0.0.1, servers that
 * answer https and plain http on the same port (so that a redirect can change only the scheme),
 * a certificate made by `openssl` for the run, and a CONNECT proxy (what HTTPS_PROXY points at).
 * Every request is recorded with the origin it was sent to (scheme and Host header) and its
 * Authorization header.
 */
import { execFileSync } from 'node:child_process';
import dns from 'node:dns';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, createServer as createNetServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';

/** A self-signed certificate (P-256, one day) for `names` (DNS names or IPv4 addresses). */
export function testCertificate(names: string[]): { key: string; cert: string } {
	const dir = mkdtempSync(join(tmpdir(), 'mediagen-tls-'));
	try {
		const san = names.map((name) => (/^\d/.test(name) ? `IP:${name}` : `DNS:${name}`)).join(',');
		execFileSync(
			'openssl',
			[
				'req',
				'-x509',
				'-newkey',
				'ec',
				'-pkeyopt',
				'ec_paramgen_curve:prime256v1',
				'-nodes',
				'-days',
				'1',
				'-subj',
				`/CN=${names[0]}`,
				'-addext',
				`subjectAltName=${san}`,
				'-keyout',
				join(dir, 'key.pem'),
				'-out',
				join(dir, 'cert.pem'),
			],
			{ stdio: 'ignore' },
		);
		return {
			key: readFileSync(join(dir, 'key.pem'), 'utf8'),
			cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
		};
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

/**
 * Leads `localhost` and every name under it to 127.0.0.1 in this process (what many resolvers do;
 * this machine's does not), and has TLS connections to those names trust `cert` (this run's own
 * certificate; every other connection keeps Node's trusted roots). n8n's agents refuse a `lookup`
 * option and take no `ca` from a node's request, so the functions node:net and node:https call for
 * each connection, node:dns's `lookup` and node:tls's `connect`, are wrapped. Returns the undo.
 */
export function loopbackNames(cert: string): () => void {
	const isLoopbackName = (name: unknown) =>
		typeof name === 'string' && /(^|\.)localhost\.?$/i.test(name);
	const { lookup } = dns;
	const { connect: tlsConnect } = tls;
	Object.assign(dns, {
		lookup: (hostname: string, ...rest: unknown[]) =>
			(lookup as (...args: unknown[]) => void).call(
				dns,
				isLoopbackName(hostname) ? '127.0.0.1' : hostname,
				...rest,
			),
	});
	Object.assign(tls, {
		connect: (...args: unknown[]) => {
			const options = args[0] as tls.ConnectionOptions | undefined;
			if (
				options &&
				typeof options === 'object' &&
				isLoopbackName(options.servername ?? options.host)
			)
				args[0] = { ...options, ca: cert };
			return (tlsConnect as (...a: unknown[]) => tls.TLSSocket).apply(tls, args);
		},
	});
	return () => {
		Object.assign(dns, { lookup });
		Object.assign(tls, { connect: tlsConnect });
	};
}

export interface Hit {
	/** Where the request was sent: its scheme and Host header, as an origin. */
	origin: string;
	path: string;
	authorization?: string;
}

export interface Origins {
	port: number;
	/** Every request, in order, whatever name or scheme it came to. */
	hits: Hit[];
	close(): Promise<void>;
}

/** Keeps the sockets of a server, to end them all at close. */
function tracked(): { add(socket: Socket): void; destroyAll(): void } {
	const sockets = new Set<Socket>();
	return {
		add(socket) {
			sockets.add(socket);
			socket.on('close', () => sockets.delete(socket));
		},
		destroyAll: () => sockets.forEach((socket) => socket.destroy()),
	};
}

/**
 * A server on 127.0.0.1 answering https (a TLS handshake's first byte, 0x16) and plain http on one
 * port, for any name; `reply` answers each recorded request.
 */
export async function origins(
	tls: { key: string; cert: string },
	reply: (hit: Hit, res: ServerResponse) => void,
): Promise<Origins> {
	const hits: Hit[] = [];
	const handler = (scheme: string) => (req: IncomingMessage, res: ServerResponse) => {
		req.resume();
		req.on('end', () => {
			const hit: Hit = {
				origin: new URL(`${scheme}://${req.headers.host ?? 'none'}`).origin,
				path: new URL(req.url ?? '/', 'http://x').pathname,
				authorization: req.headers.authorization,
			};
			hits.push(hit);
			reply(hit, res);
		});
	};
	const plain = createHttpServer(handler('http'));
	const secure = createHttpsServer(tls, handler('https'));
	const sockets = tracked();
	const server = createNetServer((socket) => {
		sockets.add(socket);
		socket.once('data', (first: Buffer) => {
			socket.pause();
			socket.unshift(first);
			(first[0] === 0x16 ? secure : plain).emit('connection', socket);
			process.nextTick(() => socket.resume());
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		port: (server.address() as AddressInfo).port,
		hits,
		close: () =>
			new Promise<void>((resolve) => {
				sockets.destroyAll();
				server.close(() => resolve());
			}),
	};
}

export interface ConnectProxy {
	/** `http://127.0.0.1:<port>` */
	url: string;
	/** What it was asked for: `host:port` of each CONNECT, `forward <url>` of any other request. */
	asked: string[];
	close(): Promise<void>;
}

/** An HTTP proxy that tunnels CONNECT to 127.0.0.1 (any name) and refuses forwarding (502). */
export async function connectProxy(): Promise<ConnectProxy> {
	const asked: string[] = [];
	const sockets = tracked();
	const server = createHttpServer((req, res) => {
		asked.push(`forward ${req.url}`);
		res.statusCode = 502;
		res.end('not forwarded');
	});
	server.on('connection', (socket: Socket) => sockets.add(socket));
	server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
		asked.push(req.url ?? '');
		const upstream = connect(Number(new URL(`http://${req.url}`).port), '127.0.0.1', () => {
			client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
			upstream.write(head);
			upstream.pipe(client);
			client.pipe(upstream);
		});
		sockets.add(upstream);
		upstream.on('error', () => client.destroy());
		client.on('error', () => upstream.destroy());
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		asked,
		close: () =>
			new Promise<void>((resolve) => {
				sockets.destroyAll();
				server.close(() => resolve());
			}),
	};
}
