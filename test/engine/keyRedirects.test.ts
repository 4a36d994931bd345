/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * Issue #37, finding 7: the API key reaches the Base URL's origin and nothing else, on a redirect
 * of every kind (another host, a subdomain, another port, https to http, http to https of the same
 * host name), through every request helper n8n-core offers a node for this credential (the nodes'
 * own requests, `httpRequestWithAuthentication`, the legacy `requestWithAuthentication` as the
 * HTTP Request node calls it), without a proxy, through the environment's proxy (HTTPS_PROXY /
 * HTTP_PROXY) and through the request's own proxy. Real TLS (a certificate made for the run), real
 * redirects, n8n-core's helpers with the axios and follow-redirects n8n ships.
 *
 * What n8n does without the fix: follow-redirects (index.js, `RedirectableRequest.prototype.
 * _processResponse`) drops Authorization only for a less secure scheme or another host that is not
 * a subdomain of the current one, and n8n's `beforeRedirect` (@n8n/backend-network,
 * http/axios/utils.js `getBeforeRedirectFn`) does not drop it either, whatever
 * `sendCredentialsOnCrossOriginRedirect` says: a redirect from https://api.localhost to
 * https://x.api.localhost carried the key.
 */
import type { ServerResponse } from 'node:http';

import type { IDataObject } from 'n8n-workflow';

import type { TestNode } from '../harness/engine/harness';
import { chain, mediaGen, runWorkflow } from '../harness/engine/harness';
import { fastJobs } from '../harness/engine/setup';
import { httpRequest } from '../harness/engine/testHttpRequest';
import type { ConnectProxy, Origins } from '../harness/engine/tlsOrigins';
import { connectProxy, loopbackNames, origins, testCertificate } from '../harness/engine/tlsOrigins';

const KEY = 'mg_live_redirect_test_key';
const PROXY_VARS = [
	'HTTP_PROXY',
	'http_proxy',
	'HTTPS_PROXY',
	'https_proxy',
	'ALL_PROXY',
	'all_proxy',
	'NO_PROXY',
	'no_proxy',
];

// short backoff: a refused certificate or connection would be retried
fastJobs({ polling: false, retry: { baseDelayMs: 5, maxDelayMs: 20 } });

let here: Origins;
let otherPort: Origins;
let proxy: ConnectProxy;
let restoreNames: () => void;
let savedEnv: Record<string, string | undefined>;
/** The Base URL's origin of the running case, and where it redirects to. */
const redirect = { from: '', to: '', status: 302 };

beforeAll(async () => {
	const tls = testCertificate([
		'api.localhost',
		'x.api.localhost',
		'other.localhost',
		'localhost',
		'127.0.0.1',
	]);
	const reply = (hit: { origin: string; path: string }, res: ServerResponse) => {
		if (hit.origin === redirect.from && redirect.to) {
			res.writeHead(redirect.status, {
				location: `${redirect.to}${hit.path}`,
				'content-type': 'text/plain',
			});
			res.end(`Found. Redirecting to ${redirect.to}${hit.path}`);
			return;
		}
		res.setHeader('content-type', 'application/json');
		res.end(JSON.stringify({ id: 'ws_1', name: 'reached' }));
	};
	here = await origins(tls, reply);
	otherPort = await origins(tls, reply);
	proxy = await connectProxy();
	restoreNames = loopbackNames(tls.cert);
	savedEnv = Object.fromEntries(PROXY_VARS.map((name) => [name, process.env[name]]));
	for (const name of PROXY_VARS) delete process.env[name];
});

afterAll(async () => {
	for (const name of PROXY_VARS) {
		if (savedEnv[name] === undefined) delete process.env[name];
		else process.env[name] = savedEnv[name];
	}
	restoreNames?.();
	await here?.close();
	await otherPort?.close();
	await proxy?.close();
});

beforeEach(() => {
	here.hits.length = 0;
	otherPort.hits.length = 0;
	proxy.asked.length = 0;
});

afterEach(() => {
	delete process.env.HTTPS_PROXY;
	delete process.env.HTTP_PROXY;
});

interface Kind {
	kind: string;
	/** Each kind with another redirect status: 301, 302, 303, 307, 308. */
	status: number;
	base: () => string;
	target: () => string;
}

const KINDS: Kind[] = [
	{
		kind: 'another host',
		status: 301,
		base: () => `https://api.localhost:${here.port}`,
		target: () => `https://other.localhost:${here.port}`,
	},
	{
		kind: 'a subdomain of the host',
		status: 302,
		base: () => `https://api.localhost:${here.port}`,
		target: () => `https://x.api.localhost:${here.port}`,
	},
	{
		kind: 'another port',
		status: 303,
		base: () => `https://api.localhost:${here.port}`,
		target: () => `https://api.localhost:${otherPort.port}`,
	},
	{
		kind: 'https to http (same host and port)',
		status: 307,
		base: () => `https://api.localhost:${here.port}`,
		target: () => `http://api.localhost:${here.port}`,
	},
	{
		kind: 'http to https (same host name and port)',
		status: 308,
		base: () => `http://localhost:${here.port}`,
		target: () => `https://localhost:${here.port}`,
	},
];

