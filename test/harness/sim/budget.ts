/**
 * The credit budget's randomized simulation (issue #38, docs/budget.md "What is guaranteed"):
 * fast-check draws a budget (per day, week or month, or only a floor; an amount, a floor, an IANA
 * zone, a start on a period's edge, DST days among them), a ledger history booked at the sandbox,
 * and a sequence of commands (`fc.commands`): n8n runs of Generation → Create (a job), Edit →
 * Create Captions (charged at once, with an estimate), Edit → Highlights (charged at once, no
 * estimate) and an AI agent calling Generation → Create as a tool, started while others still
 * run; work outside n8n (a job, a charge); more history booked (settled and failed jobs,
 * immediate charges, grants, adjustments, entries of a type the spec does not list, busy
 * stretches of failed jobs); a job cancelled outside n8n (its reservation returned); MediaGen's
 * clock stepped or turned past the period's end; a new n8n process (what one process keeps of
 * the ledger forgotten, as a queue-mode worker starting). The runs are the real nodes in
 * n8n-core's engine (test/harness/engine/harness.ts), over real HTTP to the sandbox; every request
 * carries its execution's mark and passes the sandbox's gate, which notes when it came and what
 * it was answered (the ledger's newest entry and MediaGen's clock at each read of the ledger).
 *
 * After the case, checked against the sandbox's ledger with this file's own walk of the rule
 * (`standing`, written from docs/budget.md, not the node's code):
 * 1. spending: every call an n8n run sent fitted in what its run's last read of the ledger left
 *    (less its items sent since), or (no estimate) that read left something and no other call
 *    without an estimate was sent since; every charge of an n8n run that the period's charges,
 *    in booking order, put over the budget (or under the floor) is one the documented bounds
 *    allow: a call charged at once (the race), or a job charged before its run looked again (or
 *    before its cancel), or whose run's next look was in another period. The credits over per
 *    period are summed in the case's summary, by the bound that allows them;
 * 2. refusals: the figures a refusal states (spent, reserved, balance, blocked) are those of one
 *    of its run's reads of the ledger, walked here; what it says is left is what they leave less
 *    the run's earlier items; it needs more than that (an estimate above it, or nothing left for
 *    a call without one); the earlier items it counts are at most the run's items before it. A
 *    cancellation: the job's reservation was over at one of the run's reads, its figures those
 *    before it there, and the job was not charged;
 * 3. wording: "nothing is left for it" only when the read left nothing; a tool's answer says the
 *    budget is used up only when nothing is left;
 * 4. no run (its jobs take 2 s at most) takes more than 90 s.
 */
import type { IDataObject, IWorkflowBase } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';
import fc from 'fast-check';

import { forgetLedgers } from '../../../nodes/shared/budget/ledgerRead';
import type { BudgetPeriod } from '../../../nodes/shared/budget/settings';
import { periodWindow } from '../../../nodes/shared/budget/settings';
import type { Sandbox } from '../../../sandbox';
import type { LedgerBooking } from '../../../sandbox/control';
import { clock } from '../../../sandbox/clock';
import type { RunResult, TestCredentials } from '../engine/harness';
import { chain, startWorkflow } from '../engine/harness';
import { generationCreate, newEdit, nodeFactory, rl } from '../engine/setup';
import { agentWorkflow } from '../engine/toolAgent';
import { client, until } from '../sandbox/helpers';
import { ACTION_NODES } from '../actionNodes';

const editor = nodeFactory(ACTION_NODES.mediaGenEditor);
const mediaGenNode = nodeFactory(ACTION_NODES.mediaGen);
const MARK = 'x-budget-sim';
const MINUTE = 60_000;
const JOB_COST = 4;
/** A run of the simulation's jobs (2 s at most) that takes longer than this waited for nothing. */
const SLOW_RUN_MS = 90_000;

// ---------------------------------------------------------------------------------------------
// The case

export interface BudgetSetup {
	/** 'off': only Keep Balance Above. */
	period: BudgetPeriod | 'off';
	credits: number;
	/** 0: no floor. */
	floor: number;
	zone: string;
	/** A local date (2027) the case starts on, and minutes from the start of its period. */
	day: string;
	offsetMin: number;
	/** The balance at the start: the floor plus this. */
	headroom: number;
	history: HistoryItem[];
}

/** A booked entry (or a job's entries) of the ledger's history. */
export interface HistoryItem {
	kind:
		| 'settled'
		| 'failed'
		| 'immediate'
		| 'unknownSpend'
		| 'unknownAdd'
		| 'grant'
		| 'adjustment'
		| 'busy';
	amount: number;
	/** Where in the time since the last entry (0..1). */
	at: number;
	/** A job's minutes from reservation to its end (< 50: the first read's hour around a start). */
	minutes: number;
}

