/**
 * How the budget reads the ledger, and what one n8n process keeps of it per credential: a summary
 * of the closed part of the period plus the entries from the oldest held reservation on (docs/
 * budget.md, "What a read of the ledger costs"). Neither the requests of a read after the first
 * nor the memory kept grow with the period; the first read of a process reads reservations
 * (`all=true`) only back to the oldest held one and the period's older part settled entries only.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';
import { keyIdentity } from '../transport/keyPace';
import { cancelSignalOf } from '../transport/request';
import { pause } from '../transport/retry';
import type { LedgerEntry, LedgerStart } from './ledger';
import { claimsOf, isSpending, walkLedger } from './ledger';
import type { LedgerPage, LedgerSource } from './ledgerSource';
import { LEDGER, mediaGenLedger } from './ledgerSource';
import type { LedgerSummary } from './ledgerSummary';
import { loadSummary, saveSummary } from './ledgerSummary';

export { LEDGER } from './ledgerSource';
export type { LedgerPage, LedgerSource } from './ledgerSource';

/** A read of the ledger: where the walk starts, the entries from there on, the clock. */
export interface LedgerRead {
	/** Entries from the summary's fold point on (the oldest held reservation), in booking order. */
	entries: LedgerEntry[];
	/** The period just before the first of them. */
	start: LedgerStart;
	/** The newest entry's id (0 when the ledger is empty). */
	newest: number;
	/** MediaGen's clock when the first page was answered (its Date header), else n8n's. */
	now: number;
	/** Requests this read sent. */
	requests: number;
	/** What a workflow may save for a new process's first read (ledgerSummary.ts). */
	summary?: LedgerSummary;
	/** This read was a process's first and started from the workflow's saved summary. */
	restored?: boolean;
}

/**
 * What one process knows of a workspace's ledger for one period: the summary of everything before
 * `base` (no reservation of it is held, so it only adds up) and every entry from `base` on.
 */
interface Known {
	since: number;
	base: number;
	start: LedgerStart;
	/** `created_at` of the newest entry before `base` (at most; -Infinity: none). */
	prefixAt: number;
	tail: LedgerEntry[];
	newest: number;
	/** The newest entry (checked against the next read: a ledger that changed is read again). */
	last?: LedgerEntry;
}
/** Keyed by Base URL and a hash of the key (the key itself is never kept). */
const known = new Map<string, Known>();

const same = (a: LedgerEntry, b: LedgerEntry) =>
	a.id === b.id && a.at === b.at && a.amount === b.amount && a.type === b.type && a.gen === b.gen;

const balanceBefore = (e: LedgerEntry) => e.balanceAfter - e.amount;

/** The window from the first entry at or after `since`, with nothing before it summarised. */
function windowOf(
	since: number,
	ordered: LedgerEntry[],
	last: LedgerEntry | undefined,
	prefixAt = -Infinity,
): Known {
	const firstIn = ordered.findIndex((e) => e.at >= since);
	const tail = firstIn < 0 ? [] : ordered.slice(firstIn);
	const newest = last?.id ?? 0;
	const before = firstIn < 0 ? ordered.at(-1) : ordered[firstIn - 1];
	return {
		since,
		base: tail[0]?.id ?? newest + 1,
		start: { balance: tail[0] ? balanceBefore(tail[0]) : (last?.balanceAfter ?? 0), spent: 0 },
		prefixAt: before?.at ?? prefixAt,
		tail,
		newest,
		last,
	};
}

/**
 * Folds the closed entries before the oldest held reservation into the summary once there are
 * `after` of them (`LEDGER.foldAfter`): the period as the rule stood there, and the entries from
 * there on that close a reservation booked before (skipped by the walk).
 */
function fold(k: Known, after = LEDGER.foldAfter): Known {
	const walk = walkLedger(k.tail, k.start, {});
	const held = walk.claims.find((c) => c.state === 'held');
	const point = held ? held.entry : k.newest + 1;
	if (point - k.base < Math.max(1, after)) return k;
	const at = held?.before ?? walk;
	const cut = k.tail.findIndex((e) => e.id >= point);
	const tail = cut < 0 ? [] : k.tail.slice(cut);
	const { closes } = claimsOf(k.tail, k.start.skip);
	const skip = new Set<number>();
	for (const id of k.start.skip ?? []) if (id >= point) skip.add(id);
	for (const [id, claim] of closes) if (id >= point && claim.entry < point) skip.add(id);
	const prefixLast = cut < 0 ? k.tail.at(-1) : k.tail[cut - 1];
	return {
		...k,
		base: point,
		start: { balance: at.balance, spent: at.spent, ...(skip.size ? { skip } : {}) },
		prefixAt: prefixLast?.at ?? k.prefixAt,
		tail,
	};
}

