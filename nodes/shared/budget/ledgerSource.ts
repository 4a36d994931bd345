/**
 * Where the budget reads the ledger from: MediaGen through the node's request path, its pages
 * (`GET /credits/ledger`) and the generations that can hold a reservation, at the budget's pace
 * on the key; and the budget's settings for reading it (`LEDGER`). How it is read: ledgerRead.ts.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { pageOf } from '../transport/pages';
import type { Pace } from '../transport/keyPace';
import { takeTurn } from '../transport/keyPace';
import { cancelSignalOf, mediaGenRequest } from '../transport/request';
import { asNodeError, statusOf } from '../transport/errors';
import type { LedgerEntry } from './ledger';
import { entryOf } from './ledger';

export const LEDGER = {
	path: '/credits/ledger',
	pageSize: 100,
	/** Generations that can hold a reservation (queued, running): scope content.read. */
	activePath: '/generations',
	/**
	 * The first read looks at reservations (`all=true`) this long on either side of the period's
	 * start: a job reserved before the start and charged after counts for the period before, as
	 * the rule says, when it ran less than this; a longer one also counts for the new period.
	 */
	aroundStartMs: 60 * 60_000,
	/**
	 * MediaGen's clock as its Date header shows it (whole seconds) against its entries'
	 * `created_at`: the first read takes reservations this much further back than the list of
	 * active generations was answered.
	 */
	clockSlackMs: 60_000,
	/** Closed entries kept before they are folded into the summary (fewer, larger folds). */
	foldAfter: 1_000,
	/**
	 * The pace of a long read (a process's first read of a busy period, a read after a long
	 * pause): every request of a read after its first (ledger pages, the active list) waits for a
	 * turn of the key's budget pace, for every run and workflow of the n8n process on that key
	 * together (../transport/keyPace.ts): `readsBurst` at once, then `readsPerMinute` a minute, a
	 * quarter of the API's 120, as the trigger's periodic checks; the rest of the key is left to
	 * the workflows' other requests. A read's first request (the whole of a usual read: what is
	 * new since the run before) goes at once, as any request of the run.
	 */
	readsBurst: 10,
	readsPerMinute: 30,
	/** How often a run waiting for another run's first read of the key checks for a Stop (ms). */
	waitCheckMs: 1_000,
	/**
	 * A process's first read starts from the workflow's saved summary (ledgerSummary.ts) when its
	 * anchor was booked within this share of the period so far (newest part): reading every entry
	 * (`all=true`) back to it then costs less than the first read without it, which reads the
	 * whole period's settled entries (one in three for a job that succeeds). Older: the first read
	 * as without, no request spent on the summary.
	 */
	summaryShare: 0.25,
};

/** The budget's pace on the key (LEDGER.readsBurst, LEDGER.readsPerMinute). */
export function budgetPace(): Pace {
	return { name: 'budgetReads', burst: LEDGER.readsBurst, perMinute: LEDGER.readsPerMinute };
}

/** One page of the ledger, newest first, with the Date MediaGen answered it at. */
export interface LedgerPage {
	entries: LedgerEntry[];
	next?: number;
	date?: number;
}

/** Where the ledger is read from (MediaGen through the node's request path; tests: memory). */
export interface LedgerSource {
	/** `all`: reservations and returns too (else settled entries only); `before`: an entry id. */
	page(all: boolean, before?: number): Promise<LedgerPage>;
	/**
	 * The generations that are queued or running (can hold a reservation) and the Date the list's
	 * first page was answered at; undefined when the key may not list them (403).
	 */
	active(): Promise<{ gens: Set<string>; date: number; requests: number } | undefined>;
}

/**
 * The ledger of the node's credential at MediaGen, through the node's request path, for one read:
 * its requests after the first are paced (LEDGER.readsPerMinute).
 */
export function mediaGenLedger(ctx: IExecuteFunctions): LedgerSource {
	const signal = cancelSignalOf(ctx);
	let sent = 0;
	// every try after the read's first (a 429's retry too) waits for a turn of the budget pace
	const beforeSend = async () => {
		if (sent++) await takeTurn(ctx, budgetPace(), signal);
	};
	const dated = async (path: string, qs: IDataObject) => {
		let date: number | undefined;
		const response = await mediaGenRequest(ctx, {
			method: 'GET',
			path,
			qs,
			beforeSend,
			onHeaders: (headers) => {
				const ms = Date.parse(String(headers.date ?? ''));
				if (Number.isFinite(ms)) date = ms;
			},
		});
		return { ...pageOf(response), date };
	};
	return {
		async page(all, before) {
			const qs: IDataObject = { all, limit: LEDGER.pageSize };
			if (before !== undefined) qs.before = before;
			const { records, next, date } = await dated(LEDGER.path, qs);
			return {
				entries: records.map(entryOf).filter((e): e is LedgerEntry => !!e),
				next: next === undefined ? undefined : Number(next),
				date,
			};
		},
		async active() {
			const gens = new Set<string>();
			let first: number | undefined;
			let before: string | number | undefined;
			let requests = 0;
			try {
				do {
					const qs: IDataObject = { status: 'active', limit: LEDGER.pageSize };
					if (before !== undefined) qs.before = before;
					const page = await dated(LEDGER.activePath, qs);
					requests++;
					first ??= page.date ?? Date.now();
					for (const r of page.records) if (r?.id) gens.add(String(r.id));
					before = page.records.length ? page.next : undefined;
				} while (before !== undefined);
			} catch (error) {
				if (statusOf(error) === 403) return undefined;
				throw asNodeError(ctx, error);
			}
			return { gens, date: first ?? Date.now(), requests };
		},
	};
}
