/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only code (tests): never published, see package.json "files" */
/**
 * n8n itself dies while a MediaGen node waits for its jobs (issue #24), in a real n8n (regular
 * mode, sqlite) with the packed package, against the sandbox: a Webhook-started workflow makes 10
 * generations (Generation → Create, Wait for Completion on); n8n is killed (kill -9), or stopped
 * with SIGTERM and its grace period runs out, or killed while a create is in flight. n8n is
 * started again (its crash recovery marks the execution `crashed`), and the execution is retried
 * the way the Executions list does it (`POST /rest/executions/:id/retry`). The sandbox must have
 * created and charged exactly one job per item, and the retry's output must be those jobs (the
 * original ids).
 *
 * With MEDIAGEN_E2E_MATRIX=1 (the compatibility matrix, e.g. n8n 1.123.81) only the kill -9 case
 * runs. Skipped unless MEDIAGEN_E2E=1; needs a build (`npm run build`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import type { DemoContext } from '../../scripts/demoSetup';
import { setupDemo } from '../../scripts/demoSetup';
import { until } from '../harness/sandbox/helpers';
import type { N8nInstance, N8nOwner } from '../harness/e2e/n8n';
import {
	describeE2E,
	hasBuiltPackage,
	importWorkflows,
	publishWorkflow,
	restOf,
	setupOwner,
	startN8n,
} from '../harness/e2e/n8n';
import type { RestExecution } from '../harness/e2e/shapes';
import { e2eDemoOptions, MIN, webhookBatch } from '../harness/e2e/workflows';

type Json = Record<string, unknown>;
const ITEMS = 10;
const HOOK = 'e2e-crash-batch';
const matrixOnly = process.env.MEDIAGEN_E2E_MATRIX === '1';

const WF = webhookBatch({
	id: 'e2eCrashBatch001',
	name: 'e2e: n8n dies mid-batch',
	path: HOOK,
	webhookId: '00000000-0000-4000-8000-00000000c4a5',
	items: ITEMS,
	prompt: 'e2e crash: a lighthouse in fog',
	durationMs: 2000,
});

type Execution = RestExecution;

describeE2E('n8n dies mid-batch: Retry never charges twice (real n8n)', () => {
	let ctx: DemoContext;
	let workDir: string;
	let n8n: N8nInstance | undefined;
	let owner: N8nOwner;
	let cost = 0;
	const figures: string[] = [];

	beforeAll(async () => {
		if (!hasBuiltPackage())
			throw new Error('dist/ is not built: run `npm run build` first (npm run test:e2e does)');
		workDir = mkdtempSync(path.join(tmpdir(), 'mediagen-e2e-crash-'));
		ctx = await setupDemo(e2eDemoOptions(workDir));
		await importWorkflows(ctx.home, [WF]);
		await publishWorkflow(ctx.home, WF.id);
		n8n = await startN8n(ctx.home);
		owner = await setupOwner(n8n);
		await n8n.waitForWebhook(HOOK);
		const estimate = await fetch(`${ctx.sandbox.baseUrl}/generations/estimate`, {
			method: 'POST',
			headers: {
				authorization: `Bearer ${ctx.sandbox.keys.pro}`,
				'content-type': 'application/json',
			},
			body: JSON.stringify({
				modelId: 'flux-pro',
				tool: 'image',
				params: { sandbox: { durationMs: 2000 } },
			}),
		});
		cost = Number(((await estimate.json()) as { credits: number }).credits);
	}, 30 * MIN);

	afterAll(async () => {
		ctx?.sandbox.control.releaseJobs();
		await n8n?.stop();
		await ctx?.close();
		if (workDir) rmSync(workDir, { recursive: true, force: true });
		if (figures.length) {
			// eslint-disable-next-line no-console
			console.log(`[e2e crash] n8n ${ctx?.home.runtime.version}\n${figures.join('\n')}`);
		}
	});

	const sb = () => ctx.sandbox;
	const creates = () => sb().control.requests({ method: 'POST', path: '/generations$' });
	const balance = () => sb().control.credits('main').balance;

	const rest = restOf(
		() => n8n!,
		() => owner,
	);

	const executions = async () =>
		(
			await rest<{ results: Execution[] }>(
				'GET',
				`/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId: WF.id }))}`,
			)
		).results;

	/** The generations the sandbox made, newest first. */
	async function generations(): Promise<Json[]> {
		const res = await fetch(`${sb().baseUrl}/generations?status=all&limit=100`, {
			headers: { authorization: `Bearer ${sb().keys.pro}` },
		});
		return ((await res.json()) as { data: Json[] }).data;
	}
	const madeBy = (records: Json[], executionId: string) =>
		records
			.filter((g) => ((g.context as Json)?.n8n as Json | undefined)?.executionId === executionId)
			.map((g) => String(g.id));

	/** Starts the batch, waits until the sandbox made `sent` jobs, then `die`s. */
	async function batchThenDie(sent: number, die: () => Promise<unknown>) {
		sb().control.setCredits('main', 100 * cost);
		sb().control.clearRequests();
		sb().control.holdJobs(); // the jobs stay queued: n8n is still waiting when it dies
		const before = new Set((await executions()).map((e) => e.id));
		const known = (await generations()).length;
		const res = await fetch(n8n!.webhookUrl(HOOK), {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: '{"campaign":"autumn"}',
		});
		expect(res.status).toBe(200);
		// counted at MediaGen: a create whose answer is held back is made but not answered yet
		await until(async () => (await generations()).length - known >= sent, 2 * MIN, 50);
		const t0 = Date.now();
		await die();
		const diedInMs = Date.now() - t0;
		sb().control.clearFaults();
		const all = await generations();
		const started = all.length - known;
		// the jobs go on at MediaGen and are charged
		sb().control.releaseJobs();
		n8n = await startN8n(ctx.home, n8n!.port);
		let crashed: Execution | undefined;
		await until(
			async () => {
				crashed = (await executions()).find((e) => !before.has(e.id));
				return crashed?.status === 'crashed';
			},
			2 * MIN,
			500,
		);
		return { crashed: crashed!, started, made: madeBy(all, crashed!.id), diedInMs };
	}

	async function retry(crashed: Execution) {
		const t0 = Date.now();
		const retried = await rest<Execution>('POST', `/executions/${crashed.id}/retry`, {
			loadWorkflow: false,
		});
		const ms = Date.now() - t0;
		const out = (retried.data?.resultData.runData.Generate?.at(-1)?.data?.main[0] ?? []).map(
			(i) => i.json as Json,
		);
		return { retried, out, ms };
	}

	test(
		'kill -9 while the node waits, restart, Retry: no second job, the 10 paid results in its output',
		async () => {
			const { crashed, started, made } = await batchThenDie(ITEMS, () => n8n!.kill('SIGKILL'));
			expect(started).toBe(ITEMS);
			const creditsBefore = balance();
			sb().control.clearRequests();
			const { retried, out, ms } = await retry(crashed);
			expect(retried).toMatchObject({ mode: 'retry', retryOf: crashed.id, status: 'success' });
			expect(creates()).toHaveLength(0);
			expect(out.map((o) => o.status)).toEqual(Array(ITEMS).fill('completed'));
			expect(out.map((o) => String(o.id)).sort()).toEqual([...made].sort());
			await until(() => balance() === 100 * cost - ITEMS * cost, MIN, 100);
			figures.push(
				`kill -9 while waiting: ${started} creates before the kill, 0 in the retry; ${100 * cost - balance()} credits charged for ${ITEMS} items (${cost} each), ${creditsBefore - balance()} of them while the retry ran; retry ${ms} ms`,
			);
		},
		15 * MIN,
	);

	(matrixOnly ? test.skip : test)(
		'SIGTERM and the grace period runs out while the node waits, restart, Retry: no second job',
		async () => {
			const { crashed, started, made, diedInMs } = await batchThenDie(ITEMS, () =>
				n8n!.kill('SIGTERM'),
			);
			expect(started).toBe(ITEMS);
			sb().control.clearRequests();
			const { retried, out } = await retry(crashed);
			expect(retried.status).toBe('success');
			expect(creates()).toHaveLength(0);
			expect(out.map((o) => String(o.id)).sort()).toEqual([...made].sort());
			await until(() => balance() === 100 * cost - ITEMS * cost, MIN, 100);
			figures.push(
				`SIGTERM past the grace period: n8n exited ${diedInMs} ms after SIGTERM; 0 creates in the retry; ${100 * cost - balance()} credits for ${ITEMS} items`,
			);
		},
		15 * MIN,
	);

	(matrixOnly ? test.skip : test)(
		'kill -9 in the send phase (3 creates answered, the 4th in flight, 6 not sent), Retry: each item charged once',
		async () => {
			// the 4th create is done at MediaGen, its answer held back until n8n is gone
			sb().control.addFault({
				kind: 'delay',
				method: 'POST',
				path: '/generations$',
				skip: 3,
				delayMs: MIN,
			});
			const { crashed, started, made } = await batchThenDie(4, () => n8n!.kill('SIGKILL'));
			expect(started).toBe(4);
			expect(made).toHaveLength(4);
			sb().control.clearRequests();
			const { retried, out } = await retry(crashed);
			expect(retried.status).toBe('success');
			expect(creates()).toHaveLength(ITEMS - 4);
			expect(out).toHaveLength(ITEMS);
			const rows = out.map((o) => ((o.context as Json).n8n as Json).itemIndex);
			expect(rows).toEqual([...Array(ITEMS).keys()]);
			expect(
				out
					.slice(0, 4)
					.map((o) => String(o.id))
					.sort(),
			).toEqual([...made].sort());
			await until(() => balance() === 100 * cost - ITEMS * cost, MIN, 100);
			figures.push(
				`kill -9 mid-send: 4 creates (the 4th unanswered) before the kill, ${creates().length} in the retry; ${100 * cost - balance()} credits for ${ITEMS} items`,
			);
		},
		15 * MIN,
	);
});
