/**
 * The generated cases of the simulation (issue #36): a workflow shape, a job kind, the rows, a
 * kill point, what changes between the crash and n8n's Retry (the rows, other executions' work
 * on the same records, n8n's clock, a day passing), n8n 2.x or 1.x, progress saving off or on.
 * fast-check draws and shrinks them (./run.ts runs one, ./cli.ts and
 * test/engine/simulation.test.ts run many).
 */
import fc from 'fast-check';

import type { MoreKind } from './kinds';
import { MORE_KINDS } from './kinds';

/**
 * The job kinds: a keyed generation, a record-matched dub, a charged call answered at once; the
 * adversary draws those of ./kinds.ts too (a canvas run, a cinema storyboard, a character's
 * generation, an upload).
 */
export type Kind = 'generation' | 'dub' | 'captions' | MoreKind;

/**
 * Where MediaGen stands: after the rows (`plain`), in Loop Over Items (`loop`), in a sub-workflow
 * called once (`sub`), from two branches with the same items (`subTwice`) or twice in a row with
 * the rows again (`subSeq`, drawn by the adversary), or two MediaGen nodes asking the same for
 * each row one after the other, the rows again between them (`two`, drawn by the adversary).
 */
export type Shape = 'plain' | 'loop' | 'sub' | 'subTwice' | 'subSeq' | 'two';

/** How the rows read again by the Retry differ from the rows of the crashed execution. */
export type Change =
	| { kind: 'none' }
	| { kind: 'add'; at: number; row: string }
	| { kind: 'remove'; at: number }
	| { kind: 'swap'; i: number; j: number }
	| { kind: 'edit'; at: number; row: string };

/**
 * When n8n dies: when the node after MediaGen starts, or when the k-th create was answered (of
 * every call of the sub-workflow: up to twice the rows); or, n8n not dying, the k-th create is
 * refused with 402 (credits ran out): the node fails, n8n saves the failed execution, the user
 * tops up and presses Retry (n8n resumes from the saved data: rows are not read again).
 * The adversary (`adversaryScenario`) draws two more: when the Wait node starts for the `run`-th
 * time (of every execution of the process), and not at all (`none`: its drawn fault decides how
 * the run ends).
 */
export type Kill =
	| { at: 'after' }
	| { at: 'create'; k: number }
	| { at: 'refused'; k: number }
	| { at: 'wait'; run: number }
	| { at: 'none' };

/**
 * The MediaGen node's settings (n8n's node Settings tab), drawn by the adversary: On Error
 * (absent: stop the workflow; continue with the error as the item's output; or the error output,
 * whose items the workflow sends on too), Retry On Fail (n8n runs the node again in the same
 * execution, `maxTries` times in all, `waitBetweenTries` ms apart), Always Output Data, Execute
 * Once (the node runs for the first item only).
 */
export interface NodeSettings {
	onError?: 'continueRegularOutput' | 'continueErrorOutput';
	retryOnFail?: { maxTries: number; waitBetweenTries: number };
	alwaysOutputData?: boolean;
	executeOnce?: boolean;
}

/**
 * A fault the sandbox injects in the first run from its k-th create on: `lost`, a 5xx after
 * MediaGen did the work (the answer of a made job lost); `drop`, the connection dropped after
 * the work; `refused`, 402 before any work; `conflict`, a 409 `conflict` before any work (the
 * spec's "conflict" with a code the node does not know: not the key's `idempotency_key_reused`,
 * which the sandbox's own key model answers when a Retry sends a key again). `times`: how many creates in a row it hits (the
 * transport sends a keyed create again after a 5xx or a dropped connection, up to 5 tries in all;
 * `all`: every one, until the Retry).
 */
export interface Fault {
	kind: 'lost' | 'drop' | 'refused' | 'conflict';
	k: number;
	times: 1 | 5 | 'all';
}