const ZONES = [
	'UTC',
	'Europe/Berlin',
	'America/New_York',
	'America/Santiago',
	'Australia/Lord_Howe',
	'Asia/Kolkata',
	'Pacific/Chatham',
	'America/Havana',
	'Africa/Cairo',
	'Atlantic/Azores',
	'America/St_Johns',
	'Asia/Tokyo',
];
/** Days of 2027 on which a zone of the list changes its clocks, and a few others. */
const DAYS = [
	'2027-03-14',
	'2027-03-13',
	'2027-03-28',
	'2027-04-04',
	'2027-04-30',
	'2027-09-05',
	'2027-09-26',
	'2027-10-03',
	'2027-10-31',
	'2027-11-07',
	'2027-01-01',
	'2027-06-15',
	'2027-12-31',
	'2027-02-28',
];

const historyItem: fc.Arbitrary<HistoryItem> = fc.record({
	kind: fc.constantFrom<HistoryItem['kind']>(
		'settled',
		'settled',
		'failed',
		'immediate',
		'unknownSpend',
		'unknownAdd',
		'grant',
		'adjustment',
		'busy',
	),
	amount: fc.integer({ min: 1, max: 9 }),
	at: fc.integer({ min: 0, max: 1000 }).map((n) => n / 1000),
	minutes: fc.integer({ min: 0, max: 49 }),
});

export const budgetSetup: fc.Arbitrary<BudgetSetup> = fc.record({
	period: fc.constantFrom<BudgetSetup['period']>('day', 'day', 'week', 'month', 'off'),
	credits: fc.integer({ min: 4, max: 40 }),
	floor: fc.oneof(fc.constant(0), fc.constant(0), fc.integer({ min: 1, max: 30 })),
	zone: fc.constantFrom(...ZONES),
	day: fc.constantFrom(...DAYS),
	offsetMin: fc.integer({ min: -40, max: 180 }),
	headroom: fc.integer({ min: 0, max: 60 }),
	history: fc.array(historyItem, { maxLength: 12 }),
});

// ---------------------------------------------------------------------------------------------
// What the gate saw

/** One request as the sandbox's gate saw it. */
interface Seen {
	exec: string;
	method: string;
	path: string;
	/** When it reached the gate and when it was answered (one counter for both). */
	came: number;
	answered?: number;
	status?: number;
	/** A read of the ledger's first page (all=true): the newest entry then, MediaGen's clock. */
	read?: { newest: number; now: number };
	/** A job create: the generation; a call charged at once: its charge entry. */
	gen?: string;
	charge?: number;
	/** An estimate's credits. */
	estimate?: number;
}

/** A run started by a command. */
interface Run {
	exec: string;
	kind: RunKind;
	done: Promise<RunResult>;
	result?: RunResult;
	/** How long it ran (ms). */
	ms?: number;
}

/** `tool`: an AI agent calling Generation → Create as a tool, once per item (one run per call). */
type RunKind = 'create' | 'captions' | 'highlights' | 'tool';

/** The state of a case (fast-check's "real" system). */
export interface Real {
	sb: Sandbox;
	setup: BudgetSetup;
	credentials: TestCredentials;
	edit: string;
	seen: Seen[];
	runs: Run[];
	outside: Array<Promise<unknown>>;
	counter: number;
	nextExec: number;
	histories: number;
	/** Removes the gate (after the case). */
	ungate: () => void;
}

/** The model: what the commands need to know of the case. */
export interface Model {
	running: number;
	runs: number;
}

const mediaGenNow = () => Date.now() + clock.offsetMs;

const limitsOf = (s: BudgetSetup) => ({
	budget: s.period === 'off' ? Infinity : s.credits,
	floor: s.floor > 0 ? s.floor : -Infinity,
});

const windowAt = (s: BudgetSetup, at: number) =>
	periodWindow(s.period === 'off' ? 'day' : s.period, s.zone, at);

// ---------------------------------------------------------------------------------------------
// The commands

type Cmd = fc.AsyncCommand<Model, Real>;

class StartRun implements Cmd {
	constructor(
		readonly kind: RunKind,
		readonly items: number,
		readonly continueOnFail: boolean,
		readonly jobMs: number,
		readonly count: number,
		readonly wait: boolean,
	) {}
	check = (m: Readonly<Model>) => m.runs < 8;
	async run(m: Model, r: Real): Promise<void> {
		m.running++;
		m.runs++;
		const exec = `e${++r.nextExec}`;
		const rows = Array.from({ length: this.items }, (_, i) => ({ row: i + 1, exec }));
		const settings = { typeVersion: 2, continueOnFail: this.continueOnFail };
		const node =
			this.kind === 'create'
				? mediaGenNode(
						'Op',
						generationCreate(
							{ waitForCompletion: this.wait },
							this.jobMs,
							'={{ "row " + $json.row }}',
						),
						settings,
					)
				: editor(
						'Op',
						this.kind === 'captions'
							? { resource: 'edit', operation: 'createCaptions', editId: rl(r.edit) }
							: {
									resource: 'edit',
									operation: 'highlights',
									editId: rl(r.edit),
									additionalFields: { count: this.count },
								},
						settings,
					);
		const workflow: IWorkflowBase =
			this.kind === 'tool'
				? agentWorkflow(
						rows.map((row) => ({ tool: 'Op', args: { prompt: `row ${row.row} of ${exec}` } })),
						[
							{
								name: 'Op',
								type: 'n8n-nodes-mediagen.mediaGenTool',
								typeVersion: 2,
								parameters: {
									...generationCreate({ returnAs: 'json' }, this.jobMs),
									prompt: "={{ $fromAI('prompt', 'What the image shows', 'string') }}",
								},
							},
						],
					)
				: chain(rows, [node]);
		const started = startWorkflow(workflow, {
			credentials: r.credentials,
			requestHeaders: { [MARK]: exec },
		});
		const run: Run = { exec, kind: this.kind, done: started.done };
		const t = Date.now();
		run.done = started.done.then((result) => {
			run.result = result;
			run.ms = Date.now() - t;
			return result;
		});
		r.runs.push(run);
		// let it reach its first requests before the next command
		await sleep(5);
	}
	toString = () =>
		`start(${this.kind}${this.kind === 'highlights' ? `×${this.count}` : ''}, ${this.items} items${this.continueOnFail ? ', continueOnFail' : ''}${this.kind === 'create' || this.kind === 'tool' ? `, ${this.jobMs} ms${this.wait ? ', waits' : ''}` : ''})`;
}

