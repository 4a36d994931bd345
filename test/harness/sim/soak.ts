/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev-only code (tests): never published, see package.json "files" */
/**
 * What the simulations' command lines (./cli.ts, ./budgetCli.ts) share: their arguments, a
 * sandbox set up for fast cases, batches of cases with new seeds until `--minutes` have passed,
 * and the process's exit code.
 */
import '../quiet';
import { POLLING } from '../../../nodes/shared/jobs/poller';
import { RETRY } from '../../../nodes/shared/transport/retry';
import type { Sandbox } from '../../../sandbox';
import { startSandbox } from '../../../sandbox';

export function arg(name: string): string | undefined {
	const i = process.argv.indexOf(`--${name}`);
	return i >= 0 ? process.argv[i + 1] : undefined;
}

/** A sandbox without a rate limit, 100× faster, with the node's polls and retries short. */
export async function fastSandbox(): Promise<Sandbox> {
	Object.assign(POLLING, { minMs: 20, maxMs: 200 });
	Object.assign(RETRY, { baseDelayMs: 5, maxDelayMs: 20 });
	return await startSandbox({ port: 0, quiet: true, rateLimitPerMinute: 0, timeScale: 0.01 });
}

/**
 * Runs `batch(seed, runs)` from `--seed` (else `seed`), then with new seeds until `--minutes`
 * have passed; prints each batch's seed and the total; 1 at the first failure (printed), else 0.
 */
export async function soak(
	batch: (seed: number, runs: number) => Promise<{ cases: number; failure?: string }>,
	seed = Number(arg('seed') ?? Date.now() % 2_147_483_647),
): Promise<number> {
	const runs = Number(arg('runs') ?? 20);
	const minutes = Number(arg('minutes') ?? 0);
	const started = Date.now();
	let total = 0;
	do {
		process.stdout.write(`seed ${seed}, ${runs} cases\n`);
		const report = await batch(seed, runs);
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
}

/** Runs `main` and exits with its code (2 and the stack on an error). */
export function runMain(main: () => Promise<number>): void {
	main().then(
		(code) => process.exit(code),
		(error: Error) => {
			process.stderr.write(`${error.stack ?? String(error)}\n`);
			process.exit(2);
		},
	);
}