/**
 * The settled part before the reservations read: charges and other spending (`all=false`), newest
 * first from `before`, back to `LEDGER.aroundStartMs` after the period's start. `edge`: the oldest
 * entry counted.
 */
async function settledPart(source: LedgerSource, since: number, before: number | undefined) {
	let spent = 0;
	let edge = before ?? 1;
	let requests = 0;
	for (let done = false; !done; ) {
		const page = await source.page(false, before);
		requests++;
		for (const e of page.entries) {
			if (e.at < since + LEDGER.aroundStartMs) {
				done = true;
				break;
			}
			edge = e.id;
			if (e.type === 'charge' || isSpending(e)) spent -= e.amount;
		}
		if (page.next === undefined) done = true;
		before = page.next;
	}
	return { spent, edge, requests };
}

/**
 * Around the period's start, every entry (`all=true`) before `edge` back to `LEDGER.aroundStartMs`
 * before the start: what the jobs reserved in the period were charged there, and immediate
 * charges. A charge of a job reserved before the start does not count (the rule).
 */
async function aroundStart(source: LedgerSource, since: number, edge: number) {
	const around: LedgerEntry[] = [];
	let before: number | undefined = edge;
	let requests = 0;
	for (let done = edge <= 1; !done; ) {
		const page = await source.page(true, before);
		requests++;
		for (const e of page.entries) {
			around.push(e);
			if (e.at < since - LEDGER.aroundStartMs) done = true;
		}
		if (page.next === undefined) done = true;
		before = page.next;
	}
	around.reverse();
	const firstIn = around.findIndex((e) => e.at >= since);
	const periodFrom = firstIn < 0 ? Infinity : around[firstIn].id;
	let spent = 0;
	for (const c of claimsOf(around).claims)
		if (c.entry >= periodFrom && (c.state === 'settled' || c.state === 'immediate'))
			spent += c.cost;
	return { spent, requests };
}

/**
 * The reservations booked before the first entry read with `all=true` whose return or charge was
 * read (the jobs running across that point): they are closed, so they count as the rule counts
 * them (a charge as spent, a return as never reserved) and their closing entries are skipped by
 * the walk. Their reservation is in the period: the read starts `LEDGER.aroundStartMs` or more
 * after the period's start (a job that ran longer across the start counts in both periods).
 */
function straddlers(ordered: LedgerEntry[], pending: Set<string>) {
	const reserved = new Set<string>();
	const skip = new Set<number>();
	let balance = 0;
	let spent = 0;
	for (const e of ordered) {
		if (!e.gen || !pending.has(e.gen) || reserved.has(e.gen)) continue;
		if (e.type === 'reserve') reserved.add(e.gen);
		else if (e.type === 'release' || e.type === 'charge') {
			// the walk counts a settled reservation's charge where it was reserved, a returned one not
			skip.add(e.id);
			balance += e.amount;
			if (e.type === 'charge') spent -= e.amount;
		}
	}
	return { balance, spent, skip };
}

/**
 * The first read of a period in a process. Reservations (`all=true`) newest first back to the
 * oldest that can still be held: the reserve of every generation the active list names, of every
 * return or charge seen, and everything booked since that list (its Date, less the clock slack).
 * Before that, only settled entries (`all=false`: charges, grants, adjustments) back to the
 * period's start, and reservations again within `LEDGER.aroundStartMs` of the start, to tell the
 * jobs reserved before it. Without the active list (a key without content.read), or when the
 * reservations reach the period's start anyway, the whole period (`all=true`), as a read always
 * did before.
 */