/** Waits for every run (and the work outside n8n) to end, and every job with it. */
class Settle implements Cmd {
	check = () => true;
	async run(m: Model, r: Real): Promise<void> {
		await settle(r);
		m.running = 0;
	}
	toString = () => 'settle';
}

class Outside implements Cmd {
	constructor(
		readonly what: 'job' | 'captions',
		readonly jobMs: number,
	) {}
	check = () => true;
	async run(_m: Model, r: Real): Promise<void> {
		const api = client(r.sb, r.sb.keys.pro);
		r.outside.push(
			this.what === 'job'
				? api('POST', '/generations', {
						modelId: 'flux-pro',
						params: { sandbox: { durationMs: this.jobMs } },
					})
				: api('POST', `/edits/${r.edit}/captions`, {}),
		);
		await sleep(2);
	}
	toString = () => `outside(${this.what}${this.what === 'job' ? `, ${this.jobMs} ms` : ''})`;
}

class Book implements Cmd {
	constructor(readonly items: HistoryItem[]) {}
	check = () => true;
	async run(_m: Model, r: Real): Promise<void> {
		bookHistory(r, this.items);
		await Promise.resolve();
	}
	toString = () => `book(${JSON.stringify(this.items)})`;
}

/** MediaGen's clock moves on: by minutes, or to near the end of the period (past it or not). */
class Clock implements Cmd {
	constructor(
		readonly turn: boolean,
		readonly minutes: number,
	) {}
	check = () => true;
	async run(_m: Model, r: Real): Promise<void> {
		const now = mediaGenNow();
		const target = this.turn
			? windowAt(r.setup, now).end + this.minutes * MINUTE
			: now + Math.abs(this.minutes) * MINUTE;
		r.sb.control.setClock(Math.max(now + 1_000, target));
		await Promise.resolve();
	}
	toString = () =>
		this.turn ? `turn(${this.minutes} min)` : `step(${Math.abs(this.minutes)} min)`;
}

/** A job outside n8n's control ends early: the user cancels one that is running (returned). */
class CancelOne implements Cmd {
	constructor(readonly pick: number) {}
	check = () => true;
	async run(_m: Model, r: Real): Promise<void> {
		const api = client(r.sb, r.sb.keys.pro);
		const active = (await api('GET', '/generations?status=active&limit=100')).body
			.data as IDataObject[];
		if (!active.length) return;
		const job = active[this.pick % active.length];
		await api('POST', `/generations/${String(job.id)}/cancel`, {});
	}
	toString = () => `cancel(${this.pick})`;
}

/** A new n8n process (a queue-mode worker starting): what this one kept of the ledger is gone. */
class NewProcess implements Cmd {
	check = () => true;
	async run(): Promise<void> {
		forgetLedgers();
		await Promise.resolve();
	}
	toString = () => 'newProcess';
}

export const budgetCommands = fc.commands(
	[
		fc
			.tuple(
				fc.constantFrom<RunKind>('create', 'create', 'create', 'captions', 'highlights', 'tool'),
				fc.integer({ min: 1, max: 6 }),
				fc.boolean(),
				fc.constantFrom(5_000, 50_000, 200_000),
				fc.integer({ min: 1, max: 5 }),
				fc.boolean(),
			)
			.map(([k, n, c, ms, count, wait]) => new StartRun(k, n, c, ms, count, wait)),
		fc.constant(new Settle()),
		fc
			.tuple(fc.constantFrom<'job' | 'captions'>('job', 'captions'), fc.constantFrom(100, 20_000))
			.map(([w, ms]) => new Outside(w, ms)),
		fc.array(historyItem, { minLength: 1, maxLength: 4 }).map((items) => new Book(items)),
		fc
			.tuple(fc.boolean(), fc.integer({ min: -20, max: 40 }))
			.map(([turn, min]) => new Clock(turn, min)),
		fc.nat(9).map((n) => new CancelOne(n)),
		fc.constant(new NewProcess()),
	],
	{ maxCommands: 14, size: 'large' },
);

