/**
 * The randomized simulation of issue #36 in `npm test`: a fixed number of generated cases, a
 * fixed seed, each a workflow run by n8n-core in a child process killed with SIGKILL, then n8n's
 * recovery and Retry with what changed meanwhile (test/harness/sim/: scenario.ts draws, run.ts runs and
 * checks the invariants, simulate.ts shrinks a failure). A failure prints the seed, fast-check's
 * path and the shrunk case; `npm run simulate -- --seed S --path P` replays it.
 * `npm run simulate -- --runs N` (or `--minutes M`) is the long soak. The second test runs the
 * concurrent cases (test/harness/sim/concurrent.ts: executions on one key and the same records at once,
 * the order of their requests and n8n's kill drawn by fast-check's scheduler;
 * `npm run simulate -- --concurrent`). The third runs the adversary's cases (test/harness/sim/scenario.ts
 * adversaryScenario: the MediaGen node's settings, lost answers, n8n killed again during its
 * Retry, a Wait node, Stop, the workflow edited before the Retry, queue mode's lost worker;
 * `npm run simulate -- --adversary`; seed 3639's first five draw a Stop with a renamed node and a
 * queue-mode worker lost with the main waiting).
 */
import { simulate } from '../harness/sim/simulate';
import { fastJobs, useSandbox } from '../harness/engine/setup';

const { sb, creds } = useSandbox({ timeScale: 0.01 });
fastJobs();

/** Cases per `npm test`: 10–15 s each on the 2-core machine (see docs/development.md). */
const CASES = 6;
const SEED = 3636;

test(`${CASES} generated cases (seed ${SEED}): no invariant broken`, async () => {
	const report = await simulate(sb, creds(), { seed: SEED, runs: CASES });
	expect(report.failure).toBeUndefined();
	expect(report.cases).toBe(CASES);
}, 600_000);

/** Concurrent cases per `npm test` (test/harness/sim/concurrent.ts): 10–30 s each here, by the load. */
const CONCURRENT_CASES = 3;
const CONCURRENT_SEED = 3637;

test(`${CONCURRENT_CASES} concurrent cases, interleavings drawn by fast-check's scheduler (seed ${CONCURRENT_SEED}): no invariant broken`, async () => {
	const report = await simulate(sb, creds(), {
		seed: CONCURRENT_SEED,
		runs: CONCURRENT_CASES,
		concurrent: true,
	});
	expect(report.failure).toBeUndefined();
	expect(report.cases).toBe(CONCURRENT_CASES);
}, 600_000);

/** Adversary cases per `npm test`: 1–10 s each here (see docs/development.md). */
const ADVERSARY_CASES = 5;
const ADVERSARY_SEED = 3639;

test(`${ADVERSARY_CASES} adversary cases: node settings, lost answers, the Retry killed, a Wait node, Stop, an edited workflow, queue mode (seed ${ADVERSARY_SEED}): no invariant broken`, async () => {
	const report = await simulate(sb, creds(), {
		seed: ADVERSARY_SEED,
		runs: ADVERSARY_CASES,
		adversary: true,
	});
	expect(report.failure).toBeUndefined();
	expect(report.cases).toBe(ADVERSARY_CASES);
}, 600_000);
