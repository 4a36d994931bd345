/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * The API key stays home: API requests follow no redirect (so the key never reaches another
 * origin), and a Base URL that would carry it in clear text is refused before anything is sent.
 * Real HTTP through n8n-core's request helper, the real credential, local servers that record.
 */
import type { ServerResponse } from 'node:http';

import { MediaGenApi } from '../../credentials/MediaGenApi.credentials';
import { chain, mediaGen, runWorkflow } from '../harness/engine/harness';
import type { Recorder } from '../harness/engine/recorder';
import { recorder } from '../harness/engine/recorder';
import { fastJobs, useSandbox } from '../harness/engine/setup';
import { httpRequest } from '../harness/engine/testHttpRequest';

const { sb } = useSandbox();
// short backoff: the retried transfers below fail on purpose
fastJobs({ polling: false, retry: { baseDelayMs: 5, maxDelayMs: 20 } });

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
				{ url: '/workspace', baseURL: 'http://api.mediagen.example/v1' },
			),
		).rejects.toThrow(/must use https:\/\/.*got http:\/\/api\.mediagen\.example/);
		await expect(
			credential.authenticate(
				{ apiKey: 'k', baseUrl: 'ftp://x/v1' },
				{ url: '/workspace', baseURL: 'ftp://x/v1' },
			),
		).rejects.toThrow(/must be an https:\/\/ URL/);
		for (const baseUrl of [
			'https://api.mediagen.example/v1',
			'http://localhost:3000/v1',
			'http://127.0.0.1:3000/v1',
			'http://[::1]:3000/v1',
		]) {
			const options = await credential.authenticate(
				{ apiKey: 'k', baseUrl },
				{ url: '/x', baseURL: baseUrl },
			);
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
		files = await recorder((res, seen) => fileReply(seen.path, res));
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
		expect(files.seen.map((r) => r.path)).toEqual(['/moved', '/file']);
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
		expect(files.seen).toHaveLength(4);
	});
});

describe('the credential carries the key only to the Base URL (also in the HTTP Request node)', () => {
	let elsewhere: Recorder;
	beforeEach(async () => {
		elsewhere = await recorder();
	});
	afterEach(async () => await elsewhere.close());

	const run = (url: string, helper: string, baseUrl = sb.baseUrl) =>
		runWorkflow(chain([{}], [httpRequest('HTTP', { url, helper })]), {
			credentials: { mediaGenApi: { apiKey: sb.keys.pro, baseUrl } },
		});

	test.each(['legacy', 'http'])(
		'a request to another origin is refused, saying why; nothing reaches it (%s helper)',
		async (helper) => {
			const result = await run(`${elsewhere.url}/signed/file?signature=abc`, helper);
			expect(result.error?.message).toBe(
				`The MediaGen API credential sends its API key only to its Base URL (${sb.origin}); this request goes to ${elsewhere.url}, so it was not sent. For another URL (a signed file URL carries its own signature) use no credential.`,
			);
			expect(elsewhere.seen).toHaveLength(0);
		},
	);

	test.each(['legacy', 'http'])(
		"a request to the Base URL's origin carries the key (%s helper)",
		async (helper) => {
			const result = await run(`${sb.baseUrl}/workspace`, helper);
			expect(result.error).toBeUndefined();
			expect(result.json('HTTP')).toEqual([{ statusCode: 200 }]);
			const [seen] = sb.control.requests({ path: '/workspace$' });
			expect(seen).toMatchObject({ status: 200, keyName: 'pro' });
		},
	);

	test('over plain http no redirect is followed: a 302 elsewhere reaches nothing', async () => {
		const redirector = await recorder((res) => {
			res.writeHead(302, { location: `${elsewhere.url}/v1/workspace` });
			res.end();
		});
		try {
			const result = await run(`${redirector.url}/v1/workspace`, 'legacy', `${redirector.url}/v1`);
			expect(result.json('HTTP')).toEqual([{ statusCode: 302 }]);
			expect(redirector.seen[0].headers.authorization).toBe(`Bearer ${sb.keys.pro}`);
			expect(elsewhere.seen).toHaveLength(0);
		} finally {
			await redirector.close();
		}
	});
});

describe('plain http goes straight to the loopback host, never through a proxy', () => {
	const PROXY_VARS = ['HTTP_PROXY', 'http_proxy', 'ALL_PROXY', 'all_proxy', 'NO_PROXY', 'no_proxy'];
	let proxy: Recorder;
	let saved: Record<string, string | undefined>;
	beforeAll(async () => {
		// a proxy that would answer everything with 502: any request seen here went through it
		proxy = await recorder((res) => {
			res.statusCode = 502;
			res.end('proxied');
		});
		saved = Object.fromEntries(PROXY_VARS.map((name) => [name, process.env[name]]));
		for (const name of PROXY_VARS) delete process.env[name];
		// n8n's HTTP helpers read these for each request (proxy-from-env); no NO_PROXY: even
		// http://127.0.0.1 would go through the proxy
		process.env.HTTP_PROXY = proxy.url;
	});
	afterAll(async () => {
		for (const name of PROXY_VARS) {
			if (saved[name] === undefined) delete process.env[name];
			else process.env[name] = saved[name];
		}
		await proxy.close();
	});

	test('API requests, signed URLs and the HTTP Request node: the proxy sees nothing', async () => {
		const asset = sb.control.createLargeAsset({ size: 1000, filename: 'x.bin' });
		const result = await runWorkflow(
			chain(
				[{}],
				[
					workspaceGet,
					mediaGen('Download', {
						resource: 'asset',
						operation: 'download',
						assetId: { __rl: true, mode: 'id', value: asset.id },
						binaryPropertyName: 'file',
					}),
					httpRequest('HTTP', { url: `${sb.baseUrl}/workspace`, helper: 'legacy' }),
				],
			),
			{ credentials: { mediaGenApi: { apiKey: sb.keys.pro, baseUrl: sb.baseUrl } } },
		);
		expect(result.error).toBeUndefined();
		expect(result.items('Download')[0].binary?.file).toMatchObject({ bytes: 1000 });
		expect(result.json('HTTP')).toEqual([{ statusCode: 200 }]);
		expect(proxy.seen).toHaveLength(0);
		expect(sb.control.requests({ path: '/workspace$' })).toHaveLength(2);
		expect(sb.control.requests({ path: '^/files/assets/' }).map((r) => r.status)).toEqual([200]);
	});
});
