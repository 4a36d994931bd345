/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * Stop in a real n8n 2.40.7 (issue #12, point 6): a workflow waits on 6 generations (5 running,
 * 1 queued on the Pro plan's 5 at a time); the execution is stopped through n8n's REST API
 * (`POST /rest/executions/:id/stop`, what the editor's Stop button calls). The sandbox must then
 * show every job cancelled and nothing charged for them.
 *
 * Skipped unless MEDIAGEN_E2E=1; needs a built package (`npm run build`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import type { DemoContext } from '../../scripts/demoSetup';
import { SANDBOX_CREDENTIAL, setupDemo } from '../../scripts/demoSetup';
import { client, until } from '../harness/sandbox/helpers';
import type { N8nInstance, N8nOwner } from '../harness/e2e/n8n';
import {
	describeE2E,
	hasBuiltPackage,
	importWorkflows,
	publishWorkflow,
	setupOwner,
	startN8n,
} from '../harness/e2e/n8n';
import { MG, MIN } from '../harness/e2e/workflows';

const HOOK = 'mediagen-stop-e2e';
const JOBS = 6;

const stopWorkflow = {
	id: 'e2eStopWaiting01',
	name: 'e2e stop while waiting',
	nodes: [
		{
			id: 'stop-node-1',
			name: 'Webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 0],
			webhookId: '00000000-0000-4000-8000-00000000570f',
			parameters: { httpMethod: 'POST', path: HOOK, responseMode: 'onReceived', options: {} },
		},
		{
			id: 'stop-node-2',
			name: 'Rows',
			type: 'n8n-nodes-base.splitOut',
			typeVersion: 1,
			position: [200, 0],
			parameters: { fieldToSplitOut: 'body.rows', options: {} },
		},
		{
			id: 'stop-node-3',
			name: 'Generate',
			type: MG,
			typeVersion: 1,
			position: [400, 0],
			credentials: { mediaGenApi: SANDBOX_CREDENTIAL },
			parameters: {
				resource: 'generation',
				operation: 'create',
				modelId: 'flux-pro',
				prompt: '={{ "e2e stop: row " + $json.row }}',
				// ten minutes each: the jobs are still running or queued when Stop comes
				additionalFields: { params: JSON.stringify({ sandbox: { durationMs: 600_000 } }) },
			},
		},
	],
	connections: {
		Webhook: { main: [[{ node: 'Rows', type: 'main', index: 0 }]] },
		Rows: { main: [[{ node: 'Generate', type: 'main', index: 0 }]] },
	},
	settings: { executionOrder: 'v1' },
};

describeE2E('Stop in a real n8n cancels the jobs it waits for', () => {
	let ctx: DemoContext;
	let workDir: string;
	let n8n: N8nInstance;
	let owner: N8nOwner;

	beforeAll(async () => {
		if (!hasBuiltPackage()) throw new Error('dist/ is not built: run `npm run build` first');
		workDir = mkdtempSync(path.join(tmpdir(), 'mediagen-e2e-stop-'));
		ctx = await setupDemo({
			workDir,
			build: false,
			packDir: process.env.MEDIAGEN_E2E_PACK_DIR || undefined,
			timeScale: 1,
		});
		await importWorkflows(ctx.home, [stopWorkflow]);
		await publishWorkflow(ctx.home, stopWorkflow.id);
		n8n = await startN8n(ctx.home);
		owner = await setupOwner(n8n);
		await n8n.waitForWebhook(HOOK, 'POST', 60_000);
	}, 30 * MIN);

	afterAll(async () => {
		await n8n?.stop();
		await ctx?.close();
		if (workDir) rmSync(workDir, { recursive: true, force: true });
	});

	const rest = async (method: string, route: string) => {
		const res = await fetch(`${n8n.url}/rest${route}`, {
			method,
			headers: { cookie: owner.cookie, 'content-type': 'application/json' },
		});
		return {
			status: res.status,
			body: (await res.json().catch(() => ({}))) as Record<string, never>,
		};
	};

	test(
		'Stop of the execution: every queued and running job cancelled, nothing charged',
		async () => {
			const sb = ctx.sandbox;
			const api = client(sb, sb.keys.pro);
			const before = sb.control.credits('main');
			const started = await fetch(n8n.webhookUrl(HOOK), {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ rows: Array.from({ length: JOBS }, (_, row) => ({ row })) }),
			});
			expect(started.status).toBe(200);

			// the node is waiting: all jobs created, 5 running, and the poller has looked once
			const jobs = async () =>
				((await api('GET', '/generations?status=all&limit=100')).body.data ?? []) as Array<{
					id: string;
					status: string;
					credits_charged: number;
				}>;
			await until(
				async () => {
					const list = await jobs();
					return list.length === JOBS && list.filter((g) => g.status === 'running').length === 5;
				},
				2 * MIN,
				200,
			);
			await until(
				() => sb.control.requests({ method: 'GET', path: '/generations$' }).length > 0,
				2 * MIN,
				200,
			);
			const list = await jobs();
			expect(list.filter((g) => g.status === 'running')).toHaveLength(5);
			expect(list.filter((g) => g.status === 'queued')).toHaveLength(1);

			// the running execution, as n8n lists it
			const running = await until(
				async () => {
					const r = await rest('GET', '/executions?filter={"status":["running"]}');
					const results = ((r.body as { data?: { results?: Array<{ id: string }> } }).data
						?.results ?? []) as Array<{ id: string }>;
					return results[0];
				},
				MIN,
				250,
			);
			const stop = await rest('POST', `/executions/${running.id}/stop`);
			expect(stop.status).toBe(200);

			// n8n's Stop ends the wait; the node cancels the jobs at the service within its budget
			await until(async () => (await jobs()).every((g) => g.status === 'cancelled'), MIN, 200);
			expect(
				sb.control.requests({ method: 'POST', path: '/generations/[^/]+/cancel$' }),
			).toHaveLength(JOBS);
			const after = sb.control.credits('main');
			expect(after.balance).toBe(before.balance);
			expect(after.reserved).toBe(0);
			for (const g of await jobs()) expect(g.credits_charged).toBe(0);

			// n8n records the execution as cancelled
			const done = await until(
				async () => {
					const r = await rest('GET', `/executions/${running.id}`);
					const status = (r.body as { data?: { status?: string } }).data?.status;
					return status && status !== 'running' ? status : undefined;
				},
				MIN,
				250,
			);
			expect(done).toBe('canceled');
		},
		5 * MIN,
	);
});
