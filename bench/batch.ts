/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions, no-console -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * B7, batches: one node run of N generations × 30 s on the Pro plan (5 at a time), default node
 * options, through n8n-core's engine (in-process, test/harness/engine/harness.ts) against the sandbox
 * over real HTTP. Prints delivered/N, wall time against the queue's own length, how late the last
 * output came after the last job ended, API requests per job in all, failed items. Then Return
 * All of 100,000 records (Asset → Get Many) in a child process, with its peak RSS.
 *
 *   node_modules/.bin/tsx bench/batch.ts                # all three parts
 *   node_modules/.bin/tsx bench/batch.ts real [100]     # N jobs in real time, 120 requests/min
 *   node_modules/.bin/tsx bench/batch.ts scaled [1000] [0.02]
 *   node_modules/.bin/tsx bench/batch.ts returnAll [100000]
 *
 * The time-scaled run multiplies the sandbox's job clock and the node's polling bounds
 * (POLLING.minMs / maxMs, and with maxMs the window of the poller's request cap) by the same
 * factor, and scales the rate limit to the same number of requests per scaled minute (its window
 * stays 60 real seconds); figures are scaled back to job time.
 */
import { spawn } from 'node:child_process';

import type { IDataObject } from 'n8n-workflow';

import { POLLING } from '../nodes/shared/jobs/poller';
import { startSandbox } from '../sandbox';
import { chain, mediaGen, runWorkflow } from '../test/harness/engine/harness';
import { fmt, machine, watchMemory } from './lib';

const JOB_MS = 30_000;
const PLAN_CONCURRENCY = 5;

interface BatchFigures {
	jobs: number;
	scale: number;
	delivered: number;
	failed: number;
	wallS: number;
	queueS: number;
	idealS: number;
	lastLateS: number;
	requests: number;
	listRequests: number;
	singleReads: number;
	limited: number;
}

async function batch(jobs: number, scale: number): Promise<BatchFigures> {
	const sb = await startSandbox({
		port: 0,
		quiet: true,
		rateLimitPerMinute: Math.round(120 / scale),
		timeScale: scale,
	});
	const real = { ...POLLING };
	Object.assign(POLLING, { minMs: real.minMs * scale, maxMs: real.maxMs * scale });
	try {
		sb.control.setCredits('main', 10_000_000);
		const started = Date.now();
		const result = await runWorkflow(
			chain(
				Array.from({ length: jobs }, (_, i) => ({ i })),
				[
					mediaGen(
						'Batch',
						{
							resource: 'generation',
							operation: 'create',
							modelId: 'bench-model',
							prompt: '={{ "B7 item " + $json.i }}',
							additionalFields: { params: JSON.stringify({ sandbox: { durationMs: JOB_MS } }) },
						},
						{ continueOnFail: true },
					),
				],
			),
			{ credentials: { mediaGenApi: { apiKey: sb.keys.pro, baseUrl: sb.baseUrl } } },
		);
		const arrived = Date.now();
		if (result.error) throw new Error(`the run failed: ${result.error.message}`);
		const out = result.json('Batch');
		const done = out.filter((o) => o.status === 'completed');
		const ms = (v: unknown) => Date.parse(String(v));
		const firstCreated = Math.min(...done.map((o: IDataObject) => ms(o.created_at)));
		const lastEnded = Math.max(...done.map((o: IDataObject) => ms(o.completed_at)));
		const log = sb.control.requests();
		const api = log.filter((r) => r.path.startsWith('/v1/'));
		return {
			jobs,
			scale,
			delivered: done.length,
			failed: out.length - done.length,
			wallS: (arrived - started) / 1000 / scale,
			queueS: (lastEnded - firstCreated) / 1000 / scale,
			idealS: (Math.ceil(jobs / PLAN_CONCURRENCY) * JOB_MS) / 1000,
			lastLateS: (arrived - lastEnded) / 1000 / scale,
			requests: api.length,
			listRequests: api.filter((r) => r.method === 'GET' && r.path === '/v1/generations').length,
			singleReads: api.filter(
				(r) => r.method === 'GET' && /^\/v1\/generations\/[^/]+$/.test(r.path),
			).length,
			limited: api.filter((r) => r.status === 429).length,
		};
	} finally {
		Object.assign(POLLING, real);
		await sb.close();
	}
}

function printBatch(label: string, f: BatchFigures): void {
	const target = Math.max(1, (JOB_MS / 1000) * 0.1);
	console.log(`\n${label}`);
	console.log('| figure | value | target | ratio |');
	console.log('|---|---|---|---|');
	console.log(`| delivered | ${f.delivered}/${f.jobs} | ${f.jobs}/${f.jobs} | |`);
	console.log(`| failed items | ${f.failed} | 0 | |`);
	console.log(
		`| wall time (node run) | ${fmt(f.wallS, 1)} s | ≤ 1.05 × queue | ${fmt(f.wallS / f.queueS, 3)} |`,
	);
	console.log(
		`| queue's own length (first create → last job end, at the service) | ${fmt(f.queueS, 1)} s | (ideal ${f.idealS} s: ${Math.ceil(f.jobs / PLAN_CONCURRENCY)} waves × 30 s) | ${fmt(f.queueS / f.idealS, 3)} of ideal |`,
	);
	console.log(
		`| last output after the last job ended | ${fmt(f.lastLateS, 2)} s | ≤ ${fmt(target, 1)} s | ${fmt(f.lastLateS / target, 2)} |`,
	);
	console.log(
		`| API requests per job, in all | ${fmt(f.requests / f.jobs, 2)} (${f.requests}: ${f.jobs} creates, ${f.listRequests} list pages, ${f.singleReads} single reads, ${f.limited} 429s) | ≤ 2.5 | ${fmt(f.requests / f.jobs / 2.5, 2)} |`,
	);
}

/** Return All in a child process (its own heap), the sandbox here. */
async function returnAll(records: number): Promise<void> {
	const sb = await startSandbox({ port: 0, quiet: true, rateLimitPerMinute: 0 });
	try {
		const seeded = Date.now();
		for (let i = 0; i < records; i++) {
			sb.control.createLargeAsset({ size: 0, filename: `r${i}.bin`, title: `record ${i}` });
		}
		console.log(
			`\nB7 Return All: ${records} assets seeded in ${fmt((Date.now() - seeded) / 1000, 1)} s`,
		);
		const child = spawn(
			process.execPath,
			[
				'--expose-gc',
				'--import',
				'tsx',
				__filename,
				'returnAllChild',
				JSON.stringify({ baseUrl: sb.baseUrl, apiKey: sb.keys.pro, records }),
			],
			{ stdio: ['ignore', 'pipe', 'inherit'] },
		);
		let text = '';
		child.stdout.on('data', (c: Buffer) => (text += c.toString('utf8')));
		const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
		const line = /^RESULT (.*)$/m.exec(text)?.[1];
		if (code !== 0 || !line)
			throw new Error(`the Return All child failed (exit ${code}):\n${text}`);
		const r = JSON.parse(line) as {
			items: number;
			seconds: number;
			baseline: number;
			peak: number;
			pages: number;
		};
		const MiB = 2 ** 20;
		console.log('| figure | value |');
		console.log('|---|---|');
		console.log(`| output items | ${r.items} of ${records} |`);
		console.log(
			`| list requests (pages) | ${sb.control.requests({ path: '/v1/assets$' }).filter((r) => r.query.limit !== '10').length} |`,
		);
		console.log(`| wall time | ${fmt(r.seconds, 1)} s |`);
		console.log(`| RSS before the run | ${fmt(r.baseline / MiB, 1)} MiB |`);
		console.log(`| peak RSS during the run | ${fmt(r.peak / MiB, 1)} MiB |`);
		console.log(
			`| peak growth | ${fmt((r.peak - r.baseline) / MiB, 1)} MiB (${fmt((r.peak - r.baseline) / r.items, 0)} bytes per record) |`,
		);
	} finally {
		await sb.close();
	}
}

async function returnAllChild(task: { baseUrl: string; apiKey: string; records: number }) {
	const credentials = { mediaGenApi: { apiKey: task.apiKey, baseUrl: task.baseUrl } };
	const workflow = (returnAllRecords: boolean) =>
		chain(
			[{}],
			[
				mediaGen('All', {
					resource: 'asset',
					operation: 'getAll',
					...(returnAllRecords ? { returnAll: true } : { limit: 10 }),
				}),
			],
		);
	await runWorkflow(workflow(false), { credentials }); // warm-up
	const watch = await watchMemory();
	const started = process.hrtime.bigint();
	const result = await runWorkflow(workflow(true), { credentials });
	const seconds = Number(process.hrtime.bigint() - started) / 1e9;
	const { sampledPeak, hwm } = watch.stop();
	const baseline = watch.baseline;
	const peak = Math.max(sampledPeak, hwm);
	if (result.error) throw new Error(`Return All failed: ${result.error.message}`);
	const items = result.items('All').length;
	process.stdout.write(`RESULT ${JSON.stringify({ items, seconds, baseline, peak })}\n`);
}

async function main() {
	const [part = 'all', a, b] = process.argv.slice(2);
	if (part === 'returnAllChild') return await returnAllChild(JSON.parse(a));
	console.log(`B7 batches (${machine()})`);
	if (part === 'all' || part === 'real') {
		const n = Number(a ?? 100);
		printBatch(
			`B7 ${n} generations × 30 s, Pro plan (5 at a time), 120 requests/min, default options, real time`,
			await batch(n, 1),
		);
	}
	if (part === 'all' || part === 'scaled') {
		const n = Number((part === 'scaled' && a) || 1000);
		const scale = Number((part === 'scaled' && b) || 0.02);
		printBatch(
			`B7 ${n} generations × 30 s, Pro plan (5 at a time), 120 requests per (scaled) minute, default options, time scale ${scale} (figures in job time)`,
			await batch(n, scale),
		);
	}
	if (part === 'all' || part === 'returnAll')
		await returnAll(Number((part === 'returnAll' && a) || 100_000));
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
