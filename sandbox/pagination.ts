/**
 * Cursor pagination per docs/api-assumptions.md: newest first, `{ data, nextCursor }`, pass
 * nextCursor as `before`. Cursors are opaque strings (base64url of the record's sequence number);
 * the ledger uses plain integers (its entry ids).
 */
import { validationError } from './http';

export interface Page<T> {
	data: T[];
	nextCursor: string | number | null;
}

export const DEFAULT_LIMIT = 20;

const encode = (seq: number): string => Buffer.from(`s:${seq}`).toString('base64url');
function decode(cursor: string): number {
	const m = /^s:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
	if (!m)
		throw validationError([{ path: 'before', message: 'Invalid cursor', code: 'invalid_cursor' }]);
	return Number(m[1]);
}

/** Pages records ordered by `seq`, newest first; `view` turns a record into its JSON. */
export function paginate<T extends { seq: number }, V>(
	records: T[],
	q: { limit?: number; before?: string },
	view: (r: T) => V,
): Page<V> {
	const limit = q.limit ?? DEFAULT_LIMIT;
	const before = q.before !== undefined && q.before !== '' ? decode(q.before) : Infinity;
	const sorted = records.filter((r) => r.seq < before).sort((a, b) => b.seq - a.seq);
	const page = sorted.slice(0, limit);
	return {
		data: page.map(view),
		nextCursor: sorted.length > limit ? encode(page[page.length - 1].seq) : null,
	};
}

/** Pages by integer id, newest first (ledger: records in ascending id order, as booked). */
export function paginateById<T extends { id: number }>(
	records: T[],
	q: { limit?: number; before?: number },
): Page<T> {
	const limit = q.limit ?? DEFAULT_LIMIT;
	// the first record at or past the cursor (binary search: a ledger can hold millions of entries)
	let lo = 0;
	let hi = records.length;
	if (q.before !== undefined) {
		const before = q.before;
		while (lo < hi) {
			const mid = (lo + hi) >> 1;
			if (records[mid].id < before) lo = mid + 1;
			else hi = mid;
		}
	}
	const page = records.slice(Math.max(0, hi - limit), hi).reverse();
	return {
		data: page,
		nextCursor: hi > limit ? page[page.length - 1].id : null,
	};
}
