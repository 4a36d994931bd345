/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-hardcoded-secrets, @n8n/community-nodes/require-node-api-error -- dev-only test code (real n8n e2e), never published: see package.json "files" */
/**
 * Drives a real, headless n8n (2.40.7 on Node 24 by default; another version of the
 * compatibility matrix with MEDIAGEN_N8N_VERSION / MEDIAGEN_N8N_NODE) from jest on Node 20.
 *
 * The runtime is installed by scripts/n8n-runtime.sh into a cache outside the repository;
 * every n8n call here is a child process `<node> <n8n>/bin/n8n <command>` with a fixed,
 * offline, quiet environment (see `n8nEnv`). A "home" is a fresh N8N_USER_FOLDER (its own
 * sqlite database, settings, installed community packages). See docs/n8n-runtime.md.
 *
 * All tests that use this are skipped unless MEDIAGEN_E2E=1 (use `describeE2E`).
 */
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chown, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
export const RUNTIME_SCRIPT = path.join(REPO_ROOT, 'scripts', 'n8n-runtime.sh');

/** True when the real-n8n tests should run (MEDIAGEN_E2E=1). */
export const e2eEnabled = process.env.MEDIAGEN_E2E === '1';
/** `describe` when MEDIAGEN_E2E=1, otherwise `describe.skip` (the unit suite stays fast). */
export const describeE2E: jest.Describe =
	typeof describe === 'undefined' ? (undefined as never) : e2eEnabled ? describe : describe.skip;

/** Fixed for the tests: credentials imported in one call must decrypt in the next. */
export const TEST_ENCRYPTION_KEY = 'mediagen-e2e-encryption-key-not-secret';

// ------------------------------------------------------------------------------------
// Runtime (Node 24 + n8n), installed once per machine by scripts/n8n-runtime.sh
// ------------------------------------------------------------------------------------

export interface N8nRuntime {
	/** The Node binary n8n runs on (Node 24 for n8n 2.x) */
	node: string;
	/** n8n's bin/n8n script (run as `node bin/n8n`) */
	bin: string;
	/** n8n's version, from its package.json, e.g. '2.40.7' */
	version: string;
	/** n8n's major version: the CLI and REST differ between 1.x and 2.x */
	major: number;
	/** Environment this runtime needs on every n8n call (N8N_EXPRESSION_ENGINE=legacy for 1.x
	 * on a Node without an isolated-vm build), as printed by scripts/n8n-runtime.sh */
	env: Record<string, string>;
}

/** Variables scripts/n8n-runtime.sh prints besides N8N_NODE and N8N_BIN, passed to n8n. */
const RUNTIME_ENV_VARS = ['N8N_EXPRESSION_ENGINE'] as const;

function describeRuntime(node: string, bin: string, vars: Record<string, string | undefined>) {
	const pkg = JSON.parse(readFileSync(path.join(path.dirname(bin), '..', 'package.json'), 'utf8'));
	const version = String(pkg.version);
	const env: Record<string, string> = {};
	for (const k of RUNTIME_ENV_VARS) if (vars[k]) env[k] = vars[k]!;
	return { node, bin, version, major: Number(version.split('.')[0]), env };
}

let runtimePromise: Promise<N8nRuntime> | undefined;

/**
 * Installs the runtime if needed (minutes on a cold machine, about a second when cached) and
 * returns its paths. Progress lines of the installer go to this process's stderr.
 * N8N_NODE and N8N_BIN in the environment, if both exist, are used as they are.
 */
export function ensureRuntime(): Promise<N8nRuntime> {
	runtimePromise ??= (async () => {
		const fromEnv = { node: process.env.N8N_NODE, bin: process.env.N8N_BIN };
		if (fromEnv.node && fromEnv.bin && existsSync(fromEnv.node) && existsSync(fromEnv.bin)) {
			return describeRuntime(fromEnv.node, fromEnv.bin, process.env);
		}
		const res = await run('bash', [RUNTIME_SCRIPT, '--print-env'], {
			env: { ...process.env, CI: process.env.CI ?? 'true' },
			stdio: ['ignore', 'pipe', 'inherit'],
			timeoutMs: 30 * 60_000,
		});
		if (res.exitCode !== 0) {
			throw new Error(`scripts/n8n-runtime.sh failed (exit ${res.exitCode})\n${res.stdout}`);
		}
		const vars = parseExports(res.stdout);
		if (!vars.N8N_NODE || !vars.N8N_BIN) {
			throw new Error(`scripts/n8n-runtime.sh printed no N8N_NODE/N8N_BIN:\n${res.stdout}`);
		}
		return describeRuntime(vars.N8N_NODE, vars.N8N_BIN, vars);
	})();
	runtimePromise.catch(() => (runtimePromise = undefined));
	return runtimePromise;
}

/** Parses `export NAME=value` lines as printed by bash's `printf %q`. */
export function parseExports(text: string): Record<string, string> {
	const out: Record<string, string> = {};
	for (const line of text.split('\n')) {
		const m = /^export ([A-Z0-9_]+)=(.*)$/.exec(line.trim());
		if (!m) continue;
		let v = m[2];
		if (v.startsWith("'") && v.endsWith("'")) v = v.slice(1, -1);
		else if (v.startsWith("$'") && v.endsWith("'")) v = v.slice(2, -1);
		else v = v.replace(/\\(.)/g, '$1');
		out[m[1]] = v;
	}
	return out;
}

// ------------------------------------------------------------------------------------
// Homes
// ------------------------------------------------------------------------------------

export interface N8nHome {
	/** Temp directory holding everything of this home */
	dir: string;
	/** N8N_USER_FOLDER (n8n keeps its data in `<userFolder>/.n8n`) */
	userFolder: string;
	runtime: N8nRuntime;
	/** Extra environment given at creation, applied to every n8n call of this home */
	extraEnv: Record<string, string>;
	/** Working directory of every n8n process of this home (relative file paths resolve here) */
	cwd: string;
	/** Community package installed from the tarball, if any */
	communityPackage?: { name: string; version: string; dir: string };
	/** Node types n8n loaded, when the tarball was checked (`n8n export:nodes`) */
	nodeTypes?: string[];
	/** Descriptions of every loaded node type, when the tarball was checked (`n8n export:nodes`) */
	nodeDescriptions?: N8nNodeTypeDescription[];
	/** Highest version of each loaded node type, when the tarball was checked */
	nodeTypeVersions?: Record<string, number>;
	/** Removes the directory */
	cleanup(): Promise<void>;
}

