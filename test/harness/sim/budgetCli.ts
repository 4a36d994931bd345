/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev-only code (tests): never published, see package.json "files" */
/**
 * `npm run simulate:budget -- [--seed S] [--runs N] [--minutes M] [--path P]`: the credit
 * budget's simulation (./budget.ts) against a sandbox of its own. The seed and the path may also
 * come from BUDGET_SIM_SEED and BUDGET_SIM_PATH (a failure prints them). One line per case, then
 * the count and the time; exits 1 on a broken invariant. `--minutes M`: batches of `--runs` cases
 * with new seeds until M minutes have passed.
 */
import { simulateBudget } from './budget';
import { arg, fastSandbox, runMain, soak } from './soak';

async function main(): Promise<number> {
	const path = arg('path') ?? process.env.BUDGET_SIM_PATH;
	const sb = await fastSandbox();
	try {
		return await soak(
			(seed, runs) =>
				simulateBudget(sb, {
					seed,
					runs,
					path,
					onCase: (setup, commands, result, ms) =>
						process.stdout.write(
							`  ${ms} ms ${result.violations.length ? 'BROKEN' : 'ok'} ${JSON.stringify({ ...setup, history: setup.history.length })} ${commands}: ${result.summary}${result.violations.map((v) => `\n    ${v}`).join('')}\n`,
						),
				}),
			Number(arg('seed') ?? process.env.BUDGET_SIM_SEED ?? Date.now() % 2_147_483_647),
		);
	} finally {
		await sb.close();
	}
}

runMain(main);
