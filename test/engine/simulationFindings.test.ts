/**
 * What the randomized simulation of issue #36 found, each case run with its runner
 * (test/harness/sim/run.ts: n8n-core in a child process killed with SIGKILL, n8n's recovery and Retry,
 * the five invariants checked at the sandbox):
 * - a sub-workflow (Execute Workflow) under n8n's Retry of its parent (seed 36 in CI, seed 7):
 *   before nodes/shared/durable/calls.ts, n8n 1.x started the lost call's job again (two charged
 *   for one call) and n8n 2.x gave both calls of the sub-workflow the first call's job; the
 *   parent's row edited before its Retry: the lost try's job of the old row was named nowhere
 *   (adversary seed 3601, shrunk to fields of the first property: the sub-execution named only
 *   its own jobs, and the lost try's were made by the parent's lost try's sub-executions);
 * - Edit → Dub (found by its record) with duplicate rows and another execution's dub of the same
 *   edit: the second row got the other execution's dub; a row edited before the Retry: its lost
 *   dub was charged and named nowhere; n8n's clock stepped 3 s and another execution's dub of the
 *   same language: the item got the other's dub (seed 422599492, in about half the runs);
 * - a sub-workflow under the Retry of its parent, the row edited before the Retry (a soak of
 *   seed 5005's batches, seed 1104755271): the lost call's job for the old row, made in another
 *   sub-execution, reached no item and was named nowhere (nodes/shared/durable/calls.ts
 *   parentRunJobs now names it in the call's warning hint);
 * - Generation → Create in Loop Over Items with rows added, removed or swapped before the Retry
 *   (seed 422599492): each iteration looked only at its own position's jobs, so a row that moved
 *   to another iteration was charged again and the lost try's job of the last rows named nowhere
 *   (12 of these 16 cases broke before nodes/shared/durable/orphans.ts otherPositions);
 * - Edit → Dub in Loop Over Items, rows B, B, killed after both dubs, one row removed before the
 *   Retry (a soak, seed 1815392650): its one B iteration took one dub, the other reached no item
 *   and was named nowhere (orphansOf now names, at the loop's last iteration, every job on the
 *   record that no iteration took).
 * - its adversary's cases (the MediaGen node's settings, faults): with On Error set to the error
 *   output, a failed item stayed on the regular output (n8n moves only items whose JSON holds
 *   nothing but error, message and details); with Continue On Fail, a create whose answer was
 *   lost (a 5xx after the work, a dropped connection) failed its item while MediaGen had made
 *   and charged the job, named nowhere, and no Retry would follow (the execution succeeded);
 *   with Continue On Fail and Retry On Fail, n8n ran the node again (its first item had failed)
 *   and the node, whose run had ended without an error, had forgotten what it did: the items
 *   already charged (an answered dub, every dropped caption call) were charged again (seed 36 of
 *   the adversary: Edit → Create Captions charged 6 times for one row); with Continue On Fail,
 *   rows C, C of Edit → Dub and the first dub's answer lost, the lookup saw both dubs and could
 *   not tell which was the first item's; it named neither (seed 36 of the adversary, shrunk);
 *   n8n 1.x, a Wait node after Generation → Create, n8n killed after the create, its Retry
 *   killed in the node after the Wait, Retry again: the job was created again (the lineage's
 *   fingerprint took the Wait's recovered run, which the lost execution never had);
 *   Stop and a Retry of the canceled execution, queue mode's worker lost without its event log,
 *   the node renamed before the Retry: the Retry's saved data held no run of the node, and a
 *   record-matched kind's dubs, the captions, were sent again (charged twice, named nowhere).
 *
 * And what its concurrent cases (test/harness/sim/concurrent.ts: executions at once, the interleaving
 * drawn by fast-check's scheduler) found, written here as plain crash tests:
 * - Edit → Dub, rows es and fr, n8n killed after the es dub was made; another workflow dubs the
 *   same edit into fr before the Retry (concurrent seed 1): the Retry's fr item gets the other
 *   execution's dub (open: a known limit, skipped below).
 */
import type { Records } from '../harness/sim/run';
import { madeJobs, outputsOf, runCase, workflowsOf } from '../harness/sim/run';
import type { Scenario } from '../harness/sim/scenario';
import { calls } from '../harness/sim/scenario';
import { client } from '../harness/sandbox/helpers';
import { Alongside, crashExecution, restart, retry } from '../harness/engine/crashHarness';
import { SavedExecutions } from '../harness/engine/savedExecutions';
import { fastJobs, newEdit, useSandbox } from '../harness/engine/setup';

const { sb, creds } = useSandbox({ timeScale: 0.01 });
fastJobs();

/** Runs one case: no invariant broken, and its summary (what was created when) matches. */
async function expectUnbroken(s: Scenario, summary: RegExp): Promise<void> {
	const result = await runCase(sb, s, creds());
	expect(result.violations).toEqual([]);
	expect(result.summary).toMatch(summary);
}

/** One case per change of `from`: no invariant broken, and its summary matches. */
function eachChange(
	title: string,
	from: Scenario,
	changes: Array<[string, Partial<Scenario>, RegExp]>,
): void {
	test.each(changes)(
		title,
		async (_name, change, summary) => {
			await expectUnbroken({ ...from, ...change }, summary);
		},
		120_000,
	);
}

/** Execute Once, Stop in the run at its first create, and Stop in its Retry at the first create. */
const stoppedTwice: Scenario['adversary'] = {
	settings: { executeOnce: true },
	stop: { at: 'create', k: 1 },
	retryStop: { at: 'create', k: 1 },
};

const base: Scenario = {
	n8nMajor: 2,
	progress: false,
	kind: 'generation',
	shape: 'sub',
	reversed: false,
	rows: ['A'],
	change: { kind: 'none' },
	clockOffsetMs: 0,
	dayPasses: false,
	other: false,
	kill: { at: 'create', k: 1 },
};

const cases: Array<[string, Partial<Scenario>, RegExp]> = [
	['called once, killed at its create', {}, /retry creates 0, retry ok/],
	['called once, a day later (keys forgotten)', { dayPasses: true }, /retry creates 0, retry ok/],
	[
		'called from two branches, killed at the first call’s create',
		{ shape: 'subTwice' },
		/retry ok/,
	],
	[
		'called from two branches, a day later',
		{ shape: 'subTwice', dayPasses: true },
		/retry creates 1, retry ok/,
	],
	[
		'called from two branches, killed at the second call’s create',
		{ shape: 'subTwice', kill: { at: 'create', k: 2 } },
		/retry ok/,
	],
	[
		'called from two branches, progress saved: the Retry resumes at the second call',
		{ shape: 'subTwice', progress: true },
		/retry ok/,
	],
	[
		'called from two branches, killed after both calls',
		{ shape: 'subTwice', kill: { at: 'after' } },
		/retry creates 0, retry ok/,
	],
	[
		'called once, the row edited before the Retry: the lost call’s job is named (soak seed 1104755271)',
		{ change: { kind: 'edit', at: 0, row: 'D' } },
		/retry creates 1, retry ok/,
	],
	[
		'called from two branches, the row edited before the Retry: the lost call’s job is named',
		{ shape: 'subTwice', change: { kind: 'edit', at: 0, row: 'D' } },
		/retry ok/,
	],
	[
		'called once, killed after it, the row edited before the Retry: the old row’s job named',
		{ change: { kind: 'edit', at: 0, row: 'D' }, kill: { at: 'after' } },
		/crash creates 1, retry creates 1, retry ok/,
	],
	[
		'called from two branches, killed after both calls, the row edited, a day later: both old jobs named',
		{
			shape: 'subTwice',
			change: { kind: 'edit', at: 0, row: 'D' },
			kill: { at: 'after' },
			dayPasses: true,
		},
		/retry ok/,
	],
];

/** Each case on n8n 2.x and 1.x: no invariant broken, and the summary expected. */
function onBothMajors(title: string, from: Scenario, list: typeof cases): void {
	describe.each([2, 1] as const)(`n8n %s.x: ${title}`, (major) => {
		test.each(list)(
			'%s: no invariant broken',
			async (_name, change, summary) => {
				await expectUnbroken({ ...from, ...change, n8nMajor: major }, summary);
			},
			120_000,
		);
	});
}

onBothMajors('a sub-workflow under the Retry of its parent', base, cases);

const dub: Scenario = { ...base, kind: 'dub', shape: 'plain' };

describe('Edit → Dub, found by its record, under n8n’s Retry', () => {
	test('duplicate rows, another execution dubbed the same edit into the same language: refused and named', async () => {
		const s = { ...dub, rows: ['A', 'A'], other: true };
		await expectUnbroken(s, /retry creates 0, retry refused/);
	}, 120_000);

	test('a row added that duplicates one, another execution’s dub: refused and named', async () => {
		const s = { ...dub, change: { kind: 'add' as const, at: 0, row: 'A' }, other: true };
		await expectUnbroken(s, /retry refused/);
	}, 120_000);

	test('a row removed and n8n’s clock stepped 5 minutes: its lost dub is named in a warning', async () => {
		const s = {
			...dub,
			rows: ['A', 'B'],
			change: { kind: 'remove' as const, at: 0 },
			clockOffsetMs: 300_000,
			other: true,
		};
		await expectUnbroken(s, /retry ok/);
	}, 120_000);

	test('a row edited before the Retry: its lost dub is named in a warning', async () => {
		const s = { ...dub, rows: ['D'], change: { kind: 'edit' as const, at: 0, row: 'A' } };
		await expectUnbroken(s, /retry creates 1, retry ok/);
	}, 120_000);

	test('the dub refused with 402 (the node failed), another execution dubbed the same edit into the same language, n8n’s Retry: refused and named, not the other’s dub (seeds 777, 5005)', async () => {
		const s = { ...dub, other: true, kill: { at: 'refused' as const, k: 1 } };
		await expectUnbroken(s, /retry creates 0, retry refused/);
	}, 120_000);

	test('the dub answered 409 `conflict` (the node failed), another execution dubbed the same edit into the same language, n8n’s Retry: refused and named, not the other’s dub (the adversary’s injected 409)', async () => {
		const s: Scenario = {
			...dub,
			other: true,
			kill: { at: 'none' },
			adversary: { settings: {}, fault: { kind: 'conflict', k: 1, times: 1 } },
		};
		await expectUnbroken(s, /retry creates 0, retry refused/);
	}, 120_000);

	test('the dub refused with 402, no other dub meanwhile, n8n’s Retry: made once', async () => {
		const s = { ...dub, kill: { at: 'refused' as const, k: 1 } };
		await expectUnbroken(s, /retry creates 1, retry ok/);
	}, 120_000);

	test('n8n’s clock stepped 3 s, another execution dubbed the same edit into the same language: refused and named', async () => {
		const s = { ...dub, clockOffsetMs: 3_000, other: true };
		await expectUnbroken(s, /retry creates 0, retry refused/);
	}, 120_000);
});

const inLoop: Scenario = { ...base, shape: 'loop' };

const loopCases: Array<[string, Partial<Scenario>, RegExp]> = [
	[
		'rows A, A, the second removed: its lost job named at the last iteration',
		{ rows: ['A', 'A'], change: { kind: 'remove', at: 1 }, kill: { at: 'create', k: 2 } },
		/retry creates 0, retry ok/,
	],
	[
		'rows B, B, A, the second B removed: A not charged again',
		{ rows: ['B', 'B', 'A'], change: { kind: 'remove', at: 1 }, kill: { at: 'create', k: 3 } },
		/retry creates 0, retry ok/,
	],
	[
		'rows A, B, a row added on top: only it is created',
		{ rows: ['A', 'B'], change: { kind: 'add', at: 0, row: 'C' }, kill: { at: 'create', k: 2 } },
		/retry creates 1, retry ok/,
	],
	[
		'rows A, B swapped: nothing created again',
		{ rows: ['A', 'B'], change: { kind: 'swap', i: 0, j: 1 }, kill: { at: 'create', k: 2 } },
		/retry creates 0, retry ok/,
	],
];

