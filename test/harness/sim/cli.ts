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
import type { CaseResult } from './run';
import { runCase } from './run';
import type { Scenario } from './scenario';
import { simulate } from './simulate';
import { arg, fastSandbox, runMain, soak } from './soak';

/** A case's broken invariants, and those a stated limit covers, one per line. */
const detail = (result: CaseResult) =>
	[...result.violations, ...result.known.map((v) => `known limit: ${v}`)]
		.map((v) => `\n    ${v}`)
		.join('');

async function main(): Promise<number> {
	const sb = await fastSandbox();
	const credentials = { mediaGenApi: { apiKey: sb.keys.pro, baseUrl: sb.baseUrl } };
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
		return await soak((seed, runs) =>
			simulate(sb, credentials, {
				seed,
				runs,
				path: arg('path'),
				concurrent: process.argv.includes('--concurrent'),
				adversary: process.argv.includes('--adversary'),
				onCase: (s, result, ms) =>
					process.stdout.write(
						`  ${ms} ms ${result.violations.length ? 'BROKEN' : result.known.length ? 'KNOWN' : 'ok'} ${JSON.stringify(s)} ${result.summary}${detail(result)}\n`,
					),
			}),
		);
	} finally {
		await sb.close();
	}
}

runMain(main);
