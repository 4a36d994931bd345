/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/require-node-api-error, no-console -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * B9: the credit budget in a race (bench/README.md). 8 executions of a 25-item Generation →
 * Create workflow (Continue On Fail) fired together through a Webhook on one MediaGen API
 * credential whose budget is the cost of 100 jobs, in a real n8n 2.40.7 (the packed package)
 * against the time-scaled sandbox: credits charged against the budget, jobs delivered, refused
 * items, failed executions, requests per item and per delivered job. `regular`: `n8n start`
 * (sqlite); `queue`: PostgreSQL, Redis, main, two workers and a webhook process.
 *
 *   node_modules/.bin/tsx bench/budget.ts [regular|queue|both=both] [scale=0.2] [same|distinct=same] [budget jobs=100]
 *
 * `distinct`: each row has its own prompt (one estimate per item instead of one per execution).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import type { DemoContext } from '../scripts/demoSetup';
import { setupDemo } from '../scripts/demoSetup';
import type { N8nInstance, PostgresServer, RedisServer } from '../test/harness/e2e/n8n';
import {
	freePort,
	hasBuiltPackage,
	importCredentials,
	importWorkflows,
	publishWorkflow,
	startN8n,
	startPostgres,
	startRedis,
} from '../test/harness/e2e/n8n';
import { mg, node } from '../test/harness/e2e/workflows';
import { fmt, log, machine, table } from './lib';

type Json = Record<string, unknown>;
const MODES =
	process.argv[2] && process.argv[2] !== 'both' ? [process.argv[2]] : ['regular', 'queue'];
const SCALE = Number(process.argv[3] ?? 0.2);
const PROMPTS = process.argv[4] ?? 'same';
const EXECUTIONS = 8;
const ITEMS = 25;
/** The budget, in jobs (argv[5]; 25: the budget of 100 credits of issue #38, finding 7). */
const BUDGET_JOBS = Number(process.argv[5] ?? 100);
const JOB_MS = 30_000;
const HOOK = 'bench-budget';
const CREDENTIAL = { id: 'benchBudgetCred1', name: 'MediaGen, budget of 100 jobs' };

