/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-hardcoded-secrets -- dev-only test code (real n8n e2e), never published: see package.json "files" */
/**
 * The key and the files in a real n8n 2.40.7 with the packed package, against the sandbox
 * (issue #33): n8n's own HTTP Request node with the MediaGen API credential sends the key to the
 * Base URL and refuses any other origin (nothing reaches it), and follows no redirect (versions
 * 4.2 and 4.5, over https through HTTPS_PROXY: a subdomain of the Base URL's host, which got the
 * key before #37, gets nothing); the credential test (n8n's REST
 * `POST /rest/credentials/test`) still passes; with HTTP_PROXY set and no NO_PROXY, plain-http
 * requests to the loopback sandbox (API, signed URLs, the HTTP Request node) never go through the
 * proxy; an upload whose complete lost its answer is completed again by Retry On Fail and by
 * n8n's own Retry of the failed execution (`POST /rest/executions/:id/retry`): one asset at the
 * sandbox each time.
 *
 * Skipped unless MEDIAGEN_E2E=1. Needs a build (`npm run build`); `npm run test:e2e` does both.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';

import type { IDataObject } from 'n8n-workflow';

import { SANDBOX_CREDENTIAL } from '../../scripts/demoSetup';
import type { Recorder } from '../harness/engine/recorder';
import { recorder } from '../harness/engine/recorder';
import { connectProxy, origins, testCertificate } from '../harness/engine/tlsOrigins';
import type { N8nInstance, N8nOwner } from '../harness/e2e/n8n';
import {
	describeE2E,
	describeResult,
	executeWorkflow,
	importCredentials,
	importWorkflows,
	nodeItems,
	restOf,
	setupOwner,
	startN8n,
} from '../harness/e2e/n8n';
import { MIN, mg, node, useDemoSuite, workflow } from '../harness/e2e/workflows';

/** The key of the credential whose Base URL redirects (a made-up one). */
const REDIRECT_KEY = 'mg_e2e_redirect_key';

/**
 * n8n's HTTP Request node with the MediaGen credential (4.2: it asks for the credential on
 * cross-origin redirects), its options as a user leaves them (Follow Redirects on).
 */
const httpRequest = (
	name: string,
	url: string,
	credential: { id: string; name: string } = SANDBOX_CREDENTIAL,
	typeVersion = 4.2,
) =>
	node(
		name,
		'n8n-nodes-base.httpRequest',
		{
			url,
			authentication: 'predefinedCredentialType',
			nodeCredentialType: 'mediaGenApi',
			options: {},
		},
		{ typeVersion, credentials: { mediaGenApi: credential } },
	);