/** What the adversary adds to a case (`adversaryScenario`). */
export interface Adversary {
	settings: NodeSettings;
	/** The first run's fault, if any. */
	fault?: Fault;
	/** n8n killed again during its Retry, then Retry again (of the crashed Retry). */
	retryKill?: { at: 'after' } | { at: 'create'; k: number } | { at: 'wait'; run: number };
	/** A Wait node (n8n-nodes-base.wait, a fraction of a second) before or after MediaGen. */
	wait?: 'before' | 'after';
	/**
	 * The user presses Stop in the first run (n8n not killed): when the k-th create was answered,
	 * when the node first looks at its jobs (`waiting`), or at its first read at MediaGen (`read`:
	 * a read before its creates, while they are in flight); n8n saves the execution canceled, and
	 * the user presses Retry on it (`modes`).
	 */
	stop?: { at: 'create'; k: number } | { at: 'waiting' } | { at: 'read' };
	/**
	 * The user presses Stop in n8n's Retry (when the k-th create of the Retry was answered, or at
	 * its first read at MediaGen), then Retry on the canceled Retry (`modes`; not with `retryKill`).
	 */
	retryStop?: { at: 'create'; k: number } | { at: 'waiting' };
	/**
	 * The workflow edited and saved before the Retry, which runs it ("Retry with currently saved
	 * workflow"): the MediaGen node's request changed (`request`: another prompt, language or
	 * record for each row), the node renamed (`rename`), or a node added before it (`nodeBefore`).
	 */
	edit?: Edit;
	/**
	 * Queue mode, the worker running the first run lost (n8n's kill is the worker's): `stalled`,
	 * the main alive (Bull fails the stalled job, the main saves the execution failed without its
	 * data); `crashed`, no main waiting on the job (the leader's queue recovery marks it crashed,
	 * the worker started again amends it from its event log); `crashedNoLog`, the same without the
	 * worker's event log (a new container). docs/development.md, "The simulation".
	 */
	queue?: QueueLoss;
	/**
	 * Queue mode, the worker running n8n's Retry lost (`retryKill` is the worker's), as `queue`
	 * for the first run; then Retry of that Retry (`retryQueued`).
	 */
	retryQueue?: QueueLoss;
}

/** How the workflow was edited before the Retry (`Adversary.edit`). */
export type Edit = 'request' | 'rename' | 'nodeBefore';

/** What n8n's queue mode makes of a lost worker (`Adversary.queue`). */
export type QueueLoss = 'stalled' | 'crashed' | 'crashedNoLog';

export interface Scenario {
	n8nMajor: 1 | 2;
	progress: boolean;
	kind: Kind;
	shape: Shape;
	/** The `nodes` array reversed (n8n's crash recovery walks it in order). */
	reversed: boolean;
	/** The rows (a letter each; equal letters ask for the same thing). */
	rows: string[];
	change: Change;
	kill: Kill;
	/** n8n's clock at the crash against its clock at the Retry (ms). */
	clockOffsetMs: number;
	/**
	 * More than a day passes before the Retry: MediaGen forgets the keys, and n8n's saved times
	 * are a day older than MediaGen's records (the crashed process's clock 25 h behind).
	 */
	dayPasses: boolean;
	/** Another execution does the same work on the same record between the crash and the Retry. */
	other: boolean;
	/** The adversary's dimensions (absent in the cases of `scenario`). */
	adversary?: Adversary;
}

/** How many times the parent calls the sub-workflow (each call creates for every row). */
export const calls = (shape: Shape) =>
	shape === 'subTwice' || shape === 'subSeq' || shape === 'two' ? 2 : 1;

/** The letters rows are made of: few, so that duplicates and collisions are common. */
export const LETTERS = ['A', 'B', 'C', 'D'];

/** The rows of the Retry. */
export function rowsAfter(s: Scenario): string[] {
	const rows = [...s.rows];
	if (s.kill.at === 'refused') return rows;
	const c = s.change;
	const at = (i: number) => Math.min(i, Math.max(0, rows.length - 1));
	if (c.kind === 'add') rows.splice(Math.min(c.at, rows.length), 0, c.row);
	else if (c.kind === 'remove' && rows.length > 1) rows.splice(at(c.at), 1);
	else if (c.kind === 'swap') [rows[at(c.i)], rows[at(c.j)]] = [rows[at(c.j)], rows[at(c.i)]];
	else if (c.kind === 'edit') rows[at(c.at)] = c.row;
	return rows;
}

