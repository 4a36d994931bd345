/**
 * A workspace's month at scale in the sandbox's ledger, booked directly (sandbox control
 * `bookLedger`), not by running the jobs: the credit budget's reads are measured against it
 * (test/engine/ledgerScale.test.ts, bench/ledgerRead.ts).
 */
import type { Sandbox } from '../../../sandbox';
import type { LedgerBooking } from '../../../sandbox/control';

export const MONTH = {
	/** The month seeded (MediaGen's clock is set inside it): January 2027, UTC. */
	start: Date.UTC(2027, 0, 1),
	/** MediaGen's clock while the runs read it. */
	now: Date.UTC(2027, 0, 20, 12),
	cost: 4,
};

/**
 * `jobs` generations spread over the month up to an hour before `MONTH.now`: 9 in 10 charged a
 * minute after their reservation, 1 in 10 failed (returned); a grant every 1,000 jobs; and
 * `spanning` jobs reserved 30 minutes before the month and charged 10 minutes into it (they
 * count for December). Returns the entries booked.
 */
export function seedMonth(sb: Sandbox, jobs: number, spanning = 5): number {
	const around: LedgerBooking[] = [
		{ type: 'grant', amount: jobs * MONTH.cost * 2, at: MONTH.start - 2 * 3_600_000 },
	];
	const cost = MONTH.cost;
	for (let i = 0; i < spanning; i++) {
		const gen = `seed-span-${i}`;
		around.push(
			{ type: 'reserve', amount: -cost, generationId: gen, at: MONTH.start - 1_800_000 + i },
			{ type: 'release', amount: cost, generationId: gen, at: MONTH.start + 600_000 + i },
			{ type: 'charge', amount: -cost, generationId: gen, at: MONTH.start + 600_000 + i },
		);
	}
	const events = around.concat(jobEvents(jobs, MONTH.start, MONTH.now - 3_600_000));
	// booking order: by time (stable: a release before its charge)
	events.sort((a, b) => a.at - b.at);
	sb.control.bookLedger('main', events);
	sb.control.setClock(MONTH.now);
	return events.length;
}

/**
 * `jobs` generations spread from `from` to `to` (ms), as the month's: 9 in 10 charged a minute
 * after their reservation, 1 in 10 returned, a grant every 1,000 jobs; `name` tells them apart.
 */
function jobEvents(jobs: number, from: number, to: number, name = 'seed'): LedgerBooking[] {
	const events: LedgerBooking[] = [];
	const cost = MONTH.cost;
	for (let i = 0; i < jobs; i++) {
		const at = from + Math.floor(((to - from) * i) / jobs);
		const gen = `${name}-${i}`;
		events.push({ type: 'reserve', amount: -cost, generationId: gen, at });
		if (i % 10 === 9)
			events.push({ type: 'release', amount: cost, generationId: gen, at: at + 30_000 });
		else
			events.push(
				{ type: 'release', amount: cost, generationId: gen, at: at + 60_000 },
				{ type: 'charge', amount: -cost, generationId: gen, at: at + 60_000 },
			);
		if (i % 1_000 === 999) events.push({ type: 'grant', amount: 100, at: at + 1 });
	}
	return events;
}

/**
 * More of the month after `MONTH.now`: `jobs` generations over the next `ms`, booked like the
 * seeded ones; MediaGen's clock then stands an hour after the last. Returns the entries booked.
 */
export function seedMore(sb: Sandbox, jobs: number, ms: number, name = 'more'): number {
	const events = jobEvents(jobs, MONTH.now + 600_000, MONTH.now + ms, name);
	events.sort((a, b) => a.at - b.at);
	sb.control.bookLedger('main', events);
	sb.control.setClock(MONTH.now + ms + 3_600_000);
	return events.length;
}

/** What the seeded month charged in January (the spanning jobs count for December). */
export const seededSpend = (jobs: number): number =>
	Array.from({ length: jobs }, (_, i) => (i % 10 === 9 ? 0 : MONTH.cost)).reduce(
		(a, b) => a + b,
		0,
	);
