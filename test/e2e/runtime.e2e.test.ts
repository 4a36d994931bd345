/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions -- dev-only test code (real n8n e2e), never published: see package.json "files" */
/**
 * The real-n8n runtime, proven: installer, headless import/execute, credentials, `n8n start`,
 * and (when dist/ is built) the packed package loaded as a community package.
 *
 * Skipped unless MEDIAGEN_E2E=1:   MEDIAGEN_E2E=1 npx jest test/e2e
 * The first run installs n8n into ~/.cache/n8n-nodes-mediagen (minutes); see docs/n8n-runtime.md.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import {
	createN8nHome,
	describeE2E,
	describeResult,
	ensureRuntime,
	executeWorkflow,
	freePort,
	hasBuiltPackage,
	importCredentials,
	importWorkflow,
	nodeItems,
	packRepo,
	publishWorkflow,
	setupOwner,
	startN8n,
	type N8nHome,
	type N8nWorkflow,
} from '../harness/e2e/n8n';

const MIN = 60_000;

function manualTrigger(name = 'Start') {
	return {
		id: `${name}-id`,
		name,
		type: 'n8n-nodes-base.manualTrigger',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
}

function chain(...names: string[]): Record<string, unknown> {
	const connections: Record<string, unknown> = {};
	for (let i = 0; i + 1 < names.length; i++) {
		connections[names[i]] = { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] };
	}
	return connections;
}

/** Manual Trigger -> Set (an expression) -> Code (JavaScript in the task runner) */
const builtInWorkflow: N8nWorkflow = {
	name: 'e2e built-in nodes',
	nodes: [
		manualTrigger(),
		{
			id: 'set-id',
			name: 'Answer',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			position: [200, 0],
			parameters: {
				mode: 'manual',
				assignments: {
					assignments: [
						{ id: 'a1', name: 'answer', value: '={{ 6 * 7 }}', type: 'number' },
						{ id: 'a2', name: 'greeting', value: 'hello e2e', type: 'string' },
					],
				},
				options: {},
			},
		},
		{
			id: 'code-id',
			name: 'Double',
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			position: [400, 0],
			parameters: {
				jsCode:
					'return $input.all().map((i) => ({ json: { doubled: i.json.answer * 2, from: i.json.greeting } }));',
			},
		},
	],
	connections: chain('Start', 'Answer', 'Double'),
};