const letter = fc.constantFrom(...LETTERS);

export const change: fc.Arbitrary<Change> = fc.oneof(
	fc.constant({ kind: 'none' as const }),
	fc.record({ kind: fc.constant('add' as const), at: fc.nat(4), row: letter }),
	fc.record({ kind: fc.constant('remove' as const), at: fc.nat(3) }),
	fc.record({ kind: fc.constant('swap' as const), i: fc.nat(3), j: fc.nat(3) }),
	fc.record({ kind: fc.constant('edit' as const), at: fc.nat(3), row: letter }),
);

/** n8n's clock stepped between the crash and the Retry: none, seconds, or minutes either way. */
const clockOffset = fc.constantFrom(0, 0, 3_000, -3_000, 60_000, -60_000, 300_000, -300_000);

/** The fields every case draws, in the order `scenario` has always drawn them. */
const fields = fc.record({
	n8nMajor: fc.constantFrom(2 as const, 1 as const),
	progress: fc.boolean(),
	kind: fc.constantFrom<Kind>('generation', 'dub', 'captions'),
	shape: fc.constantFrom<Shape>('plain', 'loop', 'sub', 'subTwice'),
	reversed: fc.boolean(),
	rows: fc.array(letter, { minLength: 1, maxLength: 3 }),
	change,
	killAfter: fc.boolean(),
	k: fc.nat(5),
	clockOffsetMs: clockOffset,
	dayPasses: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
	other: fc.boolean(),
	// drawn last, so that the cases of a seed drawn before it stayed the same
	refused: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
});

export const scenario: fc.Arbitrary<Scenario> = fields.map(
	({ killAfter, k, refused, ...rest }): Scenario => {
		const kth = (k % (rest.rows.length * calls(rest.shape))) + 1;
		if (killAfter) return { ...rest, kill: { at: 'after' } };
		if (!refused) return { ...rest, kill: { at: 'create', k: kth } };
		// a failed run is retried by the same n8n: no clock step, the rows not read again
		return {
			...rest,
			kill: { at: 'refused', k: kth },
			clockOffsetMs: 0,
			dayPasses: false,
			change: { kind: 'none' },
		};
	},
);

/** The rows the MediaGen node runs for: the first only with Execute Once (outside a loop). */
export const asked = (s: Scenario, rows: string[]): string[] =>
	s.adversary?.settings.executeOnce && s.shape !== 'loop' ? rows.slice(0, 1) : rows;

/** How many creates a run of these rows sends (every call of the sub-workflow). */
export const creates = (s: Scenario, rows: string[]) => asked(s, rows).length * calls(s.shape);

/** How many times the Wait node runs in an execution (once per iteration or call). */
export const waitRuns = (s: Scenario) => (s.shape === 'loop' ? s.rows.length : calls(s.shape));

const settings: fc.Arbitrary<NodeSettings> = fc
	.record({
		onError: fc.constantFrom(
			undefined,
			undefined,
			'continueRegularOutput' as const,
			'continueErrorOutput' as const,
		),
		retryOnFail: fc.option(
			fc.record({
				maxTries: fc.integer({ min: 2, max: 4 }),
				waitBetweenTries: fc.constantFrom(10, 100, 300),
			}),
			{ nil: undefined, freq: 2 },
		),
		alwaysOutputData: fc.boolean(),
		executeOnce: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
	})
	// only the settings set (n8n leaves the others out of the workflow)
	.map((x) => JSON.parse(JSON.stringify(x)) as NodeSettings);

/**
 * The adversary's cases before `modes` (a case of `scenario`'s fields
 * with the MediaGen node's settings, a fault in the first run (lost answers, 402), a kill at the
 * Wait node or none, n8n killed again during its Retry, and a Wait node before or after MediaGen.
 */
