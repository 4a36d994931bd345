/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev-only code (tests): never published, see package.json "files" */
/**
 * `npm run simulate:budget -- [--seed S] [--runs N] [--minutes M] [--path P]`: the credit
 * budget's simulation (./budget.ts) against a sandbox of its own. The seed and the path may also
 * come from BUDGET_SIM_SEED and BUDGET_SIM_PATH (a failure prints them). One line per case, then
 * the count and the time; exits 1 on a broken invariant. `--minutes M`: batches of `--runs` cases
 * with new seeds until M minutes have passed.
 */
import '../quiet';
import { POLLING } from '../../nodes/shared/jobs/poller';
import { RETRY } from '../../nodes/shared/transport/retry';
import { startSandbox } from '../../sandbox';
import { simulateBudget } from './budget';

function arg(name: string): string | undefined {
	const i = process.argv.indexOf(`--${name}`);
	return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<number> {
	const runs = Number(arg('runs') ?? 20);
	const minutes = Number(arg('minutes') ?? 0);
	let seed = Number(arg('seed') ?? process.env.BUDGET_SIM_SEED ?? Date.now() % 2_147_483_647);
	const path = arg('path') ?? process.env.BUDGET_SIM_PATH;
	Object.assign(POLLING, { minMs: 20, maxMs: 200 });
	Object.assign(RETRY, { baseDelayMs: 5, maxDelayMs: 20 });
	const sb = await startSandbox({ port: 0, quiet: true, rateLimitPerMinute: 0, timeScale: 0.01 });
	const started = Date.now();
	let total = 0;
	try {
		do {
			process.stdout.write(`seed ${seed}, ${runs} cases\n`);
			const report = await simulateBudget(sb, {
				seed,
				runs,
				path,
				onCase: (setup, commands, result, ms) =>
					process.stdout.write(
						`  ${ms} ms ${result.violations.length ? 'BROKEN' : 'ok'} ${JSON.stringify({ ...setup, history: setup.history.length })} ${commands}: ${result.summary}${result.violations.map((v) => `\n    ${v}`).join('')}\n`,
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
