/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only code (tests): never published, see package.json "files" */
/**
 * n8n's own Retry of a failed execution, in a real n8n 2.40.7 with the packed package, against
 * the sandbox: three items into Generation → Create on a workspace with credits for two. The
 * execution fails at item 3 (402) after items 1 and 2 started their jobs. Credits are topped up
 * and the failed execution is retried the way the Executions list does it
 * (`POST /rest/executions/:id/retry` as the logged-in owner): n8n runs the node again in a new
 * execution in mode `retry`. The sandbox must have charged once per item: items 1 and 2 are
 * collected, not created again; only item 3 is created. A new run then makes three new jobs.
 * Also the first report: four items, the fourth invalid, nothing sent for any item.
 *
 * Skipped unless MEDIAGEN_E2E=1. Needs a build (`npm run build`); `npm run test:e2e` does both.
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
	describeResult,
	executeWorkflow,
	hasBuiltPackage,
	importWorkflows,
	restOf,
	setupOwner,
	startN8n,
} from '../harness/e2e/n8n';
import { e2eDemoOptions, MIN, mg, node, workflow } from '../harness/e2e/workflows';

const PARAMS = { sandbox: { durationMs: 3000 } };

/** A Code node emitting items, then Generation → Create for each. */
const batch = (id: string, name: string, jsCode: string, additionalFields: object = {}) =>
	workflow(id, name, [
		node('Items', 'n8n-nodes-base.code', { jsCode }, { typeVersion: 2 }),
		mg('Generate', {
			resource: 'generation',
			operation: 'create',
			modelId: 'flux-pro',
			tool: 'image',
			prompt: 'e2e batch: a teapot on a wooden table',
			additionalFields: { params: JSON.stringify(PARAMS), ...additionalFields },
		}),
	]);

const WF = batch(
	'e2eRetryNoCharge',
	'e2e: Retry of a failed execution charges once',
	'return [1, 2, 3].map((n) => ({ json: { n } }));',
);

/** The first report: four items, the fourth with a 300-character title. */
const INVALID_FOURTH = batch(
	'e2eBatchInvalid4',
	'e2e: an invalid 4th item sends nothing',
	"return [1, 2, 3, 4].map((n) => ({ json: { title: n === 4 ? 'x'.repeat(300) : `item ${n}` } }));",
	{ title: '={{ $json.title }}' },
);

interface ExecutionSummary {
	id: string;
	status: string;
	mode: string;
	retryOf?: string | null;
	workflowId: string;
}

describeE2E("n8n's Retry of a failed execution never charges twice (real n8n)", () => {
	let ctx: DemoContext;
	let workDir: string;
	let n8n: N8nInstance | undefined;
	let owner: N8nOwner;

	beforeAll(async () => {
		if (!hasBuiltPackage())
			throw new Error('dist/ is not built: run `npm run build` first (npm run test:e2e does)');
		workDir = mkdtempSync(path.join(tmpdir(), 'mediagen-e2e-retry-'));
		ctx = await setupDemo(e2eDemoOptions(workDir));
		await importWorkflows(ctx.home, [WF, INVALID_FOURTH]);
	}, 30 * MIN);

	afterAll(async () => {
		await n8n?.stop();
		await ctx?.close();
		if (workDir) rmSync(workDir, { recursive: true, force: true });
	});

	const sb = () => ctx.sandbox;
	const creates = () => sb().control.requests({ method: 'POST', path: '/generations$' });
	const balance = () => sb().control.credits('main').balance;

	const rest = restOf(
		() => n8n!,
		() => owner,
	);

	test(
		'four items, the fourth invalid: nothing is sent for any item, nothing charged',
		async () => {
			const before = balance();
			sb().control.clearRequests();
			const r = await executeWorkflow(ctx.home, INVALID_FOURTH.id, { timeoutMs: 5 * MIN });
			expect(r.ok).toBe(false);
			expect(r.error?.message).toBe('Title must be at most 200 characters, got 300');
			expect(r.error?.description).toMatch(
				/^Item 4 of 4\. Nothing was sent to MediaGen for any item/,
			);
			expect(sb().control.requests()).toHaveLength(0);
			expect(balance()).toBe(before);
		},
		10 * MIN,
	);

	test(
		'402 at item 3, credits topped up, Retry in n8n: one job per item, charged once per item',
		async () => {
			const estimate = await fetch(`${sb().baseUrl}/generations/estimate`, {
				method: 'POST',
				headers: { authorization: `Bearer ${sb().keys.pro}`, 'content-type': 'application/json' },
				body: JSON.stringify({ modelId: 'flux-pro', tool: 'image', params: PARAMS }),
			});
			const cost = Number(((await estimate.json()) as { credits: number }).credits);
			expect(cost).toBeGreaterThan(0);
			sb().control.setCredits('main', 2 * cost);
			sb().control.clearRequests();

			// 1. The execution fails at item 3: two jobs started, the third refused (402).
			const failed = await executeWorkflow(ctx.home, WF.id, { timeoutMs: 5 * MIN });
			expect(failed.status).not.toBe('success');
			expect(String(failed.error?.message)).toMatch(/Not enough credits/);
			expect(creates()).toHaveLength(3);
			const keys = creates().map((c) => c.idempotencyKey);

			// The two started jobs complete at MediaGen and are charged.
			const completed = async () => {
				const res = await fetch(`${sb().baseUrl}/generations?status=completed`, {
					headers: { authorization: `Bearer ${sb().keys.pro}` },
				});
				return ((await res.json()) as { data: unknown[] }).data.length === 2;
			};
			await until(completed, 60_000, 200);
			expect(balance()).toBe(0);

			// 2. Credits topped up; n8n's own Retry of the failed execution.
			sb().control.setCredits('main', 10 * cost);
			n8n = await startN8n(ctx.home);
			owner = await setupOwner(n8n);
			const list = await rest<{ results: ExecutionSummary[] }>(
				'GET',
				`/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId: WF.id }))}`,
			);
			const original = list.results.find((e) => e.workflowId === WF.id && e.status === 'error');
			expect(original).toBeDefined();
			const retried = await rest<ExecutionSummary & { finished: boolean }>(
				'POST',
				`/executions/${original!.id}/retry`,
				{ loadWorkflow: false },
			);
			expect(retried).toMatchObject({ mode: 'retry', retryOf: original!.id, status: 'success' });

			// Once per item: items 1 and 2 were not created again, item 3 once (with its own key).
			expect(creates()).toHaveLength(4);
			expect(creates()[3].idempotencyKey).toBe(keys[2]);
			const charged = 10 * cost - balance();
			expect(charged).toBe(cost);
			// eslint-disable-next-line no-console
			console.log(
				`[e2e retry] creates: ${creates().length} for 3 items (failed run 3 incl. one 402, retry 1); retry charged ${charged} credits (${cost} per item); balance ${balance()}`,
			);

			// 3. A new run of the workflow is a new run: three new jobs with new keys.
			await n8n.stop();
			n8n = undefined;
			const again = await executeWorkflow(ctx.home, WF.id, { timeoutMs: 5 * MIN });
			expect(again.ok).toBe(true);
			if (!again.ok) throw new Error(describeResult(again));
			expect(creates()).toHaveLength(7);
			expect(new Set(creates().map((c) => c.idempotencyKey)).size).toBe(6);
		},
		20 * MIN,
	);
});