const adversaryCases: fc.Arbitrary<Scenario> = fc
	.record({
		base: fields,
		settings,
		fault: fc.option(
			fc.record({
				kind: fc.constantFrom<Fault['kind']>('lost', 'drop', 'refused', 'conflict'),
				k: fc.nat(5),
				times: fc.constantFrom<Fault['times']>(1, 5, 'all'),
			}),
			{ nil: undefined, freq: 2 },
		),
		kill: fc.constantFrom('after', 'create', 'create', 'wait', 'none'),
		retryKill: fc.constantFrom(undefined, undefined, undefined, 'after', 'create', 'wait'),
		retryK: fc.nat(3),
		waitRun: fc.nat(3),
		wait: fc.constantFrom(undefined, 'before' as const, 'after' as const),
		// a sub-workflow's two calls in a row instead of from two branches; two MediaGen nodes
		// instead of one after the rows
		twice: fc.constantFrom(false, false, true),
		// drawn last: the kinds of ./kinds.ts in place of the base's kind, in two cases of three
		more: fc.option(fc.constantFrom(...MORE_KINDS), { nil: undefined, freq: 3 }),
	})
	.map(
		({
			base,
			settings: set,
			fault,
			kill,
			retryKill,
			retryK,
			waitRun,
			wait: w,
			twice,
			more,
		}): Scenario => {
			// the base property's kill draws (killAfter, refused) give way to the adversary's
			const { n8nMajor, progress, reversed, rows, change: c, k } = base;
			const kind = more ?? base.kind;
			// two MediaGen nodes: not for uploads (their file node is the first MediaGen's)
			const shape =
				!twice || (kind === 'upload' && base.shape === 'plain')
					? base.shape
					: base.shape === 'plain'
						? 'two'
						: base.shape === 'subTwice'
							? 'subSeq'
							: base.shape;
			// two MediaGen nodes: no Wait node beside them
			const wait = shape === 'two' ? undefined : w;
			const rest = { n8nMajor, progress, kind, shape, reversed, rows, change: c };
			const { clockOffsetMs, dayPasses, other } = base;
			// the error output of a sub-workflow's last node: Execute Workflow returns the last node's
			// output, not a MediaGen setting; drawn only where the workflow carries both outputs on
			const onError =
				set.onError === 'continueErrorOutput' && rest.shape !== 'plain' && rest.shape !== 'loop'
					? 'continueRegularOutput'
					: set.onError;
			const s: Scenario = {
				...rest,
				clockOffsetMs,
				dayPasses,
				other,
				kill: { at: 'none' },
				adversary: {
					settings: JSON.parse(JSON.stringify({ ...set, onError })) as NodeSettings,
				},
			};
			const adversary = s.adversary as Adversary;
			if (wait) adversary.wait = wait;
			const n = creates(s, s.rows);
			if (fault) adversary.fault = { ...fault, k: (fault.k % n) + 1 };
			const at = kill === 'wait' && !wait ? 'after' : kill === 'none' && !fault ? 'create' : kill;
			if (at === 'after') s.kill = { at: 'after' };
			else if (at === 'create') s.kill = { at: 'create', k: (k % n) + 1 };
			else if (at === 'wait') s.kill = { at: 'wait', run: (waitRun % waitRuns(s)) + 1 };
			else {
				// a failed run is retried by the same n8n on its saved data: the rows not read again
				s.change = { kind: 'none' };
			}
			if (retryKill === 'after') adversary.retryKill = { at: 'after' };
			else if (retryKill === 'create') adversary.retryKill = { at: 'create', k: (retryK % n) + 1 };
			else if (retryKill === 'wait' && wait)
				adversary.retryKill = { at: 'wait', run: (waitRun % waitRuns(s)) + 1 };
			return s;
		},
	);

/** What `modes` draws. */
interface ModeDraws {
	stop: boolean;
	stopWaiting: boolean;
	stopK: number;
	edit?: Edit;
	queue?: QueueLoss;
}

/** Queue mode's lost worker, in half the cases: none, or what n8n makes of it. */
const queueLoss = fc.constantFrom<QueueLoss | undefined>(
	undefined,
	undefined,
	undefined,
	'stalled',
	'crashed',
	'crashedNoLog',
);

