/**
 * Recovery of the events MediaGen could not deliver (docs/trigger-internals.md, Recovery): on
 * every activation the production endpoint's failed deliveries are retried once, oldest first;
 * and a periodic check (n8n's registerCron, from the trigger's `trigger` method) brings back an
 * endpoint MediaGen disabled while n8n runs, then retries what failed since. Every request of
 * these takes a turn of the key's paces (one per API key for the whole process).
 */
import type { ITriggerFunctions, ITriggerResponse } from 'n8n-workflow';

import type { MediaGenContext } from '../shared/transport/context';
import type { Pace } from '../shared/transport/keyPace';
import { keyIdentity, takeTurn } from '../shared/transport/keyPace';
import type { DeliveryRecord, LogMark, RemoteEndpoint } from '../shared/webhooks/deliveries';
import {
	failedEventDeliveries,
	readDeliveryLog,
	recoveryPace,
	retryDeliveries,
} from '../shared/webhooks/deliveries';
import {
	bringInLine,
	endpointToKeep,
	listEndpoints,
	registerEndpoint,
	sameEvents,
	subscribes,
	wantedEvents,
} from './endpoints';
import type { TriggerContext } from './slots';
import { isAutomatic, madeWhileInactive, storedEndpoint } from './slots';

/**
 * The periodic check, every `minutes` minutes. Its requests, for all the trigger workflows of the
 * process on one key together: at most `checkBurst` at once, then `checkRequestsPerMinute` a
 * minute (a quarter of the API's 120), within the key's recovery pace; the checks of one minute
 * share one listing of the endpoints (`listingMaxAgeMs`). Exported for tests.
 */
export const KEEPER = {
	minutes: 10,
	checkBurst: 5,
	checkRequestsPerMinute: 30,
	listingMaxAgeMs: 60_000,
};

/**
 * Per endpoint: the failed deliveries retried in this activation, where the last read of its log
 * ended (the next reads only what is newer, or was not final then), and whether a pass runs.
 */
interface Recovery {
	retried: Set<string>;
	mark?: LogMark;
	running?: Promise<void>;
}

/** Recoveries of this process, at most 1000 endpoints (the oldest forgotten first). */
const recoveries = new Map<string, Recovery>();

function recoveryOf(endpointId: string, newActivation: boolean): Recovery {
	let recovery = recoveries.get(endpointId);
	if (!recovery || newActivation) {
		if (recoveries.size >= 1000 && !recovery)
			recoveries.delete(recoveries.keys().next().value as string);
		recovery = { retried: new Set(), running: recovery?.running }; // the whole log read again
		recoveries.set(endpointId, recovery);
	}
	return recovery;
}

function nodeLabel(ctx: TriggerContext): string {
	return `MediaGen Trigger "${ctx.getNode().name}"`;
}

/**
 * The failed deliveries the user wants run: of the subscribed event types, made while the
 * workflow was active. The others are named in the log, once per activation.
 */
function wanted(
	ctx: TriggerContext,
	failed: DeliveryRecord[],
	events: string[],
	recovery: Recovery,
): DeliveryRecord[] {
	const stored = storedEndpoint(ctx, 'production');
	const unsubscribed = failed.filter((delivery) => !subscribes(events, delivery.event_type));
	const inactive = failed.filter(
		(delivery) =>
			subscribes(events, delivery.event_type) && madeWhileInactive(stored, delivery.created_at),
	);
	const skipped = new Set([...unsubscribed, ...inactive]);
	for (const delivery of skipped) recovery.retried.add(delivery.id);
	if (unsubscribed.length)
		ctx.logger.info(
			`${nodeLabel(ctx)}: ${unsubscribed.length} failed deliveries of event types this trigger does not subscribe to (${events.join(', ')}) are not sent again`,
		);
	if (inactive.length)
		ctx.logger.info(
			`${nodeLabel(ctx)}: ${inactive.length} failed deliveries of events from while the workflow was deactivated are not sent again`,
		);
	return failed.filter((delivery) => !skipped.has(delivery));
}

/** Awaited before each request: a turn of every pace, in order. */
function turnsOf(ctx: MediaGenContext, paces: () => Pace[]): () => Promise<void> {
	return async () => {
		for (const pace of paces()) await takeTurn(ctx, pace);
	};
}

/** Before each request of a recovery pass: a turn of the key's recovery pace. */
const recoveryTurn = (ctx: MediaGenContext) => turnsOf(ctx, () => [recoveryPace()]);