// ---------------------------------------------------------------------------------------------
// Running a case

/** Books history entries between the ledger's newest entry and MediaGen's clock now. */
function bookHistory(r: Real, items: HistoryItem[]): void {
	const ledger = r.sb.control.ledger('main');
	// after the newest entry and after every read so far: MediaGen books at its clock, so an entry
	// booked after a read is never older than that read (history before the first read goes back)
	const reads = r.seen.map((s) => s.read?.now ?? -Infinity);
	const from = Math.max(
		Date.parse(ledger.at(-1)?.created_at ?? '') || mediaGenNow() - 86_400_000,
		...reads,
	);
	const to = Math.max(from, mediaGenNow() - 1);
	const events: LedgerBooking[] = [];
	for (const h of items) {
		const at = Math.floor(from + (to - from) * h.at);
		const gen = `hist-${++r.histories}`;
		const end = Math.min(to, at + h.minutes * MINUTE);
		const a = h.amount;
		if (h.kind === 'settled')
			events.push(
				{ type: 'reserve', amount: -a, generationId: gen, at },
				{ type: 'release', amount: a, generationId: gen, at: end },
				{ type: 'charge', amount: -a, generationId: gen, at: end },
			);
		else if (h.kind === 'failed')
			events.push(
				{ type: 'reserve', amount: -a, generationId: gen, at },
				{ type: 'release', amount: a, generationId: gen, at: end },
			);
		else if (h.kind === 'busy')
			// a busy stretch: 30 × amount failed jobs (reserved and returned, nothing spent), so that
			// the period holds more than a page of the ledger and a first read reads its older part
			// as settled entries only (docs/budget.md, "What a read of the ledger costs")
			for (let i = 0; i < 30 * a; i++)
				events.push(
					{ type: 'reserve', amount: -1, generationId: `${gen}-${i}`, at: Math.min(to, at + i) },
					{ type: 'release', amount: 1, generationId: `${gen}-${i}`, at: Math.min(to, at + i + 1) },
				);
		else if (h.kind === 'immediate') events.push({ type: 'charge', amount: -a, at });
		else if (h.kind === 'grant') events.push({ type: 'grant', amount: 10 * a, at });
		else if (h.kind === 'adjustment')
			events.push({ type: 'adjustment', amount: a % 2 ? -a : a, at });
		else
			events.push({
				// a type the spec does not list (docs/api-assumptions.md)
				type: (h.kind === 'unknownSpend' ? 'fee' : 'bonus') as LedgerBooking['type'],
				amount: h.kind === 'unknownSpend' ? -a : a,
				at,
			});
	}
	// booking order: by time (stable: a release before its charge)
	events.sort((x, y) => x.at - y.at);
	if (events.length) r.sb.control.bookLedger('main', events);
}

async function settle(r: Real): Promise<void> {
	await Promise.all(r.runs.map((run) => run.done));
	await Promise.allSettled(r.outside);
	const api = client(r.sb, r.sb.keys.pro);
	await until(
		async () =>
			((await api('GET', '/generations?status=active&limit=100')).body.data as IDataObject[])
				.length === 0,
		60_000,
		20,
	);
}

/** The case's start: MediaGen's clock, the balance, the history. */
export async function prepare(
	sb: Sandbox,
	setup: BudgetSetup,
	apiKey: string,
	baseUrl: string,
): Promise<Real> {
	sb.control.reset();
	forgetLedgers();
	const [y, mo, d] = setup.day.split('-').map(Number);
	// noon UTC of the day lies in that local day in every zone of the list but Chatham and Kiribati
	const start = windowAt(setup, Date.UTC(y, mo - 1, d, 12)).start + setup.offsetMin * MINUTE;
	sb.control.setClock(start - 86_400_000);
	const edit = await newEdit(sb);
	const r: Real = {
		sb,
		setup,
		credentials: {
			mediaGenApi: {
				apiKey,
				baseUrl,
				budgetPeriod: setup.period,
				budgetCredits: setup.credits,
				budgetTimeZone: setup.zone,
				budgetFloor: setup.floor,
			},
		},
		edit,
		seen: [],
		runs: [],
		outside: [],
		counter: 0,
		nextExec: 0,
		histories: 0,
		ungate: () => undefined,
	};
	sb.control.setCredits('main', setup.floor + setup.headroom + 40);
	sb.control.setClock(start);
	bookHistory(r, setup.history);
	const ledger = () => sb.control.ledger('main');
	r.ungate = sb.control.gateRequests(async (req) => {
		const mark = req.headers[MARK];
		const s: Seen = {
			exec: typeof mark === 'string' ? mark : 'outside',
			method: req.method,
			path: req.path,
			came: ++r.counter,
		};
		r.seen.push(s);
		return (status, json) => {
			s.answered = ++r.counter;
			s.status = status;
			const body = (json ?? {}) as IDataObject;
			const all = ledger();
			if (status >= 300) return;
			if (req.method === 'GET' && /\/credits\/ledger$/.test(req.path)) {
				const first = (body.data as IDataObject[] | undefined)?.[0];
				// the first page of a read with all=true: its first entry is the newest of all
				if (first && Number(first.id) === all.length)
					s.read = { newest: all.length, now: Math.floor(mediaGenNow() / 1000) * 1000 };
			} else if (req.method === 'POST' && /\/generations$/.test(req.path)) s.gen = String(body.id);
			else if (req.method === 'POST' && /\/estimate$/.test(req.path))
				s.estimate = Number(body.credits);
			else if (req.method === 'POST' && /\/(captions|highlights)$/.test(req.path)) {
				const last = all.at(-1);
				if (last?.type === 'charge' && !last.generation_id) s.charge = last.id;
			}
		};
	});
	return r;
}

