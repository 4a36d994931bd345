/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions -- dev-only code (tests): never published, see package.json "files" */
/**
 * Updating the package under a published MediaGen Trigger workflow (issue #37, finding 8), in a
 * real n8n 2.x (`n8n start`, regular mode, sqlite) against the sandbox.
 *
 * The workflow is published with the package as it was before the trigger had its checks (built
 * from git at EARLIER, the parent of the commit that added the `trigger` method, the start-up
 * check and the periodic check): n8n records its trigger as `persisted` (a webhook, nothing to run
 * on start). n8n stops; meanwhile MediaGen gives up on 5 events (11 h scaled). The package is
 * replaced with this build (`npm install` of the packed repository in ~/.n8n/nodes, as a user
 * updates) and n8n starts again. Shown:
 * - n8n keeps the `persisted` row and runs nothing of the trigger on start: the 5 failed events
 *   stay failed (n8n's fact, on every version of the package);
 * - the first event that reaches the trigger runs, n8n's log names the workflow and says what to
 *   do, the execution carries the same hint, and the trigger has MediaGen send the 5 failed
 *   deliveries again: each runs once (before finding 8's fix: none of this);
 * - once the workflow is published again, the row is `in-memory` and nothing more is said.
 *
 * Skipped unless MEDIAGEN_E2E=1; needs a build (`npm run build`) and git. MEDIAGEN_E2E_EARLIER_DIR
 * may name a built checkout of EARLIER (otherwise it is built here, about a minute); the update
 * installs the repository, or MEDIAGEN_E2E_PACK_DIR as the other suites do.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import type { DemoContext } from '../../scripts/demoSetup';
import { PACKAGE_NAME, SANDBOX_CREDENTIAL, setupDemo } from '../../scripts/demoSetup';
import { until } from '../harness/sandbox/helpers';
import type { N8nHome, N8nInstance, N8nOwner, N8nWorkflow } from '../harness/e2e/n8n';
import {
	describeE2E,
	freePort,
	hasBuiltPackage,
	importWorkflows,
	installCommunityPackage,
	packRepo,
	publishWorkflow,
	REPO_ROOT,
	restOf,
	setupOwner,
	startN8n,
} from '../harness/e2e/n8n';
import { activate } from '../harness/e2e/shapes';
import { triggerSandbox } from '../harness/e2e/triggerSandbox';
import { e2eDemoOptions, MIN } from '../harness/e2e/workflows';

type Json = Record<string, unknown>;
/** The parent of f630fdf ("a trigger method (n8n 2.x runs the activation on every start) with a periodic check"). */
const EARLIER = '0a4a0ad272dad9c623c3580e46c23a275a945ef2';
const MISSED = 5; // fewer than the 15 failed events after which MediaGen disables the endpoint
const WEBHOOK_ID = '00000000-0000-4000-8000-0000000037a8';
const NODE_NAME = 'MediaGen Trigger';
const WARNING = /was published with an earlier version of n8n-nodes-mediagen/;

function run(cmd: string, args: string[], cwd: string): void {
	const res = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, CI: '1' } });
	if (res.status !== 0)
		throw new Error(`${cmd} ${args.join(' ')} failed:\n${res.stdout}\n${res.stderr}`.slice(-4000));
}

/** A checkout of EARLIER with its build, beside this repository's node_modules. */
function buildEarlier(dir: string): string {
	run('bash', ['-c', `git archive ${EARLIER} | tar -x -C '${dir}'`], REPO_ROOT);
	symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'));
	run('npm', ['run', 'build', '--silent'], dir);
	return dir;
}

/** The trigger-status rows n8n keeps for the workflow (its sqlite, read with n8n's Node). */
function triggerKinds(home: N8nHome, workflowId: string): string[] {
	const db = path.join(home.userFolder, '.n8n', 'database.sqlite');
	const script = `const { DatabaseSync } = require('node:sqlite');
const db = new DatabaseSync(${JSON.stringify(db)}, { readOnly: true });
const rows = db.prepare('SELECT triggerKind, status FROM workflow_publication_trigger_status WHERE workflowId = ?').all(${JSON.stringify(workflowId)});
process.stdout.write(JSON.stringify(rows.map((r) => r.triggerKind + ':' + r.status)));`;
	const res = spawnSync(home.runtime.node, ['--no-warnings', '-e', script], { encoding: 'utf8' });
	if (res.status !== 0) throw new Error(`reading ${db}: ${res.stderr}`);
	return JSON.parse(res.stdout) as string[];
}

