/**
 * The workspace's credit ledger as the budget sees it (`GET /credits/ledger`, scope
 * billing.view): every reservation, return, charge and grant in booking order, each entry
 * immutable once booked. The one rule every run applies the same way (`walkLedger`) decides,
 * from the entries alone, which reservations are within the budget and which are over. How the
 * entries are read and what one n8n process keeps of them: ledgerRead.ts. docs/budget.md.
 */
import type { IDataObject } from 'n8n-workflow';
import { timeOf } from '../jobs/paths';

/** One ledger entry, as the budget needs it. */
export interface LedgerEntry {
	id: number;
	type: string;
	amount: number;
	/** The generation a reservation, return or charge belongs to (null: an immediate charge). */
	gen: string | null;
	/** MediaGen's `created_at` (ms). */
	at: number;
	balanceAfter: number;
}

export function entryOf(record: IDataObject): LedgerEntry | undefined {
	const id = Number(record.id);
	const at = timeOf(record.created_at);
	if (!Number.isInteger(id) || at === undefined) return undefined;
	const gen = record.generation_id;
	return {
		id,
		type: String(record.type ?? ''),
		amount: Number(record.amount ?? 0) || 0,
		gen: typeof gen === 'string' && gen ? gen : null,
		at,
		balanceAfter: Number(record.balance_after ?? 0) || 0,
	};
}

/**
 * Where the walk starts: the period as it stood just before the first entry walked. Everything
 * booked before that entry is closed (no reservation of it is held), so it only adds up.
 */
export interface LedgerStart {
	/** The spendable balance (the walk's: as if over reservations were returned). */
	balance: number;
	/** Charged in the period before the first entry walked. */
	spent: number;
	/**
	 * Entries walked that close a reservation booked before the first one walked (its return or
	 * its settling charge): already in `spent` and `balance`, skipped by the walk.
	 */
	skip?: ReadonlySet<number>;
}

// ---------------------------------------------------------------------------------------------
// The rule

/** What a run is held to: credits per period and/or a floor under the spendable balance. */
export interface Limits {
	budget?: number;
	floor?: number;
}

/** A reservation (a generation's) or an immediate charge, at its booking position. */
export interface Claim {
	/** The id of the entry that made the claim (its place in the order). */
	entry: number;
	gen: string | null;
	cost: number;
	/** held: reserved; settled: charged on success; returned: failed or cancelled; immediate. */
	state: 'held' | 'settled' | 'returned' | 'immediate';
	/** A held reservation past the budget (its owner cancels it). */
	over: boolean;
	/** Where the period stood just before a held reservation. */
	before?: Standing;
}

/** Where the period stands at a point of the ledger. */
export interface Standing {
	/** Charged in the period (successes and immediate charges). */
	spent: number;
	/** Reserved within the budget and not yet settled. */
	reserved: number;
	/** The spendable balance, counting over-budget reservations as returned. */
	balance: number;
	/** A reservation over the budget is held: no later one can be within. */
	blocked: boolean;
	/** What a new claim may still take. */
	room: number;
}

/** The period as the rule sees it, at its end. */
export interface Walk extends Standing {
	claims: Claim[];
	/** The latest claim of each generation. */
	byGen: Map<string, Claim>;
}

/**
 * The ledger's types the budget knows (docs/api-assumptions.md). A `grant` or an `adjustment`
 * changes the balance and is not spending; an entry of any other type that takes credits is
 * counted as spent, like an immediate charge.
 */
const KNOWN = new Set(['grant', 'adjustment', 'reserve', 'release', 'charge']);
const takesCredits = (e: LedgerEntry) => e.amount < 0;

/** Claims from the entries, each in its final state as of the read. */
export function claimsOf(
	entries: LedgerEntry[],
	skip: ReadonlySet<number> = new Set(),
): {
	claims: Claim[];
	byGen: Map<string, Claim>;
	other: Map<number, number>;
	/** The claim each return or settling charge closes, by the closing entry's id. */
	closes: Map<number, Claim>;
} {
	const claims: Claim[] = [];
	const byGen = new Map<string, Claim>();
	/** Balance changes outside the period's claims, by entry (grants, earlier periods' jobs). */
	const other = new Map<number, number>();
	const closes = new Map<number, Claim>();
	for (const e of entries) {
		if (skip.has(e.id)) continue;
		const claim = e.gen ? byGen.get(e.gen) : undefined;
		if (e.type === 'reserve' && e.gen) {
			const made: Claim = { entry: e.id, gen: e.gen, cost: -e.amount, state: 'held', over: false };
			claims.push(made);
			byGen.set(e.gen, made);
		} else if (e.type === 'release' && claim) {
			claim.state = 'returned';
			closes.set(e.id, claim);
		} else if (e.type === 'charge' && claim) {
			// the charge follows the settling return of the same reservation
			claim.state = 'settled';
			claim.cost = -e.amount;
			closes.set(e.id, claim);
		} else if (isSpending(e)) {
			// an immediate charge; and, on the side of the budget, any entry of a type the spec does
			// not list that takes credits (docs/api-assumptions.md)
			claims.push({ entry: e.id, gen: null, cost: -e.amount, state: 'immediate', over: false });
		} else other.set(e.id, e.amount);
	}
	return { claims, byGen, other, closes };
}

/**
 * An entry that is spending by itself when nothing of the period explains it: a charge (a job's,
 * or one that answered at once) or an entry of a type the budget does not know that takes credits.
 */
export const isSpending = (e: LedgerEntry): boolean =>
	(e.type === 'charge' && !e.gen) || (takesCredits(e) && !KNOWN.has(e.type));

/**
 * The rule. In booking order: a charge (a success, an immediate charge) always counts; a held
 * reservation counts when it fits in what the budget and the floor leave and no earlier
 * reservation is over, else it is over (and so is every held one after it). Returned ones do not
 * count. Entries are immutable and only appended, so a reservation within stays within for every
 * later reader; one over may only come within when an earlier one is returned. `start`: the
 * balance just before the first entry (the period's first, spent 0), or the period as it stood
 * before a later entry when nothing booked before that one is held (ledgerRead.ts's summary).
 */
export function walkLedger(
	entries: LedgerEntry[],
	start: number | LedgerStart,
	limits: Limits,
): Walk {
	const from = typeof start === 'number' ? { balance: start, spent: 0 } : start;
	const skip = from.skip ?? new Set<number>();
	const { claims, byGen, other } = claimsOf(entries, skip);
	const budget = limits.budget ?? Infinity;
	const floor = limits.floor ?? -Infinity;
	let used = from.spent;
	let spent = from.spent;
	let reserved = 0;
	let balance = from.balance;
	let blocked = false;
	const byEntry = new Map(claims.map((c) => [c.entry, c]));
	const standing = (): Standing => ({
		spent,
		reserved,
		balance,
		blocked,
		room: blocked ? 0 : Math.max(0, Math.min(budget - used, balance - floor)),
	});
	for (const e of entries) {
		if (skip.has(e.id)) continue;
		const change = other.get(e.id);
		if (change !== undefined) {
			balance += change;
			continue;
		}
		const claim = byEntry.get(e.id);
		if (!claim || claim.state === 'returned') continue;
		if (claim.state === 'held') {
			claim.before = standing();
			claim.over = blocked || used + claim.cost > budget || balance - claim.cost < floor;
			if (claim.over) {
				blocked = true;
				continue;
			}
			reserved += claim.cost;
		} else spent += claim.cost;
		used += claim.cost;
		balance -= claim.cost;
	}
	return { claims, byGen, ...standing() };
}