onBothMajors(
	'Generation → Create in Loop Over Items, rows changed before the Retry',
	inLoop,
	loopCases,
);

describe('Generation → Create in Loop Over Items, more shapes (n8n 2.x)', () => {
	test('killed after the loop, the first of three rows removed: nothing created again', async () => {
		const s = {
			...inLoop,
			rows: ['A', 'B', 'C'],
			change: { kind: 'remove' as const, at: 0 },
			kill: { at: 'after' as const },
		};
		await expectUnbroken(s, /retry creates 0, retry ok/);
	}, 120_000);

	test('progress saved, rows A, A: a resumed iteration does not take a finished one’s job', async () => {
		const s = {
			...inLoop,
			progress: true,
			rows: ['A', 'A'],
			kill: { at: 'create' as const, k: 2 },
		};
		await expectUnbroken(s, /retry creates 0, retry ok/);
	}, 120_000);
});

const dubInLoop: Scenario = { ...base, kind: 'dub', shape: 'loop', dayPasses: true };

const dubLoopCases: Array<[string, Partial<Scenario>, RegExp]> = [
	[
		'rows B, B, the first removed after both dubs: the other lost dub is named at the last iteration (soak seed 1815392650)',
		{ rows: ['B', 'B'], change: { kind: 'remove', at: 0 }, kill: { at: 'create', k: 2 } },
		/retry creates 0, retry ok/,
	],
	[
		'rows B, B, the second removed, n8n’s clock stepped 5 minutes, another execution’s dub: the lost dub is named with the other’s',
		{
			rows: ['B', 'B'],
			change: { kind: 'remove', at: 1 },
			clockOffsetMs: 300_000,
			other: true,
			kill: { at: 'create', k: 2 },
		},
		/retry creates 0, retry ok/,
	],
	[
		'rows B, A, B, the first removed: nothing created again, the other B named',
		{ rows: ['B', 'A', 'B'], change: { kind: 'remove', at: 0 }, kill: { at: 'create', k: 3 } },
		/retry creates 0, retry ok/,
	],
];

onBothMajors(
	'Edit → Dub in Loop Over Items, rows changed before the Retry',
	dubInLoop,
	dubLoopCases,
);

/** The adversary's cases (test/harness/sim/scenario.ts adversaryScenario): n8n not killed, a fault. */
const continuing: Scenario = { ...base, shape: 'plain', rows: ['A', 'B'], kill: { at: 'none' } };

const adversaryCases: Array<[string, Partial<Scenario>, RegExp]> = [
	[
		'Generation → Create with the error output, item 1’s create refused (402): it goes to the error branch, with its row',
		{
			adversary: {
				settings: { onError: 'continueErrorOutput' },
				fault: { kind: 'refused', k: 1, times: 1 },
			},
		},
		/first run creates 2, ended without a Retry/,
	],
	[
		'Generation → Create with Continue On Fail, item 1’s answer lost (502 after the work, 5 tries): the item gets its job',
		{
			adversary: {
				settings: { onError: 'continueRegularOutput' },
				fault: { kind: 'lost', k: 1, times: 5 },
			},
		},
		/first run creates 6, ended without a Retry/,
	],
	[
		'Edit → Dub with Continue On Fail, item 1’s connection dropped after the work (no key: not sent again): found by its record',
		{
			kind: 'dub',
			adversary: {
				settings: { onError: 'continueRegularOutput' },
				fault: { kind: 'drop', k: 1, times: 1 },
			},
		},
		/first run creates 2, ended without a Retry/,
	],
	[
		'Edit → Dub with the error output, item 2’s answers lost every time: found, nothing on the error branch',
		{
			kind: 'dub',
			adversary: {
				settings: { onError: 'continueErrorOutput' },
				fault: { kind: 'lost', k: 2, times: 'all' },
			},
		},
		/first run creates 2, ended without a Retry/,
	],
	[
		'Edit → Dub with the error output, rows C, C (the same dub twice), item 1’s answer lost: item 2’s dub is not taken for it',
		{
			kind: 'dub',
			rows: ['C', 'C'],
			adversary: {
				settings: { onError: 'continueErrorOutput' },
				fault: { kind: 'lost', k: 1, times: 1 },
			},
		},
		/first run creates 2, ended without a Retry/,
	],
	[
		'Edit → Create Captions with Continue On Fail and Retry On Fail, every answer dropped: n8n runs the node again, nothing charged again',
		{
			kind: 'captions',
			rows: ['B', 'A'],
			adversary: {
				settings: {
					onError: 'continueRegularOutput',
					retryOnFail: { maxTries: 3, waitBetweenTries: 10 },
				},
				fault: { kind: 'drop', k: 1, times: 'all' },
			},
		},
		/first run creates 2, ended without a Retry/,
	],
	[
		'Edit → Dub with Continue On Fail and Retry On Fail, item 1 refused (402): n8n runs the node again, item 2 not dubbed again',
		{
			kind: 'dub',
			adversary: {
				settings: {
					onError: 'continueRegularOutput',
					retryOnFail: { maxTries: 2, waitBetweenTries: 10 },
				},
				fault: { kind: 'refused', k: 1, times: 1 },
			},
		},
		/first run creates 3, ended without a Retry/,
	],
];

onBothMajors('the MediaGen node’s On Error setting, n8n not killed', continuing, adversaryCases);

const retryKilled: Scenario = {
	...base,
	shape: 'plain',
	kill: { at: 'create', k: 1 },
	adversary: { settings: {}, wait: 'after', retryKill: { at: 'after' } },
};

onBothMajors(
	'a Wait node after MediaGen, n8n killed at the create, its Retry killed after the Wait',
	retryKilled,
	[
		[
			'Retry again: the job is found, nothing created again',
			{},
			/crash creates 1, retry crash creates 0, retry creates 0, retry ok/,
		],
	],
);

describe('Edit → Dub, another execution at the same time (the concurrent simulation)', () => {
	// Open finding (concurrent seed 1, path "0:4:0:3:4:4", shrunk: n8n 2.x, rows A, B = es, fr,
	// another workflow dubbing the same edit into fr, the Retry after it ended). A dub's record
	// holds its edit, language and watermark, nothing of who asked for it (the `dub` endpoint's
	// `matching` rule in nodes/shared/catalog/editor/edits.ts): the Retry's lookup for the fr item
	// (nodes/shared/durable/recovery.ts findByRule) finds one fr dub made since the lost try began,
	// and nodes/shared/durable/lookups.ts `pick` takes the one certain candidate (`certain[0]`) as
	// the lost try's, whose answer could have been lost. Only a time the lost try cannot have sent
	// after (when n8n died) would tell them apart, and n8n's recovered data has none; refusing
	// every such item instead would refuse every record-matched Retry. docs/batches.md, "Not
	// covered".
	it.skip('rows es, fr, killed after the es dub; another workflow dubs the edit into fr before the Retry: the fr item does not get that dub', async () => {
		sb.control.setCredits('main', 100_000);
		const records: Records = { dubEdit: await newEdit(sb), captionEdits: {} };
		const s: Scenario = { ...dub, rows: ['A', 'B'] };
		const { workflow, workflows } = workflowsOf(s, s.rows, records);
		const saved = new SavedExecutions();
		const x = await crashExecution(workflow, {
			credentials: creds(),
			saved,
			sandbox: sb,
			killAt: { answered: 1, path: '/dub$', method: 'POST' },
			workflows,
		});
		const api = client(sb, sb.keys.pro);
		const theirs = await api('POST', `/edits/${records.dubEdit}/dub`, { language: 'fr' });
		restart(x);
		const r = await retry(saved, x.executionId, {
			credentials: creds(),
			workflows,
			loadWorkflow: true,
			currentWorkflow: workflow,
		});
		const ids = r.error ? [] : r.json('Slow').map((j) => j.id);
		expect(ids).not.toContain(theirs.body.id);
	}, 120_000);
});

/**
 * The adversary's further kinds (test/harness/sim/kinds.ts). Cinema Project → Generate of one shot per
 * row, rows A, B swapped before the Retry, n8n killed after A's storyboard frame: the rule found
 * the lost try's jobs by project and kind only, so the Retry's first item (B) took A's frame and
 * A was charged again (the first case drawn); the rule now matches the shot too.
 */
onBothMajors(
	'Cinema Project → Generate, one shot per row, found by its record',
	{ ...base, kind: 'cinema', shape: 'plain', rows: ['A', 'B'] },
	[
		[
			'rows swapped before the Retry: each row gets its own shot’s frame, none made again',
			{ change: { kind: 'swap', i: 0, j: 1 } },
			/crash creates 1, retry creates 1, retry ok/,
		],
		[
			'another execution’s frame of the first row’s shot, then the Retry: refused and named',
			{ other: true, kill: { at: 'after' } },
			/crash creates 2, retry creates 0, retry refused/,
		],
	],
);

/**
 * Influencer Character → Generate (keyed; found by its record once MediaGen forgot the keys), a
 * prompt per row, rows A, B swapped before a Retry a day later, n8n killed after A's job: the rule
 * found the lost try's jobs by character and purpose only, so the Retry's first item (B) took A's
 * job and A was charged again, after the rows or in Loop Over Items (the adversary's character
 * kind); the rule now matches the prompt too (MediaGen records it after the identity prompt).
 */
onBothMajors(
	'Character → Generate, a prompt per row, a day later (keys forgotten)',
	{ ...base, kind: 'character', shape: 'plain', rows: ['A', 'B'], dayPasses: true },
	[
		[
			'rows swapped before the Retry: each row gets its own prompt’s job, none made again',
			{ change: { kind: 'swap', i: 0, j: 1 } },
			/crash creates 1, retry creates 1, retry ok/,
		],
		[
			'the same in Loop Over Items',
			{ shape: 'loop', change: { kind: 'swap', i: 0, j: 1 } },
			/crash creates 1, retry creates 1, retry ok/,
		],
	],
);

/**
 * Ad Project → Run Matrix of one project, a combination per row (its language), rows A, B
 * swapped before the Retry, n8n killed after A's variant: the rule found the lost try's jobs by
 * the project only, so the Retry's first item (B) took A's variant and A was made again (the
 * adversary's matrix kind); the rule now matches the combination too (`context.combo`).
 */
onBothMajors(
	'Ad Project → Run Matrix, a combination per row, found by its record',
	{ ...base, kind: 'matrix', shape: 'plain', rows: ['A', 'B'] },
	[
		[
			'rows swapped before the Retry: each row gets its own combination’s variant, none made again',
			{ change: { kind: 'swap', i: 0, j: 1 } },
			/crash creates 1, retry creates 1, retry ok/,
		],
	],
);

/**
 * Character → Generate (keyed, no provenance in its body) in a sub-workflow called from two
 * branches with the same item (adversary seed 4200, shrunk): both calls derive the same key from
 * the parent's run and the items, and MediaGen answers the second call's create with the first
 * call's job (the same key and body: no 409), so a plain run output one image where the user
 * asked for two (invariant 4), and after n8n's Retry of a run killed after both calls, both
 * calls got the first job and the second (charged) was named nowhere. Now a new sub-execution
 * whose key MediaGen already holds a job under sends its own (../../nodes/shared/run/start.ts
 * keysOfOtherCalls), and a Retry that finds the jobs of both calls refuses and names them.
 */
const twoCalls: Scenario = { ...base, kind: 'character', shape: 'subTwice', rows: ['A'] };
onBothMajors('Character → Generate in a sub-workflow called from two branches', twoCalls, [
	[
		'not killed: two jobs, one per call',
		{ kill: { at: 'none' }, adversary: { settings: {} } },
		/first run creates 2, ended without a Retry/,
	],
	[
		'killed after both calls: the Retry refuses and names both jobs',
		{ kill: { at: 'after' } },
		/crash creates 2, retry creates 0, retry refused/,
	],
]);

