/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/** Small real-HTTP client for the sandbox tests. */
import { startSandbox, type Sandbox, type SandboxOptions } from '../../../sandbox';

// Tests read response bodies freely; a body's shape is what each test asserts.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;

export interface Res<T = Body> {
	status: number;
	headers: Headers;
	body: T;
}

export type Call = <T = Body>(
	method: string,
	path: string,
	body?: unknown,
	headers?: Record<string, string>,
) => Promise<Res<T>>;

/** A caller bound to a key (or no key when undefined). Paths are relative to baseUrl unless absolute. */
export function client(sb: Sandbox, key: string | undefined): Call {
	return async (method, path, body, headers = {}) => {
		const url = path.startsWith('http') ? path : `${sb.baseUrl}${path}`;
		const res = await fetch(url, {
			method,
			headers: {
				...(key ? { authorization: `Bearer ${key}` } : {}),
				...(body !== undefined ? { 'content-type': 'application/json' } : {}),
				...headers,
			},
			body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
		});
		const text = await res.text();
		let parsed: unknown = text;
		if ((res.headers.get('content-type') ?? '').includes('application/json'))
			parsed = JSON.parse(text);
		return { status: res.status, headers: res.headers, body: parsed as Body };
	};
}

/**
 * A client for tests that share the key with n8n's workflows (e2e): a 429 waits for its
 * Retry-After and is sent again, as the nodes do, instead of failing the test's own read.
 */
export function patientClient(sb: Sandbox, key: string | undefined): Call {
	const call = client(sb, key);
	return async (method, path, body, headers) => {
		for (let attempt = 0; ; attempt++) {
			const res = await call(method, path, body, headers);
			if (res.status !== 429 || attempt >= 30) return res;
			await sleep(Math.max(1, Number(res.headers.get('retry-after') ?? 1)) * 1000);
		}
	};
}

export async function start(options: SandboxOptions = {}): Promise<Sandbox> {
	return startSandbox({
		port: 0,
		quiet: true,
		rateLimitPerMinute: 0,
		timeScale: 0.001,
		...options,
	});
}

/**
 * A stand-in for a value made in beforeAll: usable in tests and hooks (it forwards every property
 * read to the value), not at the top level of a test file.
 */
export function startedLater<T extends object>(current: () => T | undefined, what: string): T {
	return new Proxy({} as T, {
		get(_, property) {
			const value = current();
			if (!value) throw new Error(`${what} starts in beforeAll: use it in tests and hooks`);
			return Reflect.get(value, property) as unknown;
		},
	});
}

export interface SandboxClients {
	/** The file's sandbox (see startedLater) */
	sb: Sandbox;
	/** Callers bound to the sandbox's keys: Pro, another workspace, read-only, Starter, none */
	pro: Call;
	other: Call;
	readOnly: Call;
	starter: Call;
	anon: Call;
}

/**
 * Starts a sandbox for the current test file (beforeAll), resets it before each test and closes it
 * after all of them; gives callers bound to its keys.
 */
export function useSandbox(options: SandboxOptions = {}): SandboxClients {
	let started: Sandbox | undefined;
	beforeAll(async () => {
		started = await start(options);
	});
	afterAll(async () => await started?.close());
	beforeEach(() => sb.control.reset());
	const sb = startedLater(() => started, 'the sandbox');
	const bound =
		(key: (keys: Sandbox['keys']) => string | undefined): Call =>
		async (method, path, body, headers) =>
			await client(sb, key(sb.keys))(method, path, body, headers);
	return {
		sb,
		pro: bound((k) => k.pro),
		other: bound((k) => k.otherWorkspace),
		readOnly: bound((k) => k.readOnly),
		starter: bound((k) => k.starter),
		anon: bound(() => undefined),
	};
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What `until` returns: its function's value once truthy. */
export type Truthy<T> = Exclude<T, undefined | null | false | '' | 0>;

/**
 * How long a test waits for something that must happen: generous, since CI runs the suite while
 * it installs n8n beside it (a loaded machine is slow, not wrong). Below jest's test timeout.
 */
export const WAIT_MS = 60_000;

/**
 * Polls until fn returns a truthy value or the wait passes (never less than WAIT_MS: a deadline
 * decides nothing in a passing run). A test that must act while a job runs holds the job
 * (`sb.control.holdJobs()`), or its answer (a delay fault, `releaseDelays()`), instead of racing it.
 */
export async function until<T>(
	fn: () => Promise<T> | T,
	timeoutMs = WAIT_MS,
	everyMs = 10,
): Promise<Truthy<T>> {
	const end = Date.now() + Math.max(timeoutMs, WAIT_MS);
	for (;;) {
		const v = await fn();
		if (v) return v as Truthy<T>;
		if (Date.now() > end) throw new Error('timed out waiting');
		await sleep(everyMs);
	}
}