/** The dimensions `modes` adds: Stop, the edited workflow, queue mode's lost worker. */
const modeDraws: fc.Arbitrary<ModeDraws> = fc.record({
	stop: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
	stopWaiting: fc.boolean(),
	stopK: fc.nat(5),
	edit: fc.constantFrom<Edit | undefined>(undefined, undefined, 'request', 'rename', 'nodeBefore'),
	queue: queueLoss,
});

/**
 * Stop, the edited workflow and queue mode's lost worker on an adversary's case: Stop (in about
 * a fifth of the cases, in every shape: in a sub-workflow it stops the parent while its
 * sub-execution runs on, as n8n's Stop does) replaces the kill and the fault; the
 * edit applies where a Retry follows; the queue's loss where the first run is killed.
 */
function modes(s: Scenario, m: ModeDraws): Scenario {
	const adversary = { ...(s.adversary as Adversary) };
	const out: Scenario = { ...s, adversary };
	if (m.stop) {
		delete adversary.fault;
		out.kill = { at: 'none' };
		adversary.stop =
			m.stopWaiting && s.kind !== 'captions'
				? { at: 'waiting' }
				: { at: 'create', k: (m.stopK % creates(s, s.rows)) + 1 };
	}
	// the kinds of ./kinds.ts: renamed or with a node added before them, not with other requests
	// (their requests are records made for the case's letters)
	if (m.edit && !(m.edit === 'request' && MORE_KINDS.includes(s.kind as MoreKind)))
		adversary.edit = m.edit;
	if (m.queue && ['after', 'create', 'wait'].includes(out.kill.at)) adversary.queue = m.queue;
	return out;
}

/** What `retryStopped` draws (drawn after the rest: the other draws of a seed stay as they were). */
const retryStopDraws = fc.record({
	stop: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
	waiting: fc.boolean(),
	k: fc.nat(5),
	// the first run's Stop at its first read instead of when it waits
	read: fc.boolean(),
});

/**
 * Stop in n8n's Retry (in about a fifth of the cases where a Retry follows and n8n is not killed
 * in it), then Retry of the canceled Retry.
 */
function retryStopped(
	s: Scenario,
	r: { stop: boolean; waiting: boolean; k: number; read: boolean },
): Scenario {
	const adversary = s.adversary as Adversary;
	if (adversary.stop?.at === 'waiting' && r.read) {
		const read = { ...s, adversary: { ...adversary, stop: { at: 'read' as const } } };
		return retryStopped(read, { ...r, read: false });
	}
	const retried = s.kill.at !== 'none' || !!adversary.stop || !!adversary.fault;
	if (!r.stop || !retried || adversary.retryKill) return s;
	const retryStop =
		r.waiting && s.kind !== 'captions'
			? { at: 'waiting' as const }
			: { at: 'create' as const, k: (r.k % creates(s, s.rows)) + 1 };
	return { ...s, adversary: { ...adversary, retryStop } };
}

/** What `retryQueued` draws (after the rest: the other draws of a seed stay as they were). */
const retryQueueDraws = queueLoss;

/** Queue mode's lost worker in n8n's Retry, where n8n is killed in it (`retryKill`). */
const retryQueued = (s: Scenario, q: QueueLoss | undefined): Scenario =>
	q && s.adversary?.retryKill ? { ...s, adversary: { ...s.adversary, retryQueue: q } } : s;

/**
 * The randomized adversary (`npm run simulate -- --adversary`): a case of `scenario`'s fields
 * with the MediaGen node's settings, a fault in the first run (lost answers, 402), a kill at the
 * Wait node or none, n8n killed again during its Retry, a Wait node before or after MediaGen,
 * Stop and a Retry of the canceled execution, Stop in the Retry, the workflow edited before the
 * Retry, and queue mode's lost worker (in the first run or in the Retry). A property of its own, so that the seeds of `scenario` draw the cases they
 * always drew.
 */
export const adversaryScenario: fc.Arbitrary<Scenario> = fc
	.tuple(adversaryCases, modeDraws, retryStopDraws, retryQueueDraws)
	.map(([s, m, r, q]) => retryQueued(retryStopped(modes(s, m), r), q));
