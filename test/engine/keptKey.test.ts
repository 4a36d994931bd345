/**
 * An item sent under a key of its own execution keeps that key in its next try. The adversary's
 * seed 1208252 (no n8n Retry): a sub-workflow called twice with the same item, Character →
 * Generate with Retry On Fail, every answer to the second call's create lost (a 502 after
 * MediaGen made the job). The second call's first try found its default key held by the first
 * call's job and sent the item under a key of its execution (nodes/shared/run/start.ts
 * keysOfOtherCalls); its second try kept the item at the default key (an item sent before keeps
 * its key), whose job MediaGen replayed: both calls output the first call's job, the second
 * call's job (charged) reached no item and was named nowhere. The run memory now keeps the key
 * each item was sent under instead of its default (nodes/shared/durable/memory.ts `keyed`), and
 * the next try sends it again (nodes/shared/behaviours/idempotency.ts addIdempotencyKey), in
 * this execution and in n8n's Retry, which copies the node context n8n saved with progress.
 * 8 of the 15 cases failed before (invariants 3 and 4); n8n 1.x and Generation → Create passed
 * before too at this speed.
 */
import type { Scenario } from '../harness/sim/scenario';
import { runCase } from '../harness/sim/run';
import { fastJobs, useSandbox } from '../harness/engine/setup';

const { sb, creds } = useSandbox({ timeScale: 0.01 });
fastJobs();

const found: Scenario = {
	n8nMajor: 2,
	progress: false,
	kind: 'character',
	shape: 'subTwice',
	reversed: false,
	rows: ['A'],
	change: { kind: 'none' },
	clockOffsetMs: 0,
	dayPasses: true,
	other: false,
	kill: { at: 'none' },
	adversary: {
		settings: {
			retryOnFail: { maxTries: 2, waitBetweenTries: 10 },
			alwaysOutputData: false,
			executeOnce: true,
		},
		fault: { kind: 'lost', k: 2, times: 5 },
		retryStop: { at: 'create', k: 1 },
	},
};

/** `found` with its adversary's fields changed. */
const withAdversary = (change: Partial<NonNullable<Scenario['adversary']>>): Partial<Scenario> => ({
	adversary: { ...found.adversary!, ...change },
});

test.each<[string, Partial<Scenario>, RegExp]>([
	['as found', {}, /^first run creates \d+, ended without a Retry$/],
	['n8n 1.x', { n8nMajor: 1 }, /ended without a Retry/],
	['progress saved', { progress: true }, /ended without a Retry/],
	['Generation → Create', { kind: 'generation' }, /ended without a Retry/],
	['two rows', { rows: ['A', 'C'] }, /ended without a Retry/],
	[
		'the connection dropped instead of a 502',
		withAdversary({ fault: { kind: 'drop', k: 2, times: 5 } }),
		/ended without a Retry/,
	],
	[
		'three tries',
		withAdversary({
			settings: {
				retryOnFail: { maxTries: 3, waitBetweenTries: 10 },
				alwaysOutputData: false,
				executeOnce: true,
			},
		}),
		/ended without a Retry/,
	],
	['no day', { dayPasses: false }, /ended without a Retry/],
	['another execution on the character', { other: true }, /ended without a Retry/],
	[
		'n8n killed after the node, progress saved, n8n’s Retry (the run memory copied)',
		{ progress: true, kill: { at: 'after' } },
		/^crash creates \d+, retry ended success, creates 0, retry ok$/,
	],
	// guards: what passed before too
	[
		'n8n killed after the node, progress off: the Retry refuses what it cannot tell',
		{ kill: { at: 'after' } },
		/retry ended error, creates 0, retry creates 0, retry refused/,
	],
	[
		'every create lost until the Retry',
		withAdversary({ fault: { kind: 'lost', k: 2, times: 'all' } }),
		/retry ended error, creates 0, retry creates 0, retry refused/,
	],
	['Loop Over Items, rows A, A', { shape: 'loop', rows: ['A', 'A'] }, /ended without a Retry/],
	['called once', { shape: 'sub' }, /./],
	[
		'one answer lost (the transport’s next send answered)',
		withAdversary({ fault: { kind: 'lost', k: 2, times: 1 } }),
		/./,
	],
])(
	'a sub-workflow called twice, the second call’s creates lost, Retry On Fail, %s: no job named nowhere, none output twice',
	async (_name, change, summary) => {
		const result = await runCase(sb, { ...found, ...change }, creds());
		expect(result.violations).toEqual([]);
		expect(result.summary).toMatch(summary);
	},
	120_000,
);