export interface CreateHomeOptions {
	/** A packed package (`npm pack`) to install as a community package */
	tarball?: string;
	/** npm flags of the install (default: the README's manual command, MANUAL_INSTALL_FLAGS) */
	npmFlags?: string[];
	/**
	 * Node types that must load from the tarball; checked with `n8n export:nodes`.
	 * Default for n8n-nodes-mediagen: ['n8n-nodes-mediagen.mediaGen']; `false` skips the check.
	 */
	expectNodeTypes?: string[] | false;
	/** Extra environment for every n8n call of this home (overrides the defaults) */
	env?: Record<string, string>;
	/** Parent directory (default: the OS temp dir) */
	parentDir?: string;
	/**
	 * Use exactly this directory (emptied first) instead of a fresh temp one under parentDir,
	 * e.g. `.n8n-home/demo` for `npm run demo`.
	 */
	dir?: string;
	/** Working directory of the n8n processes (default: the home's directory) */
	cwd?: string;
}

/** A fresh N8N_USER_FOLDER; with `tarball`, the package is installed the way users do it. */
export async function createN8nHome(opts: CreateHomeOptions = {}): Promise<N8nHome> {
	const runtime = await ensureRuntime();
	let dir: string;
	if (opts.dir) {
		dir = path.resolve(opts.dir);
		await rm(dir, { recursive: true, force: true, maxRetries: 3 });
		await mkdir(dir, { recursive: true });
	} else {
		dir = await mkdtemp(path.join(opts.parentDir ?? tmpdir(), 'mediagen-n8n-home-'));
	}
	const userFolder = path.join(dir, 'user');
	await mkdir(path.join(userFolder, '.n8n'), { recursive: true });
	const home: N8nHome = {
		dir,
		userFolder,
		runtime,
		extraEnv: { ...(opts.env ?? {}) },
		cwd: opts.cwd ? path.resolve(opts.cwd) : dir,
		cleanup: () => rm(dir, { recursive: true, force: true, maxRetries: 3 }),
	};
	if (opts.tarball) {
		home.communityPackage = await installCommunityPackage(home, opts.tarball, opts.npmFlags);
		const expected =
			opts.expectNodeTypes ??
			(home.communityPackage.name === 'n8n-nodes-mediagen' ? ['n8n-nodes-mediagen.mediaGen'] : []);
		if (expected !== false) {
			const described = await exportNodeTypes(home);
			home.nodeDescriptions = described;
			home.nodeTypes = [...new Set(described.map((d) => d.name))].sort();
			home.nodeTypeVersions = latestVersions(described);
			const prefix = `${home.communityPackage.name}.`;
			const fromPackage = home.nodeTypes.filter((t) => t.startsWith(prefix));
			const missing = expected.filter((t) => !home.nodeTypes!.includes(t));
			if (fromPackage.length === 0 || missing.length > 0) {
				throw new Error(
					`n8n did not load ${missing.length ? missing.join(', ') : `any node of ${prefix}*`} ` +
						`from ${opts.tarball}; it loaded from the package: [${fromPackage.join(', ')}]`,
				);
			}
		}
	}
	return home;
}

/**
 * The flags of the README's manual install command (`npm install n8n-nodes-mediagen <flags>` in
 * `~/.n8n/nodes`): without them npm 7+ installs the peer n8n-workflow beside the package, a second
 * copy whose error classes n8n does not recognise. test/unit/readme.test.ts checks the README says
 * exactly this command.
 */
export const MANUAL_INSTALL_FLAGS = ['--omit=peer'];
/** The README's `.npmrc` line for `~/.n8n/nodes`: later installs there leave the peer out too. */
export const NODES_NPMRC_LINE = 'omit=peer';

/**
 * Installs a tarball into `<userFolder>/.n8n/nodes` with the README's manual install command
 * (`cd ~/.n8n/nodes && npm install <package> --omit=peer`), install scripts off. `npmFlags`
 * replaces MANUAL_INSTALL_FLAGS (e.g. `[]` for a plain `npm install`, which brings a second
 * n8n-workflow).
 */
export async function installCommunityPackage(
	home: N8nHome,
	tarball: string,
	npmFlags: string[] = MANUAL_INSTALL_FLAGS,
): Promise<{ name: string; version: string; dir: string }> {
	const nodesDir = path.join(home.userFolder, '.n8n', 'nodes');
	await mkdir(nodesDir, { recursive: true });
	const ledger = path.join(nodesDir, 'package.json');
	if (!existsSync(ledger)) {
		await writeFile(
			ledger,
			JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2),
		);
	}
	const abs = path.resolve(tarball);
	const args = [
		'install',
		abs,
		...npmFlags,
		'--ignore-scripts',
		'--audit=false',
		'--fund=false',
		'--bin-links=false',
		'--package-lock=false',
		'--loglevel=error',
		// the peer's metadata from npm's cache (the runtime's install put it there): a registry
		// request that hangs once stalled a CI run's install for its whole 5 minutes
		'--prefer-offline',
	];
	let res = await run('npm', args, {
		cwd: nodesDir,
		env: cleanEnv(process.env),
		timeoutMs: 120_000,
	});
	// killed by the timeout (a registry request hanging): tried again, twice at most
	for (let again = 0; again < 2 && res.exitCode === null; again++)
		res = await run('npm', args, { cwd: nodesDir, env: cleanEnv(process.env), timeoutMs: 120_000 });
	if (res.exitCode !== 0) {
		throw new Error(
			`npm install ${abs} failed (exit ${res.exitCode}):\n${res.stdout}\n${res.stderr}`,
		);
	}
	const deps = JSON.parse(await readFile(ledger, 'utf8')).dependencies as Record<string, string>;
	const entry = Object.entries(deps).find(([, spec]) => spec.includes(path.basename(abs)));
	if (!entry) throw new Error(`npm install did not record ${abs} in ${ledger}`);
	const dir = path.join(nodesDir, 'node_modules', entry[0]);
	const pkg = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8'));
	return { name: pkg.name, version: pkg.version, dir };
}

