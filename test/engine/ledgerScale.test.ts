/**
 * The credit budget's ledger reads at a busy workspace's scale (issue #38, findings 2 and 3), in
 * n8n-core's engine against the sandbox with a month of 10,000 and of 70,000 jobs booked in its
 * ledger: the first read of a process reads reservations only back to the oldest held one (and
 * settled entries before it), and later reads send a constant few requests however long the
 * period is, past the old cache's 200,000 entries too; a new process's first read of a workflow
 * that saved its summary in its static data reads back only to that summary.
 */
import { createHash } from 'node:crypto';
import type { IDataObject, IWorkflowBase } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { forgetLedgers, keptLedgers, LEDGER } from '../../nodes/shared/budget/ledgerRead';
import type { LedgerSummary } from '../../nodes/shared/budget/ledgerSummary';
import { openSummary, sealSummary, slotOf, SUMMARY } from '../../nodes/shared/budget/ledgerSummary';
import { mediaGen, runWorkflow, chain } from '../harness/engine/harness';
import { budgetRequests, keyLoad, mostWithin } from '../harness/engine/keyLoad';
import { MONTH, seedMonth, seedMore, seededSpend } from '../harness/engine/ledgerSeed';
import { fastJobs, generationCreate, useSandbox } from '../harness/engine/setup';

const { sb, creds } = useSandbox({ timeScale: 0.01 });
fastJobs();
const SHIPPED = { ...LEDGER };
beforeEach(() => {
	forgetLedgers();
	LEDGER.readsPerMinute = 60_000_000; // the counts, not the pace (its own tests below)
});
afterAll(() => Object.assign(LEDGER, SHIPPED));

const ledgerReads = () => sb.control.requests({ method: 'GET', path: '/credits/ledger' }).length;
/** A run of 2 generations on a credential with a monthly budget that has room. */
async function run(budget = 10_000_000, continueOnFail = false) {
	const credentials = creds();
	Object.assign(credentials.mediaGenApi, {
		budgetPeriod: 'month',
		budgetTimeZone: 'UTC',
		budgetCredits: budget,
	});
	const node = mediaGen('Generate', generationCreate({}, 300), { typeVersion: 2, continueOnFail });
	const before = ledgerReads();
	const r = await runWorkflow(chain([{ row: 1 }, { row: 2 }], [node]), { credentials });
	return { r, ledger: ledgerReads() - before };
}

describe('a month of jobs in the ledger', () => {
	test('10,000 jobs: the first read of a process sends at most 130 ledger requests (the whole period: about 290); a later run a few', async () => {
		const booked = seedMonth(sb, 10_000);
		expect(booked).toBeGreaterThan(29_000);
		const first = await run();
		expect(first.r.error).toBeUndefined();
		expect(first.r.json('Generate').map((o: IDataObject) => o.status)).toEqual([
			'completed',
			'completed',
		]);
		expect(first.ledger).toBeLessThanOrEqual(130);
		const second = await run();
		expect(second.r.error).toBeUndefined();
		expect(second.ledger).toBeLessThanOrEqual(8);
		// what is kept per credential: the entries from the oldest held reservation (none held now)
		expect(Math.max(...keptLedgers().map((k) => k.entries))).toBeLessThanOrEqual(2_000);
	});

	test('a key that may not list generations (403 on the active list): the first read reads the whole period, as before', async () => {
		seedMonth(sb, 10_000);
		sb.control.addFault({
			kind: 'fail',
			method: 'GET',
			path: '/generations$',
			status: 403,
			code: 'insufficient_scope',
			count: 1,
		});
		const first = await run();
		expect(first.r.error).toBeUndefined();
		expect(first.r.json('Generate').map((o: IDataObject) => o.status)).toEqual([
			'completed',
			'completed',
		]);
		const refused = sb.control
			.requests({ method: 'GET', path: '/generations$' })
			.filter((r) => r.status === 403);
		expect(refused).toHaveLength(1);
		expect(first.ledger).toBeGreaterThan(280);
		const second = await run();
		expect(second.ledger).toBeLessThanOrEqual(8);
	});

	test('the budget counts the month as the whole read does: a job reserved before the month and charged in it counts for December', async () => {
		seedMonth(sb, 2_000);
		const spent = seededSpend(2_000);
		// room for exactly one more job of 4 credits
		const r = await run(spent + MONTH.cost, true);
		const out = r.r.json('Generate');
		expect(out.map((o: IDataObject) => o.status ?? 'error')).toEqual(['completed', 'error']);
		expect(String(out[1].error)).toMatch(/^Credit budget: item 2 \(Create\) was refused/);
	});

	test('no cliff: 70,000 jobs (over 200,000 entries, past the old cache): later runs send a constant few ledger requests', async () => {
		const booked = seedMonth(sb, 70_000);
		expect(booked).toBeGreaterThan(200_000);
		const first = await run();
		expect(first.r.error).toBeUndefined();
		// settled entries only, one request per 100 (63,000 charges), where the whole period took 2,030
		expect(first.ledger).toBeLessThanOrEqual(700);
		const later: number[] = [];
		for (let i = 0; i < 3; i++) {
			const next = await run();
			expect(next.r.error).toBeUndefined();
			later.push(next.ledger);
		}
		expect(Math.max(...later)).toBeLessThanOrEqual(8);
		expect(Math.max(...keptLedgers().map((k) => k.entries))).toBeLessThanOrEqual(2_000);
	}, 120_000);
});

