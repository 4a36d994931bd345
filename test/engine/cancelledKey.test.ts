/**
 * A job Stop cancelled holds its Idempotency-Key: MediaGen answers the key sent again with the
 * job's first answer (spec: credit rule 6; the sandbox replays the answer as given, `queued`),
 * not with the job as it is now. The adversary's seed 1208133 (n8n 1.x, progress saving on,
 * Character → Generate in Loop Over Items, rows A, A (a third A added before the Retry), the
 * first try's queue worker lost without its event log, another execution on the character, a
 * day, Stop in the Retry while the second iteration waited for its job, Retry again): the last
 * Retry's second iteration found nothing by its record (the cancelled job is no result), sent
 * the create under the key the cancelled job holds, took that job back and failed with "Job …
 * cancelled". The sandbox here runs jobs at half speed, so that Stop always finds the job
 * running (at the simulation's speed it often completed first, and the case passed).
 */
import type { Scenario } from '../harness/sim/scenario';
import { runCase } from '../harness/sim/run';
import { fastJobs, useSandbox } from '../harness/engine/setup';

const { sb, creds } = useSandbox({ timeScale: 0.5 });
fastJobs();

const found: Scenario = {
	n8nMajor: 1,
	progress: true,
	kind: 'character',
	shape: 'loop',
	reversed: false,
	rows: ['A', 'A'],
	change: { kind: 'add', at: 1, row: 'A' },
	clockOffsetMs: 0,
	dayPasses: true,
	other: true,
	kill: { at: 'wait', run: 1 },
	adversary: {
		settings: { alwaysOutputData: false, executeOnce: false },
		wait: 'before',
		fault: { kind: 'drop', k: 1, times: 1 },
		queue: 'crashedNoLog',
		retryStop: { at: 'waiting' },
	},
};

/** The other kinds: their Retry makes what it needs (how many depends on the kind). */
const made = /retry stopped, creates 1, retry creates \d, retry ok/;

test.each<[string, Partial<Scenario>, RegExp]>([
	['as found', {}, /retry stopped, creates 1, retry creates 1, retry ok/],
	['no other execution', { other: false }, /retry stopped, creates 1, retry creates 2, retry ok/],
	['no day', { dayPasses: false }, /retry stopped, creates 1, retry creates 1, retry ok/],
	['n8n 2.x', { n8nMajor: 2 }, /retry stopped, creates 1, retry creates 1, retry ok/],
	['Generation → Create', { kind: 'generation' }, made],
	['Edit → Dub', { kind: 'dub' }, made],
	['Cinema Project → Generate', { kind: 'cinema' }, made],
	['Canvas Run → Start', { kind: 'canvas' }, made],
	['Matrix Run', { kind: 'matrix' }, made],
	[
		'after the rows, not in a loop',
		{ shape: 'plain' },
		/retry stopped, creates \d, retry creates \d, retry ok/,
	],
])(
	'Stop cancelled the job of a Retry, Retry again, %s: made anew, not the cancelled job',
	async (_name, change, summary) => {
		const result = await runCase(sb, { ...found, ...change }, creds());
		expect(result.violations).toEqual([]);
		expect(result.summary).toMatch(summary);
	},
	180_000,
);
