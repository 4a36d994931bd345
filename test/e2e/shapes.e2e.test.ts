/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only code (tests): never published, see package.json "files" */
/**
 * Issue #29: n8n's Retry is exact to the credit in every workflow shape, in a real n8n (regular
 * mode, sqlite) with the packed package, against the sandbox. Each shape runs twice at once, with
 * Save Execution Progress off (n8n's default) and on, started by Webhooks; n8n is killed with
 * kill -9 at the shape's moment, started again (its crash recovery marks the executions crashed)
 * and each execution is retried as the Executions list does it (POST /rest/executions/:id/retry):
 * 1. killed in a node AFTER the MediaGen node: n8n's Wait node after Generation → Create (Wait for
 *    Completion on); and the two-step pattern, Create (Wait off) then Generation → Wait, killed
 *    during the Wait;
 * 2. killed while the MediaGen node waits, another started node after it in the `nodes` array;
 * 3. MediaGen inside Loop Over Items, killed in the 3rd iteration;
 * 4. (no kill) a create whose answer is lost, the node fails, then plain Retry: Generation →
 *    Create answered 500 after MediaGen made the job, Canvas Run → Start's connection dropped
 *    after the run was made.
 * Each counts what the sandbox made and charged per row (every job's prompt names its row): one
 * job per row, credits rows × cost, and the retry's output pairs each row with its own first job.
 *
 * And the first two findings of issue #36 (test/engine/retryFindings.test.ts in the engine):
 * 5. the rows changed between the crash and the Retry: the workflow reads a sheet the test serves
 *    (an HTTP Request node), progress saving off (n8n's default: its Retry runs that node again
 *    and reads the sheet as it is then); a row added on top (A, B, C became N, A, B, C), n8n
 *    killed while the node waits for the three jobs; a row removed (A, B, C became B, C), killed
 *    once two jobs were made. Each item must get the job made for its own row (prompt), every row
 *    charged once, the removed row's job named in a warning;
 * 6. (no kill) a parent calls its image sub-workflow (Execute Workflow) twice with the same item,
 *    from two branches and twice in a row, in two executions each: every call a new job, each
 *    charged once, never the first call's job through a 409.
 *
 * Needs a build (`npm run build`); skipped unless MEDIAGEN_E2E=1. On n8n 1.123.81 too
 * (MEDIAGEN_N8N_VERSION=1.123.81, .ci/run's matrix).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import type { DemoContext } from '../../scripts/demoSetup';
import { setupDemo } from '../../scripts/demoSetup';
import { until } from '../harness/sandbox/helpers';
import type { N8nInstance, N8nOwner } from '../harness/e2e/n8n';
import { describeE2E, hasBuiltPackage, importWorkflows, restOf, setupOwner, startN8n } from '../harness/e2e/n8n';
import type { RestExecution, Workflow } from '../harness/e2e/shapes';
import {
	activate,
	allGenerations,
	canvasPerRow,
	codeNode,
	createNode,
	executeWorkflowNode,
	loopNode,
	mergeNode,
	nodeEvents,
	noOp,
	shapeWorkflow,
	sheetNode,
	subWorkflow,
	waitNode,
	waitUntilNode,
} from '../harness/e2e/shapes';
import { e2eDemoOptions, MIN, node } from '../harness/e2e/workflows';

type Json = Record<string, unknown>;
const ROWS = 3;
const JOB_MS = 2000; // 40 ms at the e2e time scale
const VARIANTS = [
	{ progress: false, label: 'progress off' },
	{ progress: true, label: 'progress on' },
];

interface Variant {
	label: string;
	tag: string;
	wf: Workflow;
	hook: string;
}
interface Shape {
	key: string;
	variants: Variant[];
	/** The node whose last run's output is the workflow's result. */
	last: string;
}

type Build = Pick<
	Parameters<typeof shapeWorkflow>[0],
	'source' | 'after' | 'edges' | 'order' | 'respond'
>;

