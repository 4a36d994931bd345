/**
 * The simulation's concurrent cases (issue #36): executions in flight at the same time, on one
 * key and the same records, with the order in which the sandbox handles their requests drawn by
 * fast-check's scheduler (`fc.scheduler()`), and n8n killed at a moment it draws too.
 *
 * - The crashed execution (`x`) runs in a child n8n process (test/harness/engine/crashHarness.ts) that is
 *   killed with SIGKILL; the other executions (`o1`, `o2`: the same workflow, or another workflow
 *   with the same job kind on the same records: generations of the same prompts, dubs of the same
 *   edit into the same languages) run in this process, as another main or a queue-mode worker of
 *   the same n8n would (the same database, the same key): they live on after the kill. n8n's
 *   Retry of `x` (`r`) runs in this process, while the others still run or after they ended.
 * - Every request a node sends carries its execution's mark (a header the harness adds,
 *   n8nHost's `requestHeaders`) and waits at the sandbox's gate (`control.gateRequests`) on
 *   `scheduler.schedule(…)`; the driver lets one go at a time, when every live execution waits on
 *   one (or nothing has moved for a moment: an execution between requests), so that which goes
 *   first is the scheduler's draw, and fast-check shrinks it. The kill (from a drawn create of
 *   `x` on, or from its node after MediaGen) and the start of each other execution are scheduled
 *   tasks too. A request of the killed process that arrives after the kill is refused without
 *   work (it was never sent).
 * - The invariants of ./run.ts are checked per logical run (the crashed execution with its Retry,
 *   each other execution), with who made each job known from the marks: (1) no request charged
 *   more often than that run's rows asked, nor more often than all runs together asked; (2) each
 *   output item carries a job of its own request, in order, none twice; (3) every job a run was
 *   charged for reaches its output or is named; (4) no execution outputs a job another execution
 *   made; (5) a Retry fails only by refusing and naming; the other executions do not fail.
 * - Other executions may run in the killed process too (`sameProcess`: the same main running
 *   them): started there (crashHarness.ts Alongside) while it lives, killed with `x`, recovered
 *   from its event log and retried each (`r1`, `r2`), each Retry with its execution a logical run.
 *
 * Timing outside the scheduler (n8n-core's engine, the child process, polling sleeps) still
 * varies: a replay with the same seed and path usually, not always, takes the same interleaving.
 */
import fc from 'fast-check';
import type { IDataObject, IRunExecutionData, ITaskData, IWorkflowBase } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import type { GatedRequest, Sandbox } from '../../../sandbox';
import { client } from '../sandbox/helpers';
import type { CrashedExecution } from '../engine/crashHarness';
import { Alongside, amend, crashExecution, retry } from '../engine/crashHarness';
import type { RunResult } from '../engine/harness';
import { startWorkflow } from '../engine/harness';
import { SavedExecutions } from '../engine/savedExecutions';
import { newEdit } from '../engine/setup';
import type { CaseResult, Records } from './run';
import {
	CREATE_PATH,
	count,
	hintsOf,
	knownLimit,
	madeJobs,
	outputOf,
	outputsOf,
	settle,
	workflowsOf,
} from './run';
import type { Scenario, Shape } from './scenario';
import { calls, LETTERS } from './scenario';

/** Another execution running beside the crashed one. */
export interface OtherExecution {
	rows: string[];
	/** The same workflow (else another workflow with the same job kind on the same records). */
	sameWorkflow: boolean;
}

export interface ConcurrentScenario {
	n8nMajor: 1 | 2;
	progress: boolean;
	kind: 'generation' | 'dub';
	shape: Shape;
	/** The rows of the execution n8n's kill hits. */
	rows: string[];
	/** One or two other executions on the same key and records. */
	others: OtherExecution[];
	/** n8n's Retry starts as soon as n8n is back, while the others may still run (else after). */
	retryWhile: boolean;
	/**
	 * From when n8n's kill may land (the scheduler draws when, from then on): once `x` sent its
	 * create number `killFrom + 1` (of all its calls), or, from `rows × calls` on, once `x`'s node
	 * after MediaGen started.
	 */
	killFrom: number;
	/**
	 * Which other executions run in the killed process (bit i: `o{i+1}`), as the same n8n main
	 * would run them: killed with `x`, recovered from its event log and retried (`r{i+1}`); the
	 * rest run in this process, as another main or a worker would. Drawn after the rest, so that
	 * earlier seeds draw their other fields as before; absent in cases printed before it: none.
	 */
	sameProcess?: number;
}

