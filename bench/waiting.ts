/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * B4, waiting: jobs of 5 s, 60 s and 600 s with Wait for Completion, time-scaled, through
 * n8n-core's engine against the sandbox. Prints, per job length: how late the output came after
 * the job's end (scaled back to real job time), polls per job, against the target
 * max(1 s, 10 % of the job); then how fast a cancelled execution stops.
 *
 *   node_modules/.bin/tsx bench/waiting.ts [timeScale=0.05]
 */
import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { POLLING } from '../nodes/shared/jobs/poller';
import { startSandbox } from '../sandbox';
import { chain, mediaGen, runWorkflow, startWorkflow } from '../test/harness/engine/harness';

const scale = Number(process.argv[2] ?? 0.05);

async function main() {
	const sb = await startSandbox({ port: 0, quiet: true, rateLimitPerMinute: 0, timeScale: scale });
	// Polling runs on the same clock as the jobs: scale its bounds like the sandbox scales jobs.
	const real = { ...POLLING };
	Object.assign(POLLING, { minMs: real.minMs * scale, maxMs: real.maxMs * scale });
	const credentials = { mediaGenApi: { apiKey: sb.keys.pro, baseUrl: sb.baseUrl } };
	const params = (seconds: number) => ({
		resource: 'generation',
		operation: 'create',
		modelId: 'bench-model',
		prompt: 'benchmark',
		additionalFields: { params: JSON.stringify({ sandbox: { durationMs: seconds * 1000 } }) },
		options: { timeoutMinutes: 60 },
	});

	console.log(`B4 waiting (timeScale ${scale}; figures below are in unscaled job time)`);
	console.log('job length | late by | target | polls | verdict');
	for (const seconds of [5, 60, 600]) {
		sb.control.clearRequests();
		const result = await runWorkflow(chain([{}], [mediaGen('G', params(seconds))]), {
			credentials,
		});
		const arrived = Date.now();
		const record = result.json('G')[0] as IDataObject;
		if (result.error || record.status !== 'completed') {
			throw new Error(`job failed: ${JSON.stringify(result.error ?? record)}`);
		}
		const ended = Date.parse(String(record.completed_at));
		const lateS = (arrived - ended) / 1000 / scale;
		const targetS = Math.max(1, seconds * 0.1);
		// one job: its polls are the list requests (GET /generations) and any single reads
		const polls = sb.control.requests({
			method: 'GET',
			path: `/generations(/${String(record.id)})?$`,
		}).length;
		console.log(
			`${String(seconds).padStart(6)} s   | ${lateS.toFixed(2).padStart(6)} s | ${targetS.toFixed(1).padStart(5)} s | ${String(polls).padStart(5)} | ${lateS <= targetS ? 'ok' : 'MISSED'} (ratio ${(lateS / targetS).toFixed(2)})`,
		);
	}

	// Cancel: a long job, the execution stopped 2 s (real) into the wait.
	Object.assign(POLLING, real);
	const started = startWorkflow(chain([{}], [mediaGen('G', params(3600))]), { credentials });
	await sleep(2000);
	const at = Date.now();
	started.cancel();
	const stopped = await started.done;
	const ms = Date.now() - at;
	console.log(
		`cancel: execution ${stopped.run.status} ${ms} ms after Stop (target 1000 ms, ratio ${(ms / 1000).toFixed(3)})`,
	);
	await sb.close();
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
