/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev-only code (tests): never published, see package.json "files" */
/**
 * The credit budget's randomized simulation (issue #38; test/harness/sim/budget.ts) in `npm test`: a fixed
 * seed and number of cases, each a random budget, ledger history and sequence of commands (n8n
 * runs started while others run, work outside n8n, history booked, MediaGen's clock turning the
 * period, a job cancelled, a new n8n process) against the sandbox, checked against the ledger:
 * spending over the budget only within the documented bounds, no refusal while its run's read
 * left room for the item, refusals' figures and wording true. A failure prints the seed and
 * fast-check's path; `BUDGET_SIM_SEED=S BUDGET_SIM_PATH=P npm run simulate:budget` replays it,
 * and BUDGET_SIM_SEED here runs another seed. The soak: `npm run simulate:budget -- --runs N`.
 */
import { simulateBudget } from '../harness/sim/budget';
import { fastJobs, useSandbox } from '../harness/engine/setup';

const { sb } = useSandbox({ timeScale: 0.01 });
fastJobs();

/** Cases per `npm test` (about 0.5 s each on the 2-core machine: docs/development.md). */
const CASES = 40;
const SEED = Number(process.env.BUDGET_SIM_SEED ?? 3838);

test(`${CASES} generated budget cases (seed ${SEED}): no invariant broken`, async () => {
	const report = await simulateBudget(sb, { seed: SEED, runs: CASES });
	expect(report.failure).toBeUndefined();
	expect(report.cases).toBe(CASES);
}, 300_000);
