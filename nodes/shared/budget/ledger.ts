/**
 * The workspace's credit ledger as the budget reads it (`GET /credits/ledger?all=true`, scope
 * billing.view): every reservation, return, charge and grant in booking order, each entry
 * immutable once booked. The one rule every run applies the same way (`walkLedger`) decides,
 * from the entries alone, which reservations are within the budget and which are over.
 * docs/budget.md.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { timeOf } from '../jobs/paths';
import { pageOf } from '../transport/pages';
import { keyIdentity } from '../transport/keyPace';
import { mediaGenRequest } from '../transport/request';

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

export const LEDGER = {
	path: '/credits/ledger',
	pageSize: 100,
	/** Entries one n8n process keeps per credential (the periods it reads); beyond, it reads again. */
	maxCached: 200_000,
};

function entryOf(record: IDataObject): LedgerEntry | undefined {
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

const same = (a: LedgerEntry, b: LedgerEntry) =>
	a.id === b.id && a.at === b.at && a.amount === b.amount && a.type === b.type && a.gen === b.gen;

/**
 * What one n8n process knows of a workspace's ledger: entries are never changed once booked, so
 * later reads fetch only what is newer. Keyed by Base URL and a hash of the key (the key itself
 * is never kept).
 */
interface Known {
	byId: Map<number, LedgerEntry>;
	newest: number;
	/** Entries are known from this instant on (ms), or from the ledger's first entry. */
	from: number;
}
const known = new Map<string, Known>();

/** A read of the ledger back to a time: its entries from then on, the balance before, the clock. */
export interface LedgerRead {
	/** Entries booked at or after `since`, in booking order. */
	entries: LedgerEntry[];
	/** The spendable balance just before the first of them (0 at the ledger's start). */
	anchor: number;
	/** The newest entry's id (0 when the ledger is empty). */
	newest: number;
	/** MediaGen's clock when the first page was answered (its Date header), else n8n's. */
	now: number;
	/** Requests this read sent. */
	requests: number;
}

async function page(
	ctx: IExecuteFunctions,
	before: number | undefined,
	onDate?: (ms: number) => void,
) {
	const qs: IDataObject = { all: true, limit: LEDGER.pageSize };
	if (before !== undefined) qs.before = before;
	const response = await mediaGenRequest(ctx, {
		method: 'GET',
		path: LEDGER.path,
		qs,
		onHeaders: (headers) => {
			const date = Date.parse(String(headers.date ?? ''));
			if (Number.isFinite(date)) onDate?.(date);
		},
	});
	const { records, next } = pageOf(response);
	return {
		entries: records.map(entryOf).filter((e): e is LedgerEntry => !!e),
		next: typeof next === 'number' ? next : next === undefined ? undefined : Number(next),
	};
}

/**
 * Reads the ledger back to `sinceOf(now)` (now: MediaGen's clock), newest first, stopping at
 * what this process already knows (checked against it: a ledger that does not match what was
 * read before is read again whole).
 */
export async function readLedger(
	ctx: IExecuteFunctions,
	sinceOf: (now: number) => number,
): Promise<LedgerRead> {
	const key = await keyIdentity(ctx);
	let now = Date.now();
	let requests = 1;
	const first = await page(ctx, undefined, (date) => (now = date));
	const since = sinceOf(now);
	let cached = known.get(key);
	// a ledger that starts later than what this process knows, or has fewer entries, is read whole
	if (cached && (cached.from > since || (first.entries[0]?.id ?? 0) < cached.newest))
		cached = undefined;
	const fresh = new Map<number, LedgerEntry>();
	let current = first;
	for (;;) {
		let stop = false;
		for (const entry of current.entries) {
			const old = cached?.byId.get(entry.id);
			if (cached && entry.id <= cached.newest) {
				if (!old || !same(old, entry)) {
					// not the ledger this process read before (e.g. another workspace behind the URL)
					known.delete(key);
					return await readLedger(ctx, sinceOf);
				}
				stop = true;
				break;
			}
			fresh.set(entry.id, entry);
			if (entry.at < since) {
				stop = true;
				break;
			}
		}
		if (stop) break;
		if (current.next === undefined || !current.entries.length) break;
		current = await page(ctx, current.next);
		requests++;
	}
	const all = new Map<number, LedgerEntry>(cached?.byId ?? []);
	for (const [id, entry] of fresh) all.set(id, entry);
	const ordered = [...all.values()].sort((a, b) => a.id - b.id);
	const firstIn = ordered.findIndex((e) => e.at >= since);
	const inWindow = firstIn < 0 ? [] : ordered.slice(firstIn);
	const before = firstIn < 0 ? ordered.at(-1) : ordered[firstIn - 1];
	const newest = ordered.at(-1)?.id ?? 0;
	// keep the anchor and the window for the next read of this process
	const keep = before ? [before, ...inWindow] : inWindow;
	const latest = known.get(key);
	// a concurrent read of this process that got further stays
	if (!latest || latest === cached || latest.newest <= newest) {
		if (keep.length <= LEDGER.maxCached)
			known.set(key, { byId: new Map(keep.map((e) => [e.id, e])), newest, from: since });
		else known.delete(key);
	}
	return { entries: inWindow, anchor: before?.balanceAfter ?? 0, newest, now, requests };
}

/** Forgets what this process read of every ledger (tests). */
export function forgetLedgers(): void {
	known.clear();
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
function claimsOf(entries: LedgerEntry[]): {
	claims: Claim[];
	byGen: Map<string, Claim>;
	other: Map<number, number>;
} {
	const claims: Claim[] = [];
	const byGen = new Map<string, Claim>();
	/** Balance changes outside the period's claims, by entry (grants, earlier periods' jobs). */
	const other = new Map<number, number>();
	for (const e of entries) {
		const claim = e.gen ? byGen.get(e.gen) : undefined;
		if (e.type === 'reserve' && e.gen) {
			const made: Claim = { entry: e.id, gen: e.gen, cost: -e.amount, state: 'held', over: false };
			claims.push(made);
			byGen.set(e.gen, made);
		} else if (e.type === 'release' && claim) claim.state = 'returned';
		else if (e.type === 'charge' && claim) {
			// the charge follows the settling return of the same reservation
			claim.state = 'settled';
			claim.cost = -e.amount;
		} else if ((e.type === 'charge' && !e.gen) || (takesCredits(e) && !KNOWN.has(e.type))) {
			// an immediate charge; and, on the side of the budget, any entry of a type the spec does
			// not list that takes credits (docs/api-assumptions.md)
			claims.push({ entry: e.id, gen: null, cost: -e.amount, state: 'immediate', over: false });
		} else other.set(e.id, e.amount);
	}
	return { claims, byGen, other };
}

/**
 * The rule. In booking order: a charge (a success, an immediate charge) always counts; a held
 * reservation counts when it fits in what the budget and the floor leave and no earlier
 * reservation is over, else it is over (and so is every held one after it). Returned ones do not
 * count. Entries are immutable and only appended, so a reservation within stays within for every
 * later reader; one over may only come within when an earlier one is returned.
 */
export function walkLedger(entries: LedgerEntry[], anchor: number, limits: Limits): Walk {
	const { claims, byGen, other } = claimsOf(entries);
	const budget = limits.budget ?? Infinity;
	const floor = limits.floor ?? -Infinity;
	let used = 0;
	let spent = 0;
	let reserved = 0;
	let balance = anchor;
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
