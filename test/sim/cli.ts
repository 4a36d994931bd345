/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev-only code (tests): never published, see package.json "files" */
/**
 * `npm run simulate -- [--concurrent | --adversary] [--seed S] [--runs N] [--minutes M] [--path P]`: the simulation of issue #36 against
 * a sandbox of its own (./simulate.ts). Prints one line per case, then the count, the time and
 * the first broken invariant (seed and shrunk case to replay), and exits 1 on a failure.
 * `--minutes M` runs batches of `--runs` cases with new seeds until M minutes have passed.
 * `--case '<json>'` runs one case as printed (a Scenario) and exits 1 if it breaks an invariant.
 * `--concurrent`: the concurrent cases (./concurrent.ts: executions at once, the interleaving
 * drawn by fast-check's scheduler); a case of them is replayed with `--seed S --path P`.
 * `--adversary`: the adversary's cases (./scenario.ts adversaryScenario: the MediaGen node's
 * settings, faults in the first run, n8n killed again during its Retry, a Wait node); `--case`
 * runs one of them as printed too.
 */
import '../quiet';
import { POLLING } from '../../nodes/shared/jobs/poller';
import { RETRY } from '../../nodes/shared/transport/retry';
import { startSandbox } from '../../sandbox';
import type { CaseResult } from './run';
import { runCase } from './run';
import type { Scenario } from './scenario';
import { simulate } from './simulate';

/** A case's broken invariants, and those a stated limit covers, one per line. */
const detail = (result: CaseResult) =>
	[...result.violations, ...result.known.map((v) => `known limit: ${v}`)]
		.map((v) => `\n    ${v}`)
		.join('');

function arg(name: string): string | undefined {
	const i = process.argv.indexOf(`--${name}`);
	return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<number> {
	const runs = Number(arg('runs') ?? 20);
	const minutes = Number(arg('minutes') ?? 0);
	let seed = Number(arg('seed') ?? Date.now() % 2_147_483_647);
	Object.assign(POLLING, { minMs: 20, maxMs: 200 });
	Object.assign(RETRY, { baseDelayMs: 5, maxDelayMs: 20 });
	const sb = await startSandbox({ port: 0, quiet: true, rateLimitPerMinute: 0, timeScale: 0.01 });
	const credentials = { mediaGenApi: { apiKey: sb.keys.pro, baseUrl: sb.baseUrl } };
	const started = Date.now();
	let total = 0;
	const one = arg('case');
	try {
		if (one) {
			const result = await runCase(sb, JSON.parse(one) as Scenario, credentials);
			const lines = detail(result);
			process.stdout.write(
				`${result.violations.length ? 'BROKEN' : 'ok'} ${result.summary}${lines}\n`,
			);
			return result.violations.length ? 1 : 0;
		}
		do {
			process.stdout.write(`seed ${seed}, ${runs} cases\n`);
			const report = await simulate(sb, credentials, {
				seed,
				runs,
				path: arg('path'),
				concurrent: process.argv.includes('--concurrent'),
				adversary: process.argv.includes('--adversary'),
				onCase: (s, result, ms) =>
					process.stdout.write(
						`  ${ms} ms ${result.violations.length ? 'BROKEN' : result.known.length ? 'KNOWN' : 'ok'} ${JSON.stringify(s)} ${result.summary}${detail(result)}\n`,
					),
			});
			total += report.cases;
			if (report.failure) {
				process.stdout.write(`${report.failure}\n`);
				return 1;
			}
			seed = (seed * 48_271) % 2_147_483_647;
		} while (minutes > 0 && Date.now() - started < minutes * 60_000);
		const s = Math.round((Date.now() - started) / 1000);
		process.stdout.write(`${total} cases in ${s} s, no invariant broken\n`);
		return 0;
	} finally {
		await sb.close();
	}
}

main().then(
	(code) => process.exit(code),
	(error: Error) => {
		process.stderr.write(`${error.stack ?? String(error)}\n`);
		process.exit(2);
	},
);