let n = 0;
function shape(
	key: string,
	last: string,
	build: (tag: string) => Build,
	variants = VARIANTS,
): Shape {
	return {
		key,
		last,
		variants: variants.map(({ progress, label }) => {
			const tag = `${key}-${progress ? 'on' : 'off'}`;
			const hook = `e2e-shapes-${tag}`;
			const id = `e2eShape${key.replace(/\W/g, '')}${progress ? 'On' : 'Off'}`.padEnd(16, 'x');
			const wf = shapeWorkflow({ id, hook, n: ++n, rows: ROWS, progress, ...build(tag) });
			return { label, tag, wf, hook };
		}),
	};
}

const S1 = shape('S1', 'Wait', (tag) => ({
	after: [createNode('Generate', tag, JOB_MS), waitUntilNode('Wait')],
}));
const S1B = shape('S1b', 'Wait for job', (tag) => ({
	after: [
		createNode('Start jobs', tag, JOB_MS, { waitForCompletion: false }, 2),
		waitNode('Wait for job'),
	],
}));
const S2 = shape('S2', 'Generate', (tag) => ({
	after: [createNode('Generate', tag, JOB_MS)],
	order: ['Rows', 'Generate', 'Webhook'], // the trigger stands last, as if added later
}));
const S3 = shape('S3', 'Done', (tag) => ({
	after: [
		loopNode('Loop'),
		createNode('Generate', tag, '$json.row === 3 ? 600000 : ' + JOB_MS),
		noOp('Done'),
	],
	edges: [
		['Webhook', 'Rows'],
		['Rows', 'Loop'],
		['Loop', 'Generate', 1],
		['Generate', 'Loop'],
		['Loop', 'Done', 0],
	],
}));
const S4 = shape('S4', 'Generate', (tag) => ({ after: [createNode('Generate', tag, JOB_MS)] }));
const S4C = shape('S4c', 'Start run', () => ({
	after: [
		node('Start run', 'n8n-nodes-mediagen.mediaGenCanvas', {
			resource: 'run',
			operation: 'start',
			canvasWorkflowId: {
				__rl: true,
				mode: 'id',
				value: "={{ $('Webhook').first().json.body.canvases[$json.row - 1] }}",
			},
		}),
	],
}));
/**
 * Issue #36, finding 1: the rows read from the test's sheet, progress saving off only (with it on,
 * n8n's Retry resumes from the saved rows and reads nothing again: shape 2).
 */
const sheetShape = (key: string) =>
	shape(
		key,
		'Generate',
		(tag) => ({ source: sheetNode(), after: [createNode('Generate', tag, JOB_MS)] }),
		VARIANTS.filter((v) => !v.progress),
	);
const F1A = sheetShape('F1a');
const F1R = sheetShape('F1r');
const SHAPES = [S1, S1B, S2, S3, S4, S4C, F1A, F1R];

/**
 * Issue #36, finding 2: a parent (Webhook → one row → `build`, answering with its last node's
 * items) that calls its own image sub-workflow (each job's prompt `<key> row 1`).
 */
function caller(key: string, label: string, build: (sub: string) => Build) {
	const sub = subWorkflow(`e2eSub${key}`.padEnd(16, 'x'), key, JOB_MS);
	const hook = `e2e-shapes-${key}`;
	const wf = shapeWorkflow({
		id: `e2eCaller${key}`.padEnd(16, 'x'),
		hook,
		n: ++n,
		rows: 1,
		progress: false,
		respond: 'lastNode',
		...build(sub.id),
	});
	return { key, label, sub, wf, hook };
}
const F2B = caller('F2b', 'two branches', (sub) => ({
	after: [
		executeWorkflowNode('Call 1', sub),
		executeWorkflowNode('Call 2', sub),
		mergeNode('Both'),
	],
	edges: [
		['Webhook', 'Rows'],
		['Rows', 'Call 1'],
		['Rows', 'Call 2'],
		['Call 1', 'Both', 0, 0],
		['Call 2', 'Both', 0, 1],
	],
}));
const F2R = caller('F2r', 'twice in a row', (sub) => ({
	after: [
		executeWorkflowNode('Call 1', sub),
		codeNode('Again', "return $('Rows').all().map((i) => ({ json: i.json }));"),
		executeWorkflowNode('Call 2', sub),
		codeNode(
			'Both',
			"return [...$('Call 1').all(), ...$('Call 2').all()].map((i) => ({ json: i.json }));",
		),
	],
}));
const CALLERS = [F2B, F2R];

