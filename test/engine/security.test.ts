/**
 * The API key stays home: API requests follow no redirect (so the key never reaches another
 * origin), and a Base URL that would carry it in clear text is refused before anything is sent.
 * Real HTTP through n8n-core's request helper, the real credential, local servers that record.
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
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
	reply: (res: import('node:http').ServerResponse) => void = (res) => res.end('{}'),
): Promise<Recorder> {
	const seen: Recorder['seen'] = [];
	const server: Server = createServer((req, res) => {
		seen.push({ url: req.url, headers: req.headers });
		reply(res);
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