const letter = fc.constantFrom(...LETTERS);
const rowsOf = fc.array(letter, { minLength: 1, maxLength: 3 });

export const concurrentScenario: fc.Arbitrary<ConcurrentScenario> = fc.record({
	n8nMajor: fc.constantFrom(2 as const, 1 as const),
	progress: fc.boolean(),
	kind: fc.constantFrom<'generation' | 'dub'>('generation', 'dub'),
	shape: fc.constantFrom<Shape>('plain', 'loop', 'sub', 'subTwice'),
	rows: rowsOf,
	others: fc.array(fc.record({ rows: rowsOf, sameWorkflow: fc.boolean() }), {
		minLength: 1,
		maxLength: 2,
	}),
	retryWhile: fc.boolean(),
	killFrom: fc.nat(6),
	sameProcess: fc.constantFrom(0, 0, 0, 1, 2, 3),
});

/** The header that marks which execution sent a request. */
const ACTOR = 'x-sim-actor';

/** The same case as ./run.ts's Scenario, for its workflow builders and readers. */
const asScenario = (c: ConcurrentScenario): Scenario => ({
	...c,
	reversed: false,
	change: { kind: 'none' },
	kill: { at: 'after' },
	clockOffsetMs: 0,
	dayPasses: false,
	other: true,
});

/** Another workflow doing the same: its own id and node ids (the sub-workflow it calls is shared). */
function anotherWorkflow(w: IWorkflowBase, n: number): IWorkflowBase {
	return {
		...w,
		id: `wf-sim-other-${n}`,
		name: `simulation, other workflow ${n}`,
		nodes: w.nodes.map((node) => ({ ...node, id: `${node.id}-other-${n}` })),
	};
}

/** The node after MediaGen does not wait in an execution that is not killed. */
const noWait = (w: IWorkflowBase): IWorkflowBase => ({
	...w,
	nodes: w.nodes.map((n) =>
		n.name === 'Slow' ? { ...n, parameters: { ...n.parameters, ms: 0 } } : n,
	),
});

/** What the driver knows of the executions in flight and of the requests they wait on. */
class Traffic {
	/** Requests waiting at the gate, per execution mark. */
	readonly waiting = new Map<string, number>();
	/** Executions that may still send requests. */
	readonly live = new Set<string>();
	/** Jobs made (create answered 2xx), in order, with the mark of the execution that sent it. */
	readonly made: Array<{ id: string; actor: string }> = [];
	/** Marks of executions whose process is dead: their later requests are refused. */
	readonly dead = new Set<string>();
	/** How many jobs were made when the Retry's first lookup went (after its GET /workspace). */
	lookedAt?: number;
	/** Set when any request arrived or was let go: the driver waits for quiet after it. */
	moved = Date.now();
	/** Called on an execution's first request (starts what waits for it). */
	onFirst?: (actor: string) => void;
	/** Called on each create request of an execution, with its count. */
	onCreate?: (actor: string, n: number) => void;
	private readonly seen = new Set<string>();
	private readonly creates = new Map<string, number>();

	/** Every live execution waits on a request at the gate. */
	allWaiting(): boolean {
		return [...this.live].every((a) => (this.waiting.get(a) ?? 0) > 0);
	}

