/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only code (tests): never published, see package.json "files" */
/**
 * Queue mode: the e2e subset with n8n split into processes, as scaled installs run it:
 * PostgreSQL (Debian's postgresql, a throw-away server started here as the `postgres` user) as
 * the database of every process, Redis (Debian's redis-server, started here), `n8n start` (main: editor, activation; production
 * webhooks off), one `n8n worker` (runs every execution) and one `n8n webhook` process (receives
 * production webhooks and enqueues them). Binary data in the database (queue mode's default).
 * Each workflow is started by a Webhook at the webhook process; the worker must log it.
 * The trigger (when built) registers its endpoint from main; the sandbox's signed events arrive
 * at the webhook process; the worker runs the workflow.
 *
 * Skipped unless MEDIAGEN_E2E=1; needs `postgresql` and `redis-server` (apt-get install).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import type { DemoContext } from '../../scripts/demoSetup';
import { EXAMPLES_DIR, runTriggerExample, setupDemo } from '../../scripts/demoSetup';
import type { N8nInstance, PostgresServer, RedisServer } from '../harness/e2e/n8n';
import {
	describeE2E,
	freePort,
	hasBuiltPackage,
	importWorkflows,
	postgresBinDir,
	publishWorkflow,
	redisServerBinary,
	setupOwner,
	startN8n,
	startPostgres,
	startRedis,
} from '../harness/e2e/n8n';
import { e2eDemoOptions, MIN, mg, node, viaWebhook, webhookBatch, WF } from '../harness/e2e/workflows';

type Json = Record<string, unknown>;

const HOOKS = {
	crud: viaWebhook(WF.crud, 'q-crud'),
	notFoundContinue: viaWebhook(WF.notFoundContinue, 'q-notfound-continue'),
	notFoundFail: viaWebhook(WF.notFoundFail, 'q-notfound-fail'),
	binary: viaWebhook(WF.binary, 'q-binary'),
	generations: viaWebhook(WF.generations, 'q-generations'),
};

/** Issue #24: ten generations started from the webhook process; the worker dies while waiting. */
const WORKER_LOSS = {
	batch: webhookBatch({
		id: 'e2eQueueLoss001',
		name: 'e2e queue: the worker dies mid-batch',
		path: 'q-loss',
		webhookId: '00000000-0000-4000-8000-000000001055',
		items: 10,
		prompt: 'e2e queue: worker loss',
		durationMs: 2000,
	}),
	collect: {
		id: 'e2eQueueCollect1',
		name: 'e2e queue: collect the generations of a lost execution',
		nodes: [
			node(
				'Webhook',
				'n8n-nodes-base.webhook',
				{
					httpMethod: 'POST',
					path: 'q-collect',
					responseMode: 'lastNode',
					responseData: 'allEntries',
					options: {},
				},
				{ typeVersion: 2, webhookId: '00000000-0000-4000-8000-00000000c011' },
			),
			mg(
				'Collect',
				{
					resource: 'generation',
					operation: 'collect',
					executionId: '={{ $json.body.executionId }}',
					output: 'raw',
				},
				{ typeVersion: 2 },
			),
		],
		connections: { Webhook: { main: [[{ node: 'Collect', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	},
};

describeE2E('queue mode: main + worker + webhook process, PostgreSQL and Redis', () => {
	let ctx: DemoContext;
	let workDir: string;
	let postgres: PostgresServer | undefined;
	let redis: RedisServer | undefined;
	let main: N8nInstance | undefined;
	let worker: N8nInstance | undefined;
	let webhook: N8nInstance | undefined;
	const timings: Record<string, number> = {};
	let queueEnv: Record<string, string> = {};

	beforeAll(async () => {
		if (!hasBuiltPackage())
			throw new Error('dist/ is not built: run `npm run build` first (npm run test:e2e does)');
		if (!redisServerBinary())
			throw new Error('queue mode needs redis-server: apt-get install -y redis-server');
		if (!postgresBinDir())
			throw new Error('queue mode needs PostgreSQL: apt-get install -y postgresql');
		const t0 = Date.now();
		postgres = await startPostgres();
		timings.postgres = Date.now() - t0;
		workDir = mkdtempSync(path.join(tmpdir(), 'mediagen-e2e-queue-'));
		ctx = await setupDemo({
			...e2eDemoOptions(workDir),
			// every n8n call of this home (imports, publishing, the three processes) uses PostgreSQL
			env: postgres.n8nEnv,
		});
		const wfs = [...Object.values(HOOKS), WORKER_LOSS.batch, WORKER_LOSS.collect];
		await importWorkflows(ctx.home, wfs);
		for (const wf of wfs) await publishWorkflow(ctx.home, wf.id);
		const trigger = ctx.examples.find((e) => e.kind === 'trigger' && !e.skip);
		if (trigger) await publishWorkflow(ctx.home, trigger.workflow.id);

		redis = await startRedis();
		const webhookPort = await freePort();
		const webhookUrl = `http://127.0.0.1:${webhookPort}/`;
		queueEnv = {
			EXECUTIONS_MODE: 'queue',
			QUEUE_BULL_REDIS_HOST: '127.0.0.1',
			QUEUE_BULL_REDIS_PORT: String(redis.port),
			N8N_DEFAULT_BINARY_DATA_MODE: 'database',
			N8N_WEBHOOK_URL: webhookUrl,
		};
		main = await startN8n(ctx.home, undefined, {
			env: { ...queueEnv, N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true' },
		});
		[worker, webhook] = await Promise.all([
			startN8n(ctx.home, undefined, { command: 'worker', env: queueEnv }),
			startN8n(ctx.home, webhookPort, { command: 'webhook', env: queueEnv }),
		]);
		for (const wf of wfs) {
			const hookPath = String((wf.nodes[0].parameters as Json).path);
			await webhook.waitForWebhook(hookPath, 'POST', 60_000);
		}
		timings.setup = Date.now() - t0;
	}, 30 * MIN);

	afterAll(async () => {
		await Promise.all([webhook?.stop(), worker?.stop()]);
		await main?.stop();
		await redis?.stop();
		await ctx?.close();
		await postgres?.stop();
		if (workDir) rmSync(workDir, { recursive: true, force: true });
		// eslint-disable-next-line no-console
		console.log(`[e2e queue] timings (ms): ${JSON.stringify(timings)}`);
	});

	/** POSTs to a workflow's webhook at the webhook process; returns the answer and checks the worker ran it. */
	async function call(wf: { id: string; nodes: Json[] }) {
		const hookPath = String((wf.nodes[0].parameters as Json).path);
		const startedBefore = worker!
			.logs()
			.filter((l) => /^Worker started execution/.test(l.message)).length;
		const t0 = Date.now();
		const res = await fetch(webhook!.webhookUrl(hookPath), {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: '{}',
			signal: AbortSignal.timeout(5 * MIN),
		});
		const text = await res.text();
		timings[wf.id] = Date.now() - t0;
		const startedAfter = worker!
			.logs()
			.filter((l) => /^Worker started execution/.test(l.message)).length;
		let body: unknown;
		try {
			body = JSON.parse(text);
		} catch {
			body = text;
		}
		return { status: res.status, body, ranOnWorker: startedAfter > startedBefore };
	}

	test(
		'create, get and list run on the worker',
		async () => {
			const r = await call(HOOKS.crud);
			expect(r.status).toBe(200);
			expect(r.ranOnWorker).toBe(true);
			const items = r.body as Json[];
			expect(items.length).toBeGreaterThan(0);
			expect(items.map((i) => i.name)).toContain('e2e project');
		},
		10 * MIN,
	);

	test(
		'a 404 with continue-on-fail becomes an error item',
		async () => {
			const r = await call(HOOKS.notFoundContinue);
			expect(r.status).toBe(200);
			expect(r.ranOnWorker).toBe(true);
			const [item] = r.body as Json[];
			expect(item.went_on).toBe(true);
			expect(String(item.error)).toMatch(/^Not found/);
		},
		10 * MIN,
	);

	test(
		'a 404 without continue-on-fail fails the execution',
		async () => {
			const r = await call(HOOKS.notFoundFail);
			expect(r.ranOnWorker).toBe(true);
			expect(r.status).toBeGreaterThanOrEqual(500);
			expect(JSON.stringify(r.body)).toMatch(
				/Not found|Error in workflow|Workflow execution failed/i,
			);
		},
		10 * MIN,
	);

	test(
		'binary in and out through database binary data: bytes intact',
		async () => {
			const r = await call(HOOKS.binary);
			expect(r.status).toBe(200);
			expect(r.ranOnWorker).toBe(true);
			const [item] = r.body as Json[];
			const written = readFileSync(path.join(workDir, String(item.fileName)));
			expect(
				written.equals(readFileSync(path.join(EXAMPLES_DIR, 'files', 'product-photo.png'))),
			).toBe(true);
		},
		10 * MIN,
	);

	test(
		'generations wait for completion on the worker; a failed job is an error item',
		async () => {
			const r = await call(HOOKS.generations);
			expect(r.status).toBe(200);
			expect(r.ranOnWorker).toBe(true);
			const [done, failed] = r.body as Json[];
			expect(done).toMatchObject({ status: 'completed' });
			expect(String(failed.error)).toMatch(/failed: model overloaded/);
		},
		10 * MIN,
	);

	test(
		'the trigger: registered by main, events received by the webhook process, run by the worker',
		async () => {
			const ex = ctx.examples.find((e) => e.kind === 'trigger');
			if (!ex || ex.skip) {
				// eslint-disable-next-line no-console
				console.log(`[e2e queue] trigger skipped: ${ex?.skip ?? 'no trigger example'}`);
				return;
			}
			const before = worker!
				.logs()
				.filter((l) => /^Worker finished execution/.test(l.message)).length;
			const t0 = Date.now();
			// already published and active in this main: runTriggerExample drives it against `main`
			const run = await runTriggerExample(ctx, ex, { n8n: main!, webhookOrigin: webhook!.url });
			timings.trigger = Date.now() - t0;
			expect({ status: run.result.status, reason: run.result.reason }).toEqual({
				status: 'ok',
				reason: undefined,
			});
			expect(run.endpointsWhileActive).toBe(1);
			expect(run.endpointsAfterDeactivation).toBe(0);
			expect(run.forgedRequestStatus).toBe(401);
			const after = worker!
				.logs()
				.filter((l) => /^Worker finished execution/.test(l.message)).length;
			expect(after).toBeGreaterThan(before);
		},
		10 * MIN,
	);

	test(
		'the worker is killed while the node waits: no second job whatever n8n does; Collect From Execution delivers the 10 paid results',
		async () => {
			const sb = ctx.sandbox;
			const creates = () => sb.control.requests({ method: 'POST', path: '/generations$' });
			sb.control.setCredits('main', 1000);
			const before = sb.control.credits('main').balance;
			sb.control.clearRequests();
			sb.control.holdJobs();
			const res = await fetch(webhook!.webhookUrl('q-loss'), {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: '{}',
			});
			expect(res.status).toBe(200);
			const t0 = Date.now();
			while (creates().length < 10 && Date.now() - t0 < 2 * MIN) await sleep(100);
			expect(creates()).toHaveLength(10);
			const [[executionId]] = await postgres!.query(
				`select id from execution_entity where "workflowId" = '${WORKER_LOSS.batch.id}' order by id desc limit 1`,
			);
			await worker!.kill('SIGKILL');
			const killedAt = Date.now();
			sb.control.releaseJobs(); // the jobs go on at MediaGen and are charged
			worker = await startN8n(ctx.home, undefined, { command: 'worker', env: queueEnv });
			// what n8n makes of it: `running` until a worker's start-up recovery marks it `crashed`,
			// then `error` once Bull's lock expires (maxStalledCount 0); nothing runs it again
			const seen: string[] = [];
			while (Date.now() - killedAt < 3 * MIN) {
				const [[status]] = await postgres!.query(
					`select status from execution_entity where id = ${executionId}`,
				);
				if (seen.at(-1) !== status) {
					seen.push(status);
					timings[`workerLoss:${status}`] = Date.now() - killedAt;
				}
				if (status === 'error') break;
				await sleep(1000);
			}
			expect(['crashed', 'error']).toContain(seen.at(-1));
			expect(creates()).toHaveLength(10);
			// and n8n's own Retry of it, as the Executions list sends it: no job either
			const owner = await setupOwner(main!);
			const r = await fetch(`${main!.url}/rest/executions/${executionId}/retry`, {
				method: 'POST',
				headers: { cookie: owner.cookie, 'content-type': 'application/json' },
				body: JSON.stringify({ loadWorkflow: false }),
			});
			const retried = `HTTP ${r.status}: ${(await r.text()).slice(0, 160)}`;
			expect(creates()).toHaveLength(10);

			expect(creates().every((c) => c.status === 201)).toBe(true);
			const collected = await fetch(webhook!.webhookUrl('q-collect'), {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ executionId }),
				signal: AbortSignal.timeout(5 * MIN),
			});
			expect(collected.status).toBe(200);
			const items = (await collected.json()) as Json[];
			expect(items.map((i) => i.status)).toEqual(Array(10).fill('completed'));
			expect(items.map((i) => ((i.context as Json).n8n as Json).executionId)).toEqual(
				Array(10).fill(String(executionId)),
			);
			expect(items.map((i) => ((i.context as Json).n8n as Json).itemIndex)).toEqual([
				...Array(10).keys(),
			]);
			expect(creates()).toHaveLength(10);
			const charged = before - sb.control.credits('main').balance;
			const each = Number(items[0].credits_charged);
			expect(charged).toBe(10 * each);
			// eslint-disable-next-line no-console
			console.log(
				`[e2e queue] worker killed mid-batch: execution ${executionId} went ${seen.map((st) => `${st} (${timings[`workerLoss:${st}`]} ms)`).join(' → ')} after the kill; n8n's Retry: ${retried}; creates 10 (0 after the kill); Collect From Execution returned ${items.length} completed jobs; ${charged} credits charged for 10 items`,
			);
		},
		15 * MIN,
	);

	test(
		'every process used PostgreSQL: the executions are rows there, no sqlite file was made',
		async () => {
			expect(main!.output()).not.toMatch(/not officially supported with sqlite/);
			const rows = await postgres!.query(
				'select status, count(*) from execution_entity group by status order by status',
			);
			const byStatus = Object.fromEntries(rows.map(([st, n]) => [st, Number(n)]));
			// the webhook calls above: 4 successful (crud, 404 continued, binary, generations) and
			// the failing one; the trigger adds one more success when built
			expect(byStatus.success).toBeGreaterThanOrEqual(4);
			expect(byStatus.error).toBeGreaterThanOrEqual(1);
			expect(existsSync(path.join(ctx.home.userFolder, '.n8n', 'database.sqlite'))).toBe(false);
		},
		10 * MIN,
	);
});