type Helper =
	| 'MediaGen node'
	| 'httpRequestWithAuthentication'
	| 'requestWithAuthentication'
	| 'requestWithAuthenticationPaginated';
const HELPERS: Helper[] = [
	'MediaGen node',
	'httpRequestWithAuthentication',
	'requestWithAuthentication',
	'requestWithAuthenticationPaginated',
];
/** The test node's `helper` parameter for each of n8n's helpers. */
const TEST_NODE_HELPER: Record<string, string> = {
	httpRequestWithAuthentication: 'http',
	requestWithAuthentication: 'legacy',
	requestWithAuthenticationPaginated: 'paginated',
};
type ProxySetup = 'no proxy' | 'environment proxy' | "the request's own proxy";

const CASES: Array<[Helper, ProxySetup, Kind]> = [];
// the nodes' own requests take no proxy option
for (const helper of HELPERS)
	for (const setup of ['no proxy', 'environment proxy', "the request's own proxy"] as ProxySetup[])
		if (helper !== 'MediaGen node' || setup !== "the request's own proxy")
			for (const kind of KINDS) CASES.push([helper, setup, kind]);

function nodeFor(helper: Helper, url: string, setup: ProxySetup): TestNode {
	if (helper === 'MediaGen node')
		return mediaGen('MediaGen', { resource: 'workspace', operation: 'get' });
	return httpRequest('HTTP', {
		url,
		helper: TEST_NODE_HELPER[helper],
		proxy: setup === "the request's own proxy" ? proxy.url : '',
	});
}

describe('a redirect never takes the API key to another origin', () => {
	test.each(CASES.map(([helper, setup, kind]) => [helper, setup, kind.status, kind.kind, kind]))(
		'%s, %s: a redirect (%i) to %s',
		async (helper, setup, _status, _name, kind) => {
			const base = kind.base();
			redirect.from = base;
			redirect.to = kind.target();
			redirect.status = kind.status;
			if (setup === 'environment proxy') {
				process.env.HTTPS_PROXY = proxy.url;
				process.env.HTTP_PROXY = proxy.url;
			}
			const result = await runWorkflow(
				chain([{}], [nodeFor(helper, `${base}/v1/workspace`, setup)]),
				{
					credentials: { mediaGenApi: { apiKey: KEY, baseUrl: `${base}/v1` } },
				},
			);
			const hits = [...here.hits, ...otherPort.hits];
			// the key went to the Base URL's origin, once; no request with it went anywhere else
			expect(hits.filter((hit) => hit.authorization).map((hit) => hit.origin)).toEqual([base]);
			expect(hits.filter((hit) => hit.authorization !== undefined)[0].authorization).toBe(
				`Bearer ${KEY}`,
			);
			// the redirect was not followed at all: its target saw nothing
			expect(hits.filter((hit) => hit.origin !== base)).toEqual([]);
			// through a proxy, only a tunnel to the Base URL's host (plain http goes to the loopback
			// host straight, never through a proxy)
			const tunnels = base.startsWith('https:') ? [new URL(base).host] : [];
			expect(proxy.asked).toEqual(setup === 'no proxy' ? [] : tunnels);
			// what the user sees: the 3xx (the HTTP Request node's output, or the node's error)
			if (helper === 'MediaGen node') {
				expect(result.error?.message).toMatch(
					new RegExp(`redirect \\(${kind.status}\\).*not follow`),
				);
				expect(result.error?.description).toContain(redirect.to);
			} else {
				expect(result.error).toBeUndefined();
				expect(result.json('HTTP') as IDataObject[]).toEqual([{ statusCode: kind.status }]);
			}
		},
	);
});

describe('without a redirect the same requests work (the checks are not a blanket refusal)', () => {
	test.each(HELPERS)('%s over https, through the environment proxy', async (helper) => {
		const base = `https://api.localhost:${here.port}`;
		redirect.from = base;
		redirect.to = '';
		process.env.HTTPS_PROXY = proxy.url;
		const result = await runWorkflow(
			chain([{}], [nodeFor(helper, `${base}/v1/workspace`, 'environment proxy')]),
			{ credentials: { mediaGenApi: { apiKey: KEY, baseUrl: `${base}/v1` } } },
		);
		expect(result.error).toBeUndefined();
		expect(here.hits).toEqual([
			{ origin: base, path: '/v1/workspace', authorization: `Bearer ${KEY}` },
		]);
		expect(proxy.asked).toEqual([new URL(base).host]);
	});
});