	gate(s: fc.Scheduler, createPath: RegExp) {
		return async (r: GatedRequest) => {
			const actor = String(r.headers[ACTOR] ?? '');
			if (!actor) return undefined;
			if (this.dead.has(actor)) return 'refuse' as const;
			this.moved = Date.now();
			const create = r.method === 'POST' && createPath.test(r.path);
			if (!this.seen.has(actor)) {
				this.seen.add(actor);
				this.onFirst?.(actor);
			}
			if (create) {
				this.creates.set(actor, (this.creates.get(actor) ?? 0) + 1);
				this.onCreate?.(actor, this.creates.get(actor) ?? 0);
			}
			this.waiting.set(actor, (this.waiting.get(actor) ?? 0) + 1);
			try {
				await s.schedule(Promise.resolve(), `${actor} ${r.method} ${r.path.replace(/^\/v1/, '')}`);
			} finally {
				this.waiting.set(actor, (this.waiting.get(actor) ?? 1) - 1);
				this.moved = Date.now();
			}
			if (/^r\d*$/.test(actor) && r.method === 'GET' && !r.path.endsWith('/workspace'))
				this.lookedAt ??= this.made.length;
			if (!create) return undefined;
			return (status: number, json: unknown) => {
				const id = (json as IDataObject | undefined)?.id;
				if (status < 300 && typeof id === 'string') this.made.push({ id, actor });
			};
		};
	}
}

/** How long nothing moves before the driver lets a request go without every execution waiting. */
const QUIET_MS = 40;

/**
 * Lets the scheduled tasks go one at a time until `finished`: when every live execution waits on
 * a request, or nothing has moved for QUIET_MS (an execution computing or sleeping between
 * requests, or the child process starting).
 */
async function drive(s: fc.Scheduler, traffic: Traffic, finished: Promise<unknown>) {
	let over = false;
	void finished.finally(() => (over = true));
	while (!over) {
		const quiet = Date.now() - traffic.moved >= QUIET_MS;
		if (s.count() > 0 && (traffic.allWaiting() || quiet)) {
			await s.waitNext(1);
			traffic.moved = Date.now();
		} else await sleep(3);
	}
	// what is left (the kill of a process that ended first, a request of the dead) goes now
	while (s.count() > 0) await s.waitNext(1);
}

/**
 * n8n starting again after the crash: ExecutionRecoveryService recovers, from the killed main's
 * event log, the executions that log names (the crashed one and its sub-executions), not those
 * the other processes run.
 */
function recoverKilled(x: CrashedExecution): void {
	const ids = new Set([x.executionId, ...x.events.map((m) => m.payload.executionId)]);
	for (const id of ids) {
		const status = x.saved.record(id)?.status;
		if (!status || !['new', 'running'].includes(status)) continue;
		amend(
			x.saved,
			id,
			x.events.filter((m) => m.payload.executionId === id),
		);
		x.saved.setStatus(id, 'crashed');
	}
}

/** A logical run: the executions whose jobs are its own, its rows, what it output. */
interface Logical {
	name: string;
	actors: string[];
	rows: string[];
	/** Output per call (one, or two for `subTwice`); undefined when it failed. */
	outputs?: IDataObject[][];
	error?: string;
	hints: string;
}

function logicalOf(
	c: ConcurrentScenario,
	name: string,
	actors: string[],
	rows: string[],
	r: { runData: Record<string, ITaskData[]>; error?: RunResult['error'] },
): Logical {
	const error = r.error ? `${r.error.message} ${r.error.description ?? ''}` : undefined;
	return {
		name,
		actors,
		rows,
		outputs: error ? undefined : outputsOf(c.shape, r.runData),
		error,
		hints: hintsOf(r.runData),
	};
}

