/**
 * Webhook endpoints (GET /webhooks), the delivery log of one (GET /webhooks/{id}/deliveries) and
 * what recovers the events it missed: enabling an endpoint MediaGen disabled, and retrying its
 * failed deliveries oldest first within the rate limit. Used by the MediaGen Trigger (on
 * activation and on its periodic check) and by MediaGen → Webhook → Retry Failed Deliveries
 * (docs/trigger-internals.md, Recovery).
 */
import type { IDataObject } from 'n8n-workflow';

import type { MediaGenContext } from '../transport/context';
import { statusOf } from '../transport/errors';
import { listPages } from '../transport/pages';
import { cancelSignalOf, mediaGenRequest } from '../transport/request';
import type { Pace } from '../transport/keyPace';
import { takeTurn } from '../transport/keyPace';

/** Type of the test ping sent by POST /webhooks/{id}/test (docs/api-assumptions.md, Webhooks). */
export const PING_EVENT_TYPE = 'webhook.test';

/** Bounds of a recovery; exported so tests can lower them. */
export const DELIVERY_RECOVERY = {
	/** Pages of 100 deliveries read at most: the newest 1,000 deliveries of an endpoint. */
	maxPages: 10,
	/**
	 * Retries sent at once; after them, at most `retriesPerMinute`: for every endpoint and
	 * workflow of the n8n process on the same key together (../transport/keyPace.ts).
	 */
	burst: 20,
	/** Retries per minute after the burst: half of the API's 120 requests a minute per key. */
	retriesPerMinute: 60,
};

/**
 * The key's pace for the recovery of missed events: every replay, and every request of the
 * trigger's recovery passes and periodic checks, of every workflow of the n8n process on that key
 * together (../transport/keyPace.ts). `perMinute` instead of `retriesPerMinute` for a run that
 * asks for less.
 */
export function recoveryPace(perMinute?: number): Pace {
	return {
		name: 'deliveryRetries',
		burst: DELIVERY_RECOVERY.burst,
		perMinute: perMinute ?? DELIVERY_RECOVERY.retriesPerMinute,
	};
}

/** An endpoint as GET /webhooks lists it. */
export interface RemoteEndpoint {
	id: string;
	url?: string;
	events?: string[];
	status?: string;
	/** Failed events in a row (docs/api-assumptions.md, Webhooks). */
	consecutive_failures?: number;
	created_at?: string;
}

/** MediaGen disables an endpoint after this many failed events in a row (spec doc 1). */
export const DISABLE_AFTER_FAILED_EVENTS = 15;

/**
 * Whether MediaGen itself disabled the endpoint, after 15 failed events in a row, rather than a
 * user (MediaGen's settings, MediaGen → Webhook → Update): the count of failed events in a row
 * stays as it was when a user disables it, and only MediaGen's own disabling makes it reach 15.
 * An endpoint record without the count is taken as disabled by MediaGen.
 */
export function disabledByMediaGen(endpoint: RemoteEndpoint): boolean {
	const count = endpoint.consecutive_failures;
	return typeof count !== 'number' || count >= DISABLE_AFTER_FAILED_EVENTS;
}

/**
 * Every endpoint of the workspace (GET /webhooks, all pages, 100 a page, at most 100 pages);
 * `beforeSend` is awaited before each page (a turn of a pace).
 */
export async function listEndpoints(
	ctx: MediaGenContext,
	options: { itemIndex?: number; beforeSend?: () => Promise<void> } = {},
): Promise<RemoteEndpoint[]> {
	const endpoints: RemoteEndpoint[] = [];
	const pages = listPages(ctx, { path: '/webhooks', pageSize: 100, maxPages: 100, ...options });
	for await (const { records } of pages)
		endpoints.push(...(records as unknown as RemoteEndpoint[]));
	return endpoints;
}

/** One attempt of a delivery, as the delivery log lists it. */
export interface DeliveryAttempt {
	attempt?: number;
	at?: string;
	response_status?: number | null;
}

/** A record of GET /webhooks/{id}/deliveries, as far as the package reads it. */
export interface DeliveryRecord {
	id: string;
	webhook_id?: string;
	event_id?: string;
	event_type?: string;
	status?: string;
	attempts?: DeliveryAttempt[];
	next_attempt_at?: string | null;
	created_at?: string;
}

/**
 * Where a read of an endpoint's log ended: the newest delivery it read, and the deliveries read
 * that were not final yet (pending: MediaGen still retries them, and they may end failed later).
 */
export interface LogMark {
	newest?: { id: string; at: number };
	/** Not final when read, or to be read again: delivery id -> when it was made (ms). */
	open: Map<string, number>;
}

/** The endpoint's deliveries, newest first, and whether the log goes on past what was read. */
export interface DeliveryLog {
	deliveries: DeliveryRecord[];
	/** True when the log has older deliveries than the pages read (and than `since` asked for). */
	truncated: boolean;
	/** Where this read ended, for the next one (`since`). */
	mark: LogMark;
}

/** Deliveries that may still change: MediaGen retries them (not succeeded, not failed). */
function isOpen(delivery: DeliveryRecord): boolean {
	return delivery.status !== 'succeeded' && delivery.status !== 'failed';
}

/**
 * Whether the deliveries read (newest first) reach back to `since`: its newest delivery (or one
 * made before it), and each of its open deliveries (or one made before it).
 */
