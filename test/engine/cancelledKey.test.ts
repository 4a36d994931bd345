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

/** A test of `base` changed by a case's fields: no invariant broken, the summary as expected. */
const passesFrom =
	(base: Scenario) => async (_name: string, change: Partial<Scenario>, summary: RegExp) => {
		const result = await runCase(sb, { ...base, ...change }, creds());
		expect(result.violations).toEqual([]);
		expect(result.summary).toMatch(summary);
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
	passesFrom(found),
	180_000,
);

/**
 * The adversary's seed 1208233 (n8n 2.x, progress saving off, Character → Generate with Execute
 * Once, rows C, C, another execution on the character, Stop while the first run waited for its
 * job, the Retry killed after MediaGen, its queue worker lost without its event log, Retry
 * again): no day passed, so the Retry trusted the item's key to replay its job and looked nothing
 * up; MediaGen answered the key with the job Stop had cancelled, and the item failed with "Job …
 * cancelled" (also in the first Retry, and with no other execution, no second Retry).
 */
const stopped: Scenario = {
	n8nMajor: 2,
	progress: false,
	kind: 'character',
	shape: 'plain',
	reversed: false,
	rows: ['C'],
	change: { kind: 'none' },
	clockOffsetMs: 0,
	dayPasses: false,
	other: false,
	kill: { at: 'none' },
	adversary: { settings: { alwaysOutputData: false, executeOnce: false }, stop: { at: 'waiting' } },
};

const madeAnew = /^crash creates 1, retry creates 1, retry ok$/;

test.each<[string, Partial<Scenario>, RegExp]>([
	['Character → Generate', {}, madeAnew],
	['progress saving on', { progress: true }, madeAnew],
	['n8n 1.x', { n8nMajor: 1 }, madeAnew],
	['two rows', { rows: ['A', 'C'] }, /^crash creates \d, retry creates \d, retry ok$/],
	['Generation → Create', { kind: 'generation' }, /retry creates \d, retry ok/],
	['in a sub-workflow', { shape: 'sub' }, /retry creates 1, retry ok$/],
	[
		'a Wait node after MediaGen',
		{
			adversary: {
				settings: { alwaysOutputData: false, executeOnce: false },
				stop: { at: 'waiting' },
				wait: 'after',
			},
		},
		/retry creates 1, retry ok$/,
	],
	[
		'as found',
		{
			rows: ['C', 'C'],
			change: { kind: 'swap', i: 3, j: 2 },
			clockOffsetMs: -300_000,
			other: true,
			adversary: {
				settings: {
					onError: 'continueRegularOutput',
					retryOnFail: { maxTries: 4, waitBetweenTries: 10 },
					alwaysOutputData: true,
					executeOnce: true,
				},
				wait: 'before',
				retryKill: { at: 'after' },
				stop: { at: 'waiting' },
				edit: 'nodeBefore',
				retryQueue: 'crashedNoLog',
			},
		},
		/retry ok/,
	],
])(
	'Stop cancelled the job of a first run, Retry, %s: made anew, not the cancelled job',
	passesFrom(stopped),
	180_000,
);
