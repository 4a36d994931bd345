/**
 * Where the package may send things: https only, plain http to a loopback host, straight to it;
 * the API key only to the Base URL's origin. The reasons: docs/files.md (API requests) and
 * docs/security.md.
 */
import type { IHttpRequestOptions } from 'n8n-workflow';

/**
 * `localhost` itself, 127.0.0.0/8 and ::1 (as WHATWG URL parsing writes them: `127.1` is
 * 127.0.0.1). Not `*.localhost`: nothing forces such a name to this machine, its lookup may go to
 * DNS.
 */
export function isLoopbackHost(hostname: string): boolean {
	const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
	return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** Why `url` may not be used for `what` (a phrase such as "The Base URL"), or undefined. */
export function insecureUrlProblem(url: string, what: string): string | undefined {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		return `${what} is not a valid URL`;
	}
	if (parsed.protocol === 'https:') return undefined;
	if (parsed.protocol === 'http:' && isLoopbackHost(parsed.hostname)) return undefined;
	if (parsed.protocol === 'http:') {
		const why = parsed.hostname.toLowerCase().replace(/\.$/, '').endsWith('.localhost')
			? ' (a name under .localhost is looked up like any other name: it may leave this machine)'
			: '';
		return `${what} must use https:// (plain http is accepted only for localhost and 127.0.0.1), got http://${parsed.host}${why}`;
	}
	return `${what} must be an https:// URL, got ${parsed.protocol}`;
}

/** The origin (scheme, host, port) of a URL, or undefined if it is not one. */
export function originOf(url: string, base?: string): string | undefined {
	try {
		return new URL(url, base).origin;
	} catch {
		return undefined;
	}
}

/**
 * The request options that send a plain-http (loopback) request straight to its host: its own
 * host and port as the request's proxy, so that no proxy of the environment (HTTP_PROXY,
 * ALL_PROXY, which n8n's HTTP helpers honour) sees it in clear text; n8n then connects to that
 * host and port and sends the request line in absolute form. Nothing for https: a proxy only
 * tunnels it (CONNECT), the bytes stay encrypted.
 */
export function directOverHttp(url: string): Pick<IHttpRequestOptions, 'proxy'> {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		return {};
	}
	if (parsed.protocol !== 'http:') return {};
	return { proxy: { protocol: 'http', host: parsed.hostname, port: Number(parsed.port || 80) } };
}

/** The options of a request as n8n's helpers hand them to a credential (1.x and legacy shapes). */
export type CredentialRequest = IHttpRequestOptions & {
	/** The legacy `helpers.request` shape (HTTP Request node): the URL. */
	uri?: string;
	/** The legacy shape's redirect switches. */
	followRedirect?: boolean;
	followAllRedirects?: boolean;
};

/** Where a request goes, as n8n's HTTP client builds it: `url` (or `uri`) after `baseURL`. */
export function requestTarget(request: CredentialRequest): string | undefined {
	const url = String(request.url ?? request.uri ?? '');
	const base = typeof request.baseURL === 'string' ? request.baseURL : '';
	// absolute (also protocol-relative `//host`), as axios's isAbsoluteURL
	const absolute = /^([a-z][a-z\d+\-.]*:)?\/\//i.test(url);
	const joined = absolute || !base ? url : `${base.replace(/\/+$/, '')}/${url.replace(/^\/+/, '')}`;
	try {
		return new URL(joined).href;
	} catch {
		return undefined;
	}
}

/**
 * Every redirect switch of n8n's two request shapes, off: `disableFollowRedirect` and
 * `maxRedirects` (httpRequest: axios `maxRedirects: 0`), `followRedirect` and `followAllRedirects`
 * (the legacy shape: `maxRedirects: 0` unless one of them is true). With `maxRedirects: 0` n8n
 * follows no redirect on any path, its SSRF-checked manual redirects included.
 */
const NO_REDIRECTS = {
	disableFollowRedirect: true,
	maxRedirects: 0,
	followRedirect: false,
	followAllRedirects: false,
	sendCredentialsOnCrossOriginRedirect: false,
} as const;

/**
 * The options of a request that carries the API key, or why it may not carry it (thrown): the
 * Base URL must pass `insecureUrlProblem`, the request must go to the Base URL's origin, and it
 * follows no redirect, whatever the caller asked: follow-redirects (which n8n's axios uses) keeps
 * Authorization on a redirect to a subdomain of the host or from http to https, and n8n does not
 * remove it there (docs/security.md). A 3xx is the answer. Over plain http (loopback) the request
 * goes straight to the host (`directOverHttp`).
 */
export function keyedRequest(baseUrl: string, request: CredentialRequest): CredentialRequest {
	const problem = insecureUrlProblem(baseUrl, 'The Base URL');
	if (problem) throw new Error(`${problem}. The API key is sent only over https.`);
	const base = new URL(baseUrl).origin;
	const target = requestTarget(request);
	if (!target)
		throw new Error(
			'The MediaGen API credential could not tell where this request goes, so it was not sent (the API key goes only to the Base URL)',
		);
	const origin = new URL(target).origin;
	if (origin !== base)
		throw new Error(
			`The MediaGen API credential sends its API key only to its Base URL (${base}); this request goes to ${origin}, so it was not sent. For another URL (a signed file URL carries its own signature) use no credential.`,
		);
	const keyed: CredentialRequest = { ...request, ...NO_REDIRECTS };
	return target.startsWith('http:') ? { ...keyed, ...directOverHttp(target) } : keyed;
}
