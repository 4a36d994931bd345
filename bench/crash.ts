/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, no-console -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * B8: n8n killed mid-batch, then Retry (bench/README.md). 100 generations of 30 s on the Pro
 * workspace (5 at a time), started by a Webhook in a real n8n 2.40.7 (`n8n start`, the packed
 * package); n8n is killed (SIGKILL) when half of the jobs are done, started again, and the crashed
 * execution is retried as the Executions list does it. Time-scaled: the sandbox's job clock runs
 * at `scale` (0.2: a 30 s job takes 6 s), the rate limit is 120 per scaled minute.
 *
 *   node_modules/.bin/tsx bench/crash.ts [jobs=100] [scale=0.2]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { setupDemo } from '../scripts/demoSetup';
import type { N8nInstance } from '../test/e2e/n8n';
import {
	hasBuiltPackage,
	importWorkflows,
	publishWorkflow,
	restOf,
	setupOwner,
	startN8n,
} from '../test/e2e/n8n';
import { webhookBatch } from '../test/e2e/workflows';
import { fmt, log, machine } from './lib';

type Json = Record<string, unknown>;
const JOBS = Number(process.argv[2] ?? 100);
const SCALE = Number(process.argv[3] ?? 0.2);
const JOB_MS = 30_000;
const HOOK = 'bench-crash';

const workflow = webhookBatch({
	id: 'benchCrashBatch1',
	name: 'B8: n8n killed mid-batch',
	path: HOOK,
	webhookId: '00000000-0000-4000-8000-0000000b8b8b',
	items: JOBS,
	prompt: 'B8: a lighthouse in fog',
	durationMs: JOB_MS,
	options: { timeoutMinutes: 1440 },
});

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
		const api = async (p: string, init: RequestInit = {}) => {
			const res = await fetch(`${sb.baseUrl}${p}`, {
				...init,
				headers: { authorization: `Bearer ${sb.keys.pro}`, 'content-type': 'application/json' },
			});
			return (await res.json()) as Json;
		};
		const all = async () => {
			const out: Json[] = [];
			let before: unknown;
			for (;;) {
				const page = await api(
					`/generations?status=all&limit=100${before ? `&before=${String(before)}` : ''}`,
				);
				out.push(...(page.data as Json[]));
				if (!page.nextCursor) return out;
				before = page.nextCursor;
			}
		};
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

		await importWorkflows(ctx.home, [workflow]);
		await publishWorkflow(ctx.home, workflow.id);
		n8n = await startN8n(ctx.home);
		const owner = await setupOwner(n8n);
		await n8n.waitForWebhook(HOOK);
		const rest = restOf(
			() => n8n!,
			() => owner,
		);

		log(`B8: ${JOBS} jobs of ${JOB_MS / 1000} s at time scale ${SCALE}; ${cost} credits each`);
		sb.control.clearRequests();
		await fetch(n8n.webhookUrl(HOOK), { method: 'POST', body: '{}' });
		for (;;) {
			const done = (await all()).filter((g) => g.status === 'completed').length;
			if (done >= JOBS / 2) break;
			await sleep(200);
		}
		await n8n.kill('SIGKILL');
		const killedAt = Date.now();
		const createsBefore = creates();
		const doneAtKill = (await all()).filter((g) => g.status === 'completed').length;
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
		const doneAtRetry = (await all()).filter((g) => g.status === 'completed').length;
		const retryAt = Date.now();
		const retried = await rest<Json>('POST', `/executions/${String(crashed.id)}/retry`, {
			loadWorkflow: false,
		});
		const retryEnd = Date.now();
		const jobs = await all();
		const lastCompleted = Math.max(...jobs.map((g) => Date.parse(String(g.completed_at))));
		const remainingQueueMs = Math.max(0, lastCompleted - retryAt);
		const retryWallMs = retryEnd - retryAt;
		const runData = (retried.data as Json).resultData as Json;
		const out = (((runData.runData as Json).Generate as Json[]).at(-1) as Json).data as Json;
		const items = (out.main as Json[][])[0];
		const charged = funded - sb.control.credits('main').balance;
		const figures = {
			jobs: JOBS,
			scale: SCALE,
			createsBeforeKill: createsBefore,
			jobsDoneAtKill: doneAtKill,
			restartMs,
			jobsDoneAtRetry: doneAtRetry,
			createsInRetry: creates() - createsBefore,
			retryStatus: retried.status,
			retryOutputs: items.length,
			completedOutputs: items.filter((i) => (i.json as Json).status === 'completed').length,
			creditsCharged: charged,
			creditsBeyondEstimate: charged - JOBS * cost,
			remainingQueueMs,
			retryWallMs,
			ratio: remainingQueueMs ? retryWallMs / remainingQueueMs : NaN,
		};
		console.log(
			[
				`B8 (${machine()})`,
				`${JOBS} generations × ${JOB_MS / 1000} s, 5 at a time, time scale ${SCALE} (job time ×${SCALE}); n8n killed (SIGKILL) with ${doneAtKill}/${JOBS} done and ${createsBefore} creates sent`,
				`n8n back and the execution marked crashed after ${fmt(restartMs / 1000, 1)} s; ${doneAtRetry}/${JOBS} done when Retry started`,
				`creates in the retry: ${figures.createsInRetry} (goal 0)`,
				`credits charged: ${charged} for ${JOBS} jobs of ${cost}; beyond ${JOBS} × the estimate: ${figures.creditsBeyondEstimate} (goal 0)`,
				`retry: status ${String(retried.status)}, ${items.length} outputs, ${figures.completedOutputs} completed`,
				`retry wall time ${fmt(retryWallMs / 1000, 1)} s vs the remaining queue time ${fmt(remainingQueueMs / 1000, 1)} s (last job's completed_at − retry start): ${fmt(figures.ratio, 3)}× (goal ≤ 1.1)`,
				`JSON ${JSON.stringify(figures)}`,
			].join('\n'),
		);
	} finally {
		await n8n?.stop();
		await ctx.close();
		rmSync(workDir, { recursive: true, force: true });
	}
}

main().then(
	() => process.exit(0),
	(e) => {
		console.error(e);
		process.exit(1);
	},
);