function triggerWorkflow(counterUrl: string): N8nWorkflow & { id: string } {
	return {
		id: 'e2eUpgradeTrig01',
		name: 'e2e: a trigger published before the update',
		nodes: [
			{
				id: 'e2e-upgrade-trigger',
				name: NODE_NAME,
				type: `${PACKAGE_NAME}.mediaGenTrigger`,
				typeVersion: 3,
				position: [0, 0],
				webhookId: WEBHOOK_ID,
				parameters: { registration: 'automatic', events: ['generation.completed'], options: {} },
				credentials: { mediaGenApi: SANDBOX_CREDENTIAL },
			},
			{
				id: 'e2e-upgrade-count',
				name: 'Count',
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				position: [240, 0],
				parameters: {
					method: 'POST',
					url: counterUrl,
					sendBody: true,
					contentType: 'json',
					specifyBody: 'keypair',
					bodyParameters: { parameters: [{ name: 'event', value: '={{ $json.id }}' }] },
					options: {},
				},
			},
		],
		connections: { [NODE_NAME]: { main: [[{ node: 'Count', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

describeE2E('updating the package under a published MediaGen Trigger workflow (real n8n)', () => {
	let ctx: DemoContext;
	let workDir: string;
	let n8n: N8nInstance | undefined;
	let owner: N8nOwner;
	let port = 0;
	let counter: Server;
	/** Event id → how many executions reached the Count node with it. */
	const seen = new Map<string, number>();
	const figures: string[] = [];
	const wf = { id: '' };

	beforeAll(async () => {
		if (!hasBuiltPackage())
			throw new Error('dist/ is not built: run `npm run build` first (npm run test:e2e does)');
		counter = createServer((req, res) => {
			let body = '';
			req.on('data', (c: Buffer) => (body += c.toString('utf8')));
			req.on('end', () => {
				const { event } = JSON.parse(body || '{}') as { event?: string };
				seen.set(String(event), (seen.get(String(event)) ?? 0) + 1);
				res.end('{}');
			});
		});
		await new Promise<void>((resolve) => counter.listen(0, '127.0.0.1', resolve));
		const counterUrl = `http://127.0.0.1:${(counter.address() as AddressInfo).port}/seen`;
		workDir = mkdtempSync(path.join(tmpdir(), 'mediagen-e2e-upgrade-'));
		const earlierDir =
			process.env.MEDIAGEN_E2E_EARLIER_DIR ||
			buildEarlier(mkdtempSync(path.join(workDir, 'earlier-')));
		ctx = await setupDemo({ ...e2eDemoOptions(workDir), packDir: earlierDir });
		const workflow = triggerWorkflow(counterUrl);
		wf.id = workflow.id;
		await importWorkflows(ctx.home, [workflow]);
		await publishWorkflow(ctx.home, wf.id);
		port = await freePort();
		n8n = await startN8n(ctx.home, port);
		owner = await setupOwner(n8n);
		await until(async () => (await endpoint())?.status === 'active', MIN, 1000);
	}, 30 * MIN);

	afterAll(async () => {
		await n8n?.stop();
		await ctx?.close();
		await new Promise<void>((resolve) => (counter ? counter.close(() => resolve()) : resolve()));
		if (workDir) rmSync(workDir, { recursive: true, force: true });
		if (figures.length) {
			// eslint-disable-next-line no-console
			console.log(`[e2e upgrade] n8n ${ctx?.home.runtime.version}\n${figures.join('\n')}`);
		}
	});

	const sb = () => ctx.sandbox;
	const rest = restOf(
		() => n8n!,
		() => owner,
	);

	const { endpoint, deliveries, events } = triggerSandbox(sb, WEBHOOK_ID, 'up');
	const warnings = () => n8n!.logs().filter((l) => WARNING.test(l.message));
	/** The newest execution of the workflow, whole (its run data is a string in n8n's format). */
	async function newestExecution(): Promise<string> {
		const filter = encodeURIComponent(JSON.stringify({ workflowId: wf.id }));
		const list = await rest<{ results: Array<{ id: string }> }>(
			'GET',
			`/executions?filter=${filter}`,
		);
		return JSON.stringify(await rest<Json>('GET', `/executions/${list.results[0].id}`));
	}

	test(
		'published with the earlier package, updated while n8n was down: the first event tells the user and has MediaGen send the missed events again',
		async () => {
			const ep = (await endpoint())!;
			const known = new Set((await deliveries(String(ep.id))).map((d) => String(d.id)));
			const [first] = await events(1, String(ep.id), known);
			await until(() => seen.has(first), MIN, 250); // the earlier package runs it
			expect(triggerKinds(ctx.home, wf.id)).toEqual(['persisted:activated']);

			// n8n stops for the update; meanwhile MediaGen gives up on MISSED events
			await n8n!.stop();
			sb().control.setConfig({ timeScale: 0.001 });
			const missed = await events(MISSED, String(ep.id), known);
			await until(
				async () =>
					(await deliveries(String(ep.id)))
						.filter((d) => missed.includes(String(d.event_id)))
						.every((d) => d.status === 'failed'),
				3 * MIN,
				2000,
			);
			sb().control.setConfig({ timeScale: 0.02 });
			const installed = await installCommunityPackage(
				ctx.home,
				await packRepo(
					path.join(workDir, 'pack-now'),
					process.env.MEDIAGEN_E2E_PACK_DIR || REPO_ROOT,
				),
			);
			const nodeFile = path.join(
				installed.dir,
				'dist/nodes/MediaGenTrigger/MediaGenTrigger.node.js',
			);
			expect(existsSync(nodeFile) && readFileSync(nodeFile, 'utf8')).toContain('startKeeper');

			sb().control.clearRequests();
			n8n = await startN8n(ctx.home, port);
			owner = await setupOwner(n8n);
			await n8n.waitForWebhook(`${WEBHOOK_ID}/webhook`, 'POST', MIN);
			await new Promise((r) => setTimeout(r, 15_000)); // n8n's start-up reconcile, and one more
			// n8n's fact: the publication decided it, nothing of the trigger ran on start
			expect(triggerKinds(ctx.home, wf.id)).toEqual(['persisted:activated']);
			expect(sb().control.requests({ path: '^/webhooks' })).toHaveLength(0);
			expect(missed.filter((id) => seen.has(id))).toEqual([]);
			expect(warnings()).toHaveLength(0);

			// the first event after the update
			const t0 = Date.now();
			const [next] = await events(1, String(ep.id), known);
			await until(() => seen.has(next), MIN, 250);
			const warning = await n8n.waitForLog(WARNING, MIN);
			expect(warning.message).toContain(
				`"${NODE_NAME}" in workflow "${triggerWorkflow('').name}" (${wf.id})`,
			);
			expect(warning.message).toContain('Publish the workflow again');
			await until(() => missed.every((id) => seen.has(id)), 2 * MIN, 250);
			const caughtUp = Date.now() - t0;
			await new Promise((r) => setTimeout(r, 3000)); // a second copy would come now
			expect([...missed, next].map((id) => seen.get(id))).toEqual([...missed, next].map(() => 1));
			expect(sb().control.requests({ method: 'POST', path: '/retry$' })).toHaveLength(MISSED);
			expect(await newestExecution()).toContain(
				'published with an earlier version of n8n-nodes-mediagen',
			);
			expect(warnings()).toHaveLength(1);
			figures.push(
				`published with ${EARLIER.slice(0, 7)}, updated while n8n was down (${MISSED} events failed for good meanwhile): on start nothing ran (row persisted, 0 requests to /webhooks); the first event ran, the log named the workflow, and the ${MISSED} missed events ran once each ${(caughtUp / 1000).toFixed(1)} s after it`,
			);
		},
		15 * MIN,
	);

	test(
		'published again: n8n runs the trigger on start and nothing more is said',
		async () => {
			await rest('POST', `/workflows/${wf.id}/deactivate`);
			await activate(rest, wf.id, ctx.home.runtime.major);
			await until(() => triggerKinds(ctx.home, wf.id)[0] === 'in-memory:activated', MIN, 500);
			const ep = (await endpoint())!;
			const known = new Set((await deliveries(String(ep.id))).map((d) => String(d.id)));
			const [id] = await events(1, String(ep.id), known);
			await until(() => seen.has(id), MIN, 250);
			await new Promise((r) => setTimeout(r, 2000));
			expect(warnings()).toHaveLength(1); // the one before the re-publish
			expect(await newestExecution()).not.toContain('published with an earlier version');
			figures.push('published again: trigger row in-memory, no warning, no hint');
		},
		5 * MIN,
	);
});
