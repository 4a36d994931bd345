/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, no-console -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * B8: n8n killed mid-batch, then Retry (bench/README.md). 100 generations of 30 s on the Pro
 * workspace (5 at a time), started by a Webhook in a real n8n 2.40.7 (`n8n start`, the packed
 * package); n8n is killed (SIGKILL), started again, and the crashed execution is retried as the
 * Executions list does it. Two cases:
 * - `waiting`: killed while the MediaGen node waits, when half of the jobs are done;
 * - `after` (issue #29): killed in a node AFTER the MediaGen node, n8n's Wait node (20 s, real
 *   time) after Generation → Create, once the Wait has started (n8n's event log).
 * Time-scaled: the sandbox's job clock runs at `scale` (0.2: a 30 s job takes 6 s), the rate limit
 * is 120 per scaled minute.
 *
 *   node_modules/.bin/tsx bench/crash.ts [jobs=100] [scale=0.2] [case=waiting|after]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import type { DemoContext } from '../scripts/demoSetup';
import { setupDemo } from '../scripts/demoSetup';
import type { N8nInstance } from '../test/harness/e2e/n8n';
import {
	hasBuiltPackage,
	importWorkflows,
	publishWorkflow,
	restOf,
	setupOwner,
	startN8n,
} from '../test/harness/e2e/n8n';
import { allGenerations, nodeEvents } from '../test/harness/e2e/shapes';
import { node, webhookBatch } from '../test/harness/e2e/workflows';
import { fmt, log, machine } from './lib';

type Json = Record<string, unknown>;
const JOBS = Number(process.argv[2] ?? 100);
const SCALE = Number(process.argv[3] ?? 0.2);
const CASE = (process.argv[4] ?? 'waiting') as 'waiting' | 'after';
const JOB_MS = 30_000;
const WAIT_S = 20;
const HOOK = 'bench-crash';

function benchWorkflow() {
	const wf = webhookBatch({
		id: 'benchCrashBatch1',
		name: 'B8: n8n killed mid-batch',
		path: HOOK,
		webhookId: '00000000-0000-4000-8000-0000000b8b8b',
		items: JOBS,
		prompt: 'B8: a lighthouse in fog',
		durationMs: JOB_MS,
		options: { timeoutMinutes: 1440 },
	});
	if (CASE === 'waiting') return wf;
	const wait = node(
		'Wait',
		'n8n-nodes-base.wait',
		{ resume: 'timeInterval', amount: WAIT_S, unit: 'seconds' },
		{ typeVersion: 1.1, webhookId: '00000000-0000-4000-8000-0000000b8b8c' },
	);
	return {
		...wf,
		name: 'B8: n8n killed in a node after the MediaGen node',
		nodes: [...wf.nodes, wait],
		connections: {
			...wf.connections,
			Generate: { main: [[{ node: 'Wait', type: 'main', index: 0 }]] },
		},
	};
}

/** The sandbox's API with the Pro key, and every generation it has. */
function sandboxApi(ctx: DemoContext) {
	const sb = ctx.sandbox;
	const api = async (p: string, init: RequestInit = {}) => {
		const res = await fetch(`${sb.baseUrl}${p}`, {
			...init,
			headers: { authorization: `Bearer ${sb.keys.pro}`, 'content-type': 'application/json' },
		});
		return (await res.json()) as Json;
	};
	const all = async () => await allGenerations(async (p) => await api(p));
	const done = async () => (await all()).filter((g) => g.status === 'completed').length;
	return { api, all, done };
}

/** Resolves when it is time to kill n8n: half of the jobs done, or the Wait node started. */
async function killPoint(ctx: DemoContext, done: () => Promise<number>) {
	for (;;) {
		if (CASE === 'waiting' && (await done()) >= JOBS / 2) return;
		if (CASE === 'after') {
			const started = nodeEvents(ctx.home).filter(
				(e) => e.eventName === 'n8n.node.started' && e.nodeName === 'Wait',
			);
			if (started.length) return;
		}
		await sleep(200);
	}
}

async function main() {
	if (!hasBuiltPackage()) throw new Error('dist/ is not built: run `npm run build` first');
	const workDir = mkdtempSync(path.join(tmpdir(), 'mediagen-bench-crash-'));
	const ctx = await setupDemo({
		workDir,
		build: false,
		timeScale: SCALE,
		rateLimitPerMinute: Math.round(120 / SCALE),
		allowHttpWebhooks: true,
	});
	let n8n: N8nInstance | undefined;
	try {
		const sb = ctx.sandbox;
		const { api, all, done } = sandboxApi(ctx);
		const estimate = await api('/generations/estimate', {
			method: 'POST',
			body: JSON.stringify({
				modelId: 'flux-pro',
				tool: 'image',
				params: { sandbox: { durationMs: JOB_MS } },
			}),
		});
		const cost = Number(estimate.credits);
		sb.control.setCredits('main', JOBS * cost * 3);
		const funded = sb.control.credits('main').balance;
		const creates = () => sb.control.requests({ method: 'POST', path: '/generations$' }).length;

		const workflow = benchWorkflow();
		await importWorkflows(ctx.home, [workflow]);
		await publishWorkflow(ctx.home, workflow.id);
		n8n = await startN8n(ctx.home);
		const owner = await setupOwner(n8n);
		await n8n.waitForWebhook(HOOK);
		const rest = restOf(
			() => n8n!,
			() => owner,
		);

		log(
			`B8 ${CASE}: ${JOBS} jobs of ${JOB_MS / 1000} s at time scale ${SCALE}; ${cost} credits each`,
		);
		sb.control.clearRequests();
		await fetch(n8n.webhookUrl(HOOK), { method: 'POST', body: '{}' });
		await killPoint(ctx, done);
		await n8n.kill('SIGKILL');
		const killedAt = Date.now();
		const createsBefore = creates();
		const doneAtKill = await done();
		log(`killed n8n: ${createsBefore} creates sent, ${doneAtKill} jobs done`);
		n8n = await startN8n(ctx.home, n8n.port);
		const restartMs = Date.now() - killedAt;
		let crashed: Json | undefined;
		for (;;) {
			const list = await rest<{ results: Json[] }>('GET', '/executions');
			crashed = list.results.find((e) => e.workflowId === workflow.id && e.status === 'crashed');
			if (crashed) break;
			await sleep(500);
		}
		const doneAtRetry = await done();
		const original = new Set((await all()).map((g) => String(g.id)));
		const retryAt = Date.now();
		const retried = await rest<Json>('POST', `/executions/${String(crashed.id)}/retry`, {
			loadWorkflow: false,
		});
		const retryEnd = Date.now();
		report({
			retried,
			cost,
			funded,
			createsBefore,
			doneAtKill,
			doneAtRetry,
			restartMs,
			retryAt,
			retryEnd,
			jobs: await all(),
			original,
			createsAfter: creates(),
			balance: sb.control.credits('main').balance,
		});
	} finally {
		await n8n?.stop();
		await ctx.close();
		rmSync(workDir, { recursive: true, force: true });
	}
}

/** Prints the figures (bench/README.md, B8). */
function report(r: {
	retried: Json;
	cost: number;
	funded: number;
	createsBefore: number;
	createsAfter: number;
	doneAtKill: number;
	doneAtRetry: number;
	restartMs: number;
	retryAt: number;
	retryEnd: number;
	jobs: Json[];
	/** The ids of the jobs made before the retry. */
	original: Set<string>;
	balance: number;
}) {
	const first = r.jobs.filter((g) => r.original.has(String(g.id)));
	const lastCompleted = Math.max(...first.map((g) => Date.parse(String(g.completed_at))));
	// what the retry cannot avoid: the rest of the queue of the jobs made before it at MediaGen,
	// and in `after` the Wait node's interval, which n8n's retry runs again in full
	const remainingQueueMs = Math.max(0, lastCompleted - r.retryAt);
	const floorMs = CASE === 'after' ? Math.max(remainingQueueMs, WAIT_S * 1000) : remainingQueueMs;
	const retryWallMs = r.retryEnd - r.retryAt;
	const runData = (r.retried.data as Json).resultData as Json;
	const last = CASE === 'after' ? 'Wait' : 'Generate';
	const out = (((runData.runData as Json)[last] as Json[]).at(-1) as Json).data as Json;
	const items = (out.main as Json[][])[0];
	const charged = r.funded - r.balance;
	const figures = {
		case: CASE,
		jobs: JOBS,
		scale: SCALE,
		createsBeforeKill: r.createsBefore,
		jobsDoneAtKill: r.doneAtKill,
		restartMs: r.restartMs,
		jobsDoneAtRetry: r.doneAtRetry,
		createsInRetry: r.createsAfter - r.createsBefore,
		jobsAtTheEnd: r.jobs.length,
		retryStatus: r.retried.status,
		retryOutputs: items.length,
		completedOutputs: items.filter((i) => (i.json as Json).status === 'completed').length,
		originalOutputs: items.filter((i) => r.original.has(String((i.json as Json).id))).length,
		creditsCharged: charged,
		creditsBeyondEstimate: charged - JOBS * r.cost,
		remainingQueueMs,
		floorMs,
		retryWallMs,
		ratio: floorMs ? retryWallMs / floorMs : NaN,
	};
	const floor =
		CASE === 'after'
			? `the longer of the remaining queue (${fmt(remainingQueueMs / 1000, 1)} s) and the Wait node's ${WAIT_S} s`
			: `the remaining queue time ${fmt(remainingQueueMs / 1000, 1)} s (last job's completed_at − retry start)`;
	console.log(
		[
			`B8 ${CASE} (${machine()})`,
			`${JOBS} generations × ${JOB_MS / 1000} s, 5 at a time, time scale ${SCALE} (job time ×${SCALE}); n8n killed (SIGKILL) with ${r.doneAtKill}/${JOBS} done and ${r.createsBefore} creates sent`,
			`n8n back and the execution marked crashed after ${fmt(r.restartMs / 1000, 1)} s; ${r.doneAtRetry}/${JOBS} done when Retry started`,
			`creates in the retry: ${figures.createsInRetry} (goal 0); jobs at MediaGen: ${r.jobs.length}`,
			`credits charged: ${charged} for ${JOBS} jobs of ${r.cost}; beyond ${JOBS} × the estimate: ${figures.creditsBeyondEstimate} (goal 0)`,
			`retry: status ${String(r.retried.status)}, ${items.length} outputs, ${figures.completedOutputs} completed, ${figures.originalOutputs} of them jobs made before the retry`,
			`retry wall time ${fmt(retryWallMs / 1000, 1)} s vs ${floor}: ${fmt(figures.ratio, 3)}× (goal ≤ 1.1)`,
			`JSON ${JSON.stringify(figures)}`,
		].join('\n'),
	);
}

main().then(
	() => process.exit(0),
	(e) => {
		console.error(e);
		process.exit(1);
	},
);