export interface BudgetCaseResult {
	violations: string[];
	summary: string;
}

/** Runs one case: the commands, then everything settled, then the checks. */
export async function runBudgetCase(
	sb: Sandbox,
	setup: BudgetSetup,
	commands: Iterable<Cmd>,
	apiKey: string,
	baseUrl: string,
): Promise<BudgetCaseResult> {
	const r = await prepare(sb, setup, apiKey, baseUrl);
	try {
		await fc.asyncModelRun(() => ({ model: { running: 0, runs: 0 }, real: r }), commands);
		await settle(r);
		return check(r);
	} finally {
		await settle(r).catch(() => undefined);
		r.ungate();
		sb.control.setClock(null);
	}
}

// ---------------------------------------------------------------------------------------------
// The rule, walked here (docs/budget.md "The rule every run applies")

interface Entry {
	id: number;
	type: string;
	amount: number;
	gen: string | null;
	at: number;
	balanceAfter: number;
}

interface Standing {
	spent: number;
	reserved: number;
	balance: number;
	blocked: boolean;
	room: number;
}

const KNOWN = new Set(['grant', 'adjustment', 'reserve', 'release', 'charge']);

/**
 * The period from `since` as the ledger's entries up to `newest` show it: spent, reserved, the
 * balance, blocked, the room; per held reservation over the budget, where the period stood
 * before it. `until`: the final ledger's claims (every one settled or returned).
 */
function standing(
	ledger: Entry[],
	since: number,
	newest: number,
	limits: { budget: number; floor: number },
) {
	const prefix = ledger.filter((e) => e.id <= newest);
	const first = prefix.findIndex((e) => e.at >= since);
	const entries = first < 0 ? [] : prefix.slice(first);
	const startBalance = (() => {
		const before = first < 0 ? prefix.at(-1) : prefix[first - 1];
		return before?.balanceAfter ?? 0;
	})();
	const state = new Map<string, { cost: number; state: 'held' | 'returned' | 'settled' }>();
	for (const e of entries) {
		if (e.type === 'reserve' && e.gen) state.set(e.gen, { cost: -e.amount, state: 'held' });
		else if (e.type === 'release' && e.gen && state.has(e.gen))
			state.get(e.gen)!.state = 'returned';
		else if (e.type === 'charge' && e.gen && state.has(e.gen))
			Object.assign(state.get(e.gen)!, { state: 'settled', cost: -e.amount });
	}
	let used = 0;
	let spent = 0;
	let reserved = 0;
	let balance = startBalance;
	let blocked = false;
	const stand = (): Standing => ({
		spent,
		reserved,
		balance,
		blocked,
		room: blocked ? 0 : Math.max(0, Math.min(limits.budget - used, balance - limits.floor)),
	});
	const over = new Map<string, Standing>();
	/** Per claim (generation or entry id): where the period stood before it. */
	const before = new Map<string, Standing>();
	for (const e of entries) {
		const claim = e.gen ? state.get(e.gen) : undefined;
		if (e.type === 'reserve' && claim) {
			if (claim.state === 'returned') continue;
			before.set(e.gen!, stand());
			if (claim.state === 'held') {
				const isOver =
					blocked || used + claim.cost > limits.budget || balance - claim.cost < limits.floor;
				if (isOver) {
					over.set(e.gen!, stand());
					blocked = true;
					continue;
				}
				reserved += claim.cost;
			} else spent += claim.cost;
			used += claim.cost;
			balance -= claim.cost;
		} else if ((e.type === 'release' || e.type === 'charge') && claim) continue;
		else if ((e.type === 'charge' && !e.gen) || (e.amount < 0 && !KNOWN.has(e.type))) {
			before.set(`#${e.id}`, stand());
			spent -= e.amount;
			used -= e.amount;
			balance += e.amount;
		} else balance += e.amount;
	}
	return { now: stand(), over, before };
}

// ---------------------------------------------------------------------------------------------
// The checks

const REFUSAL =
	/^Credit budget: item (\d+) \((.+?)\) was (refused|cancelled once it showed in the credit ledger); (it needs an estimated (\d+) credits?|nothing is left for it|its cost is not known before it starts|its job reserved (\d+) credits?), (\d+) credits? left (?:of the budget of (\d+) credits? per (\w+)(?: with the balance kept above (\d+))?|above the balance floor of (\d+)): (.*?)( \(a reservation before it is already over the budget\))?( before it)?$/;