// n8n killed at the first call's create: on 2.x the Retry's calls both derived the first call's
// key and got its job back (the second never made). The second call now sends under a key of its
// own: the first call of this Retry output that job (jobsOfEarlierCalls). n8n 1.x refuses and
// names it (its lost try cannot be told from the first call's)
test.each([
	[2, /crash creates 1, retry creates 2, retry ok/],
	[1, /crash creates 1, retry creates 0, retry refused/],
] as const)(
	'n8n %s.x: Character → Generate in a sub-workflow called twice, killed at the first call’s create: each call its own job',
	async (n8nMajor, summary) => {
		await expectUnbroken({ ...twoCalls, n8nMajor }, summary);
	},
	120_000,
);

/**
 * Character → Generate (keyed) in Loop Over Items, rows C, A, A, n8n killed after A's job, a row
 * B added before the Retry (adversary seed 4300): A's iteration moved to another position, whose
 * key is another, and keyed kinds were not looked up while MediaGen replays keys: A was charged
 * a third time for two rows. A loop's Retry now looks keyed items up by their record too.
 */
onBothMajors(
	'Character → Generate in Loop Over Items, rows changed before the Retry',
	{
		...base,
		kind: 'character',
		shape: 'loop',
		rows: ['C', 'A', 'A'],
		kill: { at: 'create', k: 2 },
	},
	[
		[
			'a row added before the moved rows: nothing made again',
			{ change: { kind: 'add', at: 1, row: 'B' } },
			/crash creates 2, retry creates 2, retry ok/,
		],
		[
			'the first row removed: nothing made again',
			{ change: { kind: 'remove', at: 0 } },
			/crash creates 2, retry creates 1, retry ok/,
		],
	],
);

/**
 * The adversary's Stop, edited workflow and queue mode (test/harness/sim/scenario.ts `modes`): a Retry
 * whose saved data holds no run of the node sent a record-matched kind's calls again without
 * looking (the lost try's dubs or captions charged twice, named nowhere), until identity.ts
 * savedViewOf took every Retry as one whose lost try may have run the node.
 */
const twoRows: Scenario = {
	...base,
	shape: 'plain',
	rows: ['A', 'B'],
	kill: { at: 'create', k: 2 },
};

onBothMajors('a Retry whose saved data holds no run of the node', twoRows, [
	[
		'Edit → Create Captions, Stop when both were answered, Retry of the canceled execution: nothing charged again',
		{
			kind: 'captions',
			kill: { at: 'none' },
			adversary: { settings: {}, stop: { at: 'create', k: 2 } },
		},
		/crash creates 2, retry creates 0, retry ok/,
	],
	[
		'Edit → Dub in queue mode, the worker lost after both dubs, no event log to amend from: nothing dubbed again',
		{ kind: 'dub', adversary: { settings: {}, queue: 'crashedNoLog' } },
		/crash creates 2, retry creates 0, retry ok/,
	],
	[
		'Edit → Dub, killed after both dubs, the node renamed before the Retry: nothing dubbed again',
		{ kind: 'dub', adversary: { settings: {}, edit: 'rename' } },
		/crash creates 2, retry creates 0, retry ok/,
	],
]);

/**
 * n8n 1.x saves nothing unique with an execution's start: a Retry of an execution stopped
 * without progress saving found the stopped try's generation only once identity.ts retriedOf read
 * the stopped execution's id from the error Stop wrote (the Retry keeps it); before, the job was
 * made again and named nowhere (adversary seed 4401). On 2.x the resumeToken gave the same keys.
 */
const stopped: Scenario = {
	...base,
	shape: 'plain',
	rows: ['C'],
	kill: { at: 'none' },
	adversary: { settings: {}, stop: { at: 'waiting' } },
};

onBothMajors(
	'Generation → Create, Stop while the node waits, Retry of the canceled execution',
	stopped,
	[
		[
			'the job made before the Stop is found, nothing created again',
			{},
			/crash creates 1, retry creates 0, retry ok/,
		],
	],
);

/**
 * n8n 1.x, progress saving off, nothing of the lost try saved (adversary seeds 4401, 4402): the
 * Retry's data names nothing of its lost try (1.x saves no resumeToken, no execution context),
 * so its Generation → Create jobs were made again, charged twice, the first named nowhere. Now
 * the jobs of another execution that saved nothing to compare with are not taken and not made
 * again: the item is refused and they are named (durable/unproven.ts).
 */
const blindRetry: Scenario = { ...base, n8nMajor: 1, shape: 'plain', rows: ['A', 'B'] };
describe('n8n 1.x, progress saving off, nothing of the lost try saved', () => {
	test.each([
		[
			'queue mode, the worker lost after both creates, without its event log',
			{ kill: { at: 'after' }, adversary: { settings: {}, queue: 'crashedNoLog' } },
			/crash creates 2, retry creates 0, retry refused/,
		],
		[
			'queue mode, the worker lost after both creates, its Retry refused, Retry again (the adversary, seed 2612051: the second Retry made both again)',
			{
				kill: { at: 'after' },
				adversary: { settings: {}, queue: 'crashedNoLog', retryStop: { at: 'create', k: 1 } },
			},
			/crash creates 2, retry ended error, creates 0, retry creates 0, retry refused/,
		],
		[
			'Stop after the first create, its Retry killed at its own create, Retry again',
			{
				kill: { at: 'none' },
				adversary: {
					settings: {},
					stop: { at: 'create', k: 1 },
					retryKill: { at: 'create', k: 1 },
				},
			},
			// the Stop's cancel lands on the first job when it still runs (the simulation holds
			// the sandbox's jobs from the press): then it is made again, charged once
			/crash creates 1, retry crash creates 1, retry creates (0, retry refused|1, retry ok)/,
		],
	] as Array<[string, Partial<Scenario>, RegExp]>)(
		'%s: nothing made again, the lost jobs named',
		async (_name, change, summary) => {
			const result = await runCase(sb, { ...blindRetry, ...change }, creds());
			expect([...result.violations, ...result.known]).toEqual([]);
			expect(result.summary).toMatch(summary);
		},
		120_000,
	);
});

/**
 * Stop while the node waits, then Retry (the adversary's Stop, drawn in every shape since): a
 * job or canvas run Stop cancelled returns its credits and is no result, but the Retry took it
 * (by the list rule, or by the key MediaGen answered with it) and the item failed "Job …
 * cancelled" (found with the sandbox's jobs held from the press, so that the Stop's cancels land
 * on running jobs; at this speed the jobs mostly end before the cancel, and these cases pass
 * before the fix too); a key answered 409 whose job Stop cancelled refused its item (n8n 1.x,
 * the last case, fails before). Now no lookup takes a cancelled job, and a key answered with
 * one, or refused for one, is replaced by a key of this execution: made again, charged once.
 */
const stoppedWaiting: Scenario = {
	...base,
	shape: 'plain',
	rows: ['A', 'B'],
	kill: { at: 'none' },
	adversary: { settings: {}, stop: { at: 'waiting' } },
};
onBothMajors('Stop while the node waits, Retry of the canceled execution', stoppedWaiting, [
	['Canvas Run → Start', { kind: 'canvas' }, /retry ok/],
	['Canvas Run → Start, two MediaGen nodes', { kind: 'canvas', shape: 'two' }, /retry ok/],
	[
		// adversary seed 2612051: the second node's key answered 409 (its body names the Retry's
		// execution), its job under the key cancelled by the Stop in the first Retry
		'Generation → Create, two MediaGen nodes renamed, Stop in the Retry, Retry again',
		{
			kind: 'generation',
			shape: 'two',
			rows: ['A'],
			kill: { at: 'create', k: 1 },
			adversary: { settings: {}, edit: 'rename', retryStop: { at: 'create', k: 1 } },
		},
		/retry (stopped|ended error), creates \d, retry creates \d, retry (ok|refused)/,
	],
]);

/**
 * Edit → Dub in Loop Over Items, rows D, D, On Error to the error output, every dub's answer lost
 * (a 502 after MediaGen made it): the run looks each lost one up at once (it goes on, no Retry
 * follows), and the second iteration took the first's dub (adversary seed 3612051, shrunk: one
 * dub given to both items, the other named nowhere). Now a job found for a lost answer is this
 * item's in the run's memory, and a later iteration never takes it.
 */
test('Edit → Dub in Loop Over Items, every answer lost, On Error to the error output: each row its own dub', async () => {
	const s: Scenario = {
		...base,
		kind: 'dub',
		shape: 'loop',
		rows: ['D', 'D'],
		progress: true,
		kill: { at: 'after' },
		adversary: {
			settings: { onError: 'continueErrorOutput' },
			fault: { kind: 'lost', k: 1, times: 'all' },
		},
	};
	await expectUnbroken(s, /crash creates 2, retry creates 0, retry ok/);
}, 120_000);

/**
 * MediaGen in a sub-workflow, the parent's queue-mode worker lost without its event log (the
 * adversary's seed 4402, its 9th case; open until durable/parentRun.ts): n8n marks the parent
 * crashed without amending it, and the sub-executions of its Retry did not know their parent was
 * a Retry: every kind below sent again what the lost calls had made (two charged per row, the
 * first named nowhere), on 2.x and 1.x, progress saving off and on. Now a Retry's parent is told
 * by the context it hands its sub-executions (1.x: `source: 'retry'`) or by its lost try below
 * it with the same resumeToken (2.x): the jobs are taken, or refused and named.
 */
const lostWorker: Scenario = {
	...base,
	rows: ['A', 'B'],
	kill: { at: 'after' },
	adversary: { settings: {}, queue: 'crashedNoLog' },
};
onBothMajors(
	'a sub-workflow, the parent’s queue-mode worker lost without its event log',
	lostWorker,
	[
		['Generation → Create, killed after both creates', {}, /crash creates 2, retry creates 0/],
		[
			'Generation → Create, progress saved, killed at the second create',
			{ progress: true, kill: { at: 'create', k: 2 } },
			/crash creates 2, retry creates 0/,
		],
		[
			'Edit → Dub, called from two branches',
			{ kind: 'dub', shape: 'subTwice' },
			/crash creates 4, retry creates 0/,
		],
		[
			'Character → Generate (keyed), called twice in a row',
			{ kind: 'character', shape: 'subSeq' },
			/crash creates 4, retry creates 0/,
		],
	],
);

/**
 * Edit → Dub, Stop while the node waits (it cancels the dub at MediaGen), Retry of the canceled
 * execution (adversary seed 4404, case 18): the Retry found the cancelled dub by its record and
 * took it, and the item failed "Job … cancelled", until recovery.ts left cancelled jobs out of
 * the record's matches (a cancelled job is no result and was charged nothing).
 */
onBothMajors(
	'Edit → Dub, Stop while the node waits, Retry of the canceled execution',
	{ ...stopped, kind: 'dub', rows: ['A'] },
	[
		[
			'a new dub is made, the cancelled one is not taken',
			{},
			// on a loaded machine the dub may end before Stop reaches it: then it is found instead
			/crash creates 1, retry creates [01], retry ok/,
		],
	],
);

/**
 * Two MediaGen nodes asking the same of one record (the adversary's shape `two`, seed 36 of
 * `.ci/run`, shrunk): two Edit → Dub nodes dubbing one edit into one language, the first's dub
 * refused (402, Continue On Fail), n8n killed after the second's; in the Retry the first node's
 * lookup found the second's dub by its record (nothing on it tells the nodes apart) and both
 * nodes output the same dub. Now what the package's nodes before a node output in the execution
 * is never taken by its lookups (calls.ts jobsOutputBefore): the second makes its own.
 */