/**
 * The budget's pace and the key's limit (120 requests a minute) with a minute played in 6 s: the
 * sandbox's window and the pace's rate (LEDGER.readsPerMinute) scaled alike, the burst as shipped.
 * Beside the run, the user's other workflows on the key send 60 requests a minute, never retried.
 */
describe("the budget's reads yield to the key's rate limit (a minute played in 6 s)", () => {
	const MINUTE_MS = 6_000;
	const scaled = (perMinute: number) => perMinute * (60_000 / MINUTE_MS);
	beforeEach(() => {
		LEDGER.readsPerMinute = scaled(SHIPPED.readsPerMinute);
		sb.control.setConfig({ rateLimitPerMinute: 120, rateLimitWindowMs: MINUTE_MS });
	});

	/** A first read of a 10,000-job month with room for one more job, the user's load beside it. */
	async function contended() {
		seedMonth(sb, 10_000);
		sb.control.clearRequests();
		const load = keyLoad(sb, MINUTE_MS / 60);
		await sleep(MINUTE_MS / 6); // the user's load runs before the run starts
		const started = Date.now();
		const first = await run(seededSpend(10_000) + MONTH.cost, true);
		const tookMs = Date.now() - started;
		await sleep(MINUTE_MS); // and a whole minute after it
		await load.stop();
		const budget = budgetRequests(sb);
		return { first, tookMs, load, budget, times: budget.map((r) => Date.parse(r.time)) };
	}

	test("a first read of a 10,000-job month sends at most the pace (10 at once, then 30 a minute); the user's 60 requests a minute on the key are never refused; the run finishes within the budget", async () => {
		const { first, tookMs, load, budget, times } = await contended();
		expect(first.r.error).toBeUndefined();
		const out = first.r.json('Generate');
		expect(out.map((o: IDataObject) => o.status ?? 'error')).toEqual(['completed', 'error']);
		expect(String(out[1].error)).toMatch(/^Credit budget: item 2 \(Create\) was refused/);
		expect(load.answers.length).toBeGreaterThanOrEqual(60);
		expect(load.refused()).toBe(0);
		expect(load.answers.every((a) => a.status === 200)).toBe(true);
		// the pace bites: more requests than a minute's burst and rate
		const perMinute = SHIPPED.readsBurst + SHIPPED.readsPerMinute;
		expect(budget.length).toBeGreaterThan(perMinute + 20);
		// a read's first request is not paced: at most one per read more (the first read, 3 after)
		expect(mostWithin(times, MINUTE_MS)).toBeLessThanOrEqual(perMinute + 4);
		expect(budget.filter((r) => r.status === 429)).toHaveLength(0);
		const paced = budget.length - SHIPPED.readsBurst - 4;
		expect(tookMs).toBeGreaterThanOrEqual((paced / SHIPPED.readsPerMinute) * MINUTE_MS * 0.9);
	}, 120_000);

	test('the same read without the pace (as before it): its burst takes the key, and the user load is refused', async () => {
		LEDGER.readsPerMinute = 60_000_000;
		const { first, load } = await contended();
		expect(first.r.error).toBeUndefined();
		expect(load.refused()).toBeGreaterThan(10);
	}, 120_000);

	test('a read that meets the key used up (a 429) waits for its Retry-After, on the pace, and the run finishes', async () => {
		seedMonth(sb, 2_000);
		sb.control.clearRequests();
		// other workflows used the whole minute just now
		const others = await Promise.all(
			Array.from({ length: 120 }, async () => {
				const res = await fetch(`${sb.baseUrl}/credits`, {
					headers: { authorization: `Bearer ${sb.keys.pro}` },
				});
				await res.arrayBuffer();
				return res.status;
			}),
		);
		expect(others.filter((status) => status === 200)).toHaveLength(120);
		const first = await run(seededSpend(2_000) + MONTH.cost, true);
		expect(first.r.error).toBeUndefined();
		expect(first.r.json('Generate').map((o: IDataObject) => o.status ?? 'error')).toEqual([
			'completed',
			'error',
		]);
		const budget = budgetRequests(sb);
		expect(budget.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(1);
		expect(budget.filter((r) => r.status === 200).length).toBeGreaterThan(20);
	}, 120_000);

	test("later reads are not paced: right after a first read has spent the pace's turns, a run's reads go at once", async () => {
		seedMonth(sb, 10_000);
		const first = await run();
		expect(first.r.error).toBeUndefined();
		expect(first.ledger).toBeGreaterThan(SHIPPED.readsBurst + 20);
		// the pace as shipped, in real time: a turn every 2 s, and none left now
		LEDGER.readsPerMinute = SHIPPED.readsPerMinute;
		const started = Date.now();
		const later = await run();
		expect(later.r.error).toBeUndefined();
		expect(later.ledger).toBeGreaterThanOrEqual(2);
		expect(later.ledger).toBeLessThanOrEqual(8);
		expect(Date.now() - started).toBeLessThan(3_000);
	}, 120_000);
});

test('runs that start together on a process that knows nothing of the ledger make one first read between them', async () => {
	seedMonth(sb, 10_000);
	const before = ledgerReads();
	const both = await Promise.all([run(), run()]);
	for (const { r } of both) {
		expect(r.error).toBeUndefined();
		expect(r.json('Generate').map((o: IDataObject) => o.status)).toEqual([
			'completed',
			'completed',
		]);
	}
	// one first read (95 requests) and a few after it; a first read each: about 190
	expect(ledgerReads() - before).toBeLessThanOrEqual(130);
}, 120_000);

/**
 * A new process's first read from the summary the workflow saved in its static data (#38,
 * finding 3): n8n saves a workflow's changed static data after every execution that is not
 * manual (the harness as n8n: `mode: 'trigger'` here), and the next execution starts with it.
 */
describe("a new process's first read from the workflow's saved summary (finding 3)", () => {
	const JOBS = 10_000;
	const LABEL = 'month|UTC';
	/** This credential's slot in the static data (the Base URL and a hash of the key, hashed). */
	const slot = () =>
		slotOf(
			`${sb.baseUrl}|${createHash('sha256').update(sb.keys.pro).digest('hex').slice(0, 24)}`,
			LABEL,
		);
	const saved = (wf: IWorkflowBase) =>
		(wf.staticData?.global as IDataObject | undefined)?.[SUMMARY.field] as IDataObject | undefined;

	/** A 2-item Generation → Create (Continue On Fail) on a monthly budget, as production runs it. */
	function workflow(): IWorkflowBase {
		const node = mediaGen('Generate', generationCreate({}, 300), {
			typeVersion: 2,
			continueOnFail: true,
		});
		return chain([{ row: 1 }, { row: 2 }], [node]);
	}
	async function runOn(wf: IWorkflowBase, budget: number, mode: 'trigger' | 'manual' = 'trigger') {
		const credentials = creds();
		Object.assign(credentials.mediaGenApi, {
			budgetPeriod: 'month',
			budgetTimeZone: 'UTC',
			budgetCredits: budget,
		});
		const before = ledgerReads();
		const r = await runWorkflow(wf, { credentials, mode });
		expect(r.error).toBeUndefined();
		const out = r.json('Generate').map((o: IDataObject) => String(o.error ?? o.status));
		return { out, ledger: ledgerReads() - before };
	}
	/** A new n8n process: nothing of the ledger kept in memory. */
	const newProcess = () => forgetLedgers();
	const copy = (wf: IWorkflowBase): IWorkflowBase => ({
		...wf,
		staticData: JSON.parse(JSON.stringify(wf.staticData ?? {})) as IDataObject,
	});

	let spentNow = 0;
	let wf: IWorkflowBase;
	/** What the whole first read answers (no summary) on the ledger as it is now. */
	let baseline: { out: string[]; ledger: number };
	beforeEach(async () => {
		seedMonth(sb, JOBS);
		wf = workflow();
		// the editor's run saves no static data (n8n: not in manual mode)
		await runOn(wf, 10_000_000, 'manual');
		expect(wf.staticData).toBeUndefined();
		newProcess();
		const first = await runOn(wf, 10_000_000);
		expect(first.out).toEqual(['completed', 'completed']);
		expect(first.ledger).toBeGreaterThan(80);
		expect(saved(wf)?.[slot()]).toBeDefined();
		spentNow = seededSpend(JOBS) + 4 * MONTH.cost; // two runs of 2 jobs
		// nothing left: every item refused from the first read's figures, nothing booked
		newProcess();
		baseline = await runOn(workflow(), spentNow);
		expect(baseline.out).toHaveLength(2);
		expect(baseline.out[0]).toMatch(
			new RegExp(`^Credit budget: item 1 \\(Create\\) was refused.*spent ${spentNow}, reserved 0`),
		);
		expect(baseline.ledger).toBeGreaterThan(80);
		newProcess();
	}, 120_000);

	test('10,000 jobs: the first run of a new process reads the ledger back to the summary only (a few requests, about 96 without), with the same answer', async () => {
		const restored = await runOn(wf, spentNow);
		expect(restored.out).toEqual(baseline.out);
		expect(restored.ledger).toBeLessThanOrEqual(3);
		// work goes on from it: room for one more job of 4 credits, in another new process
		newProcess();
		const more = await runOn(wf, spentNow + MONTH.cost);
		expect(more.out[0]).toBe('completed');
		expect(more.out[1]).toMatch(
			new RegExp(
				`^Credit budget: item 2 \\(Create\\) was refused.*spent ${spentNow}, reserved 0 this month, this run's earlier items 4`,
			),
		);
		expect(more.ledger).toBeLessThanOrEqual(8);
		// a day of the workspace's other work since (500 jobs, 1,450 entries, 15 pages), a new
		// process: read back to the summary's anchor (about 96 requests without it)
		seedMore(sb, 500, 86_400_000);
		newProcess();
		const dayLater = await runOn(wf, 10_000_000);
		expect(dayLater.out).toEqual(['completed', 'completed']);
		expect(dayLater.ledger).toBeLessThanOrEqual(25);
	}, 120_000);

	/** The saved summary changed by `edit`; the run must read as without it and answer the same. */
	async function fallsBack(edit: (s: IDataObject) => IDataObject) {
		const tampered = copy(wf);
		const global = tampered.staticData?.global as IDataObject;
		const slots = global[SUMMARY.field] as IDataObject;
		slots[slot()] = edit(slots[slot()] as IDataObject);
		newProcess();
		const r = await runOn(tampered, spentNow);
		expect(r.out).toEqual(baseline.out);
		expect(r.ledger).toBeGreaterThan(80);
	}
	/** The summary as saved, opened, changed and sealed again with `secret` (a valid HMAC). */
	const resealed =
		(change: (s: LedgerSummary) => LedgerSummary, secret = sb.keys.pro) =>
		(s: IDataObject) => {
			const open = openSummary(s, slot(), LABEL, sb.keys.pro);
			if (!open) throw new Error('the saved summary does not verify');
			return sealSummary(change(open), slot(), LABEL, secret) as IDataObject;
		};

	test('a summary edited in the static data (its spent lowered) is refused: the whole first read, the same answer', async () => {
		await fallsBack((s) => ({ ...s, spent: Number(s.spent) - 100 }));
	}, 120_000);

	test('a summary sealed with another key is refused: the whole first read, the same answer', async () => {
		await fallsBack(resealed((s) => s, sb.keys.readOnly));
	}, 120_000);

	test("a summary of another period (December's) is not used: the whole first read, the same answer", async () => {
		await fallsBack(resealed((s) => ({ ...s, since: Date.UTC(2026, 11, 1) })));
	}, 120_000);

	test('a summary whose anchor is not on the ledger (another entry at its id; an id newer than the ledger) is not used', async () => {
		await fallsBack(
			resealed((s) => ({ ...s, anchor: { ...s.anchor, amount: s.anchor.amount - 1 } })),
		);
		await fallsBack(resealed((s) => ({ ...s, anchor: { ...s.anchor, id: s.anchor.id + 1_000 } })));
	}, 120_000);
});