function workflow(): {
	id: string;
	name: string;
	nodes: Json[];
	connections: Json;
	settings: Json;
} {
	const prompt =
		PROMPTS === 'distinct'
			? '={{ "B9: a lighthouse in fog, row " + $json.row }}'
			: 'B9: a lighthouse in fog';
	return {
		id: 'benchBudgetRace1',
		name: 'B9: the budget in a race',
		nodes: [
			node(
				'Webhook',
				'n8n-nodes-base.webhook',
				{
					httpMethod: 'POST',
					path: HOOK,
					responseMode: 'lastNode',
					responseData: 'allEntries',
					options: {},
				},
				{ typeVersion: 2, webhookId: '00000000-0000-4000-8000-0000000b9b9b' },
			),
			node(
				'Rows',
				'n8n-nodes-base.code',
				{
					jsCode: `return Array.from({ length: ${ITEMS} }, (_, i) => ({ json: { row: i + 1 } }));`,
				},
				{ typeVersion: 2 },
			),
			mg(
				'Generate',
				{
					resource: 'generation',
					operation: 'create',
					modelId: 'flux-pro',
					tool: 'image',
					prompt,
					additionalFields: { params: JSON.stringify({ sandbox: { durationMs: JOB_MS } }) },
					options: { timeoutMinutes: 1440 },
				},
				{ typeVersion: 2, continueOnFail: true, credentials: { mediaGenApi: CREDENTIAL } },
			),
		],
		connections: {
			Webhook: { main: [[{ node: 'Rows', type: 'main', index: 0 }]] },
			Rows: { main: [[{ node: 'Generate', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

/** The processes of one mode, and where its webhook is called. */
interface Setup {
	ctx: DemoContext;
	hookUrl: string;
	workers: N8nInstance[];
	close(): Promise<void>;
}

async function setup(mode: string, cost: number): Promise<Setup> {
	const workDir = mkdtempSync(path.join(tmpdir(), `mediagen-bench-budget-${mode}-`));
	let postgres: PostgresServer | undefined;
	let redis: RedisServer | undefined;
	if (mode === 'queue') postgres = await startPostgres();
	const ctx = await setupDemo({
		workDir,
		build: false,
		timeScale: SCALE,
		rateLimitPerMinute: Math.round(120 / SCALE),
		allowHttpWebhooks: true,
		...(postgres ? { env: postgres.n8nEnv } : {}),
	});
	const { keys, baseUrl } = ctx.sandbox;
	await importCredentials(ctx.home, [
		{
			...CREDENTIAL,
			type: 'mediaGenApi',
			data: { apiKey: keys.pro, baseUrl, budgetPeriod: 'day', budgetCredits: BUDGET_JOBS * cost },
		},
	]);
	const wf = workflow();
	await importWorkflows(ctx.home, [wf]);
	await publishWorkflow(ctx.home, wf.id);
	const processes: N8nInstance[] = [];
	const close = async () => {
		await Promise.all(processes.map((p) => p.stop()));
		await redis?.stop();
		await ctx.close();
		await postgres?.stop();
		rmSync(workDir, { recursive: true, force: true });
	};
	try {
		if (mode === 'regular') {
			const n8n = await startN8n(ctx.home);
			processes.push(n8n);
			await n8n.waitForWebhook(HOOK);
			return { ctx, hookUrl: n8n.webhookUrl(HOOK), workers: [n8n], close };
		}
		redis = await startRedis();
		const webhookPort = await freePort();
		const env = {
			EXECUTIONS_MODE: 'queue',
			QUEUE_BULL_REDIS_HOST: '127.0.0.1',
			QUEUE_BULL_REDIS_PORT: String(redis.port),
			N8N_WEBHOOK_URL: `http://127.0.0.1:${webhookPort}/`,
		};
		const main = await startN8n(ctx.home, undefined, {
			env: { ...env, N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true' },
		});
		processes.push(main);
		const started = await Promise.all([
			startN8n(ctx.home, undefined, { command: 'worker', env }),
			startN8n(ctx.home, undefined, { command: 'worker', env }),
			startN8n(ctx.home, webhookPort, { command: 'webhook', env }),
		]);
		processes.push(...started);
		const webhook = started[2];
		await webhook.waitForWebhook(HOOK, 'POST', 60_000);
		return { ctx, hookUrl: webhook.webhookUrl(HOOK), workers: started.slice(0, 2), close };
	} catch (error) {
		await close();
		throw error;
	}
}

async function allGenerations(sb: DemoContext['sandbox']): Promise<Json[]> {
	const out: Json[] = [];
	let before: unknown;
	for (;;) {
		const res = await fetch(
			`${sb.baseUrl}/generations?status=all&limit=100${before ? `&before=${String(before)}` : ''}`,
			{ headers: { authorization: `Bearer ${sb.keys.pro}` } },
		);
		const page = (await res.json()) as { data: Json[]; nextCursor: unknown };
		out.push(...page.data);
		if (!page.nextCursor) return out;
		before = page.nextCursor;
	}
}

async function race(mode: string, cost: number) {
	const s = await setup(mode, cost);
	try {
		const sb = s.ctx.sandbox;
		sb.control.setCredits('main', EXECUTIONS * ITEMS * cost * 3);
		const funded = sb.control.credits('main').balance;
		const budget = BUDGET_JOBS * cost;
		const ran = () =>
			s.workers.map(
				(w) => w.logs().filter((l) => /^Worker started execution/.test(l.message)).length,
			);
		const ranBefore = ran();
		sb.control.clearRequests();
		log(
			`B9 ${mode}: ${EXECUTIONS} executions × ${ITEMS} items fired together, budget ${budget} credits (${BUDGET_JOBS} jobs of ${cost})`,
		);
		const t0 = Date.now();
		const answers = await Promise.all(
			Array.from({ length: EXECUTIONS }, async () => {
				const res = await fetch(s.hookUrl, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: '{}',
					signal: AbortSignal.timeout(60 * 60_000),
				});
				const text = await res.text();
				let items: Json[] = [];
				try {
					items = JSON.parse(text) as Json[];
				} catch {
					/* not items: a failed execution */
				}
				return { status: res.status, items: Array.isArray(items) ? items : [], text };
			}),
		);
		const wallMs = Date.now() - t0;
		for (;;) {
			const open = (await allGenerations(sb)).filter((g) =>
				['queued', 'running'].includes(String(g.status)),
			);
			if (!open.length) break;
			await sleep(500);
		}
		const charged = funded - sb.control.credits('main').balance;
		const items = answers.flatMap((a) => a.items);
		const delivered = items.filter((i) => i.status === 'completed').length;
		const refused = items.filter((i) =>
			/^Credit budget: item \d+ \(Create\)/.test(String(i.error)),
		).length;
		const otherErrors = items.filter((i) => i.error && !/^Credit budget/.test(String(i.error)));
		const failedExecutions = answers.filter(
			(a) => a.status !== 200 || a.items.length !== ITEMS,
		).length;
		const requests = sb.control.requests();
		const count = (method: string, re: RegExp) =>
			requests.filter((r) => r.method === method && re.test(r.path)).length;
		const split = {
			estimates: count('POST', /\/generations\/estimate$/),
			creates: count('POST', /\/generations$/),
			cancels: count('POST', /\/cancel$/),
			ledger: count('GET', /\/credits\/ledger$/),
			lists: count('GET', /\/generations$/),
			singles: count('GET', /\/generations\/[^/]+$/),
			tooMany: requests.filter((r) => r.status === 429).length,
		};
		const perWorker = ran().map((n, i) => n - ranBefore[i]);
		return {
			mode,
			scale: SCALE,
			prompts: PROMPTS,
			budget,
			charged,
			over: charged - budget,
			delivered,
			refused,
			otherErrors: otherErrors.length,
			failedExecutions,
			requests: requests.length,
			perItem: requests.length / (EXECUTIONS * ITEMS),
			perDelivered: delivered ? requests.length / delivered : NaN,
			split,
			wallMs,
			executionsPerWorker: mode === 'queue' ? perWorker : undefined,
			firstOtherError: otherErrors[0]?.error,
		};
	} finally {
		await s.close();
	}
}

async function main() {
	if (!hasBuiltPackage()) throw new Error('dist/ is not built: run `npm run build` first');
	const cost = 4; // flux-pro image, sandbox pricing; checked against the charges below
	const results = [];
	for (const mode of MODES) results.push(await race(mode, cost));
	console.log(`B9 (${machine()})`);
	console.log(
		`${EXECUTIONS} executions × ${ITEMS} items fired together, budget ${BUDGET_JOBS} jobs (${BUDGET_JOBS * cost} credits), jobs of ${JOB_MS / 1000} s at time scale ${SCALE}, prompts: ${PROMPTS}`,
	);
	console.log(
		table(
			['figure', ...results.map((r) => r.mode)],
			[
				['credits charged / budget', ...results.map((r) => `${r.charged} / ${r.budget}`)],
				['over the budget', ...results.map((r) => `**${r.over}**`)],
				['jobs delivered', ...results.map((r) => r.delivered)],
				['items refused, named', ...results.map((r) => r.refused)],
				['other error items', ...results.map((r) => r.otherErrors)],
				['failed executions', ...results.map((r) => r.failedExecutions)],
				['API requests per item (200)', ...results.map((r) => fmt(r.perItem))],
				['API requests per delivered job', ...results.map((r) => fmt(r.perDelivered))],
				[
					'requests: estimates / creates / cancels / ledger / list pages / single reads / 429',
					...results.map((r) => Object.values(r.split).join(' / ')),
				],
				['wall time (s)', ...results.map((r) => fmt(r.wallMs / 1000, 1))],
				['executions per worker', ...results.map((r) => r.executionsPerWorker?.join(' + ') ?? '')],
			],
		),
	);
	console.log(`JSON ${JSON.stringify(results)}`);
}

main().then(
	() => process.exit(0),
	(e) => {
		console.error(e);
		process.exit(1);
	},
);
