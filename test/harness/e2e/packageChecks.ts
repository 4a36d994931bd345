/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * Checks shared by the node suite (nodes.e2e.test.ts, the primary n8n version) and the
 * compatibility matrix (compat.e2e.test.ts, every other version): every node listed in
 * package.json is loaded by n8n, and an example runs as the demo runs it.
 */
import { readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';

import type { DemoContext, Example } from '../../../scripts/demoSetup';
import {
	PACKAGE_NAME,
	pairOf,
	runExamplePair,
	runManualExample,
	runTriggerExample,
} from '../../../scripts/demoSetup';
import { REPO_ROOT } from './n8n';

/** The directory that is packed: the repository, or MEDIAGEN_E2E_PACK_DIR (a changed copy). */
export const PACKED_DIR = process.env.MEDIAGEN_E2E_PACK_DIR || REPO_ROOT;

/** Node types package.json's `n8n.nodes` lists (file MediaGenX.node.js → mediaGenX). */
export function listedNodeTypes(dir = PACKED_DIR): string[] {
	const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
		n8n: { nodes: string[] };
	};
	return pkg.n8n.nodes.map((file) => {
		const base = path.basename(file, '.node.js');
		return `${PACKAGE_NAME}.${base[0].toLowerCase()}${base.slice(1)}`;
	});
}

/** Every listed node type is among those n8n loaded (`n8n export:nodes` of the home). */
export function expectListedNodesLoaded(ctx: Pick<DemoContext, 'loaded'>): void {
	const names = [...new Set(ctx.loaded.map((d) => d.name))].sort();
	const listed = listedNodeTypes();
	expect(listed.length).toBeGreaterThan(0);
	expect(names).toEqual(expect.arrayContaining(listed));
}

/**
 * Runs one example as the demo does and checks it: a manual example succeeds and writes its
 * files; the trigger registers one endpoint, a signed event runs the workflow once, a forged
 * request is refused without an execution, and deactivation leaves no endpoint; a pair (the long
 * jobs) runs together in `n8n start`, every row's outcome recorded with its reference. An example
 * the built package cannot run is logged as skipped.
 */
export async function expectExampleRuns(
	ctx: DemoContext,
	file: string,
	workDir: string,
	timings: Record<string, number>,
	label: string,
): Promise<void> {
	const ex: Example & { skip?: string } = ctx.examples.find((e) => e.file === file)!;
	if (ex.skip) {
		// eslint-disable-next-line no-console
		console.log(`[${label}] example ${ex.file} skipped: ${ex.skip}`);
		return;
	}
	const t0 = Date.now();
	const pair = pairOf(ex.file);
	if (pair) {
		// the two examples run together, in the test of the finishing one
		if (ex.file !== pair[0]) return;
		const [finish, start] = pair.map((f) => ctx.examples.find((e) => e.file === f)!);
		if (start.skip) {
			// eslint-disable-next-line no-console
			console.log(`[${label}] example ${start.file} skipped: ${start.skip}`);
			return;
		}
		ctx.sandbox.control.clearDeliveries();
		const run = await runExamplePair(ctx, finish, start);
		timings[`${start.file} + ${finish.file}`] = Date.now() - t0;
		for (const r of [run.start, run.finish])
			expect({ file: r.file, status: r.status, reason: r.reason }).toEqual({
				file: r.file,
				status: 'ok',
				reason: undefined,
			});
		expect(run.endpointsWhileActive).toBe(1);
		expect(run.rows.length).toBeGreaterThan(0);
		expect(run.endpointsAfterDeactivation).toBe(0);
	} else if (ex.kind === 'trigger') {
		ctx.sandbox.control.clearDeliveries();
		const run = await runTriggerExample(ctx, ex);
		timings[ex.file] = Date.now() - t0;
		expect({ status: run.result.status, reason: run.result.reason }).toEqual({
			status: 'ok',
			reason: undefined,
		});
		expect(run.endpointsWhileActive).toBe(1);
		expect(run.executions.map((e) => e.status)).toEqual(['success']);
		expect(run.deliveryStatuses).toContain(200);
		expect(run.endpointsAfterDeactivation).toBe(0);
		expect(run.forgedRequestStatus).toBe(401);
		expect(run.executionsAfterForged).toBe(run.executionsBeforeForged);
		// the signed event was verified: a delivery with a bad signature would have been answered 401
		const delivered = ctx.sandbox.control.deliveries();
		expect(delivered.every((d) => d.headers['webhook-signature']?.startsWith('v1,'))).toBe(true);
	} else {
		const result = await runManualExample(ctx, ex);
		timings[ex.file] = Date.now() - t0;
		expect({ status: result.status, reason: result.reason }).toEqual({
			status: 'ok',
			reason: undefined,
		});
		for (const f of result.files) expect(statSync(path.join(workDir, f)).size).toBeGreaterThan(0);
	}
}