/** Runs one concurrent case, its interleaving drawn by `s`; `sb` is reset first. */
export async function runConcurrentCase(
	sb: Sandbox,
	c: ConcurrentScenario,
	s: fc.Scheduler,
	credentials: { mediaGenApi: { apiKey: string; baseUrl: string } },
): Promise<CaseResult> {
	sb.control.reset();
	sb.control.setCredits('main', 100_000);
	const api = client(sb, sb.keys.pro);
	const scenario = asScenario(c);
	const records: Records = { captionEdits: {} };
	if (c.kind === 'dub') records.dubEdit = await newEdit(sb);
	const mine = workflowsOf(scenario, c.rows, records);
	const theirs = c.others.map((o, i) => {
		const w = workflowsOf(scenario, o.rows, records);
		return { ...w, workflow: noWait(o.sameWorkflow ? w.workflow : anotherWorkflow(w.workflow, i)) };
	});
	const saved = new SavedExecutions();
	const traffic = new Traffic();
	const ungate = sb.control.gateRequests(traffic.gate(s, new RegExp(CREATE_PATH[c.kind])));
	const finished: Array<Promise<unknown>> = [];
	let crashed: CrashedExecution | undefined;
	const results: Record<string, RunResult> = {};
	// the other executions of the killed process: its marks, and the status of those that ended
	const along = new Alongside();
	const inKilled = new Set<string>();
	const endedInKilled = new Map<string, string>();
	// each execution's id as n8n's one sequence gives them, when it starts (this process and the
	// killed one give out ids at the same time: each from a lane of its own)
	saved.lane = { mod: 2, rem: 0 };
	const ids = new Map<number, string>();
	const idOf = (i: number) => ids.get(i) ?? '';
	const inKilledIds = () =>
		new Set(theirs.flatMap((_, i) => (inKilled.has(`o${i + 1}`) ? [idOf(i)] : [])));
	try {
		// the kill: from `killFrom` on, when the scheduler draws it
		let killNow = () => {};
		const killed = new Promise<void>((resolve) => (killNow = resolve));
		let armed = false;
		const arm = () => {
			if (armed) return;
			armed = true;
			void s.schedule(Promise.resolve(), 'kill n8n (x)').then(() => {
				for (const mark of ['x', ...inKilled]) {
					traffic.dead.add(mark);
					traffic.live.delete(mark);
				}
				killNow();
			});
		};
		const creates = c.rows.length * calls(c.shape);
		const from = c.killFrom % (creates + 1);
		traffic.onCreate = (actor, n) => {
			if (actor === 'x' && n === from + 1) arm();
		};
		// the others start when the scheduler says, once the crashed execution has begun
		const othersDone = new Promise<void>((resolveAll) => {
			traffic.onFirst = (actor) => {
				if (actor !== 'x') return;
				const runs = theirs.map(async (t, i) => {
					await s.schedule(Promise.resolve(), `start o${i + 1}`);
					const mark = `o${i + 1}`;
					ids.set(i, saved.nextId());
					const options = {
						workflows: t.workflows,
						executionId: idOf(i),
						requestHeaders: { [ACTOR]: mark },
					};
					traffic.live.add(mark);
					try {
						// in the killed process while it lives (started after the kill: in another)
						if (((c.sameProcess ?? 0) >> i) & 1 && along.alive) {
							inKilled.add(mark);
							const status = await along.start({ workflowData: t.workflow, ...options });
							if (status) endedInKilled.set(mark, status);
						} else
							results[mark] = await startWorkflow(t.workflow, {
								...options,
								credentials,
								saved,
								n8nMajor: c.n8nMajor,
							}).done;
					} finally {
						traffic.live.delete(mark);
					}
				});
				void Promise.all(runs).then(() => resolveAll());
			};
		});
		traffic.live.add('x');
		const victim = crashExecution(mine.workflow, {
			credentials,
			saved,
			sandbox: sb,
			killAt: { when: killed },
			mayEnd: true,
			n8nMajor: c.n8nMajor,
			workflows: mine.workflows,
			requestHeaders: { [ACTOR]: 'x' },
			timeoutMs: 240_000,
			alongside: along,
			onNodeEvent: (m) => {
				if (
					m.eventName === 'n8n.node.started' &&
					m.payload.nodeName === 'Slow' &&
					!inKilledIds().has(String(m.payload.executionId))
				)
					arm();
			},
		});
		const whole = (async () => {
			crashed = await victim;
			for (const mark of ['x', ...inKilled]) {
				traffic.live.delete(mark);
				traffic.dead.add(mark);
			}
			if (!c.retryWhile) await othersDone;
			recoverKilled(crashed);
			// n8n's Retry of each execution the kill lost: `x` (r) and those beside it (r1, r2)
			const lost = [
				...(crashed.ended ? [] : [{ mark: 'r', id: crashed.executionId, w: mine }]),
				...theirs.flatMap((w, i) =>
					inKilled.has(`o${i + 1}`) && saved.record(idOf(i))?.status === 'crashed'
						? [{ mark: `r${i + 1}`, id: idOf(i), w }]
						: [],
				),
			];
			await Promise.all(
				lost.map(async ({ mark, id, w }) => {
					traffic.live.add(mark);
					try {
						results[mark] = await retry(saved, id, {
							credentials,
							n8nMajor: c.n8nMajor,
							workflows: w.workflows,
							loadWorkflow: true,
							currentWorkflow: w.workflow,
							requestHeaders: { [ACTOR]: mark },
						});
					} finally {
						traffic.live.delete(mark);
					}
				}),
			);
			await othersDone;
		})();
		finished.push(whole);
		await Promise.all([drive(s, traffic, Promise.allSettled(finished)), whole]);
	} finally {
		ungate();
	}
	await settle(api);

	// the logical runs and what each output
	const x = crashed!;
	const logical: Logical[] = [];
	if (x.ended) {
		const data = saved.get(x.executionId) as IRunExecutionData;
		logical.push(logicalOf(c, 'x', ['x'], c.rows, { runData: data.resultData.runData }));
	} else
		logical.push(
			logicalOf(c, 'x+r', ['x', 'r'], c.rows, {
				runData: results.r.run.data.resultData.runData,
				error: results.r.error,
			}),
		);
	c.others.forEach((o, i) => {
		const mark = `o${i + 1}`;
		const retried = results[`r${i + 1}`];
		// one that ran in the killed process and ended before the kill: its run as saved
		const saved_ = endedInKilled.has(mark) || (inKilled.has(mark) && !retried);
		const data = saved.get(idOf(i));
		// started in the process as it died, before n8n created it: it never ran
		if (inKilled.has(mark) && !retried && !data) return;
		logical.push(
			retried
				? logicalOf(c, `${mark}+r${i + 1}`, [mark, `r${i + 1}`], o.rows, {
						runData: retried.run.data.resultData.runData,
						error: retried.error,
					})
				: saved_ && data
					? logicalOf(c, mark, [mark], o.rows, { runData: data.resultData.runData })
					: logicalOf(c, mark, [mark], o.rows, {
							runData: results[mark].run.data.resultData.runData,
							error: results[mark].error,
						}),
		);
	});

	const violations: string[] = [];
	const known: string[] = [];
	// a record-matched kind in Loop Over Items with others' work on the same record: docs/batches.md
	const limit = knownLimit(scenario);
	// a record-matched kind (a dub: language and watermark are all its record holds) found by the
	// Retry: another execution's dub of the same edit into the same language, made after the lost
	// try began (during it, or after the crash and before the Retry), is what the lost try could
	// have made with its answer lost; nothing in the record tells them apart (docs/batches.md, not
	// covered). The Retry taking it, and its own dub it displaced, are reported as known.
	const recordLimit = (l: Logical, by: string | undefined) =>
		c.kind === 'dub' && l.name.includes('+') && !!by && !l.actors.includes(by);
	const callCount = calls(c.shape);
	const maker = new Map(traffic.made.map((m) => [m.id, m.actor]));
	const all = await madeJobs(scenario, api, records);
	const rowOf = new Map(all.map((m) => [m.id, m.row]));
	// a create of the killed process that reached MediaGen after its Retry looked (a request
	// slow on the network): the Retry gets it back only under the same Idempotency-Key, so a dub
	// (its endpoint takes no key) and, on n8n 1.x, a generation (the run's token was the execution
	// id: the Retry's key is another) are made again (a stated limit, docs/batches.md "Not
	// covered"); a generation on 2.x carries the same key and the Retry gets that job
	const late = new Set(
		c.n8nMajor === 1 || c.kind === 'dub'
			? traffic.made
					.slice(traffic.lookedAt ?? traffic.made.length)
					.filter((m) => m.actor === 'x' || inKilled.has(m.actor))
					.map((m) => rowOf.get(m.id))
			: [],
	);
	// 1. per logical run, and all together
	for (const row of new Set(all.map((m) => m.row))) {
		const asked = logical.reduce((n, l) => n + count(l.rows, row) * callCount, 0);
		const n = all.filter((m) => m.row === row).length;
		const list = late.has(row) ? known : violations;
		if (n > asked) list.push(`1: ${n} jobs for row ${row}, all runs together asked ${asked}`);
		for (const l of logical) {
			const own = all.filter((m) => m.row === row && l.actors.includes(maker.get(m.id) ?? ''));
			const allowed = count(l.rows, row) * callCount;
			if (own.length > allowed)
				list.push(`1: ${l.name} made ${own.length} jobs for row ${row}, asked ${allowed}`);
		}
	}
	for (const m of all)
		if (!maker.has(m.id)) violations.push(`1: job ${m.id} (row ${m.row}) made by no execution`);
	for (const l of logical) {
		// 5. a Retry fails only by refusing and naming; the others do not fail
		if (l.error) {
			if (!l.name.includes('+') || !/Cannot tell/.test(l.error))
				violations.push(`5: ${l.name} failed: ${l.error.slice(0, 300)}`);
			continue;
		}
		const delivered = new Set<string>();
		for (const out of l.outputs ?? []) {
			const got = out.map((o) => outputOf(scenario, o, records));
			// 2. each output item carries a job of its own request, in order, none twice
			if (got.map((g) => g.row).join() !== l.rows.join())
				violations.push(
					`2: ${l.name} output rows ${got.map((g) => g.row).join()} (rows ${l.rows.join()})`,
				);
			if (new Set(got.map((g) => g.id)).size !== got.length)
				violations.push(`2: ${l.name} gave one job to two items (${got.map((g) => g.id).join()})`);
			// 4. never a job another execution made
			for (const g of got) {
				delivered.add(g.id);
				const by = maker.get(g.id);
				if (!by || !l.actors.includes(by))
					(limit || recordLimit(l, by) ? known : violations).push(
						`4: ${l.name} output job ${g.id} (row ${rowOf.get(g.id) ?? '?'}) made by ${by ?? 'nobody'}`,
					);
			}
		}
		if (c.shape === 'subTwice' && l.outputs) {
			const [one, two] = l.outputs.map((o) => new Set(o.map((j) => String(j.id))));
			if ([...one].some((id) => two.has(id)))
				violations.push(`4: both calls of ${l.name}'s sub-workflow output the same job`);
		}
		// 3. every job the run was charged for reaches its output or is named
		const displaced = known.some((k) => k.startsWith('4:'));
		for (const m of all)
			if (
				l.actors.includes(maker.get(m.id) ?? '') &&
				!delivered.has(m.id) &&
				!l.hints.includes(m.id)
			)
				(displaced || late.has(m.row) ? known : violations).push(
					`3: job ${m.id} (row ${m.row}) of ${l.name} reached no item and is named nowhere`,
				);
	}
	const made = traffic.made.map((m) => `${m.actor}:${rowOf.get(m.id) ?? '?'}`).join(' ');
	const beside = [...inKilled]
		.map((m) => {
			const retried = results[`r${m.slice(1)}`];
			const fate = retried ? `retried ${retried.error ? 'refused' : 'ok'}` : 'not created';
			return `${m} ${endedInKilled.has(m) ? 'ended' : fate}`;
		})
		.join(', ');
	const summary = `${x.ended ? 'x ended before the kill' : `killed, retry ${results.r?.error ? 'refused' : 'ok'}`}${beside ? ` (in the killed process: ${beside})` : ''}; made ${made || 'nothing'}`;
	// n8n 1.x without a saved identity: another execution of the same workflow killed in the same
	// process, its nodes started in the same seconds (n8n's recovery saves whole seconds), has
	// saved data like the lost try's: their Retries cannot tell whose jobs are whose (a stated
	// limit, docs/batches.md "Not covered"); on 2.x each execution's resumeToken tells them apart
	const twins =
		c.n8nMajor === 1 &&
		!x.ended &&
		c.others.some(
			(o, i) => o.sameWorkflow && inKilled.has(`o${i + 1}`) && !endedInKilled.has(`o${i + 1}`),
		);
	if (twins) return { violations: [], known: [...known, ...violations], summary };
	return { violations, known, summary };
}
