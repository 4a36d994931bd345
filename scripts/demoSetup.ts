/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/require-node-api-error -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * What `npm run demo` (scripts/demo.ts), `npm start` (scripts/start.ts) and the e2e suite share:
 * the packed package installed into a real n8n home, the sandbox, the "MediaGen sandbox"
 * credential, the examples (examples/*.json) imported, and running them (headless with
 * `n8n execute`, or, for a trigger, in a running `n8n start` fed by the sandbox's webhooks).
 *
 * The real n8n is driven by test/harness/e2e/n8n.ts (see docs/n8n-runtime.md).
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import type { Sandbox } from '../sandbox';
import { startSandbox } from '../sandbox';
import type {
	ExecuteResult,
	N8nHome,
	N8nInstance,
	N8nItem,
	N8nNodeTypeDescription,
	N8nWorkflow,
} from '../test/harness/e2e/n8n';
import {
	createN8nHome,
	describeResult,
	ensureRuntime,
	executeWorkflow,
	exportNodeTypes,
	importCredentials,
	importWorkflows,
	packRepo,
	publishWorkflow,
	REPO_ROOT,
	setupOwner,
	startN8n,
} from '../test/harness/e2e/n8n';

export const EXAMPLES_DIR = path.join(REPO_ROOT, 'examples');
export const PACKAGE_NAME = 'n8n-nodes-mediagen';

/** The credential every example refers to (nodes[].credentials.mediaGenApi). */
export const SANDBOX_CREDENTIAL = { id: 'mgSandboxCred001', name: 'MediaGen sandbox' };

export type Log = (line: string) => void;

// ------------------------------------------------------------------------------------
// Examples
// ------------------------------------------------------------------------------------

export interface Example {
	/** examples/<file> */
	file: string;
	workflow: N8nWorkflow & { id: string; name: string };
	/** Node types of this package the example uses */
	packageNodeTypes: string[];
	/**
	 * 'trigger': starts from the MediaGen Trigger, runs in `n8n start`; 'manual': `n8n execute`;
	 * 'pair': one of two examples that run together in `n8n start` (EXAMPLE_PAIRS)
	 */
	kind: 'manual' | 'trigger' | 'pair';
}

/**
 * Examples that run as a pair, in one `n8n start`: a trigger example that finishes the jobs
 * (the key) and the manual example that starts them, one per row of a sheet
 * (runExamplePair).
 */
export const EXAMPLE_PAIRS: Record<string, string> = {
	'long-jobs-finish.json': 'long-jobs-start.json',
};

/** The pair an example file belongs to, as [finishing file, starting file]. */
export function pairOf(file: string): [string, string] | undefined {
	return Object.entries(EXAMPLE_PAIRS).find(([finish, start]) => file === finish || file === start);
}

export function loadExamples(dir = EXAMPLES_DIR): Example[] {
	return readdirSync(dir)
		.filter((f) => f.endsWith('.json'))
		.sort()
		.map((file) => {
			const workflow = JSON.parse(
				readFileSync(path.join(dir, file), 'utf8'),
			) as Example['workflow'];
			const types = workflow.nodes.map((n) => String(n.type));
			const packageNodeTypes = [...new Set(types.filter((t) => t.startsWith(`${PACKAGE_NAME}.`)))];
			const trigger = types.includes(`${PACKAGE_NAME}.mediaGenTrigger`);
			const kind = pairOf(file) ? 'pair' : trigger ? 'trigger' : 'manual';
			return { file, workflow, packageNodeTypes, kind };
		});
}

interface PropertyOption {
	value?: unknown;
}
interface Property {
	name: string;
	options?: PropertyOption[];
	displayOptions?: { show?: Record<string, unknown[]> };
}

/** n8n's AI nodes (AI Agent, chat models, MCP Server Trigger) */
const LANGCHAIN_PREFIX = '@n8n/n8n-nodes-langchain.';

/**
 * An example built on n8n's AI nodes (examples/ai-agent.json, examples/mcp-server.json): it needs
 * a chat model or an MCP client, which `n8n execute` does not have. The demo and the
 * compatibility matrix report it as skipped; test/e2e/agent.e2e.test.ts and mcp.e2e.test.ts run
 * it in n8n 2.40.7 (with a scripted model and the MCP SDK's client).
 */
export function isAiExample(ex: Pick<Example, 'workflow'>): boolean {
	return ex.workflow.nodes.some((n) => String(n.type).startsWith(LANGCHAIN_PREFIX));
}
export const AI_EXAMPLE_REASON =
	'an AI example (AI Agent or MCP Server Trigger): it needs a chat model or an MCP client; ' +
	'test/e2e/agent.e2e.test.ts and test/e2e/mcp.e2e.test.ts run it';

/**
 * Why an example cannot run with the built package (a node type it needs is not built or not
 * listed in package.json's n8n.nodes, or a resource/operation it uses does not exist), or
 * undefined when it can.
 */
export function whyNotRunnable(ex: Example, loaded: N8nNodeTypeDescription[]): string | undefined {
	if (isAiExample(ex)) return AI_EXAMPLE_REASON;
	const byName = new Map(loaded.map((d) => [d.name, d]));
	for (const type of ex.packageNodeTypes) {
		if (!byName.has(type)) {
			return `node type ${type} is not in the built package (package.json n8n.nodes)`;
		}
	}
	for (const node of ex.workflow.nodes) {
		const desc = byName.get(String(node.type));
		if (!desc) continue;
		const params = (node.parameters ?? {}) as Record<string, unknown>;
		const props = (desc.properties ?? []) as Property[];
		const { resource, operation } = params;
		if (typeof resource === 'string') {
			const rp = props.find((p) => p.name === 'resource');
			if (!rp?.options?.some((o) => o.value === resource)) {
				return `${desc.displayName as string} has no resource "${resource}" yet`;
			}
			if (typeof operation === 'string') {
				const ops = props.filter(
					(p) =>
						p.name === 'operation' && (p.displayOptions?.show?.resource ?? []).includes(resource),
				);
				if (!ops.some((p) => p.options?.some((o) => o.value === operation))) {
					return `${desc.displayName as string} has no operation "${resource} → ${operation}" yet`;
				}
			}
		}
	}
	return undefined;
}

// ------------------------------------------------------------------------------------
// Setup: build, pack, home, sandbox, credential, examples
// ------------------------------------------------------------------------------------

export interface SetupOptions {
	/** The n8n home (emptied first). Default: a temp dir. */
	homeDir?: string;
	/**
	 * Working directory of n8n: the examples write to `demo-output/` and read `examples/files/`
	 * relative to it (n8n may touch files only there). Default: the repository. Another
	 * directory gets a copy of examples/files.
	 */
	workDir?: string;
	/** `npm run build` first (default true) */
	build?: boolean;
	/** Directory to pack (default: the repository) */
	packDir?: string;
	/** Sandbox options */
	sandboxPort?: number;
	timeScale?: number;
	rateLimitPerMinute?: number;
	allowHttpWebhooks?: boolean;
	/** Extra environment for every n8n process */
	env?: Record<string, string>;
	log?: Log;
}

export interface DemoContext {
	home: N8nHome;
	sandbox: Sandbox;
	outputDir: string;
	tarball: string;
	/** Descriptions of this package's node types as n8n loaded them */
	loaded: N8nNodeTypeDescription[];
	examples: Array<Example & { skip?: string }>;
	timings: Record<string, number>;
	log: Log;
	close(): Promise<void>;
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function step<T>(
	timings: Record<string, number>,
	name: string,
	log: Log,
	fn: () => Promise<T>,
) {
	log(`▸ ${name} …`);
	const t0 = Date.now();
	const v = await fn();
	timings[name] = Date.now() - t0;
	log(`  done (${secs(timings[name])})`);
	return v;
}

/** `npm run build` in the repository; output shown only when it fails. */
export async function buildPackage(): Promise<void> {
	const res = await new Promise<{ code: number | null; out: string }>((resolve, reject) => {
		const child = spawn('npm', ['run', 'build', '--silent'], {
			cwd: REPO_ROOT,
			env: { ...process.env, CI: '1', NO_COLOR: '1' },
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let out = '';
		child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
		child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
		child.on('error', reject);
		child.on('close', (code) => resolve({ code, out }));
	});
	if (res.code !== 0) {
		// eslint-disable-next-line no-control-regex -- strip the CLI's spinner escapes
		const clean = res.out.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
		throw new Error(
			`npm run build failed (exit ${res.code}):\n${clean.split('\n').slice(-40).join('\n')}`,
		);
	}
}

export async function setupDemo(opts: SetupOptions): Promise<DemoContext> {
	const log = opts.log ?? (() => {});
	const timings: Record<string, number> = {};
	const cleanups: Array<() => Promise<unknown>> = [];
	try {
		await step(
			timings,
			`n8n runtime (scripts/n8n-runtime.sh: n8n ${process.env.MEDIAGEN_N8N_VERSION ?? '2.40.7'}; minutes the first time, then cached)`,
			log,
			() => ensureRuntime(),
		);
		if (opts.build !== false) await step(timings, 'npm run build', log, buildPackage);
		const packDir = await mkdtemp(path.join(tmpdir(), 'mediagen-pack-'));
		cleanups.push(() => rm(packDir, { recursive: true, force: true }));
		const tarball = await step(timings, 'npm pack (into a temp dir)', log, () =>
			packRepo(packDir, opts.packDir),
		);

		const workDir = path.resolve(opts.workDir ?? REPO_ROOT);
		const outputDir = path.join(workDir, 'demo-output');
		const filesDir = path.join(workDir, 'examples', 'files');
		await mkdir(outputDir, { recursive: true });
		if (workDir !== REPO_ROOT)
			await cp(path.join(EXAMPLES_DIR, 'files'), filesDir, { recursive: true });
		const home = await step(
			timings,
			`fresh n8n home${opts.homeDir ? ` ${path.relative(REPO_ROOT, opts.homeDir)}` : ''}, package installed from the tarball`,
			log,
			() =>
				createN8nHome({
					tarball,
					dir: opts.homeDir,
					cwd: workDir,
					env: {
						// n8n 2.x lets nodes touch files only below N8N_RESTRICT_FILE_ACCESS_TO
						N8N_RESTRICT_FILE_ACCESS_TO: `${outputDir};${filesDir}`,
						...(opts.env ?? {}),
					},
				}),
		);
		if (!opts.homeDir) cleanups.push(() => home.cleanup());
		const loaded = (home.nodeDescriptions ?? (await exportNodeTypes(home))).filter((d) =>
			d.name.startsWith(`${PACKAGE_NAME}.`),
		);
		log(`  n8n loaded: ${[...new Set(loaded.map((d) => d.name))].join(', ')}`);

		const sandbox = await startSandbox({
			port: opts.sandboxPort ?? 0,
			quiet: true,
			timeScale: opts.timeScale ?? 0.05,
			rateLimitPerMinute: opts.rateLimitPerMinute ?? 120,
			allowHttpWebhooks: opts.allowHttpWebhooks ?? true,
		});
		cleanups.push(() => sandbox.close());
		log(
			`▸ sandbox on ${sandbox.baseUrl} (time scale ${opts.timeScale ?? 0.05}, rate limit ${opts.rateLimitPerMinute ?? 120}/min)`,
		);

		const examples = loadExamples().map((ex) => ({ ...ex, skip: whyNotRunnable(ex, loaded) }));
		await step(
			timings,
			'import the "MediaGen sandbox" credential and the examples',
			log,
			async () => {
				await importCredentials(home, [
					{
						...SANDBOX_CREDENTIAL,
						type: 'mediaGenApi',
						data: { apiKey: sandbox.keys.pro, baseUrl: sandbox.baseUrl },
					},
				]);
				// examples whose nodes are not built yet would show as unknown nodes: leave them out
				await importWorkflows(
					home,
					examples.filter((ex) => !ex.skip).map((ex) => ex.workflow),
				);
			},
		);
		return {
			home,
			sandbox,
			outputDir,
			tarball,
			loaded,
			examples,
			timings,
			log,
			close: async () => {
				for (const c of cleanups.reverse()) await c().catch(() => undefined);
			},
		};
	} catch (e) {
		for (const c of cleanups.reverse()) await c().catch(() => undefined);
		throw e;
	}
}

// ------------------------------------------------------------------------------------
// Running examples
// ------------------------------------------------------------------------------------

export interface ExampleResult {
	file: string;
	name: string;
	status: 'ok' | 'failed' | 'skipped';
	seconds: number;
	assetIds: string[];
	files: string[];
	/** Why it failed or was skipped */
	reason?: string;
	execution?: ExecuteResult;
}

/** An example's result before it has run (failed until it proves otherwise), or skipped. */
function resultOf(ex: Example, status: 'failed' | 'skipped' = 'failed', reason?: string) {
	const result: ExampleResult = {
		file: ex.file,
		name: ex.workflow.name,
		status,
		seconds: 0,
		assetIds: [],
		files: [],
	};
	if (reason) result.reason = reason;
	return result;
}

/** Asset ids in this package's node outputs: `outputs[].asset_id`, `files[].asset_id`, uploads. */
export function assetIdsOf(wf: N8nWorkflow, runData: ExecuteResult['runData']): string[] {
	const ids = new Set<string>();
	const visit = (v: unknown, depth: number) => {
		if (!v || typeof v !== 'object' || depth > 6) return;
		if (Array.isArray(v)) return v.forEach((x) => visit(x, depth + 1));
		for (const [k, x] of Object.entries(v)) {
			if ((k === 'asset_id' || k === 'assetId') && typeof x === 'string') ids.add(x);
			else visit(x, depth + 1);
		}
	};
	for (const node of wf.nodes) {
		if (!String(node.type).startsWith(`${PACKAGE_NAME}.`)) continue;
		const params = (node.parameters ?? {}) as Record<string, unknown>;
		for (const run of runData[String(node.name)] ?? []) {
			for (const item of (run.data?.main?.[0] ?? []) as N8nItem[]) {
				visit(item.json, 0);
				if (
					params.resource === 'asset' &&
					params.operation === 'upload' &&
					typeof item.json.id === 'string'
				) {
					ids.add(item.json.id);
				}
			}
		}
	}
	return [...ids];
}

/** Files written by Read/Write Files from Disk nodes (their output's `fileName`). */
export function filesWritten(wf: N8nWorkflow, runData: ExecuteResult['runData']): string[] {
	const files: string[] = [];
	for (const node of wf.nodes) {
		const params = (node.parameters ?? {}) as Record<string, unknown>;
		if (node.type !== 'n8n-nodes-base.readWriteFile' || params.operation !== 'write') continue;
		for (const run of runData[String(node.name)] ?? []) {
			for (const item of (run.data?.main?.[0] ?? []) as N8nItem[]) {
				if (typeof item.json.fileName === 'string') files.push(item.json.fileName);
			}
		}
	}
	return files;
}

/** Runs one manual example headless (`n8n execute`). */
export async function runManualExample(ctx: DemoContext, ex: Example): Promise<ExampleResult> {
	const t0 = Date.now();
	const r = await executeWorkflow(ctx.home, ex.workflow.id, { timeoutMs: 10 * 60_000 });
	const base = {
		file: ex.file,
		name: ex.workflow.name,
		seconds: (Date.now() - t0) / 1000,
		assetIds: assetIdsOf(ex.workflow, r.runData),
		files: filesWritten(ex.workflow, r.runData),
		execution: r,
	};
	if (!r.ok) return { ...base, status: 'failed', reason: describeResult(r) };
	const missing = base.files.filter(
		(f) =>
			!existsSync(path.resolve(ctx.home.cwd, f)) ||
			statSync(path.resolve(ctx.home.cwd, f)).size === 0,
	);
	if (missing.length)
		return { ...base, status: 'failed', reason: `not written (or empty): ${missing.join(', ')}` };
	return { ...base, status: 'ok' };
}

export interface TriggerRun {
	result: ExampleResult;
	/** Webhook endpoints at the sandbox pointing at this n8n, after activation and after deactivation */
	endpointsWhileActive: number;
	endpointsAfterDeactivation: number;
	/** Executions of the workflow n8n recorded */
	executions: Array<{ id: string; status: string; mode?: string }>;
	/** Deliveries the sandbox sent to n8n (status of n8n's answer) */
	deliveryStatuses: Array<number | null>;
	/** n8n's answer to a request with a forged signature sent to the same URL (should be 401) */
	forgedRequestStatus?: number;
	/** Executions of the workflow just before and after the forged request (it must start none) */
	executionsBeforeForged?: number;
	executionsAfterForged?: number;
	/**
	 * A delivery sent again as `application/octet-stream`, a type n8n does not parse for a
	 * version 2 webhook node, so the node reads the raw body itself: as signed (answered 2xx,
	 * verified, a replay: not run again) and with one byte changed (401).
	 */
	octetStream?: { resentStatus: number; tamperedStatus: number; executionsAfter: number };
}

interface RemoteWebhook {
	id: string;
	url: string;
	events: string[];
	status: string;
}

/**
 * A request of the demo itself to the sandbox, with the key the workflows use: a 429 (the key's
 * 120 requests a minute, shared with the nodes) waits for its Retry-After and is sent again.
 */
async function api<T>(sb: Sandbox, method: string, p: string, body?: unknown): Promise<T> {
	for (let attempt = 0; ; attempt++) {
		const res = await fetch(`${sb.baseUrl}${p}`, {
			method,
			headers: {
				authorization: `Bearer ${sb.keys.pro}`,
				'content-type': 'application/json',
				...(method === 'POST' ? { 'idempotency-key': `demo-${Date.now()}-${Math.random()}` } : {}),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await res.text();
		if (res.status === 429 && attempt < 10) {
			const after = Number(res.headers.get('retry-after') ?? 1);
			await new Promise((r) => setTimeout(r, Math.max(1, after) * 1000));
			continue;
		}
		if (!res.ok) throw new Error(`${method} ${p}: HTTP ${res.status} ${text}`);
		return JSON.parse(text) as T;
	}
}

async function endpointsAt(sb: Sandbox, origin: string): Promise<RemoteWebhook[]> {
	const list = await api<{ data: RemoteWebhook[] }>(sb, 'GET', '/webhooks?limit=100');
	return list.data.filter((w) => w.url.startsWith(origin));
}

async function until<T>(
	what: string,
	timeoutMs: number,
	fn: () => Promise<T | undefined>,
): Promise<T> {
	const end = Date.now() + timeoutMs;
	let lastError: unknown;
	for (;;) {
		const v = await fn().catch((error: unknown) => {
			lastError = error;
			return undefined;
		});
		if (v !== undefined) return v;
		if (Date.now() > end) {
			const last = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
			throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}${last}`);
		}
		// a second between looks: the demo's own requests share the key's rate limit with the nodes
		await new Promise((r) => setTimeout(r, 1000));
	}
}

/** An execution as n8n's REST API lists it (times as ISO strings). */
export interface Execution {
	id: string;
	status: string;
	mode?: string;
	startedAt?: string;
	stoppedAt?: string;
}

/**
 * The executions n8n recorded for a workflow (its REST API, as the editor lists them). An answer
 * without the list (n8n's REST API answered an error: seen once in queue mode under load, as
 * `Cannot read properties of undefined (reading 'results')`) is asked again for up to 30 s, then
 * named with its status and body.
 */
async function listExecutions(
	n8n: N8nInstance,
	cookie: string,
	workflowId: string,
): Promise<Execution[]> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	return until(`n8n's list of executions of ${workflowId}`, 30_000, async () => {
		const r = await fetch(`${n8n.url}/rest/executions?filter=${filter}`, { headers: { cookie } });
		const text = await r.text();
		const body = (r.ok ? JSON.parse(text) : undefined) as
			| { data?: { results?: Execution[] } }
			| undefined;
		const results = body?.data?.results;
		if (!Array.isArray(results))
			throw new Error(`GET /rest/executions: HTTP ${r.status} ${text.slice(0, 300)}`);
		return results.map(({ id, status, mode, startedAt, stoppedAt }) => ({
			id,
			status,
			mode,
			startedAt,
			stoppedAt,
		}));
	});
}

/** Deactivates (unpublishes) a workflow through n8n's REST API, as the editor's toggle does. */
async function deactivateWorkflow(n8n: N8nInstance, cookie: string, id: string): Promise<void> {
	const deact = await fetch(`${n8n.url}/rest/workflows/${id}/deactivate`, {
		method: 'POST',
		headers: { cookie, 'content-type': 'application/json' },
		body: '{}',
	});
	if (!deact.ok) throw new Error(`deactivate: HTTP ${deact.status} ${await deact.text()}`);
}

/** Whether an execution has ended (n8n's statuses of one still going: new, running, waiting). */
const ended = (e: Execution) => !['new', 'running', 'waiting'].includes(e.status);

/**
 * Runs a trigger example the way users run it: the workflow is published, `n8n start` activates
 * it (automatic registration creates an endpoint at the sandbox), a generation is started
 * through the API, the sandbox delivers the signed generation.completed event, the workflow
 * runs; then the workflow is deactivated through n8n's REST API and n8n stops.
 */
export async function runTriggerExample(
	ctx: DemoContext,
	ex: Example,
	/**
	 * An n8n already running with the workflow published (queue mode: main), and the origin
	 * its webhooks are registered with (the webhook process). Default: publish, start and stop
	 * an `n8n start` here.
	 */
	running?: { n8n: N8nInstance; webhookOrigin: string },
): Promise<TriggerRun> {
	const t0 = Date.now();
	const { home, sandbox } = ctx;
	const id = ex.workflow.id;
	if (!running) await publishWorkflow(home, id);
	let n8n: N8nInstance | undefined = running?.n8n;
	const out: TriggerRun = {
		result: resultOf(ex),
		endpointsWhileActive: 0,
		endpointsAfterDeactivation: -1,
		executions: [],
		deliveryStatuses: [],
	};
	try {
		n8n ??= await startN8n(home);
		const origin = running?.webhookOrigin ?? n8n.url;
		const active = await until(
			'the trigger to register its endpoint at the sandbox',
			60_000,
			async () => {
				const eps = await endpointsAt(sandbox, origin);
				return eps.length > 0 ? eps : undefined;
			},
		);
		out.endpointsWhileActive = active.length;
		const owner = await setupOwner(n8n);
		const executions = () => listExecutions(n8n!, owner.cookie, id);
		// executions from before (events of earlier generations, in a shared sandbox) do not count
		const earlier = new Set((await executions()).map((e) => e.id));
		const gen = await api<{ id: string }>(sandbox, 'POST', '/generations', {
			modelId: 'flux-pro',
			tool: 'image',
			prompt: 'A lighthouse on a cliff at dusk (started through the API, stored by the trigger)',
		});
		out.executions = await until('an execution of the trigger workflow', 90_000, async () => {
			const list = (await executions()).filter((e) => !earlier.has(e.id));
			return list.some(ended) ? list : undefined;
		});
		// this endpoint's deliveries (an earlier example's trigger may have had its own)
		const delivered = () =>
			sandbox.control.deliveries().filter((d) => d.webhookId === active[0].id);
		out.deliveryStatuses = delivered().map((d) => d.responseStatus);
		const done = out.executions.find((e) => e.status === 'success');
		// a request that is not signed with the endpoint's secret is refused and starts nothing
		const beforeForged = (await executions()).length;
		out.executionsBeforeForged = beforeForged;
		const forged = await fetch(active[0].url, {
			method: 'POST',
			headers: {
				'content-type': 'application/json',
				'webhook-id': 'msg_forged',
				'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
				'webhook-signature': `v1,${Buffer.from('not the signature').toString('base64')}`,
			},
			body: JSON.stringify({ id: 'evt_forged', type: 'generation.completed', data: {} }),
		});
		out.forgedRequestStatus = forged.status;
		await new Promise((r) => setTimeout(r, 1000));
		const afterForged = await executions();
		out.executionsAfterForged = afterForged.length;
		const signed = delivered().find((d) => d.responseStatus === 200);
		if (signed) {
			const resend = (body: string) =>
				fetch(active[0].url, {
					method: 'POST',
					headers: { ...signed.headers, 'content-type': 'application/octet-stream' },
					body,
				});
			const resentStatus = (await resend(signed.body)).status;
			const tamperedStatus = (await resend(signed.body.replace(/}$/, ' }'))).status;
			await new Promise((r) => setTimeout(r, 1000));
			out.octetStream = {
				resentStatus,
				tamperedStatus,
				executionsAfter: (await executions()).length,
			};
		}
		await deactivateWorkflow(n8n, owner.cookie, id);
		out.endpointsAfterDeactivation = await until('the endpoint to be deleted', 30_000, async () => {
			const eps = await endpointsAt(sandbox, origin);
			return eps.length === 0 ? 0 : undefined;
		}).catch(async () => (await endpointsAt(sandbox, origin)).length);
		const gr = await api<{ outputs?: Array<{ asset_id?: string }> }>(
			sandbox,
			'GET',
			`/generations/${gen.id}`,
		);
		out.result.assetIds = (gr.outputs ?? []).map((o) => String(o.asset_id));
		out.result.files = readdirSync(ctx.outputDir)
			.filter((f) => f.startsWith('trigger-') && f.includes(gen.id.slice(0, 8)))
			.map((f) => path.relative(home.cwd, path.join(ctx.outputDir, f)));
		if (!done) out.result.reason = `executions: ${out.executions.map((e) => e.status).join(', ')}`;
		else if (out.forgedRequestStatus !== 401 || out.executionsAfterForged !== beforeForged)
			out.result.reason =
				`a forged request got ${out.forgedRequestStatus}; executions before it ` +
				`${beforeForged}, after it ${JSON.stringify(afterForged)}`;
		else if (
			!out.octetStream ||
			out.octetStream.resentStatus !== 200 ||
			out.octetStream.tamperedStatus !== 401 ||
			out.octetStream.executionsAfter !== afterForged.length
		)
			out.result.reason = `a delivery sent again as application/octet-stream: ${JSON.stringify(out.octetStream ?? 'no delivery answered 200')} (expected 200, 401, ${afterForged.length} executions)`;
		else if (out.result.files.length === 0)
			out.result.reason = 'the workflow ran but wrote no file';
		else if (out.endpointsAfterDeactivation !== 0)
			out.result.reason = `${out.endpointsAfterDeactivation} endpoint(s) left after deactivation`;
		else out.result.status = 'ok';
	} catch (e) {
		out.result.reason = (e as Error).message;
	} finally {
		if (!running) await n8n?.stop();
		out.result.seconds = (Date.now() - t0) / 1000;
	}
	return out;
}

/** A generation as the sandbox lists it (the fields a pair run looks at). */
export interface GenerationRecord {
	id: string;
	status: string;
	credits_charged: number;
	outputs: Array<{ asset_id: string; kind: string }>;
	context: Record<string, unknown>;
	created_at: string;
	completed_at: string | null;
}

/** One row of the sheet a pair's starter reads, and what came back for it. */
export interface PairRow {
	/** The row's reference (the first column of the sheet) */
	reference: string;
	/** The generation whose context holds this reference */
	generation?: GenerationRecord;
	/** The outcome the finishing workflow recorded (`demo-output/long-jobs-<reference>.json`) */
	outcome?: Record<string, unknown>;
	/** The file it saved for a completed job (`demo-output/long-jobs-<reference>.<ext>`) */
	videoFile?: string;
}

export interface PairRun {
	start: ExampleResult;
	finish: ExampleResult;
	rows: PairRow[];
	/** The starter's execution, run in `n8n start` as the editor's Execute Workflow runs it */
	starterExecution?: Execution;
	/** Executions of the finishing workflow (one per event) */
	executions: Execution[];
	endpointsWhileActive: number;
	endpointsAfterDeactivation: number;
}

/** The first column of every data row of a CSV file (the pair's references). */
function firstColumn(file: string): string[] {
	return readFileSync(file, 'utf8')
		.split(/\r?\n/)
		.slice(1)
		.map((line) => line.split(',')[0].trim())
		.filter(Boolean);
}

/**
 * Runs a pair of examples the way users run it (examples/long-jobs-*.json): the finishing
 * workflow is published and `n8n start` activates it (its trigger registers at the sandbox);
 * the starting workflow is run in the same n8n through its REST API, as the editor's *Execute
 * Workflow* does (`POST /rest/workflows/:id/run`): it starts one job per row of its sheet
 * without waiting, each row's reference in the job's `context`. The sandbox then delivers each
 * job's `generation.completed` or `generation.failed` event; the finishing workflow gets the
 * reference back and records the outcome. Then the finishing workflow is deactivated and n8n
 * stops. `starter` replaces the starting workflow (imported under its id before n8n starts).
 */
export async function runExamplePair(
	ctx: DemoContext,
	finish: Example,
	start: Example,
	opts: { starter?: N8nWorkflow; timeoutMs?: number } = {},
): Promise<PairRun> {
	const t0 = Date.now();
	const { home, sandbox } = ctx;
	const out: PairRun = {
		start: resultOf(start),
		finish: resultOf(finish),
		rows: [],
		executions: [],
		endpointsWhileActive: 0,
		endpointsAfterDeactivation: -1,
	};
	const starter = opts.starter ?? start.workflow;
	const read = starter.nodes.find((n) => n.type === 'n8n-nodes-base.readWriteFile');
	const sheet = String((read?.parameters as { fileSelector?: string } | undefined)?.fileSelector);
	const references = firstColumn(path.resolve(home.cwd, sheet));
	const manual = starter.nodes.find((n) => n.type === 'n8n-nodes-base.manualTrigger');
	const outcomeFile = (ref: string) => path.join(ctx.outputDir, `long-jobs-${ref}.json`);
	for (const f of readdirSync(ctx.outputDir).filter((f) => f.startsWith('long-jobs-')))
		rmSync(path.join(ctx.outputDir, f));
	let n8n: N8nInstance | undefined;
	try {
		if (opts.starter) await importWorkflows(home, [opts.starter]);
		await publishWorkflow(home, finish.workflow.id);
		n8n = await startN8n(home);
		const active = await until('the trigger to register its endpoint', 60_000, async () => {
			const eps = await endpointsAt(sandbox, n8n!.url);
			return eps.length > 0 ? eps : undefined;
		});
		out.endpointsWhileActive = active.length;
		const { cookie } = await setupOwner(n8n);
		const rest = async <T>(method: string, route: string, body?: unknown): Promise<T> => {
			const r = await fetch(`${n8n!.url}/rest${route}`, {
				method,
				headers: { cookie, 'content-type': 'application/json' },
				body: body === undefined ? undefined : JSON.stringify(body),
			});
			if (!r.ok) throw new Error(`${method} /rest${route}: HTTP ${r.status} ${await r.text()}`);
			return ((await r.json()) as { data: T }).data;
		};
		const earlier = new Set(
			(await listExecutions(n8n, cookie, finish.workflow.id)).map((e) => e.id),
		);
		const since = new Date().toISOString();

		// the starter, as the editor's Execute Workflow runs it (n8n 1.x needs the workflow too)
		const workflowData = await rest<N8nWorkflow>('GET', `/workflows/${start.workflow.id}`);
		await rest('POST', `/workflows/${start.workflow.id}/run`, {
			workflowData,
			triggerToStartFrom: { name: String(manual?.name) },
		});
		out.starterExecution = await until('the starter to end', 120_000, async () =>
			(await listExecutions(n8n!, cookie, start.workflow.id)).find(ended),
		);

		// its jobs: one per row, found by the reference in their context
		const timeoutMs = opts.timeoutMs ?? 5 * 60_000;
		const ours = async () => {
			const list = await api<{ data: GenerationRecord[] }>(
				sandbox,
				'GET',
				'/generations?status=all&limit=100',
			);
			return list.data.filter(
				(g) => g.created_at >= since && references.includes(String(g.context?.reference)),
			);
		};
		const settled = await until('every job to end', timeoutMs, async () => {
			const list = await ours();
			const done = list.filter((g) => ['completed', 'failed', 'cancelled'].includes(g.status));
			return list.length >= references.length && done.length === list.length ? list : undefined;
		}).catch(() => ours());
		// one execution per event; every row's outcome recorded
		out.executions = await until('an outcome for every row', timeoutMs, async () => {
			const list = (await listExecutions(n8n!, cookie, finish.workflow.id)).filter(
				(e) => !earlier.has(e.id),
			);
			const allRecorded = references.every((ref) => existsSync(outcomeFile(ref)));
			return list.length >= settled.length && list.every(ended) && allRecorded ? list : undefined;
		}).catch(() => listExecutions(n8n!, cookie, finish.workflow.id));
		const files = readdirSync(ctx.outputDir);
		out.rows = references.map((reference) => {
			const file = outcomeFile(reference);
			const video = files.find(
				(f) => f.startsWith(`long-jobs-${reference}.`) && !f.endsWith('.json'),
			);
			return {
				reference,
				generation: settled.find((g) => g.context?.reference === reference),
				outcome: existsSync(file)
					? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>)
					: undefined,
				videoFile: video ? path.join(ctx.outputDir, video) : undefined,
			};
		});

		await deactivateWorkflow(n8n, cookie, finish.workflow.id);
		out.endpointsAfterDeactivation = await until('the endpoint to be deleted', 30_000, async () => {
			const eps = await endpointsAt(sandbox, n8n!.url);
			return eps.length === 0 ? 0 : undefined;
		}).catch(async () => (await endpointsAt(sandbox, n8n!.url)).length);

		// what each example did, and whether it did what it should
		const jobs = out.rows.map((r) => r.generation).filter((g) => g !== undefined);
		if (out.starterExecution.status !== 'success')
			out.start.reason = `the starter's execution: ${out.starterExecution.status}`;
		else if (jobs.length !== references.length || settled.length !== references.length)
			out.start.reason = `${settled.length} jobs for ${references.length} rows`;
		else out.start.status = 'ok';
		out.finish.assetIds = jobs.flatMap((g) => g.outputs.map((o) => o.asset_id));
		out.finish.files = out.rows
			.flatMap((r) => [r.outcome ? outcomeFile(r.reference) : '', r.videoFile ?? ''])
			.filter(Boolean)
			.map((f) => path.relative(home.cwd, f));
		const wrong = out.rows.filter((r) => {
			const o = r.outcome;
			const g = r.generation;
			const completed = g?.status === 'completed';
			return (
				!g ||
				o?.reference !== r.reference ||
				o.generationId !== g.id ||
				o.status !== g.status ||
				completed !== (r.videoFile !== undefined && statSync(r.videoFile).size > 0)
			);
		});
		if (wrong.length)
			out.finish.reason = `rows without their outcome: ${wrong.map((r) => `${r.reference} (${JSON.stringify(r.outcome ?? null)})`).join('; ')}`;
		else if (!out.executions.every((e) => e.status === 'success'))
			out.finish.reason = `executions: ${out.executions.map((e) => e.status).join(', ')}`;
		else if (out.endpointsAfterDeactivation !== 0)
			out.finish.reason = `${out.endpointsAfterDeactivation} endpoint(s) left after deactivation`;
		else out.finish.status = 'ok';
	} catch (e) {
		out.start.reason ??= (e as Error).message;
		out.finish.reason ??= (e as Error).message;
	} finally {
		await n8n?.stop();
		out.start.seconds = out.finish.seconds = (Date.now() - t0) / 1000;
	}
	return out;
}

/** Runs every example that can run; skipped ones are reported with the reason. */
export async function runExamples(ctx: DemoContext): Promise<ExampleResult[]> {
	const results: ExampleResult[] = [];
	for (const ex of ctx.examples) {
		if (results.some((r) => r.file === ex.file)) continue; // ran with its pair
		const pair = pairOf(ex.file);
		if (pair) {
			const [finish, start] = pair.map((f) => ctx.examples.find((e) => e.file === f)!);
			const skip = finish.skip ?? start.skip;
			if (skip) ctx.log(`▸ ${start.file} and ${finish.file}: skipped (${skip})`);
			else ctx.log(`▸ ${start.file} and ${finish.file}: running together in n8n start …`);
			const run = skip ? undefined : await runExamplePair(ctx, finish, start);
			for (const r of run ? [run.start, run.finish] : []) {
				ctx.log(
					`  ${r.file}: ${r.status} (${r.seconds.toFixed(1)} s)${r.reason ? `: ${r.reason}` : ''}`,
				);
			}
			results.push(
				...(run
					? [run.start, run.finish]
					: [start, finish].map((e) => resultOf(e, 'skipped', skip))),
			);
			continue;
		}
		if (ex.skip) {
			ctx.log(`▸ ${ex.file}: skipped (${ex.skip})`);
			results.push(resultOf(ex, 'skipped', ex.skip));
			continue;
		}
		ctx.log(
			`▸ ${ex.file}: running ${ex.kind === 'trigger' ? 'in n8n start (trigger)' : 'headless (n8n execute)'} …`,
		);
		const r =
			ex.kind === 'trigger'
				? (await runTriggerExample(ctx, ex)).result
				: await runManualExample(ctx, ex);
		ctx.log(`  ${r.status} (${r.seconds.toFixed(1)} s)${r.reason ? `: ${r.reason}` : ''}`);
		results.push(r);
	}
	return results;
}

/** A short table: workflow, result, seconds, asset ids, files. */
export function summaryTable(results: ExampleResult[]): string {
	const rows = results.map((r) => [
		r.file.replace(/\.json$/, ''),
		r.status === 'ok' ? 'ok' : r.status === 'failed' ? 'FAILED' : 'skipped',
		r.status === 'skipped' ? '' : r.seconds.toFixed(1),
		r.assetIds.map((a) => a.slice(0, 8)).join(' '),
		r.status === 'skipped' ? (r.reason ?? '') : r.files.join(' '),
	]);
	const head = ['example', 'result', 's', 'assets (id prefix)', 'files / note'];
	const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
	const line = (cells: string[]) =>
		cells
			.map((c, i) => c.padEnd(widths[i]))
			.join('  ')
			.trimEnd();
	const lines = [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
	const withAssets = results.filter((r) => r.assetIds.length);
	if (withAssets.length) {
		lines.push('', 'asset ids:');
		for (const r of withAssets)
			lines.push(`  ${r.file.replace(/\.json$/, '')}: ${r.assetIds.join(', ')}`);
	}
	for (const r of results)
		if (r.status === 'failed') lines.push(`FAILED ${r.file}: ${r.reason ?? ''}`);
	return lines.join('\n');
}
