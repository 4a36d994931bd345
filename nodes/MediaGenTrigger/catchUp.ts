/**
 * Recovery of the events MediaGen could not deliver (docs/trigger-internals.md, Recovery): on
 * every activation the production endpoint's failed deliveries are retried once, oldest first;
 * and a periodic check (n8n's registerCron, from the trigger's `trigger` method) brings back an
 * endpoint MediaGen disabled while n8n runs, then retries what failed since.
 */
import type { ITriggerFunctions, ITriggerResponse } from 'n8n-workflow';

import type { DeliveryRecord } from '../shared/webhooks/deliveries';
import {
	failedEventDeliveries,
	readDeliveryLog,
	retryDeliveries,
} from '../shared/webhooks/deliveries';
import {
	bringInLine,
	endpointToKeep,
	listEndpoints,
	registerEndpoint,
	subscribes,
	wantedEvents,
} from './endpoints';
import type { TriggerContext } from './slots';
import { isAutomatic, madeWhileInactive, storedEndpoint } from './slots';

/** The periodic check, every `minutes` minutes; exported for tests. */
export const KEEPER = { minutes: 10 };

/** Per endpoint: the failed deliveries retried in this activation, and whether a pass runs. */
interface Recovery {
	retried: Set<string>;
	running?: Promise<void>;
}

/** Recoveries of this process, at most 1000 endpoints (the oldest forgotten first). */
const recoveries = new Map<string, Recovery>();

function recoveryOf(endpointId: string, newActivation: boolean): Recovery {
	let recovery = recoveries.get(endpointId);
	if (!recovery || newActivation) {
		if (recoveries.size >= 1000 && !recovery)
			recoveries.delete(recoveries.keys().next().value as string);
		recovery = { retried: new Set(), running: recovery?.running };
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

/** One pass: the failed deliveries of the log not yet retried in this activation, oldest first. */
async function retryMissed(
	ctx: TriggerContext,
	endpointId: string,
	events: string[],
	recovery: Recovery,
): Promise<void> {
	const log = await readDeliveryLog(ctx, endpointId);
	if (log.truncated)
		ctx.logger.warn(
			`${nodeLabel(ctx)}: the delivery log of webhook endpoint ${endpointId} holds more than the ${log.deliveries.length} deliveries read; older failed deliveries are not retried`,
		);
	const failed = failedEventDeliveries(log.deliveries).filter(
		(delivery) => !recovery.retried.has(delivery.id),
	);
	const missed = wanted(ctx, failed, events, recovery);
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
		for (const delivery of run.notTried) recovery.retried.delete(delivery.id);
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
 * endpoint; it never throws (a failure is logged).
 */
export async function catchUp(
	ctx: TriggerContext,
	endpointId: string,
	events: string[],
	newActivation = false,
): Promise<void> {
	const recovery = recoveryOf(endpointId, newActivation);
	if (recovery.running) await recovery.running.catch(() => undefined);
	const pass = retryMissed(ctx, endpointId, events, recovery).catch((error: Error) => {
		ctx.logger.warn(
			`${nodeLabel(ctx)}: could not check the deliveries of webhook endpoint ${endpointId} (${error.message})`,
		);
	});
	recovery.running = pass;
	await pass;
	if (recovery.running === pass) recovery.running = undefined;
}

/**
 * The periodic check: the production endpoint at the node's URL brought in line (its events set,
 * enabled again when MediaGen disabled it after failed deliveries, left alone when a user
 * disabled it), then its failed deliveries retried. The activation's static data gives the URL
 * (it does not change) and the id it knew; an endpoint at that URL is this node's.
 */
export async function checkEndpoint(ctx: ITriggerFunctions): Promise<void> {
	const stored = storedEndpoint(ctx, 'production');
	if (!stored) return;
	try {
		const endpoint = endpointToKeep(await listEndpoints(ctx), stored.url, stored.id);
		const events = wantedEvents(ctx);
		if (!endpoint) {
			const id = await registerEndpoint(ctx, 'production', stored.url, events);
			ctx.logger.warn(
				`${nodeLabel(ctx)}: its webhook endpoint ${stored.id} was deleted outside n8n; registered a new one (${id}). The events MediaGen had for the old one are lost; the first delivery to the new one is refused once, until the node has taken it over (Secret repair).`,
			);
			return;
		}
		if (await bringInLine(ctx, endpoint, events)) await catchUp(ctx, endpoint.id, events);
	} catch (error) {
		ctx.logger.warn(
			`${nodeLabel(ctx)}: the periodic check of its webhook endpoint failed (${(error as Error).message}); the next one tries again`,
		);
	}
}

/**
 * When the node's check runs: at its own minute of every KEEPER.minutes and its own second, from
 * its id, so that the checks of many workflows spread over the interval instead of meeting in
 * one minute. Exported for tests.
 */
export function checkSlot(nodeId: string): { minute: number; second: number } {
	let hash = 0;
	for (const char of nodeId) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
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
		const slot = checkSlot(ctx.getNode().id);
		// n8n's cron expressions take no ranges: a tick a minute, the check at the node's minute
		ctx.helpers.registerCron({ expression: `${slot.second} * * * * *` }, (scheduled) => {
			// n8n 2.x passes the tick's scheduled time; n8n 1.x's cron passes none
			const at = scheduled instanceof Date ? scheduled : new Date();
			if (at.getUTCMinutes() % KEEPER.minutes !== slot.minute) return;
			const check = checkEndpoint(ctx);
			checks.add(check);
			void check.finally(() => checks.delete(check));
		});
	}
	return {};
}
