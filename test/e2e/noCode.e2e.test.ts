/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * The examples without code (#25) in a real n8n 2.40.7, against the sandbox, counting what it
 * was asked and what it charged:
 * - examples/ad-matrix.json (`n8n execute`): Preview Matrix → Filter → Limit → Run Matrix from
 *   its input items: one matrix run, exactly the 3 combinations kept, their credits once;
 * - the long-jobs pair in one `n8n start`: examples/long-jobs-start.json starts a video per row
 *   of a sheet with Wait for Completion off, each row's reference in the job's context; the
 *   sandbox delivers each job's signed event; examples/long-jobs-finish.json gets the reference
 *   back with the job's outcome (MediaGen Trigger, Include Generation Context), saves the video
 *   of a completed job and records every outcome. Two of six rows are made to fail at the
 *   sandbox; every row's reference must come back with its own job's outcome, each completed
 *   job charged once, the failed ones nothing.
 *
 * Skipped unless MEDIAGEN_E2E=1; needs a built package (`npm run build`).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

import type { Example, GenerationRecord } from '../../scripts/demoSetup';
import { runExamplePair, runManualExample } from '../../scripts/demoSetup';
import { patientClient } from '../harness/sandbox/helpers';
import { describeE2E, nodeItems } from '../harness/e2e/n8n';
import { MIN, useDemoSuite } from '../harness/e2e/workflows';

interface LedgerEntry {
	id: number;
	type: string;
	amount: number;
	generation_id: string | null;
}

describeE2E('no code in a real n8n: the ad matrix, and long jobs across two workflows', () => {
	const suite = useDemoSuite('e2e no code');
	const example = (file: string): Example & { skip?: string } =>
		suite.ctx.examples.find((e) => e.file === file)!;
	const api = () => patientClient(suite.ctx.sandbox, suite.ctx.sandbox.keys.pro);
	const balance = () => suite.ctx.sandbox.control.credits('main').balance;
	/** The settled ledger entries after entry `after` (charges, grants, adjustments). */
	const ledgerSince = async (after: number): Promise<LedgerEntry[]> =>
		((await api()('GET', '/credits/ledger?limit=100')).body.data as LedgerEntry[]).filter(
			(e) => e.id > after,
		);
	const lastLedgerId = async () => Math.max(0, ...(await ledgerSince(0)).map((e) => e.id));

	test('the examples have no Code node, and the ones of this suite are built', () => {
		const types = suite.ctx.examples.flatMap((e) => e.workflow.nodes.map((n) => String(n.type)));
		expect(types.filter((t) => /\.(code|function|functionItem)$/.test(t))).toEqual([]);
		for (const file of ['ad-matrix.json', 'long-jobs-start.json', 'long-jobs-finish.json'])
			expect({ file, skip: example(file).skip }).toEqual({ file, skip: undefined });
	});

	test(
		'ad-matrix.json: 16 previewed, a Filter keeps 8, a Limit 3: one matrix run, 3 jobs, their credits once',
		async () => {
			const before = balance();
			const fromEntry = await lastLedgerId();
			suite.ctx.sandbox.control.clearRequests();
			const t0 = Date.now();
			const r = await runManualExample(suite.ctx, example('ad-matrix.json'));
			suite.timings['ad-matrix.json'] = Date.now() - t0;
			expect({ status: r.status, reason: r.reason }).toEqual({ status: 'ok', reason: undefined });
			const run = r.execution!;
			const previewed = nodeItems(run, 'Preview matrix').map((i) => i.json);
			expect(previewed).toHaveLength(16);
			expect(nodeItems(run, 'Keep 9:16')).toHaveLength(8);
			const kept = nodeItems(run, 'First 3').map((i) => i.json);
			expect(kept).toHaveLength(3);

			const jobs = nodeItems(run, 'Run ad matrix').map((i) => i.json);
			expect(jobs.map((j) => j.status)).toEqual(['completed', 'completed', 'completed']);
			expect(
				suite.ctx.sandbox.control.requests({ method: 'POST', path: '/matrix/run$' }),
			).toHaveLength(1);
			// each job is the combination its item held, at its preview price
			for (const [k, job] of jobs.entries()) {
				const { context } = (await api()('GET', `/generations/${String(job.id)}`))
					.body as GenerationRecord;
				const { credits, ...combo } = kept[k];
				expect(context.combo).toEqual(combo);
				expect(job.credits_charged).toBe(credits);
			}
			const charges = (await ledgerSince(fromEntry)).filter((e) => e.type === 'charge');
			expect(charges.map((c) => c.generation_id).sort()).toEqual(jobs.map((j) => j.id).sort());
			const charged = jobs.reduce((n, j) => n + Number(j.credits_charged), 0);
			expect(charged).toBe(3 * 80);
			expect(before - balance()).toBe(charged);
		},
		10 * MIN,
	);

	test(
		'long jobs: 6 rows (2 made to fail), Wait for Completion off; every reference comes back with its job’s outcome; charged once, the failed ones nothing',
		async () => {
			const rows = [
				{ reference: 'row-1', fail: '' },
				{ reference: 'row-2', fail: 'The model could not render this shot' },
				{ reference: 'row-3', fail: '' },
				{ reference: 'row-4', fail: '' },
				{ reference: 'row-5', fail: 'Content policy' },
				{ reference: 'row-6', fail: '' },
			];
			// the sheet of this test, in n8n's working directory (the demo copies examples/files)
			writeFileSync(
				path.join(suite.workDir, 'examples', 'files', 'long-jobs.csv'),
				[
					'reference,prompt,seconds,fail',
					...rows.map((r) => `${r.reference},"A slow render for ${r.reference}",5,${r.fail}`),
				].join('\n'),
			);
			// the starter as it is, but its jobs last 6 s and the rows with `fail` fail at the sandbox
			const start = example('long-jobs-start.json');
			const starter = JSON.parse(JSON.stringify(start.workflow)) as Example['workflow'];
			const create = starter.nodes.find((n) => n.name === 'Start video')!;
			const fields = (create.parameters as { additionalFields: Record<string, string> })
				.additionalFields;
			const changed = { ...fields };
			changed.params =
				'={{ JSON.stringify({ duration: Number($json.seconds), sandbox: $json.fail ? { durationMs: 300000, fail: $json.fail } : { durationMs: 300000 } }) }}';
			(create.parameters as { additionalFields: Record<string, string> }).additionalFields =
				changed;
			expect(JSON.stringify({ ...starter, nodes: [] })).toBe(
				JSON.stringify({ ...start.workflow, nodes: [] }),
			);
			expect({ ...changed, params: fields.params }).toEqual(fields);

			const before = balance();
			const fromEntry = await lastLedgerId();
			suite.ctx.sandbox.control.clearRequests();
			suite.ctx.sandbox.control.clearDeliveries();
			const t0 = Date.now();
			const run = await runExamplePair(suite.ctx, example('long-jobs-finish.json'), start, {
				starter,
			});
			suite.timings.longJobs = Date.now() - t0;
			expect({ status: run.start.status, reason: run.start.reason }).toEqual({
				status: 'ok',
				reason: undefined,
			});
			expect({ status: run.finish.status, reason: run.finish.reason }).toEqual({
				status: 'ok',
				reason: undefined,
			});
			expect(run.endpointsWhileActive).toBe(1);
			expect(run.endpointsAfterDeactivation).toBe(0);

			// the starter held no execution for the renders: it ended before any job did
			const starterEnded = Date.parse(String(run.starterExecution?.stoppedAt));
			const jobs = run.rows.map((r) => r.generation!);
			const firstJobEnded = Math.min(...jobs.map((g) => Date.parse(String(g.completed_at))));
			expect(starterEnded).toBeLessThan(firstJobEnded);

			// one execution of the finishing workflow per job, each a success
			expect(run.executions).toHaveLength(rows.length);
			expect(run.executions.every((e) => e.status === 'success')).toBe(true);
			expect(
				suite.ctx.sandbox.control.deliveries().filter((d) => d.responseStatus === 200),
			).toHaveLength(rows.length);

			// every row: its own job, and that job's outcome with its reference
			for (const row of rows) {
				const r = run.rows.find((x) => x.reference === row.reference)!;
				const g = r.generation!;
				// (other keys in the context, such as provenance the node may add, do not matter)
				expect({ row: row.reference, context: g.context }).toMatchObject({
					row: row.reference,
					context: { reference: row.reference },
				});
				const failed = row.fail !== '';
				expect(r.outcome).toMatchObject({
					reference: row.reference,
					generationId: g.id,
					status: failed ? 'failed' : 'completed',
					creditsCharged: failed ? 0 : 40,
					error: failed ? { code: 'generation_failed', message: row.fail } : null,
				});
				if (failed) {
					expect(r.videoFile).toBeUndefined();
					continue;
				}
				// the saved video is the job's output, byte for byte
				const link = (await api()('GET', `/assets/${g.outputs[0].asset_id}/download`)).body as {
					url: string;
				};
				const bytes = Buffer.from(await (await fetch(link.url)).arrayBuffer());
				expect(readFileSync(r.videoFile!).equals(bytes)).toBe(true);
			}

			// money: one create per row (after its free estimate), each completed job charged once
			expect(
				suite.ctx.sandbox.control.requests({ method: 'POST', path: '/generations$' }),
			).toHaveLength(rows.length);
			expect(
				suite.ctx.sandbox.control.requests({ method: 'POST', path: '/generations/estimate$' }),
			).toHaveLength(rows.length);
			const charges = (await ledgerSince(fromEntry)).filter((e) => e.type === 'charge');
			const completed = jobs.filter((g) => g.status === 'completed');
			expect(charges.map((c) => c.generation_id).sort()).toEqual(completed.map((g) => g.id).sort());
			expect(charges.every((c) => c.amount === -40)).toBe(true);
			for (const g of jobs.filter((j) => j.status === 'failed')) expect(g.credits_charged).toBe(0);
			expect(before - balance()).toBe(4 * 40);
			// eslint-disable-next-line no-console
			console.log(
				`[e2e no code] long jobs: ${rows.length} rows, ${completed.length} completed (${4 * 40} credits), ${rows.length - completed.length} failed (0 credits); ${run.executions.length} executions of the finishing workflow; ${(suite.timings.longJobs / 1000).toFixed(1)} s`,
			);
		},
		15 * MIN,
	);
});
