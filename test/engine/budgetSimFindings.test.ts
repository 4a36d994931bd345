/**
 * Findings of the credit budget's simulation (test/sim/budget.ts, issue #38), each a plain
 * regression test against the sandbox.
 */
import { chain, mediaGen, runWorkflow } from './harness';
import { fastJobs, generationCreate, useSandbox } from './setup';

const { sb, creds } = useSandbox({ timeScale: 0.01 });
fastJobs();

test('MediaGen’s clock a year ahead of n8n’s: a run that waits for jobs queued behind each other ends when they end, not at the Wait timeout', async () => {
	// the simulation found a run of 6 jobs waiting 10 minutes: the poller learned a job's running
	// time as its completed_at (MediaGen's clock) less when this side saw it start (n8n's clock),
	// a year, and looked at the queued jobs only at their deadline
	sb.control.setClock(Date.now() + 365 * 86_400_000);
	sb.control.setConfig({ concurrentJobs: 1 });
	const started = Date.now();
	const r = await runWorkflow(
		chain(
			[1, 2, 3].map((row) => ({ row })),
			[
				mediaGen('Generate', generationCreate({}, 5_000, '={{ "row " + $json.row }}'), {
					typeVersion: 2,
				}),
			],
		),
		{ credentials: creds() },
	);
	expect(r.error).toBeUndefined();
	expect(r.json('Generate').map((o) => o.status)).toEqual(['completed', 'completed', 'completed']);
	expect(Date.now() - started).toBeLessThan(30_000);
}, 120_000);
