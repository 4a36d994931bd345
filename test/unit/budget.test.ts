/**
 * The credit budget's rule over the ledger (nodes/shared/budget/ledger.ts, walkLedger) and its
 * periods (settings.ts): which reservations are within and which over, and the property every
 * run relies on: a reservation within for one reader stays within for every later reader.
 */
import type { LedgerEntry } from '../../nodes/shared/budget/ledger';
import { walkLedger } from '../../nodes/shared/budget/ledger';
import { budgetSettings, periodWindow } from '../../nodes/shared/budget/settings';

/** A ledger being booked: reservations, returns, settlements, immediate charges, grants. */
class Book {
	readonly entries: LedgerEntry[] = [];
	balance = 0;
	private add(type: string, amount: number, gen: string | null) {
		this.balance += amount;
		this.entries.push({
			id: this.entries.length + 1,
			type,
			amount,
			gen,
			at: 1_000 + this.entries.length,
			balanceAfter: this.balance,
		});
	}
	grant(n: number) {
		this.add('grant', n, null);
	}
	reserve(gen: string, cost: number) {
		this.add('reserve', -cost, gen);
	}
	release(gen: string, cost: number) {
		this.add('release', cost, gen);
	}
	settle(gen: string, cost: number) {
		this.add('release', cost, gen);
		this.add('charge', -cost, gen);
	}
	immediate(cost: number) {
		this.add('charge', -cost, null);
	}
}

const state = (w: ReturnType<typeof walkLedger>) =>
	w.claims.map((c) => `${c.gen ?? 'now'}:${c.state}${c.over ? ':over' : ''}`);

describe('the rule', () => {
	test('in booking order: within while it fits, then over, and every held one after an over one too', () => {
		const b = new Book();
		b.grant(100);
		b.reserve('a', 4);
		b.reserve('b', 4);
		b.reserve('c', 4);
		b.reserve('d', 1);
		const w = walkLedger(b.entries, 0, { budget: 9 });
		expect(state(w)).toEqual(['a:held', 'b:held', 'c:held:over', 'd:held:over']);
		expect(w).toMatchObject({ spent: 0, reserved: 8, blocked: true, room: 0 });
	});

	test('a returned reservation does not count; a settled one and an immediate charge always do', () => {
		const b = new Book();
		b.grant(100);
		b.reserve('a', 4);
		b.reserve('b', 4);
		b.release('a', 4);
		b.reserve('c', 4);
		b.settle('b', 4);
		b.immediate(3);
		const w = walkLedger(b.entries, 0, { budget: 12 });
		expect(state(w)).toEqual(['a:returned', 'b:settled', 'c:held', 'now:immediate']);
		expect(w).toMatchObject({ spent: 7, reserved: 4, room: 1, blocked: false });
	});

	test('an over reservation that was charged anyway (its cancel came too late) counts', () => {
		const b = new Book();
		b.grant(100);
		b.reserve('a', 8);
		b.reserve('b', 8);
		expect(state(walkLedger(b.entries, 0, { budget: 10 }))).toEqual(['a:held', 'b:held:over']);
		b.settle('b', 8);
		const w = walkLedger(b.entries, 0, { budget: 10 });
		expect(w).toMatchObject({ spent: 8, reserved: 8, room: 0 });
	});

	test('the floor: the spendable balance as if over reservations were returned; work of an earlier period changes it', () => {
		const b = new Book();
		b.grant(50);
		b.reserve('old', 10); // before the period
		const anchor = b.balance; // 40
		const from = b.entries.length;
		b.reserve('a', 10);
		b.reserve('b', 10);
		b.settle('old', 10); // settled in the period: release + charge, no change
		b.reserve('c', 10);
		const w = walkLedger(b.entries.slice(from), anchor, { floor: 15 });
		expect(state(w)).toEqual(['a:held', 'b:held', 'c:held:over']);
		expect(w.balance).toBe(20);
		expect(w.claims.find((c) => c.gen === 'c')?.before).toMatchObject({ balance: 20, room: 5 });
	});

	test('a generation retried reserves again: a new claim', () => {
		const b = new Book();
		b.grant(100);
		b.reserve('a', 4);
		b.release('a', 4);
		b.reserve('a', 4);
		const w = walkLedger(b.entries, 0, { budget: 4 });
		expect(state(w)).toEqual(['a:returned', 'a:held']);
		expect(w.byGen.get('a')?.entry).toBe(4);
	});

	test('property: a reservation within for a reader is never over for a later one (random ledgers)', () => {
		let seed = 7;
		const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
		for (let round = 0; round < 300; round++) {
			const b = new Book();
			b.grant(60 + Math.floor(random() * 60));
			const held = new Map<string, number>();
			const limits = random() < 0.5 ? { budget: 30 } : { budget: 40, floor: 20 };
			const seen = new Map<number, boolean>();
			for (let step = 0; step < 60; step++) {
				const r = random();
				const open = [...held.entries()];
				if (r < 0.45 || !open.length) {
					const gen = `g${step}`;
					const cost = 1 + Math.floor(random() * 8);
					b.reserve(gen, cost);
					held.set(gen, cost);
				} else if (r < 0.65) {
					const [gen, cost] = open[Math.floor(random() * open.length)];
					b.release(gen, cost);
					held.delete(gen);
				} else if (r < 0.85) {
					const [gen, cost] = open[Math.floor(random() * open.length)];
					b.settle(gen, cost);
					held.delete(gen);
				} else if (r < 0.95) b.immediate(1 + Math.floor(random() * 3));
				else b.grant(5);
				const w = walkLedger(b.entries, 0, limits);
				for (const c of w.claims) {
					if (c.state !== 'held') continue;
					if (seen.get(c.entry) === true)
						expect({ entry: c.entry, over: c.over }).toEqual({ entry: c.entry, over: false });
					if (!c.over) seen.set(c.entry, true);
				}
			}
		}
	});
});

