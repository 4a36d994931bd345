/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * The packed package in a real n8n 2.40.7 (community package install, headless `n8n execute`,
 * and `n8n start` for the trigger), against a sandbox started here over real HTTP:
 * MediaGen create/get/list, a 404 with and without continue-on-fail, binary in (a file read
 * from disk, uploaded) and out (downloaded, written back: bytes intact), generations waited for
 * (completed and failed), every example in examples/ that the built package can run, and the
 * trigger (when built): activation registers an endpoint, a signed event runs the workflow,
 * deactivation leaves no endpoint.
 *
 * Skipped unless MEDIAGEN_E2E=1. Needs a build (`npm run build`); `npm run test:e2e` does both.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import type { DemoContext } from '../../scripts/demoSetup';
import { EXAMPLES_DIR, loadExamples, setupDemo } from '../../scripts/demoSetup';
import {
	describeE2E,
	describeResult,
	executeWorkflow,
	hasBuiltPackage,
	importWorkflows,
	nodeItems,
} from '../harness/e2e/n8n';
import { expectExampleRuns, expectListedNodesLoaded } from '../harness/e2e/packageChecks';
import { e2eDemoOptions, MG, MIN, WF } from '../harness/e2e/workflows';

describeE2E('the packed package in a real n8n, against the sandbox', () => {
	let ctx: DemoContext;
	let workDir: string;
	const timings: Record<string, number> = {};

	beforeAll(async () => {
		if (!hasBuiltPackage())
			throw new Error('dist/ is not built: run `npm run build` first (npm run test:e2e does)');
		workDir = mkdtempSync(path.join(tmpdir(), 'mediagen-e2e-work-'));
		const t0 = Date.now();
		ctx = await setupDemo(e2eDemoOptions(workDir));
		await importWorkflows(ctx.home, Object.values(WF));
		timings.setup = Date.now() - t0;
	}, 30 * MIN);

	afterAll(async () => {
		await ctx?.close();
		if (workDir) rmSync(workDir, { recursive: true, force: true });
		// eslint-disable-next-line no-console
		console.log(`[e2e nodes] timings (ms): ${JSON.stringify(timings)}`);
	});

	async function exec(wf: { id: string }) {
		const t0 = Date.now();
		const r = await executeWorkflow(ctx.home, wf.id, { timeoutMs: 5 * MIN });
		timings[wf.id] = Date.now() - t0;
		return r;
	}

	test("n8n loads the package's node types, listed in package.json", () => {
		expect(new Set(ctx.loaded.map((d) => d.name)).has(MG)).toBe(true);
		expectListedNodesLoaded(ctx);
	});

	test(
		'MediaGen: create, get and list a project',
		async () => {
			const r = await exec(WF.crud);
			expect({ ok: r.ok, summary: describeResult(r) }).toMatchObject({ ok: true });
			const created = nodeItems(r, 'Create project')[0].json;
			expect(created).toMatchObject({ name: 'e2e project', description: 'made by the e2e suite' });
			expect(nodeItems(r, 'Get project')[0].json).toMatchObject({
				id: created.id,
				name: 'e2e project',
			});
			const listed = nodeItems(r, 'List projects').map((i) => i.json.id);
			expect(listed).toContain(created.id);
		},
		10 * MIN,
	);

	test(
		'a 404 with continue-on-fail becomes an error item and the workflow goes on',
		async () => {
			const r = await exec(WF.notFoundContinue);
			expect({ ok: r.ok, summary: describeResult(r) }).toMatchObject({ ok: true });
			const item = nodeItems(r, 'After')[0].json;
			expect(item.went_on).toBe(true);
			expect(String(item.error)).toMatch(/^Not found/);
		},
		10 * MIN,
	);

	test(
		'a 404 without continue-on-fail stops the workflow with the API error',
		async () => {
			const r = await exec(WF.notFoundFail);
			expect(r.ok).toBe(false);
			expect(r.status).toBe('error');
			expect(r.error?.message).toMatch(/^Not found/);
			expect(String(r.runData['Get missing'][0].error?.httpCode)).toBe('404');
			expect(JSON.stringify(r.runData['Get missing'][0].error)).toMatch(/req_|request/i);
		},
		10 * MIN,
	);

	test(
		'binary in and out: a file read from disk is uploaded, downloaded and written back intact',
		async () => {
			const r = await exec(WF.binary);
			expect({ ok: r.ok, summary: describeResult(r) }).toMatchObject({ ok: true });
			const source = readFileSync(path.join(EXAMPLES_DIR, 'files', 'product-photo.png'));
			const uploaded = nodeItems(r, 'Upload')[0].json;
			expect(uploaded).toMatchObject({ id: expect.any(String) });
			const downloaded = nodeItems(r, 'Download')[0];
			expect(downloaded.binary?.file).toMatchObject({
				mimeType: 'image/png',
				fileName: 'product-photo.png',
			});
			const written = nodeItems(r, 'Write file')[0].json.fileName as string;
			const bytes = readFileSync(path.join(workDir, written));
			expect(bytes.length).toBe(source.length);
			expect(bytes.equals(source)).toBe(true);
		},
		10 * MIN,
	);

	test(
		'generations wait for completion; a failed job is an error item (continue-on-fail), the other completes',
		async () => {
			const before = ctx.sandbox.control.credits('main').balance;
			const r = await exec(WF.generations);
			expect({ ok: r.ok, summary: describeResult(r) }).toMatchObject({ ok: true });
			const [done, failed] = nodeItems(r, 'Generate').map((i) => i.json);
			expect(done).toMatchObject({ status: 'completed', tool: 'image' });
			expect(Number(done.credits_charged)).toBeGreaterThan(0);
			expect(String(failed.error)).toMatch(/failed: model overloaded/);
			expect(ctx.sandbox.control.credits('main').balance).toBe(
				before - Number(done.credits_charged),
			);
		},
		10 * MIN,
	);

	// every example: run when the built package has its nodes, otherwise reported as skipped
	test.each(loadExamples().map((e) => [e.file] as const))(
		'example %s',
		(file) => expectExampleRuns(ctx, file, workDir, timings, 'e2e nodes'),
		10 * MIN,
	);
});