onBothMajors(
	'two Edit → Dub nodes asking the same, the first refused, killed after the second',
	{
		...dub,
		shape: 'two',
		kill: { at: 'after' },
		adversary: {
			settings: { onError: 'continueRegularOutput' },
			fault: { kind: 'refused', k: 1, times: 1 },
		},
	},
	[['each node its own dub', {}, /crash creates 2, retry creates 1, retry ok/]],
);

/**
 * Found by a soak of the first property (seed 1646093612, shrunk): Generation → Create in Loop Over
 * Items, rows C, B, n8n killed at the second create, row C edited into B before n8n's Retry (rows
 * B, B): the Retry's first iteration took the lost try's B job (its row moved), the second sent
 * the key the lost try's second iteration derived, was answered 409 `idempotency_key_reused` and
 * took the same job: one job for both items, the second B never made. Now a job under the
 * iteration's key that an earlier iteration took is not this item's: it is sent under a key of
 * its own (jobOfReusedKey).
 */
it('Generation → Create in Loop Over Items, row C edited into B before the Retry: each B its own job', async () => {
	const s: Scenario = {
		...base,
		kind: 'generation',
		shape: 'loop',
		rows: ['C', 'B'],
		change: { kind: 'edit', at: 0, row: 'B' },
		kill: { at: 'create', k: 2 },
	};
	await expectUnbroken(s, /retry creates 2, retry ok, 1 create answered 409/);
}, 120_000);

/**
 * The concurrent simulation, CI's seed 36 (n8n 2.x, a sub-workflow, rows B, B, D, the Retry
 * started while two other executions ran): the killed process's last create reached MediaGen
 * after n8n died and after its Retry had looked for the lost try's jobs (a request slow on the
 * network: MediaGen made the job, nobody got its answer). The Retry's create for D went out under
 * the lost try's key; MediaGen answered 409 (the provenance differs) and the sub-execution, sure
 * that its lookup had taken its own call's jobs, took the job under the key for another call's
 * and made a second one (D charged twice, the first named nowhere). It now tells the call that
 * made the job under the key by its parent run and rank (nodes/shared/durable/calls.ts).
 * n8n 1.x, where the run's token is the execution id (nothing unique saved before the node), is
 * a stated limit: the Retry's key is another, MediaGen makes the job again (docs/batches.md).
 */
describe.each([false, true])(
	'n8n 2.x, progress saved %s: the lost try’s create reaches MediaGen after its Retry looked',
	(progress) => {
		const ACTOR = 'x-sim-actor';
		test.each([
			['a sub-workflow called once', 'sub', 3],
			['a sub-workflow called from two branches, the second call’s create', 'subTwice', 2],
			['no sub-workflow', 'plain', 3],
		] as const)(
			'%s: the Retry gets that job, nothing charged twice',
			async (_name, shape, k) => {
				sb.control.setCredits('main', 100_000);
				const records: Records = { captionEdits: {} };
				const s: Scenario = {
					...base,
					n8nMajor: 2,
					progress,
					shape,
					rows: shape === 'subTwice' ? ['B'] : ['B', 'B', 'D'],
				};
				const { workflow, workflows } = workflowsOf(s, s.rows, records);
				const saved = new SavedExecutions();
				let kill = () => {};
				const killed = new Promise<void>((resolve) => (kill = resolve));
				let release = () => {};
				const held = new Promise<void>((resolve) => (release = resolve));
				let made = () => {};
				const lateMade = new Promise<void>((resolve) => (made = resolve));
				let creates = 0;
				let retryCreates = 0;
				const ungate = sb.control.gateRequests(async (r) => {
					if (r.method !== 'POST' || !/\/generations$/.test(r.path)) return undefined;
					if (r.headers[ACTOR] === 'x') {
						if (++creates > k) return 'refuse';
						if (creates < k) return undefined;
						kill();
						await held;
						return () => made();
					}
					// the Retry's first create: the lost try's late one reaches MediaGen just before it
					if (++retryCreates === 1) {
						release();
						await lateMade;
					}
					return undefined;
				});
				try {
					const x = await crashExecution(workflow, {
						credentials: creds(),
						saved,
						sandbox: sb,
						killAt: { when: killed },
						n8nMajor: 2,
						workflows,
						requestHeaders: { [ACTOR]: 'x' },
					});
					restart(x);
					const r = await retry(saved, x.executionId, {
						credentials: creds(),
						n8nMajor: 2,
						workflows,
						loadWorkflow: true,
						currentWorkflow: workflow,
						requestHeaders: { [ACTOR]: 'r' },
					});
					expect(r.error?.message).toBeUndefined();
					// the case is what it says: the Retry sent a create, the lost one was made before it
					expect(retryCreates).toBeGreaterThan(0);
					const api = client(sb, sb.keys.pro);
					const all = await madeJobs(s, api, records);
					const asked = s.rows.length * calls(shape);
					expect(all).toHaveLength(asked);
					const out = outputsOf(shape, r.run.data.resultData.runData).flat();
					expect(out.map((o) => String(o.id)).sort()).toEqual(all.map((m) => m.id).sort());
				} finally {
					release();
					ungate();
				}
			},
			120_000,
		);
	},
);

/**
 * The adversary's seed 316374299 (n8n 2.x, Canvas Run → Start, rows D, D, Retry On Fail, Stop at
 * the second create, Retry of the canceled execution): the Retry's lookup refuses the items
 * (nothing sent), and n8n's own code replaces that refusal's text. ExecutionService.retry removes
 * Stop's error from the copied data only where it names a last node (progress saving off: none);
 * Retry On Fail runs the node again after its first try failed, and WorkflowExecute.runNode's
 * rethrowLastNodeError throws the kept error ("The execution was cancelled manually") instead of
 * running it. Nothing is charged twice; the message is n8n's (docs/batches.md, "Not covered").
 */
test('Stop, Retry On Fail, then n8n’s Retry: nothing sent again; n8n shows Stop’s error, not the refusal', async () => {
	const result = await runCase(
		sb,
		{
			...base,
			kind: 'canvas',
			shape: 'plain',
			rows: ['D', 'D'],
			kill: { at: 'none' },
			adversary: {
				settings: { retryOnFail: { maxTries: 2, waitBetweenTries: 10 } },
				stop: { at: 'create', k: 2 },
			},
		},
		creds(),
	);
	expect(result.violations).toEqual([]);
	expect(result.known).toEqual([expect.stringMatching(/The execution was cancelled manually/)]);
	expect(result.summary).toMatch(/retry creates 0, retry refused/);
}, 120_000);

/**
 * The concurrent simulation with other executions in the killed process (n8n 2.x): two
 * executions of one workflow run by one n8n main, rows B, A and C, B, killed together. n8n's
 * recovery saves the nodes' start times in whole seconds, so both executions' saved data had the
 * same first start times; each Retry's lookup, matching the lost try by those times as well as by
 * its token, took the other execution's B as its own (each B output the other's job). An execution
 * whose saved data has an anchor (2.x's resumeToken) derived a durable token, the Retry's own if it
 * were its lost try: it is matched by token only now (nodes/shared/durable/lookups.ts
 * ownProvenance). n8n 1.x, without such an anchor, is a stated limit (docs/batches.md).
 */
test('n8n 2.x, two executions of one workflow killed in one process: each Retry gets its own jobs', async () => {
	sb.control.setCredits('main', 100_000);
	const records: Records = { captionEdits: {} };
	const s: Scenario = { ...base, shape: 'plain', rows: ['B', 'A'] };
	const mine = workflowsOf(s, s.rows, records);
	const theirs = workflowsOf(s, ['C', 'B'], records);
	const saved = new SavedExecutions();
	const along = new Alongside();
	const crashing = crashExecution(mine.workflow, {
		credentials: creds(),
		saved,
		sandbox: sb,
		killAt: { answered: 4, path: '/generations$', method: 'POST' },
		workflows: mine.workflows,
		alongside: along,
	});
	const other = along.start({
		workflowData: theirs.workflow,
		executionId: '1001',
		workflows: theirs.workflows,
	});
	const x = await crashing;
	expect(await other).toBeUndefined(); // killed with the process
	restart(x);
	expect(saved.record('1001')?.status).toBe('crashed');
	const api = client(sb, sb.keys.pro);
	const before = await madeJobs(s, api, records);
	expect(before).toHaveLength(4);
	for (const [id, w, rows] of [
		[x.executionId, mine, ['B', 'A']],
		['1001', theirs, ['C', 'B']],
	] as const) {
		const r = await retry(saved, id, {
			credentials: creds(),
			workflows: w.workflows,
			loadWorkflow: true,
			currentWorkflow: w.workflow,
		});
		expect(r.error?.message).toBeUndefined();
		const out = outputsOf('plain', r.run.data.resultData.runData).flat();
		const made = out.map((o) => {
			const job = before.find((m) => m.id === String(o.id));
			return `${job?.row}:${String(o.context && (o.context as { n8n?: { executionId?: string } }).n8n?.executionId)}`;
		});
		expect(made).toEqual(rows.map((row) => `${row}:${id}`));
	}
	expect(await madeJobs(s, api, records)).toHaveLength(4);
}, 120_000);

/**
 * The adversary's seed 81205 (n8n 1.x, progress saving off, Generation → Create, row B edited
 * into A before the Retry): Stop in the run after B's create, Stop in its Retry after A's, then
 * Retry again; and n8n killed in a Wait after the node, the worker lost without its event log.
 * The lost try saved nothing (the Stop wrote back the data of its start; the lost worker's
 * data is that of its start too), so its B job was neither its own by token nor by start times:
 * no item asks for B any more, and it was named nowhere (charged, in no output). Such jobs of an
 * execution n8n saved nothing of are named now in a warning hint (durable/unproven.ts
 * unprovenOrphans), as maybe the lost try's.
 */
describe('n8n 1.x, progress saving off, the lost try saved nothing, its row edited before the Retry', () => {
	const edited: Scenario = {
		...base,
		n8nMajor: 1,
		shape: 'plain',
		rows: ['B'],
		change: { kind: 'edit', at: 0, row: 'A' },
	};
	test('Stop in the run, Stop in its Retry, Retry again: the B job is named', async () => {
		await expectUnbroken(
			{
				...edited,
				dayPasses: true,
				kill: { at: 'none' },
				adversary: stoppedTwice,
			},
			/retry stopped, creates 1, retry creates 0, retry ok/,
		);
	}, 120_000);
	test('killed in a Wait after the node, the worker lost without its event log: the B jobs are named', async () => {
		await expectUnbroken(
			{
				...edited,
				rows: ['B', 'B'],
				other: true,
				kill: { at: 'wait', run: 1 },
				adversary: {
					settings: { executeOnce: true },
					wait: 'after',
					fault: { kind: 'lost', k: 1, times: 1 },
					queue: 'crashedNoLog',
				},
			},
			/retry ok/,
		);
	}, 120_000);
});

/**
 * The adversary's seed 91205 (a sub-workflow called twice, the node's request edited before the
 * Retry, that Retry killed after both calls, progress saved): the lost try's job of the old request
 * is named by the killed Retry's sub-execution (its warning hint), which n8n saved when it ended;
 * the last Retry resumes after the calls and runs no sub-execution. The simulation read only the
 * last execution's sub-executions and reported it named nowhere: a flaw of the oracle, which now
 * reads every saved sub-execution of the case. No change in the node.
 */
const editedCalls: Array<[1 | 2, Partial<Scenario>]> = [
	[
		2,
		{
			rows: ['A'],
			dayPasses: true,
			kill: { at: 'none' },
			adversary: {
				settings: { executeOnce: true },
				retryKill: { at: 'after' },
				stop: { at: 'create', k: 1 },
				edit: 'request',
			},
		},
	],
	[
		1,
		{
			rows: ['D', 'A', 'A'],
			reversed: true,
			change: { kind: 'swap', i: 1, j: 3 },
			clockOffsetMs: 300_000,
			kill: { at: 'create', k: 1 },
			adversary: {
				settings: { executeOnce: true },
				wait: 'after',
				retryKill: { at: 'after' },
				edit: 'request',
			},
		},
	],
];
test.each(editedCalls)(
	'n8n %s.x, a sub-workflow called twice, its request edited, the Retry killed after the calls: the old job is named',
	async (major, change) => {
		await expectUnbroken(
			{
				...base,
				...(change as Partial<Scenario>),
				n8nMajor: major,
				progress: true,
				shape: 'subTwice',
			},
			/retry creates 0, retry ok/,
		);
	},
	120_000,
);

