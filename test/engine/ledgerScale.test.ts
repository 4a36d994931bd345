/**
 * The credit budget's ledger reads at a busy workspace's scale (issue #38, findings 2 and 3), in
 * n8n-core's engine against the sandbox with a month of 10,000 and of 70,000 jobs booked in its
 * ledger: the first read of a process reads reservations only back to the oldest held one (and
 * settled entries before it), and later reads send a constant few requests however long the
 * period is, past the old cache's 200,000 entries too.
 */
import type { IDataObject } from 'n8n-workflow';

import { forgetLedgers, keptLedgers } from '../../nodes/shared/budget/ledgerRead';
import { mediaGen, runWorkflow, chain } from './harness';
import { MONTH, seedMonth, seededSpend } from './ledgerSeed';
import { fastJobs, generationCreate, useSandbox } from './setup';

const { sb, creds } = useSandbox({ timeScale: 0.01 });
fastJobs();
beforeEach(() => forgetLedgers());

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