/** Before each request of a periodic check: a turn of the checks' pace, then of the recovery pace. */
const checkTurn = (ctx: MediaGenContext) =>
	turnsOf(ctx, () => [
		{ name: 'triggerChecks', burst: KEEPER.checkBurst, perMinute: KEEPER.checkRequestsPerMinute },
		recoveryPace(),
	]);

/**
 * One pass: the failed deliveries of the log not yet retried in this activation, oldest first.
 * The first pass of an activation reads the log (its newest 1,000); the next ones only what is new
 * since, and the deliveries that were still pending then.
 */
async function retryMissed(
	ctx: TriggerContext,
	endpointId: string,
	events: string[],
	recovery: Recovery,
	beforeSend: () => Promise<void>,
): Promise<void> {
	const log = await readDeliveryLog(ctx, endpointId, { since: recovery.mark, beforeSend });
	if (log.truncated)
		ctx.logger.warn(
			`${nodeLabel(ctx)}: the delivery log of webhook endpoint ${endpointId} holds more than the ${log.deliveries.length} deliveries read; older failed deliveries are not retried`,
		);
	const failed = failedEventDeliveries(log.deliveries).filter(
		(delivery) => !recovery.retried.has(delivery.id),
	);
	const missed = wanted(ctx, failed, events, recovery);
	// every failed delivery read is now retried or skipped: the next pass reads from here
	recovery.mark = log.mark;
	if (missed.length === 0) return;
	for (const delivery of missed) recovery.retried.add(delivery.id);
	ctx.logger.info(
		`${nodeLabel(ctx)}: MediaGen could not deliver ${missed.length} event(s) to webhook endpoint ${endpointId}; asking it to send them again, oldest first`,
	);
	const run = await retryDeliveries(ctx, missed);
	const retried = run.results.filter((result) => result.outcome === 'retried');
	const delivered = retried.filter(({ delivery }) => delivery.status === 'succeeded').length;
	ctx.logger.info(
		`${nodeLabel(ctx)}: ${retried.length} of ${missed.length} failed deliveries retried (${delivered} delivered now)`,
	);
	if (run.error) {
		// the rest may be retried by the next check of this activation
		for (const delivery of run.notTried) {
			recovery.retried.delete(delivery.id);
			log.mark.open.set(delivery.id, Date.parse(delivery.created_at ?? '') || 0);
		}
		ctx.logger.warn(
			`${nodeLabel(ctx)}: ${run.notTried.length} failed deliveries were not retried (${run.error.message}); the next check tries again`,
		);
	}
}

/** Periodic checks under way in this process. */
const checks = new Set<Promise<void>>();

/** Resolves when no periodic check and no recovery pass of this process runs (for tests). */
export async function recoveriesSettled(): Promise<void> {
	for (;;) {
		const running = [
			...checks,
			...[...recoveries.values()].flatMap((recovery) =>
				recovery.running ? [recovery.running] : [],
			),
		];
		if (running.length === 0) return;
		await Promise.all(running);
	}
}

/**
 * Retries the endpoint's failed deliveries of the subscribed `events` not yet retried in this
 * activation (`newActivation`: the activation that starts now, every failed delivery once more),
 * except those of events made while the workflow was deactivated. One pass at a time per
 * endpoint; it never throws (a failure is logged). `beforeSend`: awaited before each request
 * (default: a turn of the key's recovery pace).
 */
export async function catchUp(
	ctx: TriggerContext,
	endpointId: string,
	events: string[],
	newActivation = false,
	beforeSend = recoveryTurn(ctx),
): Promise<void> {
	const recovery = recoveryOf(endpointId, newActivation);
	if (recovery.running) await recovery.running.catch(() => undefined);
	const pass = retryMissed(ctx, endpointId, events, recovery, beforeSend).catch((error: Error) => {
		ctx.logger.warn(
			`${nodeLabel(ctx)}: could not check the deliveries of webhook endpoint ${endpointId} (${error.message})`,
		);
	});
	recovery.running = pass;
	await pass;
	if (recovery.running === pass) recovery.running = undefined;
}

/** The listings of the endpoints the checks of this process share, per key: when, and the list. */
const listings = new Map<string, { at: number; list: Promise<RemoteEndpoint[]> }>();

/**
 * The workspace's endpoints as a listing of the last `KEEPER.listingMaxAgeMs` (or the one under
 * way) shows them, for every check of the process on the key; a new listing otherwise.
 */