/**
 * The adversary's seed 590299261 (Cinema Project → Generate in Loop Over Items, progress saved, rows
 * D, D, the first row edited into A and the node renamed before the Retry, n8n killed in the Wait
 * before the second iteration's node): the Retry resumes at the second iteration and restores the
 * first's output under the node's old name; the renamed node's node context and saved runs (both
 * by name) were empty, so the second iteration's lookup took the first iteration's frame (one job
 * for two items, D's second shot never made). The jobs output under a name the workflow has no
 * longer are claimed now (nodes/shared/durable/calls.ts jobsOfRenamedRuns).
 */
test.each([2, 1] as const)(
	'n8n %s.x, Loop Over Items, the node renamed before a Retry that resumes: a later iteration does not take an earlier one’s job',
	async (major) => {
		await expectUnbroken(
			{
				...base,
				n8nMajor: major,
				progress: true,
				kind: 'cinema',
				shape: 'loop',
				rows: ['D', 'D'],
				change: { kind: 'edit', at: 0, row: 'A' },
				dayPasses: true,
				kill: { at: 'wait', run: 2 },
				adversary: { settings: {}, wait: 'before', edit: 'rename' },
			},
			/retry creates 1, retry ok/,
		);
	},
	120_000,
);

/**
 * The same with Stop in that Retry after its create, then Retry again (the adversary's seed
 * 590299261 with `retryStop`). The renamed node's runs count from 0 again, so its second
 * iteration derives the key of the first iteration's run under the old name; a day later MediaGen
 * holds two jobs under it (the first's key expired: the stopped Retry's create made a new one).
 * The last Retry's create was answered 409 and jobOfReusedKey took every job under the key: the
 * first iteration's too (three items for two rows). A job under the key that this run took or
 * output is never this item's now (nodes/shared/durable/recovery.ts jobOfReusedKey). On n8n 1.x
 * with a day passed, once the lost execution's saved runs were compared under the node's name now
 * (seed 1208161, below), its first iteration's job (output under the old name) shared the slot of
 * the last Retry's second iteration with the stopped Retry's job: the slot was taken whole or not
 * at all, and the item was made again; now the job no item took is taken (recoverStartedJobs).
 */
test.each([
	[2, true],
	[2, false],
	[1, true],
] as const)(
	'n8n %s.x, Loop Over Items, the node renamed, Stop in the Retry, a day passed %s: no job of an earlier iteration twice',
	async (major, dayPasses) => {
		await expectUnbroken(
			{
				...base,
				n8nMajor: major,
				progress: true,
				kind: 'generation',
				shape: 'loop',
				rows: ['D', 'D'],
				change: { kind: 'edit', at: 0, row: 'A' },
				dayPasses,
				kill: { at: 'wait', run: 2 },
				adversary: {
					settings: { executeOnce: true },
					wait: 'before',
					edit: 'rename',
					retryStop: { at: 'create', k: 1 },
				},
			},
			/retry stopped, creates 1, retry creates \d, retry ok/,
		);
	},
	120_000,
);

/**
 * The adversary's seed 1205101 (shrunk: n8n 2.x, progress saving off, Stop in the run while its
 * create was in flight, then n8n killed in its Retry's Wait before MediaGen, then Retry again):
 * the last Retry's saved data is the killed Retry's, which crash recovery amended (every start
 * shown, Stop's error gone), so the node took it that no try had run it, looked nothing up by
 * record, and started the canvas run (the dub, the captions…) again: charged twice. That data's
 * runs all began seconds after the run's execution context was established (`establishedAt`,
 * copied into every Retry): an earlier try it does not show (identity.ts showsEveryStart).
 * n8n 1.x saves no execution context: a stated limit (docs/batches.md "Not covered").
 */
test.each(['canvas', 'dub', 'captions', 'cinema'] as const)(
	'n8n 2.x, Stop, its Retry killed before MediaGen, Retry again: %s is not made twice',
	async (kind) => {
		await expectUnbroken(
			{
				...base,
				kind,
				shape: 'plain',
				kill: { at: 'none' },
				adversary: {
					settings: { executeOnce: true },
					wait: 'before',
					retryKill: { at: 'wait', run: 1 },
					stop: { at: 'create', k: 1 },
				},
			},
			/retry crash creates 0, retry creates 0, retry ok/,
		);
	},
	120_000,
);

/**
 * The adversary's seed 1205301 (shrunk: Canvas Run → Start in Loop Over Items, rows D, D, the
 * first edited into A, Stop at the second create, Stop in the Retry, Retry again): the second
 * iteration took one of the two runs the lost try made on canvas D; the other, made for the row
 * since edited, was named nowhere. At the loop's last iteration the runs on the run's records
 * that no iteration took are named in a warning hint now (orphans.ts untakenOnRecords).
 */
test.each([true, false] as const)(
	'Loop Over Items, Canvas Run → Start, a row edited before the Retry, Stop in the Retry %s: the old row’s run is named',
	async (retryStop) => {
		await expectUnbroken(
			{
				...base,
				kind: 'canvas',
				shape: 'loop',
				rows: ['D', 'D'],
				change: { kind: 'edit', at: 0, row: 'A' },
				kill: { at: 'none' },
				adversary: {
					settings: { executeOnce: true },
					stop: { at: 'create', k: 2 },
					...(retryStop ? { retryStop: { at: 'create', k: 1 } } : {}),
				},
			},
			/retry ok/,
		);
	},
	120_000,
);

/**
 * The adversary's seed 1205201 was the simulation's: with a day passing before the Retry and a
 * first run in the test's process (Stop, a 402, no kill), MediaGen's keys expired but n8n's clock
 * had not moved, so the node trusted the key to replay its job and made another. The first run
 * now runs on n8n's clock a day back, as the crash harness's child does (sim/run.ts onFirstClock).
 */
test('a day between a stopped run and its Retries: Character → Generate is found, not made again', async () => {
	await expectUnbroken(
		{
			...base,
			kind: 'character',
			shape: 'plain',
			rows: ['A'],
			change: { kind: 'add', at: 0, row: 'A' },
			dayPasses: true,
			kill: { at: 'none' },
			adversary: stoppedTwice,
		},
		/retry ok/,
	);
}, 120_000);

/**
 * The adversary's seed 1205202 (shrunk: Character → Generate, rows A, A, A, the first removed
 * before the Retry, Stop at the third create, Stop in the Retry): the items' keys (A#1, A#2)
 * replayed the lost try's first two jobs, and its third, under the key of A#3, which no item
 * asks for now, was charged and named nowhere. A job under a key this run derives for a rank no
 * item asks for is named in a warning hint now (orphans.ts unaskedKeys).
 */
test.each([true, false] as const)(
	'Character → Generate, a duplicate row removed before the Retry, a day passed %s: the third job is named',
	async (dayPasses) => {
		await expectUnbroken(
			{
				...base,
				kind: 'character',
				shape: 'plain',
				rows: ['A', 'A', 'A'],
				change: { kind: 'remove', at: 0 },
				dayPasses,
				kill: { at: 'none' },
				adversary: {
					settings: {},
					stop: { at: 'create', k: 3 },
					retryStop: { at: 'create', k: 1 },
				},
			},
			/retry ok/,
		);
	},
	120_000,
);

/**
 * The same seed's first failing case (Character → Generate in a sub-workflow, rows D, A, B, D
 * removed before the parent's Retry, Stop at the third create): the sub-execution's identity
 * derives from its start items, which changed, so its keys replayed nothing and every job was
 * made again (charged twice). A job of the item's request under a key no item of this run
 * derives makes the item unsure now: refused and named (recovery.ts callsJobs).
 */
test.each([
	[2, 'sub'],
	[2, 'subTwice'],
	[1, 'sub'],
] as const)(
	'n8n %s.x, Character → Generate in a %s, a row removed before the parent’s Retry: nothing made twice',
	async (major, shape) => {
		await expectUnbroken(
			{
				...base,
				n8nMajor: major,
				kind: 'character',
				shape,
				rows: ['D', 'A', 'B'],
				change: { kind: 'remove', at: 0 },
				kill: { at: 'none' },
				adversary: {
					settings: { onError: 'continueRegularOutput' },
					wait: 'before',
					stop: { at: 'create', k: 3 },
				},
			},
			/retry creates 0, retry ok/,
		);
	},
	120_000,
);

/**
 * The adversary's seed 1205302 (shrunk: Generation → Create, rows A, A, the second create's
 * answer lost so the run failed, the workflow edited so that every row asks another prompt,
 * Stop in the Retry, Retry again; found the same with a 402 on the second item and no Stop):
 * the first item's job of the failed run was kept in the node context, which made it count as
 * taken, and no hint named it (charged, in no output). Not in a loop, this position's jobs for a
 * request no item asks for now are named whatever the node context holds (orphans.ts lostJobs),
 * and so are, for every kind, the jobs the node context kept for such requests (start.ts).
 */
test.each([
	['generation', { kind: 'refused', k: 2, times: 5 }, false],
	['dub', { kind: 'refused', k: 2, times: 5 }, false],
	['captions', { kind: 'refused', k: 2, times: 5 }, false],
	['generation', { kind: 'lost', k: 2, times: 5 }, true],
] as const)(
	'%s, the run failed (%j), the workflow edited before the Retry, Stop in it %s: the old request’s job is named',
	async (kind, fault, retryStop) => {
		await expectUnbroken(
			{
				...base,
				kind,
				shape: 'plain',
				rows: ['D', 'A'],
				kill: { at: 'none' },
				adversary: {
					settings: {},
					fault,
					edit: 'request',
					...(retryStop ? { retryStop: { at: 'create', k: 1 } } : {}),
				},
			},
			/retry ok/,
		);
	},
	120_000,
);

/**
 * The adversary's seed 1205103 (shrunk: Generation → Create in a sub-workflow called twice with
 * the same item, every create's answer lost, Retry On Fail): the second call's next try looked
 * up its lost create and took the first call's job (a sub-workflow's identity derives from the
 * parent run and its items: both calls' jobs carry it), so both calls output one job. A run that
 * repeats no lost try takes only its own execution's jobs now (recovery.ts recoverStartedJobs).
 */
test.each(['subTwice', 'subSeq'] as const)(
	'Generation → Create in a %s, every answer lost, Retry On Fail: each call its own job',
	async (shape) => {
		await expectUnbroken(
			{
				...base,
				shape,
				kill: { at: 'none' },
				adversary: {
					settings: { retryOnFail: { maxTries: 2, waitBetweenTries: 10 }, executeOnce: true },
					fault: { kind: 'lost', k: 1, times: 'all' },
				},
			},
			/first run creates \d+|retry ok|retry refused/,
		);
	},
	120_000,
);

/**
 * The adversary's seed 1205104 (n8n 1.x, progress saving off, Character → Generate, another
 * execution's job on the character, Stop in the run and a day later n8n's Retry, which refused
 * the item (two jobs on the record since the lost try began), then a Retry of that Retry): the
 * second Retry's saved data named neither the stopped execution (its error was the refusal, not
 * Stop's) nor a start before its copy's, so it looked only after the first Retry began, found
 * nothing and made the job again (two for one row, the first named nowhere). A Retry of a Retry
 * keeps what the earlier one knew: its bound and the executions it copied (identity.ts
 * withEarlierTries).
 */
