/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * B3, rate limit: one execution of N job creates (default 300) through n8n-core's engine against
 * the sandbox enforcing its per-key limit (default 120 requests per rolling minute). Prints failed
 * items, 429s seen, wall time, and throughput against the best the limit allows: with a rolling
 * window, N requests need at least floor((N - 1) / limit) windows after the first request.
 *
 *   node_modules/.bin/tsx bench/rateLimit.ts [creates=300] [limitPerMinute=120]
 *   B3_OPERATION=get node_modules/.bin/tsx bench/rateLimit.ts   # Project Get reads instead
 *
 * Reads go up to READS_IN_FLIGHT at a time (nodes/shared/run/execute.ts), creates one at a time: the
 * `get` variant shows that concurrent reads meeting the limit together still all succeed.
 */
import { startSandbox } from '../sandbox';
import { chain, mediaGen, runWorkflow } from '../test/harness/engine/harness';
import { client } from '../test/harness/sandbox/helpers';

const creates = Number(process.argv[2] ?? 300);
const limit = Number(process.argv[3] ?? 120);
const reads = process.env.B3_OPERATION === 'get';

async function main() {
	const sb = await startSandbox({
		port: 0,
		quiet: true,
		rateLimitPerMinute: limit,
		timeScale: 0.001,
	});
	sb.control.setCredits('main', 1_000_000);
	// the `get` variant reads one project, made first (one more request in the first window)
	const project = reads
		? (await client(sb, sb.keys.pro)<{ id: string }>('POST', '/projects', { name: 'B3 reads' }))
				.body
		: undefined;
	const started = Date.now();
	const result = await runWorkflow(
		chain(
			Array.from({ length: creates }, (_, i) => ({ i })),
			[
				mediaGen(
					'Create',
					project
						? {
								resource: 'project',
								operation: 'get',
								projectId: { __rl: true, mode: 'id', value: project.id },
							}
						: {
								resource: 'generation',
								operation: 'create',
								modelId: 'bench-model',
								prompt: '={{ "item " + $json.i }}',
								waitForCompletion: false,
							},
					{ continueOnFail: true },
				),
			],
		),
		{ credentials: { mediaGenApi: { apiKey: sb.keys.pro, baseUrl: sb.baseUrl } } },
	);
	const seconds = (Date.now() - started) / 1000;
	const out = result.json('Create');
	const failed = out.filter((o) => o.error).length;
	const log = project
		? sb.control.requests({ method: 'GET', path: `/projects/${project.id}$` })
		: sb.control.requests({ method: 'POST', path: '/generations$' });
	const limited = log.filter((r) => r.status === 429).length;
	const created = log.filter((r) => r.status === (project ? 200 : 201)).length;
	const idealSeconds = Math.floor((creates + (project ? 1 : 0) - 1) / limit) * 60;
	const perMinute = (created / seconds) * 60;
	console.log(
		`B3 rate limit: ${creates} ${project ? 'project reads (up to 8 at a time)' : 'creates'}, limit ${limit}/min per key`,
	);
	console.log(
		`items ok ${out.length - failed}, failed ${failed}; ${project ? 'reads answered' : 'jobs created'} ${created}; 429s seen ${limited}`,
	);
	console.log(
		`wall ${seconds.toFixed(1)} s; best possible ${idealSeconds} s; efficiency ${(idealSeconds / seconds).toFixed(3)} (target >= 0.95)`,
	);
	console.log(
		`throughput ${perMinute.toFixed(1)}/min over the run (the first window's burst included)`,
	);
	await sb.close();
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
