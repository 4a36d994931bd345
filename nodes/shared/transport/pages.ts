/**
 * The one walker of cursor-paginated lists (`limit`, `before`, `{ data, nextCursor }`): Return
 * All, list searches, the trigger's endpoint lookup and the search for a lost run's jobs.
 */
import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { MediaGenContext } from './context';
import { mediaGenRequest } from './request';

/** One page of a list: its records and the cursor of the next one (undefined at the end). */
export interface Page {
	records: IDataObject[];
	next?: string | number;
	/** The whole answer (lists may carry more than the page, e.g. `eventTypes`). */
	response: unknown;
}

/** A page of a list answer, tolerant of a bare array. */
export function pageOf(response: unknown): Page {
	if (Array.isArray(response)) return { records: response as IDataObject[], response };
	const page = (response ?? {}) as { data?: IDataObject[]; nextCursor?: string | number | null };
	const next = page.nextCursor;
	return {
		records: Array.isArray(page.data) ? page.data : [],
		next: next === null || next === undefined || next === '' ? undefined : next,
		response,
	};
}

export interface ListWalk {
	path: string;
	/** Query parameters of every page request (besides `limit` and `before`). */
	qs?: IDataObject;
	/** Records asked per page. */
	pageSize: number;
	/** Records wanted in all (the last page asks only for what is left); default: all. */
	max?: number;
	/** Start after this cursor instead of at the newest record. */
	start?: string | number;
	/** Pages read at most. */
	maxPages?: number;
	itemIndex?: number;
	/** Said when the list gives a cursor a second time (after the default explanation). */
	onRepeat?: string;
	/** Sent although the execution was cancelled (a lookup after Stop). */
	ignoreCancel?: boolean;
	/** Awaited before each page's request (a turn of a pace of the key: keyPace.ts). */
	beforeSend?: () => Promise<void>;
}

/**
 * The pages of a list, newest first, until its end, `max` records or `maxPages` pages; stopping
 * early (`break`) is fine. A cursor the list already gave stops the walk with an error instead
 * of looping for ever.
 */
export async function* listPages(ctx: MediaGenContext, walk: ListWalk): AsyncGenerator<Page> {
	const max = walk.max ?? Infinity;
	const seen = new Set<string>();
	let before = walk.start;
	if (before !== undefined) seen.add(String(before));
	let count = 0;
	for (let pages = 0; pages < (walk.maxPages ?? Infinity) && count < max; pages++) {
		const qs: IDataObject = { ...walk.qs, limit: Math.min(walk.pageSize, max - count) };
		if (before !== undefined) qs.before = before;
		const page = pageOf(
			await mediaGenRequest(ctx, {
				method: 'GET',
				path: walk.path,
				qs,
				itemIndex: walk.itemIndex,
				ignoreCancel: walk.ignoreCancel,
				beforeSend: walk.beforeSend,
			}),
		);
		count += page.records.length;
		yield page;
		if (!page.records.length || page.next === undefined) return;
		if (seen.has(String(page.next))) {
			throw new NodeOperationError(
				ctx.getNode(),
				`MediaGen returned the page cursor ${String(page.next)} a second time, after ${count} records: stopped instead of looping`,
				{ itemIndex: walk.itemIndex, description: walk.onRepeat ?? 'The list repeats itself.' },
			);
		}
		seen.add(String(page.next));
		before = page.next;
	}
}