describeE2E('the key and the files in a real n8n', () => {
	const suite = useDemoSuite('e2e key and files');
	let elsewhere: Recorder;
	let proxy: Recorder;
	beforeAll(async () => {
		elsewhere = await recorder();
		// answers everything with 502: a request seen here went through the proxy
		proxy = await recorder((res) => {
			res.statusCode = 502;
			res.end('proxied');
		});
	});
	afterAll(async () => {
		await elsewhere?.close();
		await proxy?.close();
	});

	let n8n: N8nInstance | undefined;
	let owner: N8nOwner;
	afterAll(async () => await n8n?.stop());
	const rest = restOf(
		() => n8n!,
		() => owner,
	);

	/** The assets uploaded in the sandbox's workspace, read over its API. */
	const uploads = async () => {
		const { sandbox } = suite.ctx;
		const res = await fetch(`${sandbox.baseUrl}/assets?source=upload&limit=100`, {
			headers: { authorization: `Bearer ${sandbox.keys.pro}` },
		});
		return ((await res.json()) as { data: IDataObject[] }).data;
	};

	/** The next complete is done but its answer dropped, then 503 until its retries end. */
	const loseTheComplete = () => {
		const { control } = suite.ctx.sandbox;
		control.addFault({ kind: 'drop', method: 'POST', path: '/complete$' });
		control.addFault({
			kind: 'fail',
			method: 'POST',
			path: '/complete$',
			status: 503,
			skip: 1,
			count: 4,
		});
	};

	/** Read a file, upload it (with node settings `extra`). */
	const uploadWorkflow = (id: string, name: string, extra: Record<string, unknown> = {}) =>
		workflow(id, name, [
			node('Read file', 'n8n-nodes-base.readWriteFile', {
				operation: 'read',
				fileSelector: 'examples/files/product-photo.png',
				options: {},
			}),
			mg('Upload', { resource: 'asset', operation: 'upload', binaryPropertyName: 'data' }, extra),
		]);

	const run = async (wf: ReturnType<typeof workflow>, env?: Record<string, string>) => {
		await importWorkflows(suite.ctx.home, [wf]);
		return await executeWorkflow(suite.ctx.home, wf.id, { timeoutMs: 5 * MIN, env });
	};

	test(
		'HTTP Request with the MediaGen credential: the Base URL gets the key, another origin nothing',
		async () => {
			const { sandbox } = suite.ctx;
			const here = await run(
				workflow('e2eKeyHttpHere01', 'e2e: HTTP Request to the Base URL', [
					httpRequest('Here', `${sandbox.baseUrl}/workspace`),
				]),
			);
			expect({ ok: here.ok, summary: describeResult(here) }).toMatchObject({ ok: true });
			expect(nodeItems(here, 'Here')[0].json).toMatchObject({ plan: 'pro' });

			const there = await run(
				workflow('e2eKeyHttpElse01', 'e2e: HTTP Request elsewhere', [
					httpRequest('Elsewhere', `${elsewhere.url}/file?signature=abc`),
				]),
			);
			expect(there.ok).toBe(false);
			expect(there.error?.message).toContain(
				`The MediaGen API credential sends its API key only to its Base URL (${sandbox.origin}); this request goes to ${elsewhere.url}, so it was not sent.`,
			);
			expect(elsewhere.seen).toHaveLength(0);
		},
		10 * MIN,
	);

	test(
		"HTTP Request with the MediaGen credential over https, through HTTPS_PROXY: a redirect to a subdomain of the Base URL's host gets nothing",
		async () => {
			// names under localhost reach this machine only through the proxy, which tunnels every
			// CONNECT to 127.0.0.1; n8n trusts this run's certificate (NODE_EXTRA_CA_CERTS)
			const tls = testCertificate(['api.localhost', 'x.api.localhost']);
			const caFile = path.join(suite.workDir, 'redirect-ca.pem');
			writeFileSync(caFile, tls.cert);
			let base = '';
			const site = await origins(tls, (hit, res) => {
				if (hit.origin === base) {
					res.writeHead(302, { location: `${base.replace('//api.', '//x.api.')}${hit.path}` });
					res.end('Found');
				} else res.end('{}');
			});
			const tunnel = await connectProxy();
			try {
				base = `https://api.localhost:${site.port}`;
				const credential = { id: 'mgRedirectCred01', name: 'MediaGen behind a redirect' };
				await importCredentials(suite.ctx.home, [
					{
						...credential,
						type: 'mediaGenApi',
						data: { apiKey: REDIRECT_KEY, baseUrl: `${base}/v1` },
					},
				]);
				const seen = [];
				for (const [id, typeVersion] of [
					['e2eKeyRedirect42', 4.2],
					['e2eKeyRedirect45', 4.5],
				] as const) {
					site.hits.length = 0;
					tunnel.asked.length = 0;
					const result = await run(
						workflow(id, `e2e: HTTP Request ${typeVersion} and a redirect`, [
							httpRequest('Redirected', `${base}/v1/workspace`, credential, typeVersion),
						]),
						{
							HTTPS_PROXY: tunnel.url,
							https_proxy: tunnel.url,
							NO_PROXY: '',
							no_proxy: '',
							NODE_EXTRA_CA_CERTS: caFile,
						},
					);
					seen.push({
						typeVersion,
						hits: [...site.hits],
						tunnels: [...tunnel.asked],
						ok: result.ok,
						summary: describeResult(result),
					});
				}
				// each version: the Base URL got the key once, the subdomain nothing; the proxy saw
				// one tunnel; the user sees the 302 (HTTP Request's error for a status outside 2xx)
				expect(seen).toEqual(
					[4.2, 4.5].map((typeVersion) => ({
						typeVersion,
						hits: [
							{ origin: base, path: '/v1/workspace', authorization: `Bearer ${REDIRECT_KEY}` },
						],
						tunnels: [`api.localhost:${site.port}`],
						ok: false,
						summary: expect.stringContaining('302'),
					})),
				);
			} finally {
				await site.close();
				await tunnel.close();
			}
		},
		10 * MIN,
	);

	test(
		'HTTP_PROXY without NO_PROXY: plain http to the loopback sandbox never goes through it',
		async () => {
			const { sandbox } = suite.ctx;
			const asset = sandbox.control.createLargeAsset({ size: 5000, filename: 'p.bin' });
			const result = await run(
				workflow('e2eKeyNoProxy001', 'e2e: no proxy for plain http', [
					mg('Workspace', { resource: 'workspace', operation: 'get' }),
					mg('Download', {
						resource: 'asset',
						operation: 'download',
						assetId: { __rl: true, mode: 'id', value: asset.id },
						binaryPropertyName: 'file',
					}),
					mg('Upload', { resource: 'asset', operation: 'upload', binaryPropertyName: 'file' }),
					httpRequest('Here', `${sandbox.baseUrl}/workspace`),
				]),
				{ HTTP_PROXY: proxy.url, http_proxy: proxy.url, NO_PROXY: '', no_proxy: '' },
			);
			expect({ ok: result.ok, summary: describeResult(result) }).toMatchObject({ ok: true });
			expect(nodeItems(result, 'Upload')[0].json).toMatchObject({ size: 5000, source: 'upload' });
			expect(proxy.seen).toHaveLength(0);
		},
		10 * MIN,
	);

	test(
		'an upload whose complete lost its answer: Retry On Fail completes it again, one asset',
		async () => {
			const before = (await uploads()).length;
			loseTheComplete();
			const result = await run(
				uploadWorkflow('e2eUploadLost001', 'e2e: a lost complete, Retry On Fail', {
					retryOnFail: true,
					maxTries: 2,
					waitBetweenTries: 0,
				}),
			);
			expect({ ok: result.ok, summary: describeResult(result) }).toMatchObject({ ok: true });
			const after = await uploads();
			expect(after).toHaveLength(before + 1);
			expect(nodeItems(result, 'Upload')[0].json.id).toBe(after[0].id);
		},
		10 * MIN,
	);

	test(
		"n8n's Retry of the failed execution finds the asset; the credential test passes",
		async () => {
			const { sandbox } = suite.ctx;
			const starts = () => sandbox.control.requests({ method: 'POST', path: '/uploads$' });
			const before = (await uploads()).length;
			sandbox.control.clearRequests();
			loseTheComplete();
			const wf = uploadWorkflow('e2eUploadLost002', 'e2e: a lost complete, Retry');
			const failed = await run(wf);
			expect(failed.ok).toBe(false);
			expect(failed.error?.message).toMatch(
				/^Upload [0-9a-f-]{36} of 'data' may have been completed, but MediaGen's answer was lost$/,
			);
			expect(await uploads()).toHaveLength(before + 1);

			n8n = await startN8n(suite.ctx.home);
			owner = await setupOwner(n8n);
			const list = await rest<{ results: Array<{ id: string; status: string }> }>(
				'GET',
				`/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId: wf.id }))}`,
			);
			const original = list.results.find((e) => e.status === 'error');
			expect(original).toBeDefined();
			const retried = await rest<{ mode: string; status: string }>(
				'POST',
				`/executions/${original!.id}/retry`,
				{ loadWorkflow: false },
			);
			expect(retried).toMatchObject({ mode: 'retry', status: 'success' });
			expect(await uploads()).toHaveLength(before + 1);
			expect(starts()).toHaveLength(1);

			// the credential test (GET /workspace through the credential's authenticate)
			const test = (data: Record<string, string>) =>
				rest<{ status: string; message: string }>('POST', '/credentials/test', {
					credentials: { ...SANDBOX_CREDENTIAL, type: 'mediaGenApi', data },
				});
			expect(await test({ apiKey: sandbox.keys.pro, baseUrl: sandbox.baseUrl })).toMatchObject({
				status: 'OK',
			});
			expect(
				await test({ apiKey: sandbox.keys.pro, baseUrl: 'http://api.mediagen.example/v1' }),
			).toMatchObject({ status: 'Error', message: expect.stringContaining('must use https://') });
		},
		15 * MIN,
	);
});
