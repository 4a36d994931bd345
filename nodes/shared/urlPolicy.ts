/**
 * Where the package may send things: https only, plain http to a loopback host. The reasons:
 * docs/files.md, API requests.
 */

/** localhost, *.localhost, 127.0.0.0/8 and ::1. */
export function isLoopbackHost(hostname: string): boolean {
	const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
	return (
		host === 'localhost' ||
		host.endsWith('.localhost') ||
		host === '::1' ||
		/^127(\.\d{1,3}){3}$/.test(host)
	);
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
	if (parsed.protocol === 'http:')
		return `${what} must use https:// (plain http is accepted only for localhost and 127.0.0.1), got http://${parsed.host}`;
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
