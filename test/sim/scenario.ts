/**
 * The generated cases of the simulation (issue #36): a workflow shape, a job kind, the rows, a
 * kill point, what changes between the crash and n8n's Retry (the rows, other executions' work
 * on the same records, n8n's clock, a day passing), n8n 2.x or 1.x, progress saving off or on.
 * fast-check draws and shrinks them (./run.ts runs one, ./cli.ts and
 * test/engine/simulation.test.ts run many).
 */
import fc from 'fast-check';

/** The job kinds: a keyed generation, a record-matched dub, a charged call answered at once. */
export type Kind = 'generation' | 'dub' | 'captions';

/**
 * Where MediaGen stands: after the rows (`plain`), in Loop Over Items (`loop`), in a sub-workflow
 * called once (`sub`) or from two branches with the same items (`subTwice`).
 */
export type Shape = 'plain' | 'loop' | 'sub' | 'subTwice';

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
 */
export type Kill = { at: 'after' } | { at: 'create'; k: number } | { at: 'refused'; k: number };

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
}

/** How many times the parent calls the sub-workflow (each call creates for every row). */
export const calls = (shape: Shape) => (shape === 'subTwice' ? 2 : 1);

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

export const scenario: fc.Arbitrary<Scenario> = fc
	.record({
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
	})
	.map(({ killAfter, k, refused, ...rest }): Scenario => {
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
	});