function reaches(deliveries: DeliveryRecord[], since: LogMark): boolean {
	if (!since.newest) return false; // the log was empty: everything in it now is new
	const ids = new Set(deliveries.map((delivery) => delivery.id));
	const oldest = Math.min(...deliveries.map(createdAt));
	const reached = (id: string, at: number) => ids.has(id) || oldest < at;
	if (!reached(since.newest.id, since.newest.at)) return false;
	return [...since.open].every(([id, at]) => reached(id, at));
}

/**
 * The newest deliveries of an endpoint, at most `maxPages` pages of 100. With `since` (the mark of
 * the previous read) the walk stops at the first page that reaches back to it: only what is new,
 * and what was not final then, is read (one page when nothing changed). `beforeSend` is awaited
 * before each page (a turn of a pace).
 */
export async function readDeliveryLog(
	ctx: MediaGenContext,
	endpointId: string,
	options: {
		maxPages?: number;
		itemIndex?: number;
		since?: LogMark;
		beforeSend?: () => Promise<void>;
	} = {},
): Promise<DeliveryLog> {
	const deliveries: DeliveryRecord[] = [];
	const maxPages = options.maxPages ?? DELIVERY_RECOVERY.maxPages;
	let pages = 0;
	let truncated = false;
	const walk = listPages(ctx, {
		path: `/webhooks/${encodeURIComponent(endpointId)}/deliveries`,
		pageSize: 100,
		maxPages,
		itemIndex: options.itemIndex,
		beforeSend: options.beforeSend,
	});
	for await (const { records, next } of walk) {
		deliveries.push(...(records as unknown as DeliveryRecord[]));
		pages++;
		truncated = pages >= maxPages && next !== undefined;
		if (options.since && reaches(deliveries, options.since)) {
			truncated = false;
			break;
		}
	}
	const newest = deliveries.find((delivery) => typeof delivery.id === 'string');
	const open = new Map(
		deliveries.filter(isOpen).map((delivery) => [delivery.id, createdAt(delivery)] as const),
	);
	return {
		deliveries,
		truncated,
		mark: {
			newest: newest ? { id: newest.id, at: createdAt(newest) } : options.since?.newest,
			open,
		},
	};
}

/** When a delivery was made (ms), for ordering; unknown times sort first. */
function createdAt(delivery: DeliveryRecord): number {
	const time = Date.parse(delivery.created_at ?? '');
	return Number.isFinite(time) ? time : 0;
}

/** The deliveries of events (not test pings) that ended failed, oldest first. */
export function failedEventDeliveries(deliveries: DeliveryRecord[]): DeliveryRecord[] {
	return (
		deliveries
			.map((delivery, index) => ({ delivery, index }))
			.filter(
				({ delivery }) =>
					delivery.status === 'failed' &&
					typeof delivery.id === 'string' &&
					delivery.event_type !== PING_EVENT_TYPE,
			)
			// the log is newest first: equal times keep the log's order, reversed
			.sort((a, b) => createdAt(a.delivery) - createdAt(b.delivery) || b.index - a.index)
			.map(({ delivery }) => delivery)
	);
}

/** PATCH /webhooks/{id} with status active: MediaGen keeps the endpoint's id, URL and secret. */
export async function enableEndpoint(
	ctx: MediaGenContext,
	endpointId: string,
	itemIndex?: number,
): Promise<IDataObject> {
	return await mediaGenRequest<IDataObject>(ctx, {
		method: 'PATCH',
		path: `/webhooks/${encodeURIComponent(endpointId)}`,
		body: { status: 'active' },
		itemIndex,
	});
}

/** What became of one failed delivery. */
export interface RetryOutcome {
	delivery: DeliveryRecord;
	/** retried: MediaGen sent it again (its answer is `delivery`); skipped: no longer failed or gone. */
	outcome: 'retried' | 'skipped';
}

/** The retries made, and the error that stopped the rest (MediaGen unreachable, rate limited). */
export interface RetryRun {
	results: RetryOutcome[];
	/** Deliveries not tried because of `error`. */
	notTried: DeliveryRecord[];
	error?: Error;
}

/**
 * POST /webhooks/deliveries/{id}/retry for each delivery, in the order given, at the key's replay
 * pace: `burst` at once, then at most `retriesPerMinute` a minute, for all the process's
 * replays on that key together (50 trigger workflows after one outage share one pace; a 429
 * waits for its Retry-After in the transport). A delivery that is no longer failed (409: MediaGen delivered it meanwhile) or gone
 * (404) is skipped; any other error stops the run.
 */
export async function retryDeliveries(
	ctx: MediaGenContext,
	deliveries: DeliveryRecord[],
	options: { itemIndex?: number; retriesPerMinute?: number } = {},
): Promise<RetryRun> {
	const pace = recoveryPace(options.retriesPerMinute);
	const results: RetryOutcome[] = [];
	for (const [index, delivery] of deliveries.entries()) {
		await takeTurn(ctx, pace, cancelSignalOf(ctx));
		try {
			const answer = await mediaGenRequest<DeliveryRecord>(ctx, {
				method: 'POST',
				path: `/webhooks/deliveries/${encodeURIComponent(delivery.id)}/retry`,
				itemIndex: options.itemIndex,
			});
			results.push({ delivery: answer ?? delivery, outcome: 'retried' });
		} catch (error) {
			const status = statusOf(error);
			if (status === 409 || status === 404) {
				results.push({ delivery, outcome: 'skipped' });
				continue;
			}
			return { results, notTried: deliveries.slice(index), error: error as Error };
		}
	}
	return { results, notTried: [] };
}