// ------------------------------------------------------------------------------------
// Environment
// ------------------------------------------------------------------------------------

/** Variables of the calling shell that must not leak into n8n (they would change its config). */
function cleanEnv(env: NodeJS.ProcessEnv): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [k, v] of Object.entries(env)) {
		if (v === undefined) continue;
		if (
			/^(N8N_|DB_|EXECUTIONS_|QUEUE_|GENERIC_TIMEZONE$|NODE_OPTIONS$|NODE_ENV$|WEBHOOK_URL$)/.test(
				k,
			)
		) {
			continue;
		}
		if (/^npm_/i.test(k)) continue; // set by `npm test`; ignore-scripts etc. are for the repo
		out[k] = v;
	}
	return out;
}

/**
 * The environment of every n8n call: offline, quiet, deterministic, and isolated per home.
 * `brokerPort` must be free: each n8n process runs its own task broker (default port 5679,
 * which would clash between an `n8n start` and an `n8n execute` running at the same time).
 */
export function n8nEnv(home: N8nHome, brokerPort: number, extra: Record<string, string> = {}) {
	const nodeBinDir = path.dirname(home.runtime.node);
	const env: Record<string, string> = {
		...cleanEnv(process.env),
		PATH: `${nodeBinDir}${path.delimiter}${process.env.PATH ?? ''}`,
		TZ: 'UTC',
		GENERIC_TIMEZONE: 'UTC',
		// where everything lives: <userFolder>/.n8n/{database.sqlite,config,nodes,storage}
		N8N_USER_FOLDER: home.userFolder,
		DB_TYPE: 'sqlite',
		N8N_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
		// nothing phones home (telemetry, version check, templates, banners); no network needed
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_DYNAMIC_BANNERS_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_AI_ENABLED: 'false',
		N8N_METRICS: 'false',
		// logs as one JSON object per line on stdout: the result of `execute` is one of them
		N8N_LOG_OUTPUT: 'console',
		N8N_LOG_FORMAT: 'json',
		N8N_LOG_LEVEL: 'info',
		// runtime behaviour under test
		N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem',
		N8N_BLOCK_ENV_ACCESS_IN_NODE: 'true',
		N8N_SECURE_COOKIE: 'false',
		N8N_SSRF_PROTECTION_ENABLED: 'false', // the sandbox runs on 127.0.0.1
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		N8N_REINSTALL_MISSING_PACKAGES: 'false',
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		// explicit defaults, only to silence n8n's "default will change" warnings
		N8N_RUNNERS_TASK_TIMEOUT: '300',
		N8N_COMPRESSION_NODE_MAX_DECOMPRESSED_SIZE_BYTES: String(2 * 1024 ** 3),
		N8N_COMPRESSION_NODE_MAX_ZIP_ENTRIES: '5000',
		N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '15',
		// 2.x: its start-up task fetches api.n8n.io/api/mcp-servers (ENOTFOUND offline, logged as
		// errors). 1.x has no such module and refuses to start when the list names an unknown one.
		...(home.runtime.major >= 2 ? { N8N_DISABLED_MODULES: 'mcp-registry' } : {}),
		...home.runtime.env,
		...home.extraEnv,
		...extra,
	};
	return env;
}

// ------------------------------------------------------------------------------------
// Running n8n commands
// ------------------------------------------------------------------------------------

/** One line of n8n's JSON log output */
export interface N8nLogLine {
	level: string;
	message: string;
	metadata?: Record<string, unknown>;
}

export interface N8nCommandResult {
	args: string[];
	exitCode: number | null;
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
	/** stdout lines that were n8n log records */
	logs: N8nLogLine[];
	durationMs: number;
}