interface Refusal {
	exec: string;
	index: number;
	cancelled: boolean;
	need: number | 'nothing' | 'unknown';
	left: number;
	spent?: number;
	reserved?: number;
	balance?: number;
	earlier: number;
	blocked: boolean;
	job?: string;
	text: string;
	/** A tool's answer: what it tells the model to do next, and what it says is left. */
	next?: string;
	toolLeft?: number;
}

function parseRefusal(exec: string, message: string, description: string): Refusal | string {
	const m = REFUSAL.exec(message);
	if (!m) return `unparsed refusal: ${message}`;
	const figures = m[12];
	const num = (re: RegExp) => {
		const f = re.exec(figures);
		return f ? Number(f[1]) : undefined;
	};
	const job = /Its job (\S+) was cancelled/.exec(description)?.[1];
	return {
		exec,
		index: Number(m[1]) - 1,
		cancelled: m[3] !== 'refused',
		need: m[5]
			? Number(m[5])
			: m[6]
				? Number(m[6])
				: m[4] === 'nothing is left for it'
					? 'nothing'
					: 'unknown',
		left: Number(m[7]),
		spent: num(/spent (\d+)/),
		reserved: num(/reserved (\d+)/),
		balance: num(/balance (-?\d+)/),
		earlier: num(/this run's earlier items (\d+)/) ?? 0,
		blocked: !!m[13],
		job,
		text: message,
	};
}

function refusalsOf(run: Run): Array<Refusal | string> {
	const out: Array<Refusal | string> = [];
	const r = run.result;
	if (!r) return out;
	if (r.error) {
		if (/^Credit budget/.test(r.error.message))
			out.push(parseRefusal(run.exec, r.error.message, String(r.error.description ?? '')));
		return out;
	}
	if (run.kind === 'tool') {
		for (const { answer } of r.json('Agent')) {
			const a = (Array.isArray(answer) ? answer[0] : answer) as IDataObject | undefined;
			if (!a?.refused) continue;
			const f = parseRefusal(run.exec, String(a.message), String(a.details ?? ''));
			out.push(
				typeof f === 'string'
					? f
					: { ...f, next: String(a.next), toolLeft: Number((a.budget as IDataObject)?.left) },
			);
		}
		return out;
	}
	for (const item of r.json('Op')) {
		const message = String(item.error ?? '');
		if (/^Credit budget/.test(message))
			out.push(parseRefusal(run.exec, message, String(item.description ?? '')));
	}
	return out;
}

function check(r: Real): BudgetCaseResult {
	const { setup } = r;
	const limits = limitsOf(setup);
	const raw = r.sb.control.ledger('main');
	const ledger: Entry[] = raw.map((e) => ({
		id: e.id,
		type: e.type,
		amount: e.amount,
		gen: e.generation_id,
		at: Date.parse(e.created_at),
		balanceAfter: e.balance_after,
	}));
	const newest = ledger.length;
	const byId = new Map(ledger.map((e) => [e.id, e]));
	const violations: string[] = [];
	const reads = (exec: string) => r.seen.filter((s) => s.exec === exec && s.read);
	const since = (at: number) => windowAt(setup, at).start;
	const standAt = (read: NonNullable<Seen['read']>) =>
		standing(ledger, since(read.now), read.newest, limits);

	// other run failures than the budget's: the case cannot be judged
	for (const run of r.runs) {
		// its jobs take at most 2 s: a run that takes minutes waited for nothing (the poller)
		if ((run.ms ?? 0) > SLOW_RUN_MS)
			violations.push(`${run.exec}: the run took ${Math.round((run.ms ?? 0) / 1000)} s`);
		const e = run.result?.error;
		// refused by the budget, 402, or a job cancelled outside n8n while the run waited for it
		if (e && !/^Credit budget|Not enough credits|^Job \S+ cancelled/.test(e.message))
			violations.push(`${run.exec}: the run failed otherwise: ${e.message}`);
	}

	// 1. spending over the budget, per claim of an n8n run
	const claims: Claimed[] = [];
	for (const s of r.seen) {
		if (s.exec === 'outside') continue;
		if (s.gen) {
			const reserve = ledger.find((e) => e.type === 'reserve' && e.gen === s.gen);
			if (reserve)
				claims.push({ seen: s, gen: s.gen, entry: reserve, cost: -reserve.amount, kind: 'job' });
		} else if (s.charge !== undefined) {
			const e = byId.get(s.charge)!;
			claims.push({ seen: s, entry: e, cost: -e.amount, kind: 'now' });
		}
	}
	const overBy = new Map<number, number>();
	/** Credits over the budget by the documented bound that allows them. */
	const allowed = new Map<string, number>();
	for (const c of claims) {
		// every call an n8n run sent fitted in what its last read left (a job that did not is
		// cancelled later, but should not have been sent)
		const decision = decisionOf(r, c);
		if (decision?.read && since(decision.read.now) === since(c.entry.at)) {
			const fit = fitted(r, c, decision, ledger, limits, since(c.entry.at));
			if (fit) violations.push(`${c.seen.exec} ${c.seen.method} ${c.seen.path}: ${fit}`);
		}
		const final = standing(ledger, since(c.entry.at), newest, limits);
		const key = c.gen ?? `#${c.entry.id}`;
		const charged = c.kind === 'now' || ledger.some((e) => e.type === 'charge' && e.gen === c.gen);
		if (!charged) continue;
		const room = final.before.get(key)?.room ?? 0;
		const excess = Math.max(0, c.cost - room);
		if (!excess) continue;
		const period = since(c.entry.at);
		overBy.set(period, (overBy.get(period) ?? 0) + excess);
		const excuse = excused(r, c, ledger, limits, since);
		if (typeof excuse !== 'string') {
			allowed.set(excuse.allowed, (allowed.get(excuse.allowed) ?? 0) + excess);
			continue;
		}
		violations.push(
			`${c.seen.exec} ${c.seen.method} ${c.seen.path} (entry ${c.entry.id}, ${c.cost} credits) charged ${excess} over the budget: ${excuse}`,
		);
	}

	// 2, 3. refusals
	let refusals = 0;
	for (const run of r.runs) {
		for (const f of refusalsOf(run)) {
			refusals++;
			if (typeof f === 'string') {
				violations.push(`${run.exec}: ${f}`);
				continue;
			}
			const wrong = judgeRefusal(r, run, f, ledger, limits, reads(run.exec), standAt);
			if (wrong) violations.push(`${run.exec} item ${f.index + 1}: ${wrong}: ${f.text}`);
		}
	}
	const over = [...overBy.entries()].map(
		([p, n]) => `${n} over in the period of ${new Date(p).toISOString()}`,
	);
	const why = [...allowed.entries()].map(([k, n]) => `${n} ${k}`);
	const summary = `${r.runs.length} runs, ${ledger.length} entries, ${claims.length} charging calls of n8n, ${refusals} refused${over.length ? `, ${over.join(', ')} (${why.join(', ')})` : ''}`;
	return { violations, summary };
}

/** Why an n8n charge over the budget is one the documented bounds allow (true), or what is wrong. */
/** A charging call of an n8n run: its request, its claim's entry (reserve or charge), its cost. */
interface Claimed {
	seen: Seen;
	gen?: string;
	entry: Entry;
	cost: number;
	kind: 'job' | 'now';
}

function excused(
	r: Real,
	c: Claimed,
	ledger: Entry[],
	limits: { budget: number; floor: number },
	since: (at: number) => number,
): { allowed: string } | string {
	const own = r.seen.filter((s) => s.exec === c.seen.exec);
	const decision = decisionOf(r, c);
	if (!decision?.read) return 'sent without a read of the ledger before it';
	const period = since(c.entry.at);
	if (period === since(decision.read.now)) {
		const fit = fitted(r, c, decision, ledger, limits, period);
		if (fit) return fit;
	} else if (c.kind === 'now') return { allowed: 'decided in the period before' };
	// charged at once: runs (or work outside n8n) that booked since its run's read (the race)
	if (c.kind === 'now')
		return { allowed: /highlights$/.test(c.seen.path) ? 'no estimate' : 'charged at once, race' };
	// a job (also one let through in the period before): judged at its run's next look
	const charge = ledger.find((e) => e.type === 'charge' && e.gen === c.gen)!;
	const next = own.find((s) => s.read && s.came > (c.seen.answered ?? Infinity));
	if (!next?.read) return 'its run never looked at the ledger after it was created';
	if (since(next.read.now) !== period) return { allowed: 'looked again in the next period' };
	if (charge.id <= next.read.newest) return { allowed: 'ended before its run looked again' };
	// over at that look, its cancel too late: the job ended first (docs/budget.md, the rule)
	if (own.some((s) => s.method === 'POST' && s.path.endsWith(`/${c.gen}/cancel`)))
		return { allowed: 'ended before its cancel' };
	return `the job was still held at its run's next look (entry ${next.read.newest}) and was not cancelled`;
}

/** The last read of the ledger its run had answered when it sent a call. */
const decisionOf = (r: Real, c: Claimed) =>
	r.seen
		.filter((s) => s.exec === c.seen.exec && s.read && (s.answered ?? Infinity) < c.seen.came)
		.at(-1);

/** Whether an item fitted in what its run's last read before it left: undefined, or what is wrong. */
function fitted(
	r: Real,
	c: Claimed,
	decision: Seen,
	ledger: Entry[],
	limits: { budget: number; floor: number },
	period: number,
): string | undefined {
	const own = r.seen.filter((s) => s.exec === c.seen.exec);
	const at = standing(ledger, period, decision.read!.newest, limits).now;
	const between = own.filter(
		(s) => s.came > (decision.answered ?? 0) && s.came < c.seen.came && (s.gen || s.charge),
	);
	const earlier = between.reduce((n, s) => {
		if (s.charge !== undefined) return n - (ledger.find((e) => e.id === s.charge)?.amount ?? 0);
		return n - (ledger.find((e) => e.type === 'reserve' && e.gen === s.gen)?.amount ?? 0);
	}, 0);
	const unpriced = /highlights$/.test(c.seen.path);
	if (unpriced) {
		if (between.some((s) => /highlights$/.test(s.path)))
			return 'a second call without an estimate sent without a read of the ledger between';
		if (at.room - earlier <= 0)
			return `sent without an estimate though its run's last read left nothing (room ${at.room}, earlier items ${earlier})`;
	} else if (at.room - earlier < c.cost)
		return `sent though its run's last read left ${at.room - earlier} (room ${at.room}, earlier items ${earlier})`;
	return undefined;
}

function judgeRefusal(
	r: Real,
	run: Run,
	f: Refusal,
	ledger: Entry[],
	limits: { budget: number; floor: number },
	reads: Seen[],
	standAt: (read: NonNullable<Seen['read']>) => ReturnType<typeof standing>,
): string | undefined {
	const { setup } = r;
	const sameFigures = (s: Standing) =>
		(setup.period === 'off' || (s.spent === f.spent && s.reserved === f.reserved)) &&
		(setup.floor <= 0 || s.balance === f.balance) &&
		s.blocked === f.blocked;
	if (f.cancelled) {
		if (!f.job) return 'a cancellation without its job';
		if (ledger.some((e) => e.type === 'charge' && e.gen === f.job))
			return 'said cancelled, but its job was charged';
		const fits = reads.some((s) => {
			const over = standAt(s.read!).over.get(f.job!);
			return over && sameFigures(over) && f.left === over.room;
		});
		return fits ? undefined : "its job was over at none of its run's reads with these figures";
	}
	const matches = reads.filter((s) => sameFigures(standAt(s.read!).now));
	if (!matches.length)
		return `its figures are those of none of its run's ${reads.length} reads of the ledger (${reads
			.map((s) => {
				const n = standAt(s.read!).now;
				return `spent ${n.spent}, reserved ${n.reserved}, balance ${n.balance}${n.blocked ? ', blocked' : ''}`;
			})
			.join('; ')})`;
	const room = standAt(matches.at(-1)!.read!).now.room;
	if (matches.every((s) => Math.max(0, standAt(s.read!).now.room - f.earlier) !== f.left))
		return `says ${f.left} left, its read left ${room} less ${f.earlier} of its earlier items`;
	if (typeof f.need === 'number' && f.need <= f.left)
		return `needs ${f.need}, ${f.left} left: it fitted`;
	if (f.need === 'unknown' && f.left > 0)
		return `a call without an estimate refused with ${f.left} left`;
	if (f.need === 'nothing' && (f.left > 0 || room > 0))
		return `"nothing is left" with ${room} left`;
	if (f.next !== undefined) {
		// a tool's answer: "used up" (do not call again) only when nothing is left
		const usedUp = /^Nothing more can be started/.test(f.next);
		if (usedUp !== (f.left === 0)) return `the tool says "${f.next}" with ${f.left} left`;
		if (f.toolLeft !== f.left)
			return `the tool's budget.left is ${f.toolLeft}, its message says ${f.left}`;
	}
	// the earlier items it counts are this run's, before it (one let through before the refusal
	// may be refused or cancelled later: not told apart here)
	const unit = run.kind === 'captions' ? capCost(r) : run.kind === 'create' ? JOB_COST : 0;
	if (f.earlier > f.index * unit)
		return `counts ${f.earlier} of earlier items, its ${f.index} earlier items take at most ${f.index * unit}`;
	return undefined;
}

/** Create Captions' cost on the case's edit (its estimate as answered). */
const capCost = (r: Real) =>
	r.seen.find((s) => s.estimate !== undefined && /captions\/estimate$/.test(s.path))?.estimate ??
	Infinity;

// ---------------------------------------------------------------------------------------------
// The property

export interface BudgetSimOptions {
	seed: number;
	runs: number;
	path?: string;
	onCase?: (setup: BudgetSetup, commands: string, result: BudgetCaseResult, ms: number) => void;
}

/** Runs the property; fast-check's report of the first broken invariant (seed, path, case). */
export async function simulateBudget(
	sb: Sandbox,
	options: BudgetSimOptions,
): Promise<{ cases: number; ms: number; failure?: string }> {
	let cases = 0;
	const started = Date.now();
	const property = fc.asyncProperty(budgetSetup, budgetCommands, async (setup, commands) => {
		const t = Date.now();
		const result = await runBudgetCase(sb, setup, commands, sb.keys.pro, sb.baseUrl);
		cases++;
		options.onCase?.(setup, String(commands), result, Date.now() - t);
		if (result.violations.length)
			throw new Error(`${result.violations.join('\n')}\n(${result.summary})`);
	});
	const details = await fc.check(property, {
		seed: options.seed,
		numRuns: options.runs,
		...(options.path ? { path: options.path } : {}),
	});
	if (!details.failed) return { cases, ms: Date.now() - started };
	const message = details.errorInstance instanceof Error ? details.errorInstance.message : '';
	return {
		cases,
		ms: Date.now() - started,
		failure: `${fc.defaultReportMessage(details) ?? ''}\n${message}\nReplay: BUDGET_SIM_SEED=${details.seed} BUDGET_SIM_PATH="${details.counterexamplePath ?? ''}" npm run simulate:budget`,
	};
}