type Execution = RestExecution;

describeE2E('Retry in every workflow shape, exact to the credit (real n8n, issue #29)', () => {
	let ctx: DemoContext;
	let workDir: string;
	let n8n: N8nInstance | undefined;
	let owner: N8nOwner;
	let cost = 0;
	const figures: string[] = [];
	/** The sheet the finding-1 workflows read: its rows as the tests set them, and its reads. */
	let sheet: string[] = [];
	let sheetReads = 0;
	let sheetServer: Server | undefined;
	let sheetUrl = '';

	const sb = () => ctx.sandbox;
	const rest = restOf(
		() => n8n!,
		() => owner,
	);
	const api = async (method: string, p: string, body?: unknown) => {
		const res = await fetch(`${sb().baseUrl}${p}`, {
			method,
			headers: { authorization: `Bearer ${sb().keys.pro}`, 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		return (await res.json()) as Json;
	};

	beforeAll(async () => {
		if (!hasBuiltPackage())
			throw new Error('dist/ is not built: run `npm run build` first (npm run test:e2e does)');
		workDir = mkdtempSync(path.join(tmpdir(), 'mediagen-e2e-shapes-'));
		ctx = await setupDemo(e2eDemoOptions(workDir));
		sb().control.setConfig({ rateLimitPerMinute: 0 });
		sheetServer = createServer((_req, res) => {
			sheetReads++;
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify(sheet.map((row) => ({ row }))));
		});
		await new Promise<void>((resolve) => sheetServer!.listen(0, '127.0.0.1', resolve));
		sheetUrl = `http://127.0.0.1:${(sheetServer.address() as AddressInfo).port}/sheet`;
		const all = [...SHAPES.flatMap((s) => s.variants), ...CALLERS];
		const subs = CALLERS.map((c) => c.sub);
		await importWorkflows(ctx.home, [...subs, ...all.map((v) => v.wf)]);
		n8n = await startN8n(ctx.home);
		owner = await setupOwner(n8n);
		// n8n 2.x runs the published version of a sub-workflow (1.x the saved one)
		const major = ctx.home.runtime.major;
		if (major >= 2) for (const sub of subs) await activate(rest, sub.id, major);
		for (const v of all) await activate(rest, v.wf.id, major);
		for (const v of all) await n8n.waitForWebhook(v.hook);
		const estimate = await api('POST', '/generations/estimate', {
			modelId: 'flux-pro',
			tool: 'image',
			params: { sandbox: { durationMs: JOB_MS } },
		});
		cost = Number(estimate.credits);
	}, 30 * MIN);

	afterAll(async () => {
		ctx?.sandbox.control.releaseJobs();
		await n8n?.stop();
		await ctx?.close();
		sheetServer?.close();
		if (workDir) rmSync(workDir, { recursive: true, force: true });
		if (figures.length)
			// eslint-disable-next-line no-console
			console.log(`[e2e shapes] n8n ${ctx?.home.runtime.version}\n${figures.join('\n')}`);
	});

	const generations = async () => await allGenerations(async (p) => await api('GET', p));
	/** The jobs `keep` selects, once none of them is queued or running (a minute at most). */
	const settledJobs = async (keep: (g: Json) => boolean) => {
		let jobs: Json[] = [];
		await until(
			async () => {
				jobs = (await generations()).filter(keep);
				return jobs.every((g) => !['queued', 'running'].includes(String(g.status)));
			},
			MIN,
			250,
		).catch(() => undefined);
		return jobs;
	};
	/** The jobs made for rows of `tag` (their prompt `<tag> row …`), settled. */
	const jobsOfTag = async (tag: string) =>
		await settledJobs((g) => String(g.prompt).startsWith(`${tag} row `));
	const creditsOf = (jobs: Json[]) => jobs.reduce((sum, g) => sum + Number(g.credits_charged), 0);
	const oldestFirst = (jobs: Json[]) =>
		[...jobs].sort((a, b) => String(a.created_at).localeCompare(String(b.created_at)));
	/** A variant's jobs by row (oldest first), from their prompts. */
	const jobsByRow = (all: Json[], tag: string) =>
		Array.from({ length: ROWS }, (_, i) =>
			oldestFirst(all.filter((g) => g.prompt === `${tag} row ${i + 1}`)),
		);

	const executionsOf = async (wf: Workflow) =>
		(
			await rest<{ results: Execution[] }>(
				'GET',
				`/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId: wf.id }))}`,
			)
		).results;

	const trigger = async (v: Variant, body: Json = {}) => {
		const res = await fetch(n8n!.webhookUrl(v.hook), {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(body),
		});
		expect(res.status).toBe(200);
	};

	const retry = async (e: Execution) =>
		await rest<Execution>('POST', `/executions/${e.id}/retry`, { loadWorkflow: false });

	/** ` ("<the error's message>")` of a failed execution, else nothing. */
	const errorOf = (e: Execution) => {
		const error = (e.data?.resultData as { error?: { message?: string } } | undefined)?.error;
		return error ? ` ("${error.message}")` : '';
	};

	/** The last run's output of `node` in a retried execution. */
	const outputOf = (e: Execution, node: string) =>
		(e.data?.resultData.runData[node]?.at(-1)?.data?.main[0] ?? []).map((i) => i.json as Json);

	/**
	 * What the sandbox made and charged for a variant, and whether the retry's output pairs each
	 * row with that row's first job; `before` are the job ids made before the retry.
	 */
	async function measure(s: Shape, v: Variant, retried: Execution, before: Set<string>) {
		const rows = jobsByRow(await jobsOfTag(v.tag), v.tag);
		const jobs = rows.flat();
		const credits = creditsOf(jobs);
		const out = outputOf(retried, s.last);
		const paired = rows.every((r, i) => r[0] !== undefined && out[i]?.id === r[0].id);
		// each output item as `<row of its job>#<the job's place among that row's jobs>`
		const where = out.map((o) => {
			for (const [i, r] of rows.entries()) {
				const k = r.findIndex((g) => g.id === o.id);
				if (k >= 0) return `row ${i + 1}#${k + 1}`;
			}
			return '?';
		});
		const inRetry = jobs.filter((g) => !before.has(String(g.id))).length;
		const line = `${s.key}, ${v.label}: ${inRetry} creates in the retry, ${jobs.length} jobs for ${ROWS} rows (per row ${rows.map((r) => r.length).join('/')}), ${credits} credits (${ROWS} × ${cost} = ${ROWS * cost}); retry ${retried.status}${errorOf(retried)}, output paired with each row's first job: ${paired} [${where.join(', ')}]`;
		figures.push(line);
		return { rows, credits, paired, status: retried.status, line };
	}

	function expectExact(m: Awaited<ReturnType<typeof measure>>) {
		expect({ line: m.line, perRow: m.rows.map((r) => r.length) }).toEqual({
			line: m.line,
			perRow: Array(ROWS).fill(1),
		});
		expect(m.credits).toBe(ROWS * cost);
		expect(m.status).toBe('success');
		expect(m.paired).toBe(true);
	}

	/**
	 * Starts every variant of `s`, kills n8n (kill -9) once `killPoint` (called before they start)
	 * resolves, calls `meanwhile` (what changes before the Retry), starts n8n again, waits for each
	 * execution to be crashed, retries each; the retried executions, and the ids of the jobs made
	 * before the Retry.
	 */
	async function crashAndRetry(
		s: Shape,
		killPoint: () => Promise<void>,
		body: () => Json = () => ({}),
		meanwhile: () => void = () => undefined,
	) {
		sb().control.setCredits('main', 1000 * cost);
		const known = new Map<string, Set<string>>();
		for (const v of s.variants)
			known.set(v.wf.id, new Set((await executionsOf(v.wf)).map((e) => e.id)));
		const killed = killPoint(); // armed before the executions start
		for (const v of s.variants) await trigger(v, body());
		await killed;
		await n8n!.kill('SIGKILL');
		meanwhile();
		sb().control.releaseJobs();
		const before = new Set((await generations()).map((g) => String(g.id)));
		n8n = await startN8n(ctx.home, n8n!.port);
		const crashed: Execution[] = [];
		for (const v of s.variants) {
			let found: Execution | undefined;
			await until(
				async () => {
					found = (await executionsOf(v.wf)).find((e) => !known.get(v.wf.id)!.has(e.id));
					return found?.status === 'crashed';
				},
				2 * MIN,
				500,
			);
			crashed.push(found!);
		}
		const retried = await Promise.all(crashed.map(retry));
		for (const [i, r] of retried.entries())
			expect(r).toMatchObject({ mode: 'retry', retryOf: crashed[i].id });
		return { retried, before };
	}

	/** crashAndRetry, then the figures of each variant (`measure`). */
	async function crashShape(
		s: Shape,
		killPoint: () => Promise<void>,
		body: () => Json = () => ({}),
	) {
		const { retried, before } = await crashAndRetry(s, killPoint, body);
		const measured = [];
		for (const [i, v] of s.variants.entries())
			measured.push(await measure(s, v, retried[i], before));
		return measured;
	}

	/** Resolves once node `name` has started in an execution of each variant (the event log). */
	const nodeStartedInEach = (s: Shape, name: string) => async () => {
		const ids = new Set(s.variants.map((v) => v.wf.id));
		await until(
			() => {
				const started = nodeEvents(ctx.home).filter(
					(e) => e.eventName === 'n8n.node.started' && e.nodeName === name && ids.has(e.workflowId),
				);
				return new Set(started.map((e) => e.workflowId)).size === ids.size;
			},
			2 * MIN,
			50,
		);
	};

	/** Resolves (n8n already killed) when the sandbox has answered `count` generation creates. */
	const killAtAnsweredCreates = (count: number) => () =>
		new Promise<void>((resolve) => {
			let seen = 0;
			const stop = sb().control.watchRequests((e) => {
				if (e.type !== 'answered' || e.entry.method !== 'POST') return;
				if (!/\/generations$/.test(e.entry.path) || ++seen !== count) return;
				void n8n!.kill('SIGKILL');
				stop();
				resolve();
			});
		});

	test(
		"shape 1: killed in n8n's Wait node after Generation → Create (Wait for Completion on)",
		async () => {
			const until20s = () => ({ until: new Date(Date.now() + 20_000).toISOString() });
			const m = await crashShape(S1, nodeStartedInEach(S1, 'Wait'), until20s);
			m.forEach(expectExact);
		},
		10 * MIN,
	);

	test(
		'shape 1, two steps: Create with Wait off, then Generation → Wait, killed during the Wait',
		async () => {
			sb().control.holdJobs();
			const m = await crashShape(S1B, nodeStartedInEach(S1B, 'Wait for job'));
			m.forEach(expectExact);
		},
		10 * MIN,
	);

	test(
		'shape 2: killed while the node waits, the Webhook (started) after it in the nodes array',
		async () => {
			sb().control.holdJobs();
			const m = await crashShape(S2, killAtAnsweredCreates(2 * ROWS));
			m.forEach(expectExact);
		},
		10 * MIN,
	);

	test(
		'shape 3: MediaGen inside Loop Over Items, killed in the 3rd iteration',
		async () => {
			const m = await crashShape(S3, killAtAnsweredCreates(2 * ROWS));
			m.forEach(expectExact);
		},
		10 * MIN,
	);

	/** Runs variant `v` with `fault` on and waits for its execution to fail. */
	async function failed(v: Variant, fault: () => void, body: Json = {}) {
		const known = new Set((await executionsOf(v.wf)).map((e) => e.id));
		fault();
		await trigger(v, body);
		let found: Execution | undefined;
		await until(
			async () => {
				found = (await executionsOf(v.wf)).find((e) => !known.has(e.id));
				return found !== undefined && !['new', 'running'].includes(found.status);
			},
			2 * MIN,
			250,
		);
		sb().control.clearFaults();
		expect(found!.status).toBe('error');
		return found!;
	}

	test(
		'shape 4: Generation → Create answered 500 after MediaGen made the job of row 2; the node fails; Retry',
		async () => {
			sb().control.setCredits('main', 1000 * cost);
			const m = [];
			for (const v of S4.variants) {
				const execution = await failed(v, () =>
					sb().control.addFault({
						kind: 'fail',
						afterWork: true,
						method: 'POST',
						path: '/generations$',
						skip: 1,
						count: 5, // the first send and the transport's 4 retries with the same key
						status: 500,
					}),
				);
				const before = new Set((await generations()).map((g) => String(g.id)));
				m.push(await measure(S4, v, await retry(execution), before));
			}
			m.forEach(expectExact);
		},
		10 * MIN,
	);

	test(
		"shape 4: Canvas Run → Start, the connection of row 2's start dropped after the run was made; Retry",
		async () => {
			sb().control.setCredits('main', 1000 * cost);
			const results = [];
			for (const v of S4C.variants) {
				const canvases = await canvasPerRow(api, v.tag, ROWS);
				const runCost = Number((await api('POST', `/canvas/${canvases[0]}/estimate`)).credits);
				const execution = await failed(
					v,
					() =>
						sb().control.addFault({
							kind: 'drop',
							method: 'POST',
							path: '/canvas/[^/]+/runs$',
							skip: 1,
						}),
					{ canvases },
				);
				const retried = await retry(execution);
				const runsOf = async () =>
					await Promise.all(
						canvases.map(async (id) => (await api('GET', `/canvas/${id}/runs`)).data as Json[]),
					);
				let final: Json[][] = [];
				await until(
					async () => {
						final = await runsOf();
						return final.flat().every((r) => !['queued', 'running'].includes(String(r.status)));
					},
					MIN,
					250,
				).catch(() => undefined);
				const credits = creditsOf(final.flat());
				const out = outputOf(retried, 'Start run');
				const paired = final.every(
					(r, i) => out[i]?.workflowId === canvases[i] && out[i]?.id === oldestFirst(r)[0]?.id,
				);
				const line = `S4c, ${v.label}: ${final.flat().length} runs for ${ROWS} rows (per row ${final.map((r) => r.length).join('/')}), ${credits} credits (${ROWS} × ${runCost} = ${ROWS * runCost}); retry ${retried.status}${errorOf(retried)}, output paired with each row's run: ${paired}`;
				figures.push(line);
				results.push({
					perRow: final.map((r) => r.length),
					credits,
					runCost,
					status: retried.status,
					paired,
					line,
				});
			}
			for (const r of results) {
				expect({ line: r.line, perRow: r.perRow }).toEqual({
					line: r.line,
					perRow: Array(ROWS).fill(1),
				});
				expect(r.credits).toBe(ROWS * r.runCost);
				expect(r.status).toBe('success');
				expect(r.paired).toBe(true);
			}
		},
		10 * MIN,
	);

	/**
	 * Issue #36, finding 1: runs `s` on the sheet's rows `was`, kills n8n (kill -9) once `made`
	 * creates were answered (the jobs held: the node waits), sets the sheet to `now` before the
	 * Retry. What the sandbox made and charged per row (each job's prompt names its row), which
	 * row's job each item of the retry carries, and the removed rows' jobs named in a warning.
	 */
	async function rowsChanged(s: Shape, was: string[], now: string[], made: number) {
		const v = s.variants[0];
		sheet = was;
		sheetReads = 0;
		sb().control.holdJobs();
		const { retried, before } = await crashAndRetry(
			s,
			killAtAnsweredCreates(made),
			() => ({ sheet: sheetUrl }),
			() => (sheet = now),
		);
		const run = retried[0];
		const rows = [...new Set([...was, ...now])];
		const jobs = await jobsOfTag(v.tag);
		const jobsOf = (row: string) =>
			oldestFirst(jobs.filter((g) => g.prompt === `${v.tag} row ${row}`));
		const byId = new Map(jobs.map((g) => [String(g.id), g]));
		// the row each output item's job was made for (its prompt), '?' for a job of none
		const got = outputOf(run, s.last).map((o) =>
			String(byId.get(String(o.id))?.prompt ?? '?').replace(`${v.tag} row `, ''),
		);
		const hints = (run.data?.resultData.runData[s.last] ?? [])
			.flatMap((t) => t.hints ?? [])
			.map((h) => h.message)
			.join('\n');
		const removed = was.filter((r) => !now.includes(r));
		const named = removed.every((r) => jobsOf(r).every((g) => hints.includes(String(g.id))));
		const credits = creditsOf(jobs);
		const inRetry = jobs.filter((g) => !before.has(String(g.id))).length;
		const line = `${s.key}, ${v.label}: rows ${was.join(', ')} became ${now.join(', ')} (the sheet read ${sheetReads} times), killed at ${made} creates answered: ${inRetry} creates in the retry, ${jobs.length} jobs (per row ${rows.map((r) => `${r} ${jobsOf(r).length}`).join(', ')}), ${credits} credits (${rows.length} × ${cost} = ${rows.length * cost}); retry ${run.status}${errorOf(run)}, the items' jobs made for rows [${got.join(', ')}]${removed.length ? `, the removed row's job named in a warning: ${named}` : ''}`;
		figures.push(line);
		expect({ line, reads: sheetReads, perRow: rows.map((r) => jobsOf(r).length) }).toEqual({
			line,
			reads: 2, // the lost try and the Retry: the Retry read the changed sheet
			perRow: rows.map(() => 1),
		});
		expect(credits).toBe(rows.length * cost);
		expect(run.status).toBe('success');
		expect(got).toEqual(now);
		expect(named).toBe(true);
	}

	test(
		'issue #36, finding 1: a row added on top between the crash and the Retry (A, B, C became N, A, B, C), killed while the node waits',
		async () => {
			await rowsChanged(F1A, ['A', 'B', 'C'], ['N', 'A', 'B', 'C'], 3);
		},
		10 * MIN,
	);

	test(
		'issue #36, finding 1: the first row removed between the crash and the Retry (A, B, C became B, C), killed once two jobs were made',
		async () => {
			await rowsChanged(F1R, ['A', 'B', 'C'], ['B', 'C'], 2);
		},
		10 * MIN,
	);

	/**
	 * Issue #36, finding 2: runs caller `c` twice (two executions, no crash); each answers with
	 * the items of its two calls. Every call must have a job of its own, each charged once.
	 */
	async function calledTwice(c: (typeof CALLERS)[number]) {
		sb().control.setCredits('main', 1000 * cost);
		const from = sb().control.requests().at(-1)?.seq ?? 0;
		const answers: Json[][] = [];
		for (let run = 0; run < 2; run++) {
			const res = await fetch(n8n!.webhookUrl(c.hook), {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: '{}',
			});
			const text = await res.text();
			expect({ status: res.status, text }).toMatchObject({ status: 200 });
			answers.push(JSON.parse(text) as Json[]);
		}
		const jobs = await jobsOfTag(c.key);
		const ids = answers.flat().map((o) => String(o.id));
		const completed = jobs.filter((g) => g.status === 'completed').length;
		const creates = sb()
			.control.requests({ method: 'POST', path: '/generations$' })
			.filter((e) => e.seq > from);
		const refused = creates.filter((e) => e.status === 409).length;
		const credits = creditsOf(jobs);
		const line = `${c.key}, sub-workflow called ${c.label}, 2 executions: ${ids.length} calls answered, ${new Set(ids).size} distinct jobs in them, ${jobs.length} jobs made (${completed} completed), ${credits} credits (4 × ${cost} = ${4 * cost}); ${creates.length} creates sent, ${refused} answered 409`;
		figures.push(line);
		expect({ line, calls: ids.length, distinct: new Set(ids).size }).toEqual({
			line,
			calls: 4,
			distinct: 4,
		});
		expect(jobs.map((g) => String(g.id)).sort()).toEqual([...ids].sort());
		expect(completed).toBe(4);
		expect(credits).toBe(4 * cost);
	}

	test(
		'issue #36, finding 2: a sub-workflow called from two branches with the same item: a job for each call, each charged once',
		async () => {
			await calledTwice(F2B);
		},
		10 * MIN,
	);

	test(
		'issue #36, finding 2: a sub-workflow called twice in a row with the same item: a job for each call, each charged once',
		async () => {
			await calledTwice(F2R);
		},
		10 * MIN,
	);
});