describeE2E('real n8n runtime (scripts/n8n-runtime.sh + test/harness/e2e/n8n.ts)', () => {
	const homes: N8nHome[] = [];
	const tmpDirs: string[] = [];
	const timings: Record<string, number> = {};

	afterAll(async () => {
		for (const h of homes) await h.cleanup();
		for (const d of tmpDirs) rmSync(d, { recursive: true, force: true });
		// eslint-disable-next-line no-console
		console.log(`[e2e] timings (ms): ${JSON.stringify(timings)}`);
	});

	test(
		'the installer provides Node 24 and n8n 2.40.7',
		async () => {
			const t0 = Date.now();
			const rt = await ensureRuntime();
			timings.ensureRuntime = Date.now() - t0;
			const nodeVersion = execFileSync(rt.node, ['--version'], { encoding: 'utf8' }).trim();
			expect(nodeVersion).toMatch(/^v24\./);
			const n8nVersion = execFileSync(rt.node, [rt.bin, '--version'], {
				encoding: 'utf8',
				env: {
					PATH: process.env.PATH ?? '',
					HOME: tmpdir(),
					N8N_USER_FOLDER: mkTmp('mediagen-n8n-v-'),
				},
			}).trim();
			expect(n8nVersion.split('\n').pop()).toBe('2.40.7');
		},
		30 * MIN,
	);

	test(
		'imports and executes a workflow of built-in nodes headless',
		async () => {
			const home = await createN8nHome();
			homes.push(home);
			const id = await importWorkflow(home, builtInWorkflow);
			expect(id).toMatch(/^[A-Za-z0-9]{16}$/);

			const result = await executeWorkflow(home, id);
			timings.executeTrivial = result.durationMs;
			expect({ ok: result.ok, summary: describeResult(result) }).toMatchObject({ ok: true });
			expect(result.status).toBe('success');
			expect(result.lastNodeExecuted).toBe('Double');
			expect(nodeItems(result, 'Answer').map((i) => i.json)).toEqual([
				{ answer: 42, greeting: 'hello e2e' },
			]);
			expect(nodeItems(result, 'Double').map((i) => i.json)).toEqual([
				{ doubled: 84, from: 'hello e2e' },
			]);
			expect(result.run?.mode).toBe('cli');
		},
		10 * MIN,
	);

	test(
		'a failing node is reported with its message and the run data so far',
		async () => {
			const home = await createN8nHome();
			homes.push(home);
			const id = await importWorkflow(home, {
				name: 'e2e failing node',
				nodes: [
					manualTrigger(),
					{
						id: 'boom-id',
						name: 'Boom',
						type: 'n8n-nodes-base.code',
						typeVersion: 2,
						position: [200, 0],
						parameters: { jsCode: "throw new Error('kaboom from e2e');" },
					},
				],
				connections: chain('Start', 'Boom'),
			});
			const result = await executeWorkflow(home, id);
			expect(result.ok).toBe(false);
			expect(result.exitCode === 1 || result.crashedAtExit).toBe(true);
			expect(result.status).toBe('error');
			expect(result.error?.message).toContain('kaboom from e2e');
			expect(result.runData.Start).toHaveLength(1);
			expect(result.runData.Boom[0].error?.message).toContain('kaboom from e2e');

			// an unknown node type fails before anything runs
			const unknown = await importWorkflow(home, {
				nodes: [
					manualTrigger(),
					{
						id: 'x',
						name: 'Nope',
						type: 'n8n-nodes-nope.nope',
						typeVersion: 1,
						position: [200, 0],
						parameters: {},
					},
				],
				connections: chain('Start', 'Nope'),
			});
			const r2 = await executeWorkflow(home, unknown);
			expect(r2.status).toBe('no-run');
			expect(r2.error?.message).toBe('Unrecognized node type: n8n-nodes-nope.nope');

			const r3 = await executeWorkflow(home, 'NoSuchWorkflow01');
			expect(r3.status).toBe('no-run');
			expect(r3.exitCode).toBe(1);
			expect(r3.error?.message).toBe('The workflow with the id "NoSuchWorkflow01" does not exist.');
		},
		10 * MIN,
	);

	test(
		'credentials imported in plain text are encrypted and used by a node',
		async () => {
			const seen: IncomingHttpHeaders[] = [];
			const port = await freePort();
			const server: Server = createServer((req, res) => {
				seen.push(req.headers);
				res.setHeader('content-type', 'application/json');
				res.end(JSON.stringify({ path: req.url, auth: req.headers['x-e2e-key'] ?? null }));
			});
			await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
			try {
				const home = await createN8nHome();
				homes.push(home);
				await importCredentials(home, [
					{
						id: 'e2eHeaderCred01',
						name: 'e2e header',
						type: 'httpHeaderAuth',
						data: { name: 'X-E2E-Key', value: 'secret-123' },
					},
				]);
				const id = await importWorkflow(home, {
					name: 'e2e credential',
					nodes: [
						manualTrigger(),
						{
							id: 'http-id',
							name: 'Call',
							type: 'n8n-nodes-base.httpRequest',
							typeVersion: 4.2,
							position: [200, 0],
							parameters: {
								url: `http://127.0.0.1:${port}/ping`,
								authentication: 'genericCredentialType',
								genericAuthType: 'httpHeaderAuth',
								options: {},
							},
							credentials: { httpHeaderAuth: { id: 'e2eHeaderCred01', name: 'e2e header' } },
						},
					],
					connections: chain('Start', 'Call'),
				});
				const result = await executeWorkflow(home, id);
				expect({ ok: result.ok, summary: describeResult(result) }).toMatchObject({ ok: true });
				expect(nodeItems(result, 'Call').map((i) => i.json)).toEqual([
					{ path: '/ping', auth: 'secret-123' },
				]);
				expect(seen).toHaveLength(1);
			} finally {
				await new Promise((r) => server.close(r));
			}
		},
		10 * MIN,
	);

	test(
		'n8n start answers /healthz and stops',
		async () => {
			const home = await createN8nHome();
			homes.push(home);
			const t0 = Date.now();
			const n8n = await startN8n(home);
			timings.startToHealthy = Date.now() - t0;
			try {
				const r = await fetch(`${n8n.url}/healthz`);
				expect(r.status).toBe(200);
				expect(await r.json()).toEqual({ status: 'ok' });
				expect(n8n.webhookUrl('abc')).toBe(`${n8n.url}/webhook/abc`);
				// the editor's first step, and an authenticated REST call with the session
				const owner = await setupOwner(n8n);
				const wf = await fetch(`${n8n.url}/rest/workflows`, { headers: { cookie: owner.cookie } });
				expect(wf.status).toBe(200);
				expect(await wf.json()).toMatchObject({ data: [] });
				const editor = await fetch(`${n8n.url}/`);
				expect(editor.status).toBe(200);
				expect(await editor.text()).toContain('<html');
			} finally {
				await n8n.stop();
			}
			expect(n8n.process.exitCode !== null || n8n.process.signalCode !== null).toBe(true);
		},
		10 * MIN,
	);

	test(
		'a published webhook workflow is activated by n8n start and answers on its production URL',
		async () => {
			const home = await createN8nHome();
			homes.push(home);
			const id = await importWorkflow(home, {
				name: 'e2e webhook',
				nodes: [
					{
						id: 'hook-id',
						name: 'Hook',
						type: 'n8n-nodes-base.webhook',
						typeVersion: 2,
						position: [0, 0],
						webhookId: 'e2e-hook-0001',
						parameters: {
							httpMethod: 'POST',
							path: 'e2e-hook',
							responseMode: 'lastNode',
							options: {},
						},
					},
					{
						id: 'echo-id',
						name: 'Echo',
						type: 'n8n-nodes-base.set',
						typeVersion: 3.4,
						position: [200, 0],
						parameters: {
							mode: 'manual',
							assignments: {
								assignments: [
									{ id: 'e1', name: 'got', value: '={{ $json.body.ping }}', type: 'string' },
								],
							},
							options: {},
						},
					},
				],
				connections: chain('Hook', 'Echo'),
			});
			await publishWorkflow(home, id);
			const n8n = await startN8n(home);
			try {
				await n8n.waitForWebhook('e2e-hook', 'POST');
				const r = await fetch(n8n.webhookUrl('e2e-hook'), {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify({ ping: 'pong' }),
				});
				expect(r.status).toBe(200);
				expect(await r.json()).toEqual({ got: 'pong' });
			} finally {
				await n8n.stop();
			}
		},
		10 * MIN,
	);

	const withDist = hasBuiltPackage() ? test : test.skip;
	withDist(
		'the packed package installs as a community package and n8n loads n8n-nodes-mediagen.mediaGen',
		async () => {
			const packDir = mkTmp('mediagen-pack-');
			const tarball = await packRepo(packDir);
			expect(path.dirname(tarball)).toBe(packDir);
			// createN8nHome checks with `n8n export:nodes` that the node type loads
			const home = await createN8nHome({ tarball });
			homes.push(home);
			expect(home.communityPackage?.name).toBe('n8n-nodes-mediagen');
			expect(home.nodeTypes).toContain('n8n-nodes-mediagen.mediaGen');

			// a workflow with the node imports, and the engine knows the type: the node runs
			// (it fails for want of a credential, which is fine here: no "Unrecognized node type").
			// An operation without required fields: version 2 opens on Generation → Create, whose
			// empty Model ID would make n8n refuse to start the workflow at all.
			const id = await importWorkflow(home, {
				name: 'e2e mediagen node known',
				nodes: [
					manualTrigger(),
					{
						id: 'mg-id',
						name: 'MediaGen',
						type: 'n8n-nodes-mediagen.mediaGen',
						typeVersion: home.nodeTypeVersions?.['n8n-nodes-mediagen.mediaGen'] ?? 1,
						position: [200, 0],
						parameters: { resource: 'credit', operation: 'getBalance' },
					},
				],
				connections: chain('Start', 'MediaGen'),
			});
			const result = await executeWorkflow(home, id);
			expect(result.error?.message ?? '').not.toMatch(/Unrecognized node type/);
			expect(result.status).not.toBe('no-run');
			expect(Object.keys(result.runData)).toContain('MediaGen');
		},
		10 * MIN,
	);

	function mkTmp(prefix: string): string {
		const d = mkdtempSync(path.join(tmpdir(), prefix));
		tmpDirs.push(d);
		return d;
	}
});
