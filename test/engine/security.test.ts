/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * The API key stays home: API requests follow no redirect (so the key never reaches another
 * origin), and a Base URL that would carry it in clear text is refused before anything is sent.
 * Real HTTP through n8n-core's request helper, the real credential, local servers that record.
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { MediaGenApi } from '../../credentials/MediaGenApi.credentials';
import { chain, mediaGen, runWorkflow } from './harness';
import { useSandbox } from './setup';

const { sb } = useSandbox();

interface Recorder {
	url: string;
	seen: Array<{ url?: string; headers: IncomingHttpHeaders }>;
	close(): Promise<void>;
}

/** A server that records every request; answers with `reply` (default: 200 `{}`). */
async function recorder(
	reply: (res: ServerResponse, path: string) => void = (res) => res.end('{}'),
): Promise<Recorder> {
	const seen: Recorder['seen'] = [];
	const server: Server = createServer((req, res) => {
		seen.push({ url: req.url, headers: req.headers });
		reply(res, req.url ?? '');
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		seen,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

const workspaceGet = mediaGen('MediaGen', { resource: 'workspace', operation: 'get' });

describe('API requests never send the key to another origin', () => {
	test('a 302 to another origin is not followed: the key never arrives there', async () => {
		const elsewhere = await recorder();
		const redirector = await recorder((res) => {
			res.writeHead(302, { location: `${elsewhere.url}/v1/workspace` });
			res.end();
		});
		try {
			const result = await runWorkflow(chain([{}], [workspaceGet]), {
				credentials: {
					mediaGenApi: { apiKey: sb.keys.pro, baseUrl: `${redirector.url}/v1` },
				},
			});
			expect(result.error?.message).toMatch(/redirect \(302\).*not follow.*Base URL/);
			expect(result.error?.description).toContain(elsewhere.url);
			// the redirector got the key (it is the Base URL); the other origin got nothing at all
			expect(redirector.seen).toHaveLength(1);
			expect(redirector.seen[0].headers.authorization).toBe(`Bearer ${sb.keys.pro}`);
			expect(elsewhere.seen).toHaveLength(0);
		} finally {
			await elsewhere.close();
			await redirector.close();
		}
	});

	test('the same workflow against the sandbox works (the check is not a blanket refusal)', async () => {
		const result = await runWorkflow(chain([{}], [workspaceGet]), {
			credentials: { mediaGenApi: { apiKey: sb.keys.pro, baseUrl: sb.baseUrl } },
		});
		expect(result.error).toBeUndefined();
		expect(result.json('MediaGen')[0]).toMatchObject({ id: expect.any(String) });
	});
});

describe('a Base URL in plain http is refused unless loopback', () => {
	test('node run: clear message, nothing sent', async () => {
		const before = sb.control.requests({}).length;
		const result = await runWorkflow(chain([{}], [workspaceGet]), {
			credentials: {
				mediaGenApi: { apiKey: sb.keys.pro, baseUrl: 'http://api.mediagen.example/v1' },
			},
		});
		expect(result.error?.message).toBe(
			'The Base URL of the MediaGen API credential must use https:// (plain http is accepted only for localhost and 127.0.0.1), got http://api.mediagen.example',
		);
		expect(sb.control.requests({}).length).toBe(before);
	});

	test('credential test (the credential authenticates nothing for such a URL)', async () => {
		const credential = new MediaGenApi();
		await expect(
			credential.authenticate(
				{ apiKey: 'k', baseUrl: 'http://api.mediagen.example/v1' },
				{ url: '/workspace' },
			),
		).rejects.toThrow(/must use https:\/\/.*got http:\/\/api\.mediagen\.example/);
		await expect(
			credential.authenticate({ apiKey: 'k', baseUrl: 'ftp://x/v1' }, { url: '/workspace' }),
		).rejects.toThrow(/must be an https:\/\/ URL/);
		for (const baseUrl of [
			'https://api.mediagen.example/v1',
			'http://localhost:3000/v1',
			'http://127.0.0.1:3000/v1',
			'http://[::1]:3000/v1',
		]) {
			const options = await credential.authenticate({ apiKey: 'k', baseUrl }, { url: '/x' });
			expect(options.headers?.Authorization).toBe('Bearer k');
			expect(options.sendCredentialsOnCrossOriginRedirect).toBe(false);
		}
		expect(credential.test.request.disableFollowRedirect).toBe(true);
	});
});

describe('signed URLs: https or loopback only, no redirect elsewhere, no key, announced size', () => {
	const SIZE = 4096;
	let api: Recorder;
	let files: Recorder;
	let elsewhere: Recorder;
	/** The signed URL the fake API hands out next, and the size it announces. */
	let link: { url: string; size: number };

	beforeAll(async () => {
		elsewhere = await recorder();
		files = await recorder();
		api = await recorder();
	});
	afterAll(async () => {
		await Promise.all([api.close(), files.close(), elsewhere.close()]);
	});

	/** Runs Asset → Download: the fake API hands out `url(files)` and announces `size` bytes. */
	async function download(
		fileReply: (path: string, res: ServerResponse) => void,
		url: (filesUrl: string) => string,
		size = SIZE,
	) {
		await Promise.all([api.close(), files.close()]);
		files = await recorder((res, path) => fileReply(path, res));
		link = { url: url(files.url), size };
		api = await recorder((res) =>
			res.end(JSON.stringify({ ...link, filename: 'x.bin', mimeType: 'application/octet-stream' })),
		);
		return await runWorkflow(
			chain(
				[{}],
				[
					mediaGen('Download', {
						resource: 'asset',
						operation: 'download',
						assetId: { __rl: true, mode: 'id', value: '00000000-0000-4000-8000-000000000001' },
						binaryPropertyName: 'file',
					}),
				],
			),
			{ credentials: { mediaGenApi: { apiKey: 'secret-key', baseUrl: `${api.url}/v1` } } },
		);
	}

	const bytes = (n: number) => Buffer.alloc(n, 7);

	test('a redirect to another origin is not followed; the key is never sent to the file host', async () => {
		const result = await download(
			(_path, res) => {
				res.writeHead(302, { location: `${elsewhere.url}/file` });
				res.end();
			},
			(u) => `${u}/file`,
		);
		expect(result.error?.message).toMatch(
			/redirected to another origin \(http:\/\/127\.0\.0\.1:\d+\)/,
		);
		expect(elsewhere.seen).toHaveLength(0);
		expect(files.seen).toHaveLength(1); // refused at once: not retried
		expect(files.seen[0].headers.authorization).toBeUndefined();
		expect(api.seen[0].headers.authorization).toBe('Bearer secret-key');
	});

	test('a same-origin redirect is followed, and the file arrives whole', async () => {
		const result = await download(
			(path, res) => {
				if (path === '/moved') {
					res.writeHead(307, { location: '/file' });
					res.end();
				} else res.end(bytes(SIZE));
			},
			(u) => `${u}/moved`,
		);
		expect(result.error).toBeUndefined();
		expect(result.items('Download')[0].binary?.file).toMatchObject({ bytes: SIZE });
		expect(files.seen.map((r) => r.url)).toEqual(['/moved', '/file']);
		expect(files.seen.every((r) => r.headers.authorization === undefined)).toBe(true);
	});

	test('a signed URL in plain http to a non-loopback host is refused before it is fetched', async () => {
		const result = await download(
			(_path, res) => res.end(bytes(SIZE)),
			() => 'http://files.mediagen.example/a',
		);
		expect(result.error?.message).toBe(
			'The signed URL must use https:// (plain http is accepted only for localhost and 127.0.0.1), got http://files.mediagen.example',
		);
		expect(files.seen).toHaveLength(0);
	});

	test('more bytes than the asset size MediaGen announced: the stream is broken off', async () => {
		const result = await download(
			(_path, res) => {
				// chunked, no Content-Length: only counting can tell
				res.write(bytes(SIZE));
				res.write(bytes(SIZE));
				res.end();
			},
			(u) => `${u}/file`,
		);
		expect(result.error?.message).toBe(
			`Download of asset 00000000-0000-4000-8000-000000000001 broken off: the signed URL sent more than the ${SIZE} bytes MediaGen announced`,
		);
		expect(files.seen).toHaveLength(1);
	});

	test('a Content-Length above the announced size is refused before reading', async () => {
		const result = await download(
			(_path, res) => {
				res.writeHead(200, { 'content-length': String(SIZE * 2) });
				res.end(bytes(SIZE * 2));
			},
			(u) => `${u}/file`,
		);
		expect(result.error?.message).toMatch(
			new RegExp(`sends ${SIZE * 2} bytes, MediaGen announced ${SIZE}$`),
		);
	});

	test('fewer bytes than announced is an error too (after retries)', async () => {
		const result = await download(
			(_path, res) => res.end(bytes(SIZE - 1)),
			(u) => `${u}/file`,
		);
		expect(result.error?.message).toMatch(/received 4095 bytes, expected 4096/);
	});
});