async function sharedListing(
	ctx: MediaGenContext,
	beforeSend: () => Promise<void>,
): Promise<RemoteEndpoint[]> {
	const key = await keyIdentity(ctx);
	const cached = listings.get(key);
	if (cached && Date.now() - cached.at < KEEPER.listingMaxAgeMs) return await cached.list;
	const entry = { at: Date.now(), list: listEndpoints(ctx, { beforeSend }) };
	if (listings.size >= 1000 && !cached) listings.delete(listings.keys().next().value as string);
	listings.set(key, entry);
	// a failed listing is not shared: the next check lists again
	entry.list.catch(() => {
		if (listings.get(key) === entry) listings.delete(key);
	});
	return await entry.list;
}

/**
 * The periodic check: the production endpoint at the node's URL brought in line (its events set,
 * enabled again when MediaGen disabled it after failed deliveries, left alone when a user
 * disabled it), then what failed since the last pass retried. The activation's static data gives
 * the URL (it does not change) and the id it knew; an endpoint at that URL is this node's. The
 * listing shared by the key's checks of the minute decides whether all is well; anything to do
 * is decided on a listing of its own.
 */
export async function checkEndpoint(ctx: ITriggerFunctions): Promise<void> {
	const stored = storedEndpoint(ctx, 'production');
	if (!stored) return;
	const turn = checkTurn(ctx);
	try {
		const events = wantedEvents(ctx);
		let endpoint = endpointToKeep(await sharedListing(ctx, turn), stored.url, stored.id);
		if (endpoint?.status !== 'active' || !sameEvents(endpoint.events, events))
			endpoint = endpointToKeep(
				await listEndpoints(ctx, { beforeSend: turn }),
				stored.url,
				stored.id,
			);
		if (!endpoint) {
			const id = await registerEndpoint(ctx, 'production', stored.url, events);
			ctx.logger.warn(
				`${nodeLabel(ctx)}: its webhook endpoint ${stored.id} was deleted outside n8n; registered a new one (${id}). The events MediaGen had for the old one are lost; the first delivery to the new one is refused once, until the node has taken it over (Secret repair).`,
			);
			return;
		}
		if (await bringInLine(ctx, endpoint, events))
			await catchUp(ctx, endpoint.id, events, false, turn);
	} catch (error) {
		ctx.logger.warn(
			`${nodeLabel(ctx)}: the periodic check of its webhook endpoint failed (${(error as Error).message}); the next one tries again`,
		);
	}
}

/**
 * When the node's check runs: at its own minute of every KEEPER.minutes and its own second, from
 * the workflow's and the node's id (copies of a workflow keep the node ids, not the workflow's),
 * so that the checks of many workflows spread over the interval instead of meeting in one
 * minute. Exported for tests.
 */
export function checkSlot(
	workflowId: string | undefined,
	nodeId: string,
): { minute: number; second: number } {
	let hash = 0;
	for (const char of `${workflowId ?? ''}:${nodeId}`) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
	return { minute: Math.floor(hash / 60) % KEEPER.minutes, second: hash % 60 };
}

/**
 * The trigger's `trigger` method. n8n 2.x starts it on every start of n8n (its publication
 * reconciler re-publishes a workflow whose in-memory trigger is missing, which also runs the
 * webhook's checkExists), n8n 1.x with the webhooks. It only schedules the periodic check: it
 * never emits and never fails the activation.
 */
export async function startKeeper(ctx: ITriggerFunctions): Promise<ITriggerResponse> {
	if (isAutomatic(ctx) && ctx.getMode() !== 'manual') {
		const slot = checkSlot(ctx.getWorkflow().id, ctx.getNode().id);
		let running = false; // one check of the node at a time (a long wait for the pace)
		// n8n's cron expressions take no ranges: a tick a minute, the check at the node's minute
		ctx.helpers.registerCron({ expression: `${slot.second} * * * * *` }, (scheduled) => {
			// n8n 2.x passes the tick's scheduled time; n8n 1.x's cron passes none
			const at = scheduled instanceof Date ? scheduled : new Date();
			if (at.getUTCMinutes() % KEEPER.minutes !== slot.minute || running) return;
			running = true;
			const check = checkEndpoint(ctx);
			checks.add(check);
			void check.finally(() => {
				checks.delete(check);
				running = false;
			});
		});
	}
	return {};
}