describe('periods and settings', () => {
	test('no budget: undefined (no request is ever sent for it)', () => {
		expect(budgetSettings({ apiKey: 'k', baseUrl: 'https://x/v1' })).toBeUndefined();
		expect(budgetSettings({ budgetPeriod: 'off', budgetFloor: 0 })).toBeUndefined();
		expect(budgetSettings({ budgetPeriod: 'week', budgetCredits: 50 })).toEqual({
			period: 'week',
			credits: 50,
			timeZone: 'UTC',
			floor: 0,
		});
		expect(budgetSettings({ budgetFloor: 10 })).toEqual({ timeZone: 'UTC', floor: 10 });
	});

	test.each([
		['day', 'UTC', '2026-05-01T12:00:00Z', '2026-05-01T00:00:00.000Z', '2026-05-02T00:00:00.000Z'],
		// the day summer time starts in Berlin has 23 hours
		[
			'day',
			'Europe/Berlin',
			'2026-03-28T23:30:00Z',
			'2026-03-28T23:00:00.000Z',
			'2026-03-29T22:00:00.000Z',
		],
		// weeks start on Monday, midnight in the zone
		[
			'week',
			'Europe/Berlin',
			'2026-05-03T21:59:00Z',
			'2026-04-26T22:00:00.000Z',
			'2026-05-03T22:00:00.000Z',
		],
		[
			'week',
			'Europe/Berlin',
			'2026-05-03T22:01:00Z',
			'2026-05-03T22:00:00.000Z',
			'2026-05-10T22:00:00.000Z',
		],
		[
			'month',
			'America/New_York',
			'2026-11-01T03:00:00Z',
			'2026-10-01T04:00:00.000Z',
			'2026-11-01T04:00:00.000Z',
		],
		[
			'month',
			'Asia/Kolkata',
			'2026-02-28T19:00:00Z',
			'2026-02-28T18:30:00.000Z',
			'2026-03-31T18:30:00.000Z',
		],
	] as const)('%s in %s at %s: from %s to %s', (period, zone, now, start, end) => {
		const w = periodWindow(period, zone, Date.parse(now));
		expect(new Date(w.start).toISOString()).toBe(start);
		expect(new Date(w.end).toISOString()).toBe(end);
	});
});