test.each(['character', 'dub'] as const)(
	'n8n 1.x, %s, another execution’s job on the record, Stop, a day, Retry refused, Retry again: nothing made twice',
	async (kind) => {
		await expectUnbroken(
			{
				...base,
				n8nMajor: 1,
				kind,
				shape: 'plain',
				rows: ['A'],
				change: { kind: 'none' },
				dayPasses: true,
				other: true,
				kill: { at: 'none' },
				adversary: stoppedTwice,
			},
			/retry ok|retry refused/,
		);
	},
	120_000,
);

/**
 * The adversary's seed 1205401 was the simulation's: two MediaGen nodes (Canvas Run → Start of
 * the same canvas), the second's create refused with 402 and n8n killed there, another client's
 * run of that canvas before the Retry. The second node's lookup by record finds that run alone
 * (the first node's is taken): the stated limit of docs/batches.md ("the only one where the lost
 * try made none for that request"), which the simulation applied only where the lost try made no
 * job for the row in any node. It counts per call now (sim/run.ts).
 */
test('two MediaGen nodes, the second’s create refused and n8n killed, another run of the canvas: the stated limit', async () => {
	const result = await runCase(
		sb,
		{
			...base,
			progress: true,
			kind: 'canvas',
			shape: 'two',
			dayPasses: true,
			other: true,
			kill: { at: 'create', k: 2 },
			adversary: {
				settings: { executeOnce: true },
				fault: { kind: 'refused', k: 2, times: 1 },
			},
		},
		creds(),
	);
	expect(result.violations).toEqual([]);
	expect(result.known.join()).toMatch(/^4: output \S+ is another execution's job$/);
}, 120_000);

/**
 * The adversary's seed 1205404 (n8n 2.x, progress saving off, Canvas Run → Start after a Wait,
 * n8n killed in the Wait, Stop in the Retry at its create, Retry again): the stopped Retry left
 * the data it started from (the crashed execution's, amended: Stop saves no progress), so the
 * next Retry read data that shows no try of the node, took it that none had run and started the
 * canvas run again (two for one row, the first named nowhere). In n8n's Retry a job found by its
 * record when the saved data shows no try is unsure now: refused and named (recovery.ts
 * unshownThen); nothing found, the item is sent.
 */
test.each(['canvas', 'dub', 'captions', 'cinema', 'character'] as const)(
	'%s, n8n killed before MediaGen, Stop in the Retry at its create, Retry again: nothing made twice',
	async (kind) => {
		await expectUnbroken(
			{
				...base,
				kind,
				shape: 'plain',
				rows: ['A'],
				dayPasses: true,
				kill: { at: 'wait', run: 1 },
				adversary: {
					settings: { executeOnce: true },
					wait: 'before',
					retryStop: { at: 'create', k: 1 },
				},
			},
			/retry stopped, creates 1, retry creates 0, retry (ok|refused)/,
		);
	},
	120_000,
);

/**
 * The adversary's seeds 1205501 and 1205503 (n8n 2.x, Character → Generate in Loop Over Items,
 * rows A, C swapped before the Retry, after a kill or a Stop): the first iteration asks for C,
 * whose lost job is under the key the second position derives for C, and it was left to that
 * iteration (which now asks for A): C made again. Now an iteration takes the lost try's job for
 * its request whatever position's key it is under; an iteration whose own key's job an earlier
 * one took (MediaGen would answer the key with it) is sent under a key of its execution
 * (recovery.ts findByRule `replays`, ../run/start.ts recoverAll).
 */
describe('Character → Generate in Loop Over Items, rows moved before the Retry', () => {
	const loop: Scenario = { ...base, kind: 'character', shape: 'loop', kill: { at: 'after' } };
	onBothMajors('the lost try made every row', loop, [
		[
			'two rows swapped',
			{ rows: ['A', 'C'], change: { kind: 'swap', i: 0, j: 1 } },
			/crash creates 2, retry creates 0, retry ok/,
		],
		[
			'the first of three removed (its key now a duplicate’s)',
			{ rows: ['C', 'A', 'A'], change: { kind: 'remove', at: 0 } },
			/crash creates 3, retry creates 0, retry ok/,
		],
		[
			'a duplicate row swapped with the last',
			{ rows: ['A', 'A', 'B'], change: { kind: 'swap', i: 0, j: 2 } },
			/crash creates 3, retry creates 0, retry ok/,
		],
	]);

	test('n8n 2.x, two rows swapped after Stop: nothing made again', async () => {
		await expectUnbroken(
			{
				...loop,
				rows: ['A', 'C'],
				change: { kind: 'swap', i: 0, j: 1 },
				kill: { at: 'none' },
				adversary: { settings: {}, stop: { at: 'create', k: 2 } },
			},
			/retry creates 0, retry ok/,
		);
	}, 120_000);
});

/**
 * The adversary's seed 1206102 (n8n 2.x, Save Execution Progress on, Character → Generate in a
 * sub-workflow called from two branches with the same rows, On Error: continue, n8n killed at
 * the second call's first create, Retry): the Retry resumed after the first call (n8n kept it)
 * and called the sub-workflow once, whose execution looked for earlier calls only among the
 * executions the Retry created: none, so its keys (the first call's) were sent and MediaGen
 * answered one with the first call's job, output by both calls. The calls the parent's saved
 * data names count as earlier calls too (calls.ts jobsOfEarlierCalls).
 */
describe('Character → Generate in a sub-workflow called twice, progress saved, the first call kept by the Retry', () => {
	const twice: Scenario = {
		...base,
		kind: 'character',
		shape: 'subTwice',
		progress: true,
		adversary: { settings: { onError: 'continueRegularOutput' } },
	};
	onBothMajors('killed in the second call', twice, [
		[
			'two rows, at its first create',
			{ rows: ['D', 'A'], kill: { at: 'create', k: 3 } },
			/crash creates 3, retry creates 1, retry ok/,
		],
		[
			'two rows, at its second create',
			{ rows: ['D', 'A'], kill: { at: 'create', k: 4 } },
			/crash creates 4, retry creates 0, retry ok/,
		],
		[
			'one row, a row added before the Retry',
			{ rows: ['A'], kill: { at: 'create', k: 2 }, change: { kind: 'add', at: 0, row: 'D' } },
			/crash creates 2, retry creates 0, retry ok/,
		],
	]);
});

/**
 * The adversary's seed 1206203 (n8n 1.x, progress saving off, Generation → Create, a node added
 * before MediaGen and the workflow saved before the Retry, which n8n killed after the node, then
 * Retry again): the last Retry's copy held the added node's run from the killed Retry, which the
 * lost try never ran, so its saved start times of the nodes before MediaGen (the only thing that
 * tells a 1.x run's lost try) differed from the lost try's, the lost job was not this run's and
 * was made again (two for one row, the first named nowhere). The lost try is compared over the
 * nodes it ran (savedRuns.ts sameFirstRuns).
 */
describe('n8n 1.x, a node added before MediaGen before the Retry, the Retry killed, Retry again', () => {
	const edited: Scenario = {
		...base,
		n8nMajor: 1,
		kind: 'generation',
		shape: 'plain',
		kill: { at: 'after' },
		adversary: { settings: {}, retryKill: { at: 'after' }, edit: 'nodeBefore' },
	};
	test.each([
		['Generation → Create', {}],
		[
			'two MediaGen nodes, a row added',
			{ shape: 'two' as const, change: { kind: 'add' as const, at: 0, row: 'B' } },
		],
		['Edit → Dub', { kind: 'dub' as const }],
		['Character → Generate, a day later', { kind: 'character' as const, dayPasses: true }],
	])(
		'%s: nothing made again',
		async (_name, change) => {
			await expectUnbroken(
				{ ...edited, ...change },
				/retry crash creates [02], retry creates 0, retry ok/,
			);
		},
		120_000,
	);
});

/**
 * The adversary's seed 1206202 (n8n 2.x, progress saving off, Character → Generate, Stop after
 * its create was answered, a day, n8n's Retry took the job and was killed after the node, Retry
 * again): the last Retry bounded its lookups by the killed Retry's recovered run, a day after the
 * job was made, and trusted the key (forgotten by MediaGen) to replay because that try began less
 * than a day ago: the job was made again; the same for Generation → Create and Edit → Dub. Data
 * an earlier Retry saved after running again from the start bounds no lookup now (identity.ts
 * ranAgainFromStart). The simulation's day now moves MediaGen's clock with n8n's in the first run
 * (the job a day old at the Retry), without which the case cannot fail.
 */
test.each(['character', 'generation', 'dub'] as const)(
	'%s: Stop, a day, the Retry killed after the node, Retry again: nothing made twice',
	async (kind) => {
		await expectUnbroken(
			{
				...base,
				kind,
				shape: 'plain',
				dayPasses: true,
				kill: { at: 'none' },
				adversary: { settings: {}, retryKill: { at: 'after' }, stop: { at: 'create', k: 1 } },
			},
			/retry crash creates 0, retry creates 0, retry (ok|refused)/,
		);
	},
	120_000,
);

/**
 * The adversary's seed 1206502 (n8n 1.x, progress saving off, Generation → Create in a
 * sub-workflow called twice, Stop while the node waits, a day, n8n's Retry refused the item
 * (another try's job it could not tell), Retry again): a sub-execution is new in every try of its
 * parent, so no node context carried the first Retry's view (no bound: the stopped try saved no
 * start), and the last Retry bounded its lookups by the first Retry's runs in the parent's data,
 * a day after the stopped try's job: made again, for every kind and for a sub-workflow called
 * once. The call's view in the parent's earlier tries is read from their sub-executions
 * (calls.ts viewsOfEarlierCalls).
 */
describe('n8n 1.x, a sub-workflow stopped, a day, its Retry refused, Retry again', () => {
	const stopped: Scenario = {
		...base,
		n8nMajor: 1,
		shape: 'subTwice',
		rows: ['B'],
		dayPasses: true,
		kill: { at: 'none' },
		adversary: {
			settings: { executeOnce: true },
			stop: { at: 'waiting' },
			edit: 'nodeBefore',
			retryStop: { at: 'create', k: 1 },
		},
	};
	test.each([
		['Generation → Create, called twice', {}],
		['Generation → Create, called once', { shape: 'sub' as const }],
		['Character → Generate', { kind: 'character' as const }],
		['Edit → Dub, called once', { kind: 'dub' as const, shape: 'sub' as const }],
		['Canvas Run → Start', { kind: 'canvas' as const }],
	])(
		'%s: refused and named again, nothing made again',
		async (_name, change) => {
			await expectUnbroken(
				{ ...stopped, ...change },
				/crash creates 1, retry ended error, creates 0, retry creates 0, retry refused/,
			);
		},
		120_000,
	);
});

/**
 * The adversary's seed 1207001 (n8n 2.x, progress saving off, Character → Generate in a
 * sub-workflow, rows D, A, On Error continue and Retry On Fail, A's create refused with 402 in
 * the first run, n8n killed after the node, a day, n8n's Retry): the Retry's first try refused D
 * (the lost try's job, which a sub-execution of a retried parent cannot tell from another call's)
 * and the node failed, so Retry On Fail tried again; that try bounded its lookups by the Retry's
 * own first send (the position's `began`, recorded in this execution), trusted the key MediaGen
 * had forgotten and made D again. The same for every record-matched kind, n8n 1.x, Stop instead
 * of the kill, and a sub-workflow called twice. A try of n8n's Retry no longer takes a bound from
 * an earlier try of its own execution (memory.ts `beganHere`, start.ts `establish`).
 */
describe('n8n’s Retry refused an item, then Retry On Fail tried again, a day after the lost try', () => {
	const refused: Scenario = {
		...base,
		kind: 'character',
		rows: ['D', 'A'],
		dayPasses: true,
		kill: { at: 'after' },
		adversary: {
			settings: {
				onError: 'continueRegularOutput',
				retryOnFail: { maxTries: 4, waitBetweenTries: 300 },
				alwaysOutputData: true,
			},
			fault: { kind: 'refused', k: 2, times: 'all' },
		},
	};
	test.each([
		['Character → Generate', {}],
		['Edit → Dub', { kind: 'dub' as const }],
		['Canvas Run → Start', { kind: 'canvas' as const }],
		['n8n 1.x, Cinema', { n8nMajor: 1 as const, kind: 'cinema' as const }],
		[
			'Stop instead of the kill',
			{
				kill: { at: 'none' as const },
				adversary: { ...refused.adversary!, stop: { at: 'waiting' as const } },
			},
		],
	])(
		'%s: D not made again',
		async (_name, change) => {
			await expectUnbroken({ ...refused, ...change }, /crash creates 2, retry creates 1, retry ok/);
		},
		120_000,
	);
	// the adversary's seed 1207101, the same class: two MediaGen nodes, Retry On Fail (no On
	// Error), rows A, A, D, n8n killed at the 4th create, a day: the Retry's first try refused an
	// item, its next try looked only after the Retry began and ran A's matrix again (5 for 4)
	test('Matrix Run, two MediaGen nodes, duplicate rows, killed at a create: refused and named', async () => {
		await expectUnbroken(
			{
				...base,
				kind: 'matrix',
				shape: 'two',
				rows: ['A', 'A', 'D'],
				dayPasses: true,
				kill: { at: 'create', k: 4 },
				adversary: {
					settings: { retryOnFail: { maxTries: 4, waitBetweenTries: 10 }, alwaysOutputData: true },
					edit: 'nodeBefore',
				},
			},
			/crash creates 4, retry creates 0, retry refused/,
		);
	}, 120_000);
});

/**
 * The adversary's seed 1207303 (n8n 2.x, progress saving off, Generation → Create, n8n killed
 * after the node, the node renamed before the Retry, a day, the Retry (which took the lost try's
 * job) killed in a Wait after the node, Retry again): the killed Retry's run of the renamed node,
 * recovered from its event log, bounded the last Retry's lookups (a day after the job was made,
 * under the old name): made again, for every kind, in Loop Over Items too. The node's runs under
 * its new name are of tries after the edit, which may have taken earlier work: with runs of a
 * node the workflow has no longer, they bound no lookup (identity.ts savedViewOf).
 */
describe('the node renamed before the Retry, the Retry killed after it, a day, Retry again', () => {
	const renamed: Scenario = {
		...base,
		shape: 'plain',
		dayPasses: true,
		kill: { at: 'after' },
		adversary: {
			settings: { executeOnce: true },
			wait: 'after',
			retryKill: { at: 'wait', run: 1 },
			edit: 'rename',
		},
	};
	test.each([
		['Generation → Create', {}],
		['Character → Generate', { kind: 'character' as const }],
		['Edit → Dub', { kind: 'dub' as const }],
		['Canvas Run → Start, in Loop Over Items', { kind: 'canvas' as const, shape: 'loop' as const }],
		[
			'Generation → Create, killed at its create, the Retry killed after the node',
			{
				kill: { at: 'create' as const, k: 1 },
				adversary: { settings: {}, retryKill: { at: 'after' as const }, edit: 'rename' as const },
			},
		],
	])(
		'%s: nothing made again',
		async (_name, change) => {
			await expectUnbroken(
				{ ...renamed, ...change },
				/crash creates 1, retry crash creates 0, retry creates 0, retry ok/,
			);
		},
		120_000,
	);
});

/**
 * The adversary's seed 1207301 (n8n 1.x, progress saving off, Generation → Create in Loop Over
 * Items, the lost try's queue worker lost without its event log: n8n saved nothing of it, a row
 * added before the Retry, that Retry killed at its create, Retry again): B made twice. A job of a
 * try n8n saved nothing of is refused, not taken and not made again (unproven.ts), but that rule
 * looked at the run position only, and the added row moved B to the next iteration. In a loop it
 * looks at every position for the item's request (recovery.ts recoverStartedJobs).
 */
describe('n8n 1.x, Loop Over Items, nothing of the lost try saved, rows changed before the Retry, the Retry killed, Retry again', () => {
	const unsaved: NonNullable<Scenario['adversary']> = {
		settings: { onError: 'continueRegularOutput', alwaysOutputData: true, executeOnce: true },
		retryKill: { at: 'create', k: 1 },
		queue: 'crashedNoLog',
	};
	const lostUnsaved: Scenario = {
		...base,
		n8nMajor: 1,
		shape: 'loop',
		reversed: true,
		rows: ['B'],
		change: { kind: 'add', at: 0, row: 'A' },
		clockOffsetMs: 3000,
		adversary: unsaved,
	};
	const again = /retry crash creates 1, retry creates 0, retry ok/;
	test.each<[string, Partial<Scenario>, RegExp]>([
		['a row added before B', {}, again],
		['a row added before B, the clock not stepped', { clockOffsetMs: 0 }, again],
		[
			'duplicate rows (A, then A added)',
			{
				rows: ['A'],
				change: { kind: 'add' as const, at: 0, row: 'A' },
				reversed: false,
				adversary: { ...unsaved, retryKill: { at: 'after' as const } },
			},
			// both refused, naming the one job: the lost try's for one of them, or neither's
			/retry crash creates 0, retry creates 0, retry ok/,
		],
		[
			'Stop instead of the lost worker',
			{
				kill: { at: 'none' as const },
				adversary: {
					settings: {
						onError: 'continueRegularOutput' as const,
						alwaysOutputData: true,
						executeOnce: true,
					},
					stop: { at: 'create' as const, k: 1 },
					retryKill: { at: 'create' as const, k: 1 },
				},
			},
			again,
		],
	])(
		'%s: nothing made again',
		async (_name, change, summary) => {
			await expectUnbroken({ ...lostUnsaved, ...change }, summary);
		},
		120_000,
	);
});

/**
 * The adversary's seed 1207302 (n8n 2.x, progress saving off, Character → Generate in a
 * sub-workflow called twice, row C added before the Retry, another execution on the character,
 * the lost try's queue worker lost without its log, a day, the Retry killed at its second create,
 * Retry again): the killed Retry's two calls made C under two keys; the last Retry's calls derive
 * the first call's key, found that job and refused C naming it only: the other call's job reached
 * no item and was named nowhere. The refusal names every job for the request that no item of the
 * run takes (recovery.ts callsJobs).
 */
it('Character → Generate in a sub-workflow called twice, a row added, a day, the Retry killed at its second create: every job named', async () => {
	await expectUnbroken(
		{
			...base,
			kind: 'character',
			shape: 'subTwice',
			rows: ['B'],
			change: { kind: 'add', at: 2, row: 'C' },
			dayPasses: true,
			other: true,
			kill: { at: 'after' },
			adversary: {
				settings: { onError: 'continueRegularOutput', alwaysOutputData: true, executeOnce: false },
				wait: 'before',
				retryKill: { at: 'create', k: 2 },
				queue: 'crashedNoLog',
			},
		},
		/crash creates 2, retry crash creates 2, retry creates 0, retry ok/,
	);
}, 120_000);

/**
 * The adversary's seed 1208101 (n8n 2.x, progress saving off, Canvas Run → Start in Loop Over
 * Items, rows D, D, n8n killed after the node, the second row edited into A before the Retry):
 * the Retry's first iteration took one of D's two runs, the last one read A's canvas only, and D's
 * other run reached no item and was named nowhere. The last iteration names the untaken runs of
 * every record an iteration read (the run memory keeps them: orphans.ts untakenOnRecords).
 */
test.each<[string, Partial<Scenario>, RegExp]>([
	['the Retry ran through', {}, /crash creates 2, retry creates 1, retry ok/],
	[
		'Stop in the Retry, a day, Retry again',
		{
			dayPasses: true,
			adversary: { settings: { executeOnce: true }, retryStop: { at: 'create', k: 1 } },
		},
		/crash creates 2, retry stopped, creates 1, retry creates 0, retry ok/,
	],
	['Edit → Dub', { kind: 'dub' }, /crash creates 2, retry creates 1, retry ok/],
])(
	'Canvas Run → Start in Loop Over Items, rows D, D, the second edited into A before the Retry, %s: every run named',
	async (_name, change, summary) => {
		await expectUnbroken(
			{
				...base,
				kind: 'canvas',
				shape: 'loop',
				rows: ['D', 'D'],
				change: { kind: 'edit', at: 1, row: 'A' },
				kill: { at: 'after' },
				adversary: { settings: { executeOnce: true } },
				...change,
			},
			summary,
		);
	},
	120_000,
);

/**
 * The adversary's seed 1208112 (n8n 2.x, progress saving on, Character → Generate in a
 * sub-workflow called twice with the same row, Execute Once, a Wait before the node, n8n killed
 * in the second call's Wait, the node renamed before the Retry): both calls derive one key; the
 * Retry's second call looked for the jobs earlier calls output under the node's new name, found
 * none, kept the shared key, and MediaGen answered it with the first call's job: both calls output
 * one job. Earlier calls' runs under a name no node has now count as this node's
 * (calls.ts jobsOfEarlierCalls).
 */
test.each<[string, Partial<Scenario>, RegExp]>([
	['as found', {}, /crash creates 1, retry creates 1, retry ok/],
	[
		'the row not edited',
		{ change: { kind: 'none' } },
		/crash creates 1, retry creates 1, retry ok/,
	],
	[
		'rows A, B, Execute Once off',
		{
			rows: ['A', 'B'],
			adversary: {
				settings: { onError: 'continueRegularOutput', alwaysOutputData: true },
				wait: 'before',
				edit: 'rename',
			},
		},
		/crash creates 2, retry creates 2, retry ok/,
	],
	['the two calls in a row', { shape: 'subSeq' }, /crash creates 1, retry creates 1, retry ok/],
	[
		'the Retry killed at its create, Retry again',
		{
			adversary: {
				settings: { onError: 'continueRegularOutput', alwaysOutputData: true, executeOnce: true },
				wait: 'before',
				edit: 'rename',
				retryKill: { at: 'create', k: 1 },
			},
		},
		/crash creates 1, retry crash creates 1, retry creates 0, retry ok/,
	],
])(
	'Character → Generate in a sub-workflow called twice, killed in the second call, the node renamed before the Retry, %s: each call its own job',
	async (_name, change, summary) => {
		await expectUnbroken(
			{
				...base,
				progress: true,
				kind: 'character',
				shape: 'subTwice',
				change: { kind: 'edit', at: 0, row: 'A' },
				kill: { at: 'wait', run: 2 },
				adversary: {
					settings: { onError: 'continueRegularOutput', alwaysOutputData: true, executeOnce: true },
					wait: 'before',
					edit: 'rename',
				},
				...change,
			},
			summary,
		);
	},
	120_000,
);

/**
 * n8n 1.x, Save Execution Progress on, Character → Generate, another execution on the same
 * character (adversary seed 1208153, shrunk): Stop at the create, the Retry refused (two jobs for
 * the request, the lost try's and the other's), the user's Retry of that Retry made the item
 * again: charged twice, the lost try's job named nowhere. The second Retry kept the first one's
 * token (n8n 1.x saved nothing to derive it: `blind`) and took it as durable, so the item's key
 * was trusted to replay the lost try's job and no lookup ran; but the lost try sent under a
 * token of its own. Now a blind token's keys prove nothing (recovery.ts keyReplays): the lookup
 * runs and refuses again.
 */
const refusedThenRetried: Scenario = {
	...base,
	n8nMajor: 1,
	progress: true,
	kind: 'character',
	shape: 'plain',
	rows: ['A'],
	other: true,
	kill: { at: 'none' },
	adversary: stoppedTwice,
};
eachChange(
	'n8n 1.x, progress saving on, Character → Generate, another execution on the character, Stop at the create, its Retry refused, Retry again, %s: nothing made twice',
	refusedThenRetried,
	[
		['as found', {}, /retry ended error, creates 0, retry creates 0, retry refused/],
		[
			'rows A, B, Execute Once off',
			{ rows: ['A', 'B'], adversary: { ...stoppedTwice, settings: {} } },
			/retry ended error, creates 0, retry creates 0, retry refused/,
		],
		[
			'rows A, A, Execute Once off',
			{ rows: ['A', 'A'], adversary: { ...stoppedTwice, settings: {} } },
			/retry ended error, creates 0, retry creates 0, retry refused/,
		],
		[
			"n8n's clock a minute ahead",
			{ clockOffsetMs: 60_000 },
			/retry ended error, creates 0, retry creates 0, retry refused/,
		],
		[
			'Stop while the node waits',
			{ adversary: { ...stoppedTwice, settings: { executeOnce: true }, stop: { at: 'waiting' } } },
			/retry ended error, creates 0, retry creates 0, retry refused/,
		],
		[
			'n8n killed at the create instead of Stop',
			{
				kill: { at: 'create', k: 1 },
				adversary: { settings: { executeOnce: true }, retryStop: { at: 'create', k: 1 } },
			},
			/retry ended error, creates 0, retry creates 0, retry refused/,
		],
		[
			'Retry On Fail',
			{
				adversary: {
					...stoppedTwice,
					settings: { executeOnce: true, retryOnFail: { maxTries: 3, waitBetweenTries: 10 } },
				},
			},
			/retry ended error, creates 0, retry creates 0, retry refused/,
		],
		// guards: what passed before too
		[
			'Save Execution Progress off',
			{ progress: false },
			/retry ended error, creates 0, retry creates 0, retry refused/,
		],
		['Edit → Dub', { kind: 'dub' }, /retry ended error, creates 0, retry creates 0, retry refused/],
		['no other execution', { other: false }, /retry ended success, creates 0, retry ok/],
		[
			'two MediaGen nodes, the nodes array reversed',
			{ shape: 'two', reversed: true },
			/retry ended error, creates 0, retry creates 0, retry refused/,
		],
		['in Loop Over Items', { shape: 'loop' }, /retry ended success, creates 0, retry ok/],
		[
			'in a sub-workflow called twice',
			{ shape: 'subTwice' },
			/retry ended error, creates 0, retry creates 0, retry refused/,
		],
	],
);

/**
 * Seed 1208161 of the adversary (shrunk): n8n 1.x, nothing of the lost try saved, Generation →
 * Create in Loop Over Items, rows A, B, n8n killed after both creates, row B removed and the node
 * renamed before the Retry. The Retry ran one iteration and took A's job; B's (made at the second
 * iteration, which the Retry no longer runs) reached no item and was named nowhere: the lost
 * execution's saved runs were compared over the nodes before the node's old name, which the
 * workflow no longer holds, so nothing told it was this run's lost try.
 */
const renamedInLoop: Scenario = {
	n8nMajor: 1,
	progress: false,
	kind: 'generation',
	shape: 'loop',
	reversed: false,
	rows: ['A', 'B'],
	change: { kind: 'remove', at: 1 },
	clockOffsetMs: 0,
	dayPasses: false,
	other: false,
	kill: { at: 'after' },
	adversary: { settings: { executeOnce: true }, edit: 'rename' },
};
eachChange(
	'n8n 1.x, nothing saved, Loop Over Items, rows A, B, killed after both creates, row B removed and the node renamed before the Retry, %s: every job reaches an item or is named',
	renamedInLoop,
	[
		['as found', {}, /crash creates 2, retry creates 0, retry ok/],
		[
			'Execute Once off',
			{ adversary: { settings: {}, edit: 'rename' } },
			/crash creates 2, retry creates 0, retry ok/,
		],
		['another execution', { other: true }, /crash creates 2, retry creates 0, retry ok/],
		['a day before the Retry', { dayPasses: true }, /crash creates 2, retry creates 0, retry ok/],
		[
			'killed at the second create',
			{ kill: { at: 'create', k: 2 } },
			/crash creates 2, retry creates 0, retry ok/,
		],
		[
			'the Retry killed, Retry again',
			{
				adversary: {
					settings: { executeOnce: true },
					edit: 'rename',
					retryKill: { at: 'create', k: 1 },
				},
			},
			/crash creates 2, retry crash creates 0 \(ended success\), retry ok/,
		],
		// guards: what passed before too
		[
			'not renamed',
			{ adversary: { settings: { executeOnce: true } } },
			/retry creates 0, retry ok/,
		],
		['progress saving on', { progress: true }, /crash creates 2, retry creates 0, retry ok/],
		['n8n 2.x', { n8nMajor: 2 }, /crash creates 2, retry creates 0, retry ok/],
		['Character → Generate', { kind: 'character' }, /crash creates 2, retry creates 0, retry ok/],
		['Edit → Dub', { kind: 'dub' }, /crash creates 2, retry creates 0, retry ok/],
	],
);

/**
 * Seed 1208193 of the adversary: n8n 1.x, nothing of the lost try saved (a queue-mode worker lost
 * without its event log), Generation → Create in Loop Over Items, rows B, B, A, n8n's clock 3 s
 * ahead, a day, the last row removed before the Retry. The Retry's two iterations refused their B
 * items (two such jobs for the request, the node could not tell whose) and A's job, made at the
 * third iteration, which the Retry no longer runs, reached no item and was named nowhere: the
 * jobs of executions that saved nothing were named only at the iteration's own position. At the
 * last iteration every position's that no iteration took is named now (unproven.ts
 * unprovenOrphans).
 */
const unsavedInLoop: Scenario = {
	n8nMajor: 1,
	progress: false,
	kind: 'generation',
	shape: 'loop',
	reversed: false,
	rows: ['B', 'B', 'A'],
	change: { kind: 'remove', at: 2 },
	clockOffsetMs: 3000,
	dayPasses: true,
	other: false,
	kill: { at: 'create', k: 3 },
	adversary: {
		settings: {
			onError: 'continueRegularOutput',
			retryOnFail: { maxTries: 4, waitBetweenTries: 10 },
			alwaysOutputData: true,
			executeOnce: true,
		},
		queue: 'crashedNoLog',
		retryStop: { at: 'create', k: 1 },
	},
};
eachChange(
	'n8n 1.x, a worker lost without its log, Loop Over Items, a row removed before the Retry, %s: every job reaches an item or is named',
	unsavedInLoop,
	[
		['as found', {}, /crash creates 3, retry ended success, creates 0, retry ok/],
		[
			'no day, the clocks agreeing',
			{ dayPasses: false, clockOffsetMs: 0 },
			/crash creates 3, retry ended success, creates 0, retry ok/,
		],
		[
			'rows B, A, A removed',
			{ rows: ['B', 'A'], change: { kind: 'remove', at: 1 }, kill: { at: 'create', k: 2 } },
			/crash creates 2, retry ended success, creates 0, retry ok/,
		],
		[
			'rows A, B, C, C removed',
			{ rows: ['A', 'B', 'C'] },
			/crash creates 3, retry ended success, creates 0, retry ok/,
		],
		['killed after the loop', { kill: { at: 'after' } }, /crash creates 3, retry ended success/],
		// guards: what passed before too
		[
			'the first row removed',
			{ change: { kind: 'remove', at: 0 } },
			/crash creates 3, retry ended success, creates 0, retry ok/,
		],
		['n8n 2.x', { n8nMajor: 2 }, /crash creates 3, retry ended success, creates 0, retry ok/],
		['progress saving on', { progress: true }, /crash creates 3, retry ended success/],
		['Edit → Dub', { kind: 'dub' }, /crash creates 3, retry ended success, creates 0, retry ok/],
		[
			'Character → Generate',
			{ kind: 'character' },
			/crash creates 3, retry ended success, creates 0, retry ok/,
		],
	],
);

// the adversary's seed 1208205 (the simulation's: a stated limit it had reported as broken):
// Cinema → Generate, rows D, B (B's answer lost, Retry On Fail), the queue worker lost, another
// execution's D before the Retry, a row D added on top, n8n's clock 3 s ahead: the lost try's D
// looks made in the band before it, the other's after; two rows ask for D, so the other's is
// taken for the first (docs/batches.md "Not covered": as many such jobs as rows asking for the
// same), the second refused naming the lost try's. The simulation counted only the first run's
// rows asking the same (knownLimit), not the Retry's
test('Cinema → Generate, another execution’s work on the record, a row added that asks the same as another, n8n’s clock 3 s ahead: the stated limit, reported, not failed', async () => {
	const result = await runCase(
		sb,
		{
			n8nMajor: 1,
			progress: false,
			kind: 'cinema',
			shape: 'plain',
			reversed: false,
			rows: ['D', 'B'],
			change: { kind: 'add', at: 0, row: 'D' },
			clockOffsetMs: 3000,
			dayPasses: false,
			other: true,
			kill: { at: 'after' },
			adversary: {
				settings: {
					onError: 'continueRegularOutput',
					retryOnFail: { maxTries: 2, waitBetweenTries: 10 },
					alwaysOutputData: true,
					executeOnce: false,
				},
				fault: { kind: 'lost', k: 2, times: 5 },
				queue: 'crashed',
				retryStop: { at: 'waiting' },
			},
		},
		creds(),
	);
	expect(result.violations).toEqual([]);
	expect(result.summary).toMatch(/crash creates 2, retry ended success, creates 0, retry ok/);
	expect(result.known).toEqual([
		expect.stringMatching(/^4: output \S+ is another execution's job$/),
	]);
}, 120_000);

// the adversary's seed 1208215 (older: broken on 22d6b21): a record-matched kind, progress saved,
// Stop at the second create, another execution's run on row A's record and a day before the
// Retry; the Retry refused A (two runs it cannot tell apart) and took C's, and a Retry of that
// Retry bounded its lookup by the first Retry's start, recorded when it took C's run: the other's
// A run looked made since, the lost try's a day before; it took the other's and named its own
// nowhere. A try that only found earlier work begins nothing now (memory.ts startOf)
const refusedADayOn: Scenario = {
	n8nMajor: 2,
	progress: true,
	kind: 'canvas',
	shape: 'plain',
	reversed: false,
	rows: ['A', 'C'],
	change: { kind: 'remove', at: 0 },
	clockOffsetMs: 0,
	dayPasses: true,
	other: true,
	kill: { at: 'none' },
	adversary: {
		settings: { alwaysOutputData: false, executeOnce: false },
		stop: { at: 'create', k: 2 },
		retryStop: { at: 'create', k: 1 },
	},
};
eachChange(
	'a day, another execution on the record, Stop, its Retry refused, Retry again, %s: the other’s job is nobody’s, the lost try’s named',
	refusedADayOn,
	[
		[
			'as found',
			{},
			/crash creates 2, retry ended error, creates 0, retry creates 0, retry refused/,
		],
		['n8n 1.x', { n8nMajor: 1 }, /retry ended error, creates 0, retry creates 0, retry refused/],
		['Edit → Dub', { kind: 'dub' }, /retry ended error, creates 0, retry creates 0, retry refused/],
		['Cinema → Generate', { kind: 'cinema' }, /retry creates 0, retry refused/],
		[
			'n8n killed instead of Stop',
			{
				adversary: { settings: {}, retryStop: { at: 'create', k: 1 } },
				kill: { at: 'create', k: 2 },
			},
			/retry ended error, creates 0, retry creates 0, retry refused/,
		],
		// guards: what passed before too
		[
			'no day',
			{ dayPasses: false },
			/retry ended error, creates 0, retry creates 0, retry refused/,
		],
		['no other execution', { other: false }, /crash creates 2, retry ended success/],
		['Character → Generate', { kind: 'character' }, /crash creates 2, retry ended success/],
		['Generation → Create', { kind: 'generation' }, /crash creates 2, retry ended success/],
	],
);