async function firstRead(
	source: LedgerSource,
	sinceOf: (now: number) => number,
	now: number,
): Promise<{ known: Known; requests: number; now: number }> {
	let requests = 0;
	const active = await source.active();
	if (active) requests += active.requests;
	const marker = active ? active.date - LEDGER.clockSlackMs : Infinity;
	const pending = new Set(active?.gens ?? []);
	const recent: LedgerEntry[] = [];
	let before: number | undefined;
	let whole = false;
	let since = 0;
	for (;;) {
		const page = await source.page(true, before);
		requests++;
		if (before === undefined) {
			// the period of this page's clock: it may hold entries booked after the read's first
			// page, and the period may have turned since (they belong to the next one)
			now = page.date ?? now;
			since = sinceOf(now);
		}
		for (const e of page.entries) {
			recent.push(e);
			if (e.type === 'reserve' && e.gen) pending.delete(e.gen);
			else if (e.gen && (e.type === 'release' || e.type === 'charge')) pending.add(e.gen);
		}
		const oldest = recent.at(-1);
		if (page.next === undefined || !oldest || oldest.at < since) {
			whole = true;
			break;
		}
		if (
			active &&
			[...active.gens].every((gen) => !pending.has(gen)) &&
			oldest.at < marker &&
			oldest.at >= since + LEDGER.aroundStartMs
		)
			break;
		before = page.next;
	}
	const ordered = recent.reverse();
	const last = ordered.at(-1);
	if (whole) return { known: windowOf(since, ordered, last), requests, now };
	const base = ordered[0];
	const settled = await settledPart(source, since, base.id);
	const around = await aroundStart(source, since, settled.edge);
	requests += settled.requests + around.requests;
	const straddling = straddlers(ordered, pending);
	const spent = settled.spent + around.spent + straddling.spent;
	return {
		known: {
			since,
			base: base.id,
			start: {
				balance: balanceBefore(base) + straddling.balance,
				spent,
				...(straddling.skip.size ? { skip: straddling.skip } : {}),
			},
			prefixAt: base.at,
			tail: ordered,
			newest: last?.id ?? 0,
			last,
		},
		requests,
		now,
	};
}

/**
 * What a workflow saves for a new process (ledgerSummary.ts): what this process knows, folded up
 * to the oldest reservation still held (or the newest entry, when none is), without the entries.
 */
function summaryOf(k: Known): LedgerSummary | undefined {
	const tight = fold(k, 1);
	const anchor = tight.tail[0] ?? tight.last;
	if (!anchor) return undefined;
	return {
		since: tight.since,
		anchor: { ...anchor },
		after: !tight.tail.length,
		balance: tight.start.balance,
		spent: tight.start.spent,
		skip: [...(tight.start.skip ?? [])].sort((a, b) => a - b),
		prefixAt: Number.isFinite(tight.prefixAt) ? tight.prefixAt : null,
	};
}

const sameSaved = (e: LedgerEntry, saved: LedgerEntry) =>
	same(e, saved) && e.balanceAfter === saved.balanceAfter;

/**
 * A process's first read from the workflow's saved summary: the ledger (`all=true`) newest first,
 * from `top` (the read's first page), back to the summary's anchor, which must be there as saved.
 * Undefined (the first read as without a summary) when the summary is of another period or its
 * anchor older than `LEDGER.summaryShare` of the period so far (nothing read), or the anchor is not
 * found: an entry older than it (by id or by time) comes first, or the ledger ends.
 */
async function fromSummary(
	source: LedgerSource,
	top: LedgerPage,
	saved: LedgerSummary,
	since: number,
	now: number,
): Promise<{ known?: Known; requests: number }> {
	let requests = 0;
	if (saved.since !== since) return { requests };
	if (now - saved.anchor.at > Math.max(0, now - since) * LEDGER.summaryShare) return { requests };
	const read: LedgerEntry[] = [];
	for (let page = top; ; ) {
		for (const e of page.entries) {
			if (e.id === saved.anchor.id) {
				if (!sameSaved(e, saved.anchor)) return { requests };
				if (!saved.after) read.push(e);
				const tail = read.reverse();
				const last = tail.at(-1) ?? e;
				const skip = saved.skip.length ? { skip: new Set(saved.skip) } : {};
				const known: Known = {
					since,
					base: tail[0]?.id ?? last.id + 1,
					start: { balance: saved.balance, spent: saved.spent, ...skip },
					prefixAt: saved.prefixAt ?? -Infinity,
					tail,
					newest: last.id,
					last,
				};
				return { known, requests };
			}
			if (e.id < saved.anchor.id || e.at < saved.anchor.at) return { requests };
			read.push(e);
		}
		if (page.next === undefined || !page.entries.length) return { requests };
		page = await source.page(true, page.next);
		requests++;
	}
}

/**
 * Reads the ledger for the period that holds MediaGen's clock (`sinceOf(now)`): what is new since
 * this process's last read of the same period, or a first read (from `saved`, the workflow's
 * summary, when it is of this period and its anchor is found).
 */