/** Runs `n8n <args>` in a home and waits for it. Never throws on a non-zero exit. */
export async function runN8n(
	home: N8nHome,
	args: string[],
	opts: { timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<N8nCommandResult> {
	const brokerPort = await freePort();
	const res = await run(home.runtime.node, [home.runtime.bin, ...args], {
		cwd: home.cwd,
		env: n8nEnv(home, brokerPort, opts.env),
		timeoutMs: opts.timeoutMs ?? 5 * 60_000,
	});
	return { args, ...res, logs: parseLogLines(res.stdout) };
}

export function parseLogLines(stdout: string): N8nLogLine[] {
	const logs: N8nLogLine[] = [];
	for (const line of stdout.split('\n')) {
		if (!line.startsWith('{"level"')) continue;
		try {
			const rec = JSON.parse(line);
			if (rec && typeof rec.message === 'string') logs.push(rec as N8nLogLine);
		} catch {
			/* not a log line */
		}
	}
	return logs;
}

function commandError(what: string, res: N8nCommandResult): Error {
	const errors = res.logs
		.filter((l) => l.level === 'error' || l.level === 'warn')
		.map((l) => `${l.level}: ${l.message}`);
	return new Error(
		`${what} failed (exit ${res.exitCode ?? res.signal}):\n` +
			(errors.length ? errors.join('\n') : `${tail(res.stdout)}\n${tail(res.stderr)}`),
	);
}

/** A loaded node type as `n8n export:nodes` writes it (the node's description, abridged here) */
export interface N8nNodeTypeDescription {
	name: string;
	displayName: string;
	version: number | number[];
	[key: string]: unknown;
}

/** Descriptions of every node type n8n loads in this home (`n8n export:nodes`). */
export async function exportNodeTypes(home: N8nHome): Promise<N8nNodeTypeDescription[]> {
	const out = path.join(home.dir, `nodes-${randomId(6)}.json`);
	const res = await runN8n(home, ['export:nodes', `--output=${out}`]);
	if (res.exitCode !== 0 || !existsSync(out)) throw commandError('n8n export:nodes', res);
	const text = await readFile(out, 'utf8');
	await rm(out, { force: true });
	if (!text.trimEnd().endsWith(']')) throw new Error(`n8n export:nodes wrote an incomplete ${out}`);
	return JSON.parse(text) as N8nNodeTypeDescription[];
}

/** Names of every node type n8n loads in this home, e.g. 'n8n-nodes-base.set'. */
export async function listNodeTypes(home: N8nHome): Promise<string[]> {
	return [...new Set((await exportNodeTypes(home)).map((t) => t.name))].sort();
}

function latestVersions(types: N8nNodeTypeDescription[]): Record<string, number> {
	const out: Record<string, number> = {};
	for (const t of types) {
		const v = Math.max(...(Array.isArray(t.version) ? t.version : [t.version]));
		out[t.name] = Math.max(out[t.name] ?? 0, v);
	}
	return out;
}

// ------------------------------------------------------------------------------------
// Credentials and workflows
// ------------------------------------------------------------------------------------

export interface N8nCredential {
	/** Kept as given, so workflows can refer to it: nodes[].credentials.<type> = { id, name } */
	id: string;
	name: string;
	/** Credential type name, e.g. 'mediaGenApi' */
	type: string;
	/** Plain values; n8n 2.40.7's import:credentials encrypts object `data` itself */
	data: Record<string, unknown>;
}

/**
 * `n8n import:credentials --input=<file>`. In 2.40.7 the file is an array; a `data` given as
 * an object is taken as plain text and encrypted with the instance key (a string is taken as
 * already encrypted). No `--decrypted` flag is needed (or exists).
 */
export async function importCredentials(home: N8nHome, creds: N8nCredential[]): Promise<void> {
	const file = path.join(home.dir, `credentials-${randomId(6)}.json`);
	await writeFile(file, JSON.stringify(creds, null, 2));
	try {
		const res = await runN8n(home, ['import:credentials', `--input=${file}`]);
		const ok = res.logs.some((l) => /^Successfully imported \d+ credential/.test(l.message));
		if (res.exitCode !== 0 || !ok) throw commandError('n8n import:credentials', res);
	} finally {
		await rm(file, { force: true }); // plain-text secrets
	}
}

/** A workflow as exported by n8n (only nodes and connections are required). */
export interface N8nWorkflow {
	id?: string;
	name?: string;
	nodes: Array<Record<string, unknown>>;
	connections: Record<string, unknown>;
	settings?: Record<string, unknown>;
	active?: boolean;
	[key: string]: unknown;
}

/**
 * `n8n import:workflow --input=<file>`; returns the workflow id. n8n does not print the id
 * of what it imported, so a workflow without one gets a fresh 16-character id here.
 * Importing again with the same id replaces the workflow.
 */
export async function importWorkflow(home: N8nHome, wf: N8nWorkflow): Promise<string> {
	const id = wf.id ?? randomId(16);
	const body = { name: `e2e ${id}`, active: false, settings: {}, ...wf, id };
	const file = path.join(home.dir, `workflow-${id}.json`);
	await writeFile(file, JSON.stringify(body, null, 2));
	const res = await runN8n(home, ['import:workflow', `--input=${file}`]);
	const ok = res.logs.some((l) => /^Successfully imported 1 workflow/.test(l.message));
	if (res.exitCode !== 0 || !ok) throw commandError('n8n import:workflow', res);
	return id;
}

/**
 * Several workflows in one n8n call (`n8n import:workflow --separate --input=<dir>`, one boot of
 * n8n instead of one per workflow); returns their ids in order.
 */
export async function importWorkflows(home: N8nHome, wfs: N8nWorkflow[]): Promise<string[]> {
	if (wfs.length === 0) return [];
	const dir = path.join(home.dir, `workflows-${randomId(6)}`);
	await mkdir(dir, { recursive: true });
	const ids: string[] = [];
	try {
		for (const wf of wfs) {
			const id = wf.id ?? randomId(16);
			ids.push(id);
			const body = { name: `e2e ${id}`, active: false, settings: {}, ...wf, id };
			await writeFile(path.join(dir, `${id}.json`), JSON.stringify(body, null, 2));
		}
		const res = await runN8n(home, ['import:workflow', '--separate', `--input=${dir}`]);
		const ok = res.logs.some((l) =>
			new RegExp(`^Successfully imported ${wfs.length} workflow`).test(l.message),
		);
		if (res.exitCode !== 0 || !ok) throw commandError('n8n import:workflow --separate', res);
	} finally {
		await rm(dir, { recursive: true, force: true });
	}
	return ids;
}

/**
 * `n8n publish:workflow --id=…` (2.x's activation; 1.x has `update:workflow --active=true`
 * instead): a published workflow with a trigger is activated by the next `n8n start`.
 */
export async function publishWorkflow(home: N8nHome, id: string): Promise<void> {
	const args =
		home.runtime.major >= 2
			? ['publish:workflow', `--id=${id}`]
			: ['update:workflow', `--id=${id}`, '--active=true'];
	const res = await runN8n(home, args);
	if (res.exitCode !== 0) throw commandError(`n8n ${args[0]}`, res);
}

// ------------------------------------------------------------------------------------
// Executing
// ------------------------------------------------------------------------------------

/** One run of one node, as in n8n's IRunData */
export interface N8nNodeRun {
	startTime: number;
	executionIndex?: number;
	executionTime: number;
	executionStatus?: string;
	source: Array<{
		previousNode: string;
		previousNodeOutput?: number;
		previousNodeRun?: number;
	} | null>;
	hints?: unknown[];
	/** outputs by connection type; main[outputIndex] = items */
	data?: { main?: Array<Array<N8nItem> | null> } & Record<string, unknown>;
	/** set when the node failed (also with continue-on-fail off, for the failing node) */
	error?: N8nError;
}

export interface N8nItem {
	json: Record<string, unknown>;
	binary?: Record<string, N8nBinary>;
	pairedItem?: unknown;
	error?: unknown;
}

export interface N8nBinary {
	mimeType: string;
	fileName?: string;
	fileExtension?: string;
	fileSize?: string;
	bytes?: number;
	/** filesystem mode: "filesystem-v2:workflows/<wf>/executions/<ex>/binary_data/<uuid>" */
	id?: string;
	data?: string;
	[key: string]: unknown;
}

export interface N8nError {
	message: string;
	name?: string;
	description?: string | null;
	node?: { name: string; type: string; [key: string]: unknown };
	httpCode?: string | number;
	stack?: string;
	[key: string]: unknown;
}

/** The IRun object that `n8n execute --rawOutput` prints */
export interface N8nRun {
	data: {
		version?: number;
		startData?: unknown;
		resultData: {
			runData: Record<string, N8nNodeRun[]>;
			lastNodeExecuted?: string;
			error?: N8nError;
		};
		executionData?: unknown;
	};
	mode: string;
	startedAt: string;
	stoppedAt?: string;
	status: string;
	finished?: boolean;
	storedAt?: string;
}

export interface ExecuteResult {
	/** The workflow ran to the end without a workflow error */
	ok: boolean;
	/** n8n's execution status ('success', 'error', 'canceled', ...), or 'no-run' when n8n
	 * failed before running (unknown node type, bad id, crash...) */
	status: string;
	/** The printed run (also for failed runs, taken from the log line n8n writes then) */
	run?: N8nRun;
	/** run.data.resultData.runData, or {} */
	runData: Record<string, N8nNodeRun[]>;
	lastNodeExecuted?: string;
	/** The workflow error, or the command's error message when there was no run */
	error?: N8nError;
	/** exit code of the n8n process (0 success, 1 workflow or command error) */
	exitCode: number | null;
	signal: NodeJS.Signals | null;
	/**
	 * n8n 2.40.7's `execute` sometimes segfaults while exiting, after it printed its result:
	 * it calls process.exit() while the isolated-vm expression pool is still creating its
	 * replacement isolate (docs/n8n-runtime.md). Such a run is reported normally, with this set.
	 */
	crashedAtExit: boolean;
	durationMs: number;
	logs: N8nLogLine[];
	stdout: string;
	stderr: string;
}

/** `n8n execute --id=… --rawOutput`, parsed. Never throws for a failed workflow. */
export async function executeWorkflow(
	home: N8nHome,
	id: string,
	opts: { timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<ExecuteResult> {
	const res = await runN8n(home, ['execute', `--id=${id}`, '--rawOutput'], opts);
	const run = findRun(res.logs);
	const crashedAtExit = run !== undefined && (res.signal === 'SIGSEGV' || res.exitCode === 139);
	const runData = run?.data.resultData.runData ?? {};
	let error = run?.data.resultData.error;
	if (!run) {
		const messages = res.logs.filter((l) => l.level === 'error').map((l) => l.message);
		// execute.js logs: "Error executing workflow…", "\nExecution error:", <message>, <stack>
		// an unknown id is only logged at info level: 'The workflow with the id "x" does not exist.'
		const msg =
			messages.find(
				(m) =>
					!/^(Error executing workflow|\s*Execution error:)/.test(m) && !m.includes('\n    at '),
			) ??
			res.logs.find((l) => /does not exist|has to be set/.test(l.message))?.message ??
			(res.signal ? `n8n was killed by ${res.signal}` : `n8n exited with ${res.exitCode}`);
		error = { message: msg };
	}
	const status = run ? run.status : 'no-run';
	return {
		ok: run !== undefined && status === 'success' && !error,
		status,
		run,
		runData,
		lastNodeExecuted: run?.data.resultData.lastNodeExecuted,
		error,
		exitCode: res.exitCode,
		signal: res.signal,
		crashedAtExit,
		durationMs: res.durationMs,
		logs: res.logs,
		stdout: res.stdout,
		stderr: res.stderr,
	};
}

/** The run object is logged as one info message holding JSON.stringify(run, null, 2). */
function findRun(logs: N8nLogLine[]): N8nRun | undefined {
	for (let i = logs.length - 1; i >= 0; i--) {
		const m = logs[i].message;
		if (!m.startsWith('{')) continue;
		try {
			const obj = JSON.parse(m);
			if (obj?.data?.resultData) return obj as N8nRun;
		} catch {
			/* not the run */
		}
	}
	return undefined;
}

/** Items of one node's output: `items(result, 'Set')[0].json`. */
export function nodeItems(
	result: Pick<ExecuteResult, 'runData'>,
	nodeName: string,
	opts: { run?: number; output?: number } = {},
): N8nItem[] {
	const runs = result.runData[nodeName];
	if (!runs) {
		throw new Error(
			`node "${nodeName}" did not run; ran: ${Object.keys(result.runData).join(', ')}`,
		);
	}
	const r = runs[opts.run ?? 0];
	if (!r) throw new Error(`node "${nodeName}" has no run ${opts.run ?? 0}`);
	return r.data?.main?.[opts.output ?? 0] ?? [];
}

/** A short description of a result for assertion messages. */
export function describeResult(r: ExecuteResult): string {
	const nodes = Object.entries(r.runData)
		.map(
			([n, runs]) =>
				`${n}:${runs.map((x) => x.executionStatus ?? (x.error ? 'error' : 'ok')).join('/')}`,
		)
		.join(' ');
	return (
		`status=${r.status} exit=${r.exitCode ?? r.signal}${r.crashedAtExit ? ' (crashed at exit)' : ''} ` +
		`nodes=[${nodes}]${r.error ? ` error=${r.error.message}` : ''}`
	);
}

// ------------------------------------------------------------------------------------
// Long-running n8n (trigger, editor)
// ------------------------------------------------------------------------------------

export interface N8nInstance {
	port: number;
	/** http://127.0.0.1:<port> (no trailing slash) */
	url: string;
	/** Production webhook URL of a path: <url>/webhook/<path> */
	webhookUrl(webhookPath: string): string;
	process: ChildProcess;
	/** Log records so far */
	logs(): N8nLogLine[];
	/** Raw output so far */
	output(): string;
	/**
	 * Resolves once a production webhook is registered (the workflow is active), without calling
	 * it: a CORS preflight (OPTIONS with Origin) answers 204 for a registered webhook, an error before.
	 * Since 2.x, `n8n start` activates published workflows asynchronously, after readiness.
	 */
	waitForWebhook(webhookPath: string, method?: string, timeoutMs?: number): Promise<void>;
	/** Resolves when a log message matching `re` appears (rejects after timeoutMs) */
	waitForLog(re: RegExp, timeoutMs?: number): Promise<N8nLogLine>;
	/** SIGTERM, then SIGKILL after 20 s; resolves when the process is gone */
	stop(): Promise<void>;
	/**
	 * What a deploy or the kernel does to n8n: SIGKILL (the process group, at once) or SIGTERM
	 * (n8n's own graceful shutdown, however long it takes). Resolves when the process is gone;
	 * what is left of its group (the task runner) is killed then.
	 */
	kill(signal: 'SIGKILL' | 'SIGTERM'): Promise<{ code: number | null; signal: string | null }>;
}

/**
 * `n8n start` on 127.0.0.1:<port>; resolves once /healthz/readiness answers 200.
 * `command: 'webhook'` starts a webhook process the same way (queue mode), and
 * `command: 'worker'` a worker (no HTTP; resolved when it logs "n8n worker is now ready").
 */
export async function startN8n(
	home: N8nHome,
	port?: number,
	opts: {
		timeoutMs?: number;
		env?: Record<string, string>;
		command?: 'start' | 'webhook' | 'worker';
	} = {},
): Promise<N8nInstance> {
	const command = opts.command ?? 'start';
	const p = port ?? (await freePort());
	const url = `http://127.0.0.1:${p}`;
	const env = n8nEnv(home, await freePort(), {
		N8N_PORT: String(p),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		N8N_EDITOR_BASE_URL: `${url}/`,
		N8N_WEBHOOK_URL: `${url}/`,
		// published workflows are activated through an outbox polled every 15 s by default
		N8N_WORKFLOW_PUBLICATION_OUTBOX_POLL_INTERVAL_MS: '500',
		...(opts.env ?? {}),
	});
	const child = spawn(home.runtime.node, [home.runtime.bin, command], {
		cwd: home.cwd,
		env,
		stdio: ['ignore', 'pipe', 'pipe'],
		detached: true, // own process group: stop() can take the task runner down with it
	});
	let out = '';
	let partial = '';
	const logs: N8nLogLine[] = [];
	const waiters: Array<{ re: RegExp; resolve: (l: N8nLogLine) => void }> = [];
	const onData = (chunk: Buffer) => {
		const s = chunk.toString('utf8');
		out += s;
		partial += s;
		const lines = partial.split('\n');
		partial = lines.pop() ?? '';
		for (const rec of parseLogLines(lines.join('\n'))) {
			logs.push(rec);
			for (const w of [...waiters]) {
				if (w.re.test(rec.message)) {
					waiters.splice(waiters.indexOf(w), 1);
					w.resolve(rec);
				}
			}
		}
	};
	child.stdout!.on('data', onData);
	child.stderr!.on('data', (c: Buffer) => (out += c.toString('utf8')));
	let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
	const exitPromise = new Promise<void>((resolve) =>
		child.on('exit', (code, signal) => {
			exited = { code, signal };
			resolve();
		}),
	);

	const stop = async () => {
		if (exited) return;
		try {
			child.kill('SIGTERM');
		} catch {
			/* gone */
		}
		const timer = setTimeout(() => {
			try {
				process.kill(-child.pid!, 'SIGKILL');
			} catch {
				/* gone */
			}
		}, 20_000);
		await exitPromise;
		clearTimeout(timer);
		try {
			process.kill(-child.pid!, 'SIGKILL'); // leftovers of the group (task runner)
		} catch {
			/* none */
		}
	};

	const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
	for (;;) {
		if (exited) {
			throw new Error(
				`n8n ${command} exited (${exited.code ?? exited.signal}) before it was ready:\n${tail(out)}`,
			);
		}
		if (Date.now() > deadline) {
			await stop();
			throw new Error(
				`n8n ${command}: not ready in time (${url}/healthz/readiness):\n${tail(out)}`,
			);
		}
		if (command === 'worker') {
			if (logs.some((l) => /n8n worker is now ready/.test(l.message))) break;
			await sleep(250);
			continue;
		}
		try {
			// /healthz answers as soon as the HTTP server listens, while migrations may still run
			// ("n8n is starting up. Please wait"); /healthz/readiness waits for the database and
			// for the end of startup (workflows activated)
			const r = await fetch(`${url}/healthz/readiness`, { signal: AbortSignal.timeout(2000) });
			// 1.x answers readiness before its REST routes exist: wait for one of them too
			if (
				r.status === 200 &&
				(home.runtime.major >= 2 || command !== 'start' || (await restUp(url)))
			)
				break;
		} catch {
			/* not listening yet */
		}
		await sleep(250);
	}

	const kill = async (signal: 'SIGKILL' | 'SIGTERM') => {
		try {
			if (signal === 'SIGKILL') process.kill(-child.pid!, 'SIGKILL');
			else child.kill('SIGTERM');
		} catch {
			/* gone */
		}
		await exitPromise;
		try {
			process.kill(-child.pid!, 'SIGKILL');
		} catch {
			/* none */
		}
		return { code: exited?.code ?? null, signal: exited?.signal ?? null };
	};

	return {
		port: p,
		url,
		webhookUrl: (webhookPath: string) => `${url}/webhook/${webhookPath.replace(/^\//, '')}`,
		process: child,
		logs: () => [...logs],
		output: () => out,
		waitForWebhook: async (webhookPath, method = 'POST', timeoutMs = 30_000) => {
			const target = `${url}/webhook/${webhookPath.replace(/^\//, '')}`;
			const end = Date.now() + timeoutMs;
			let last = 0;
			while (Date.now() < end) {
				if (exited) throw new Error(`n8n exited while waiting for webhook ${webhookPath}`);
				const r = await fetch(target, {
					method: 'OPTIONS',
					headers: { origin: url, 'access-control-request-method': method.toUpperCase() },
				}).catch(() => undefined);
				last = r?.status ?? 0;
				// registered: 204; not (yet) registered: 404 or 500 ("webhook is not registered")
				if (r && r.status >= 200 && r.status < 300) return;
				await sleep(200);
			}
			throw new Error(
				`webhook ${method} ${webhookPath} not registered after ${timeoutMs} ms (last status ${last})`,
			);
		},
		waitForLog: (re, timeoutMs = 30_000) => {
			const seen = logs.find((l) => re.test(l.message));
			if (seen) return Promise.resolve(seen);
			return new Promise<N8nLogLine>((resolve, reject) => {
				const w = { re, resolve };
				waiters.push(w);
				setTimeout(() => {
					const i = waiters.indexOf(w);
					if (i >= 0) {
						waiters.splice(i, 1);
						reject(new Error(`no n8n log line matching ${re} within ${timeoutMs} ms`));
					}
				}, timeoutMs).unref();
			});
		},
		stop,
		kill,
	};
}

/** A REST route every n8n serves once its controllers are registered (no login needed). */
async function restUp(url: string): Promise<boolean> {
	const r = await fetch(`${url}/rest/settings`, { signal: AbortSignal.timeout(2000) }).catch(
		() => undefined,
	);
	return r?.status === 200;
}

export interface N8nOwner {
	email: string;
	password: string;
	firstName: string;
	lastName: string;
	/** `Cookie` header value for authenticated REST calls (`n8n-auth=…`) */
	cookie: string;
}

/**
 * Creates the instance owner of a fresh home (`POST /rest/owner/setup`, what the editor's first
 * page does) and returns the session cookie, for REST calls and for the editor in a browser. A
 * home whose owner was set up by an earlier `n8n start` ("Instance owner already setup") is
 * signed in to instead (`POST /rest/login`, the same email and password).
 */
export async function setupOwner(
	n8n: Pick<N8nInstance, 'url'>,
	owner: Partial<Omit<N8nOwner, 'cookie'>> = {},
): Promise<N8nOwner> {
	const body = {
		email: owner.email ?? 'owner@example.com',
		password: owner.password ?? 'E2e-password-1',
		firstName: owner.firstName ?? 'E2E',
		lastName: owner.lastName ?? 'Owner',
	};
	let res = await fetch(`${n8n.url}/rest/owner/setup`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	if (res.status === 400 && /already setup/i.test(await res.clone().text())) {
		res = await fetch(`${n8n.url}/rest/login`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ emailOrLdapLoginId: body.email, password: body.password }),
		});
	}
	if (res.status !== 200) throw new Error(`owner setup: HTTP ${res.status} ${await res.text()}`);
	const cookie = res.headers
		.getSetCookie()
		.map((c) => c.split(';')[0])
		.filter((c) => c.startsWith('n8n-auth='))
		.join('; ');
	if (!cookie) throw new Error('owner setup: no n8n-auth cookie in the response');
	return { ...body, cookie };
}

/** n8n's REST API as the logged-in owner: `rest('GET', '/executions')` answers `data`. */
export function restOf(n8n: () => Pick<N8nInstance, 'url'>, owner: () => Pick<N8nOwner, 'cookie'>) {
	return async <T>(method: string, url: string, body?: unknown): Promise<T> => {
		const res = await fetch(`${n8n().url}/rest${url}`, {
			method,
			headers: {
				cookie: owner().cookie,
				...(body !== undefined ? { 'content-type': 'application/json' } : {}),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await res.text();
		if (res.status !== 200) throw new Error(`${method} /rest${url}: HTTP ${res.status} ${text}`);
		return (JSON.parse(text) as { data: T }).data;
	};
}

// ------------------------------------------------------------------------------------
// Packing the repository
// ------------------------------------------------------------------------------------

/** True if the checkout's dist/ holds a built package (the files package.json's n8n field names). */
export function hasBuiltPackage(repoDir = REPO_ROOT): boolean {
	try {
		const pkg = JSON.parse(readFileSync(path.join(repoDir, 'package.json'), 'utf8'));
		const files: string[] = [...(pkg.n8n?.nodes ?? []), ...(pkg.n8n?.credentials ?? [])];
		return files.length > 0 && files.every((f) => existsSync(path.join(repoDir, f)));
	} catch {
		return false;
	}
}

/** `npm pack --pack-destination <destDir>`: the tarball never lands in the repository. */
export async function packRepo(destDir: string, repoDir = REPO_ROOT): Promise<string> {
	await mkdir(destDir, { recursive: true });
	const res = await run(
		'npm',
		['pack', '--pack-destination', destDir, '--ignore-scripts', '--loglevel=error'],
		{
			cwd: repoDir,
			env: cleanEnv(process.env),
			timeoutMs: 5 * 60_000,
		},
	);
	if (res.exitCode !== 0) throw new Error(`npm pack failed: ${res.stderr}`);
	const name = res.stdout.trim().split('\n').pop()!.trim();
	const file = path.join(destDir, name);
	if (!existsSync(file)) {
		const tgz = (await readdir(destDir)).filter((f) => f.endsWith('.tgz'));
		throw new Error(`npm pack printed ${name} but ${destDir} holds [${tgz.join(', ')}]`);
	}
	return file;
}

// ------------------------------------------------------------------------------------
// Redis (queue mode)
// ------------------------------------------------------------------------------------

export interface RedisServer {
	port: number;
	stop(): Promise<void>;
}

/** The `redis-server` binary (Debian package redis-server), or undefined when not installed. */
export function redisServerBinary(): string | undefined {
	for (const dir of (process.env.PATH ?? '')
		.split(path.delimiter)
		.concat(['/usr/bin', '/usr/sbin'])) {
		const p = path.join(dir, 'redis-server');
		if (dir && existsSync(p)) return p;
	}
	return undefined;
}

/** A throw-away redis-server on 127.0.0.1 (no persistence); resolves when it accepts connections. */
export async function startRedis(port?: number): Promise<RedisServer> {
	const bin = redisServerBinary();
	if (!bin) throw new Error('redis-server is not installed (apt-get install redis-server)');
	const p = port ?? (await freePort());
	const child = spawn(
		bin,
		['--port', String(p), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
		{
			stdio: ['ignore', 'pipe', 'pipe'],
		},
	);
	let out = '';
	await new Promise<void>((resolve, reject) => {
		const timer = setTimeout(
			() => reject(new Error(`redis-server did not start:\n${out}`)),
			20_000,
		);
		const onData = (c: Buffer) => {
			out += c.toString('utf8');
			if (/Ready to accept connections/.test(out)) {
				clearTimeout(timer);
				resolve();
			}
		};
		child.stdout!.on('data', onData);
		child.stderr!.on('data', onData);
		child.on('exit', (code) => {
			clearTimeout(timer);
			reject(new Error(`redis-server exited (${code}):\n${out}`));
		});
	});
	return {
		port: p,
		stop: () =>
			new Promise<void>((resolve) => {
				if (child.exitCode !== null || child.signalCode !== null) return resolve();
				child.once('exit', () => resolve());
				child.kill('SIGTERM');
			}),
	};
}

// ------------------------------------------------------------------------------------
// PostgreSQL (queue mode's production database)
// ------------------------------------------------------------------------------------

export interface PostgresServer {
	port: number;
	/** DB_* variables that point n8n at this server's `n8n` database */
	n8nEnv: Record<string, string>;
	/** Runs one SQL statement in the `n8n` database (psql); returns the rows, columns split on `|` */
	query(sql: string): Promise<string[][]>;
	/** Stops the server and removes its data directory */
	stop(): Promise<void>;
}

/** The bin directory of Debian's `postgresql` package (initdb, pg_ctl), newest major first. */
export function postgresBinDir(): string | undefined {
	const root = '/usr/lib/postgresql';
	if (!existsSync(root)) return undefined;
	const majors = readdirSync(root)
		.filter((d) => /^\d+$/.test(d))
		.sort((a, b) => Number(b) - Number(a));
	for (const m of majors) {
		const bin = path.join(root, m, 'bin');
		if (existsSync(path.join(bin, 'initdb')) && existsSync(path.join(bin, 'pg_ctl'))) return bin;
	}
	return undefined;
}

/**
 * A throw-away PostgreSQL server on 127.0.0.1:<free port>, its data directory in a temp folder,
 * with a database `n8n`. PostgreSQL refuses to run as root: as root, every server command runs
 * as the `postgres` user (the Debian package creates it) through `runuser`. `stop()` shuts it
 * down (`pg_ctl stop -m fast`) and removes the folder.
 */
export async function startPostgres(port?: number): Promise<PostgresServer> {
	const bin = postgresBinDir();
	if (!bin) throw new Error('PostgreSQL is not installed (apt-get install postgresql)');
	const asRoot = process.getuid?.() === 0;
	const dir = await mkdtemp(path.join(tmpdir(), 'mediagen-postgres-'));
	const data = path.join(dir, 'data');
	const logFile = path.join(dir, 'server.log');
	if (asRoot) {
		const ids = await run('id', ['-u', 'postgres'], { timeoutMs: 10_000 });
		const gids = await run('id', ['-g', 'postgres'], { timeoutMs: 10_000 });
		if (ids.exitCode !== 0) throw new Error('running as root, but there is no `postgres` user');
		await chown(dir, Number(ids.stdout.trim()), Number(gids.stdout.trim()));
	}
	/** A PostgreSQL command as the server's owner (never root) */
	const pg = (cmd: string, args: string[]) =>
		asRoot
			? run('runuser', ['-u', 'postgres', '--', path.join(bin, cmd), ...args], {
					cwd: dir,
					timeoutMs: 120_000,
				})
			: run(path.join(bin, cmd), args, { cwd: dir, timeoutMs: 120_000 });
	const must = async (what: string, res: Promise<RunResult>) => {
		const r = await res;
		if (r.exitCode !== 0) {
			const log = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '';
			throw new Error(
				`${what} failed (exit ${r.exitCode}):\n${r.stdout}\n${r.stderr}\n${tail(log)}`,
			);
		}
		return r;
	};
	const p = port ?? (await freePort());
	let started = false;
	const stop = async () => {
		if (started) await pg('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
		started = false;
		await rm(dir, { recursive: true, force: true, maxRetries: 3 });
	};
	try {
		await must(
			'initdb',
			pg('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-locale']),
		);
		// only TCP on 127.0.0.1; the socket in the temp folder (not /var/run/postgresql)
		const opts = `-p ${p} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off`;
		await must(
			'pg_ctl start',
			pg('pg_ctl', ['-D', data, '-o', opts, '-l', logFile, '-w', 'start']),
		);
		started = true;
		await must(
			'createdb n8n',
			pg('createdb', ['-h', '127.0.0.1', '-p', String(p), '-U', 'postgres', 'n8n']),
		);
	} catch (e) {
		await stop().catch(() => undefined);
		throw new Error(`PostgreSQL in ${dir}: ${(e as Error).message}`, { cause: e });
	}
	return {
		port: p,
		n8nEnv: {
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: '127.0.0.1',
			DB_POSTGRESDB_PORT: String(p),
			DB_POSTGRESDB_DATABASE: 'n8n',
			DB_POSTGRESDB_USER: 'postgres',
			DB_POSTGRESDB_PASSWORD: 'unused-trust-auth',
		},
		query: async (sql) => {
			const r = await must(
				`psql ${sql}`,
				pg('psql', [
					'-h',
					'127.0.0.1',
					'-p',
					String(p),
					'-U',
					'postgres',
					'-d',
					'n8n',
					'-tA',
					'-c',
					sql,
				]),
			);
			return r.stdout
				.split('\n')
				.filter((l) => l !== '')
				.map((l) => l.split('|'));
		},
		stop,
	};
}

// ------------------------------------------------------------------------------------
// Small helpers
// ------------------------------------------------------------------------------------

export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const srv = createServer();
		srv.unref();
		srv.on('error', reject);
		srv.listen(0, '127.0.0.1', () => {
			const addr = srv.address();
			const port = typeof addr === 'object' && addr ? addr.port : 0;
			srv.close(() => resolve(port));
		});
	});
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export function randomId(len: number): string {
	const bytes = randomBytes(len);
	return Array.from(bytes, (b) => ALNUM[b % ALNUM.length]).join('');
}

function sleep(ms: number) {
	return new Promise((r) => setTimeout(r, ms));
}

function tail(s: string, n = 40): string {
	return s.split('\n').slice(-n).join('\n');
}

interface RunResult {
	exitCode: number | null;
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
	durationMs: number;
}

function run(
	cmd: string,
	args: string[],
	opts: {
		cwd?: string;
		env?: Record<string, string | undefined>;
		timeoutMs: number;
		stdio?: StdioOptions;
	},
): Promise<RunResult> {
	return new Promise((resolve, reject) => {
		const started = Date.now();
		const child = spawn(cmd, args, {
			cwd: opts.cwd,
			env: opts.env as NodeJS.ProcessEnv,
			stdio: opts.stdio ?? ['ignore', 'pipe', 'pipe'],
		});
		let stdout = '';
		let stderr = '';
		child.stdout?.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
		child.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
		const timer = setTimeout(() => {
			stderr += `\n[e2e] killed after ${opts.timeoutMs} ms`;
			child.kill('SIGKILL');
		}, opts.timeoutMs);
		child.on('error', (e) => {
			clearTimeout(timer);
			reject(e);
		});
		child.on('close', (code, signal) => {
			clearTimeout(timer);
			resolve({ exitCode: code, signal, stdout, stderr, durationMs: Date.now() - started });
		});
	});
}
