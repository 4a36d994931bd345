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
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import type { DemoContext } from '../../scripts/demoSetup';
import { EXAMPLES_DIR, runTriggerExample, setupDemo } from '../../scripts/demoSetup';
import type { N8nInstance, PostgresServer, RedisServer } from './n8n';
import {
	describeE2E,
	freePort,
	hasBuiltPackage,
	importWorkflows,
	postgresBinDir,
	publishWorkflow,
	redisServerBinary,
	startN8n,
	startPostgres,
	startRedis,
} from './n8n';
import { e2eDemoOptions, MIN, viaWebhook, WF } from './workflows';

type Json = Record<string, unknown>;

const HOOKS = {
	crud: viaWebhook(WF.crud, 'q-crud'),
	notFoundContinue: viaWebhook(WF.notFoundContinue, 'q-notfound-continue'),
	notFoundFail: viaWebhook(WF.notFoundFail, 'q-notfound-fail'),
	binary: viaWebhook(WF.binary, 'q-binary'),
	generations: viaWebhook(WF.generations, 'q-generations'),
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
		const wfs = Object.values(HOOKS);
		await importWorkflows(ctx.home, wfs);
		for (const wf of wfs) await publishWorkflow(ctx.home, wf.id);
		const trigger = ctx.examples.find((e) => e.kind === 'trigger' && !e.skip);
		if (trigger) await publishWorkflow(ctx.home, trigger.workflow.id);

		redis = await startRedis();
		const webhookPort = await freePort();
		const webhookUrl = `http://127.0.0.1:${webhookPort}/`;
		const queueEnv = {
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