export async function readFrom(
	source: LedgerSource,
	key: string,
	sinceOf: (now: number) => number,
	saved?: LedgerSummary,
): Promise<LedgerRead> {
	const top = await source.page(true);
	let requests = 1;
	let now = top.date ?? Date.now();
	const since = sinceOf(now);
	let cached = known.get(key);
	// a ledger that has fewer entries than this process knows is not the one it read
	if (cached && (top.entries[0]?.id ?? 0) < cached.newest) cached = undefined;
	let next: Known | undefined;
	let restored = false;
	if (cached) {
		const fresh: LedgerEntry[] = [];
		let page = top;
		let matches = true;
		for (let done = false; !done; ) {
			for (const e of page.entries) {
				if (e.id <= cached.newest) {
					matches = e.id === cached.newest && (!cached.last || same(e, cached.last));
					done = true;
					break;
				}
				fresh.push(e);
			}
			if (done || page.next === undefined || !page.entries.length) break;
			page = await source.page(true, page.next);
			requests++;
		}
		if (matches) {
			const tail = [...cached.tail, ...fresh.reverse()];
			const last = tail.at(-1) ?? cached.last;
			const grown: Known = { ...cached, tail, newest: last?.id ?? 0, last };
			if (cached.since === since) next = grown;
			else if (since > cached.since && cached.prefixAt < since) {
				// the period turned after everything summarised: the new one is in the entries kept
				next = windowOf(since, tail, last, cached.prefixAt);
			}
		}
	}
	if (!next) {
		const oldest = top.entries.at(-1);
		if (top.next === undefined || !oldest || oldest.at < since) {
			// the first page holds the whole period
			const ordered = [...top.entries].reverse();
			next = windowOf(since, ordered, ordered.at(-1));
		} else if (saved) {
			const from = await fromSummary(source, top, saved, since, now);
			requests += from.requests;
			next = from.known;
			restored = !!next;
		}
		if (!next) {
			const first = await firstRead(source, sinceOf, now);
			requests += first.requests;
			next = first.known;
			now = first.now;
		}
	}
	next = fold(next);
	const latest = known.get(key);
	// a concurrent read of this process that got further stays
	if (!latest || latest === cached || latest.newest <= next.newest) known.set(key, next);
	return {
		entries: next.tail,
		start: next.start,
		newest: next.newest,
		now,
		requests,
		summary: summaryOf(next),
		...(restored ? { restored } : {}),
	};
}

/** Reads of a key under way in this process that started without anything known of its ledger. */
const firstReads = new Map<string, Promise<LedgerRead>>();

/**
 * Reads the ledger back to `sinceOf(now)` (now: MediaGen's clock), newest first, stopping at
 * what this process already knows of it (checked against it: a ledger that does not match what
 * was read before is read again). While a first read of the key is under way in this process, a
 * run waits for it (until its execution is stopped) and then reads only what is new: runs that
 * start together on a process that knows nothing of the ledger make one first read, not one each
 * (they would otherwise share the key's budget pace and each take as long as all of them). A
 * process's first read starts from the summary the workflow saved in its static data for this key
 * and `label` (the period settings) when it holds (ledgerSummary.ts); after every read the
 * summary is saved there again.
 */
export async function readLedger(
	ctx: IExecuteFunctions,
	sinceOf: (now: number) => number,
	label: string,
): Promise<LedgerRead> {
	const key = await keyIdentity(ctx);
	const source = mediaGenLedger(ctx);
	for (let under = firstReads.get(key); under; under = firstReads.get(key)) {
		await pause(0, cancelSignalOf(ctx)); // a Stop ends the wait (checked every waitCheckMs)
		await Promise.race([under.catch(() => undefined), sleep(LEDGER.waitCheckMs)]);
	}
	let read: LedgerRead;
	if (known.has(key)) read = await readFrom(source, key, sinceOf);
	else {
		// registered before anything is awaited: a run that starts meanwhile waits for this read
		const first = loadSummary(ctx, key, label).then(
			async (saved) => await readFrom(source, key, sinceOf, saved),
		);
		firstReads.set(key, first);
		try {
			read = await first;
		} finally {
			if (firstReads.get(key) === first) firstReads.delete(key);
		}
	}
	try {
		if (read.summary) await saveSummary(ctx, key, label, read.summary);
	} catch {
		// not saved: the next process's first read reads as without it
	}
	return read;
}

/** What this process keeps of each credential's ledger (tests, benchmarks): entries, skip ids. */
export function keptLedgers(): Array<{ entries: number; skip: number }> {
	return [...known.values()].map((k) => ({
		entries: k.tail.length,
		skip: k.start.skip?.size ?? 0,
	}));
}

/** Forgets what this process read of every ledger (tests). */
export function forgetLedgers(): void {
	known.clear();
}
