/**
 * Replay protection: every verified webhook-id is remembered in this process's memory and in the
 * workflow's static data; what each copy covers is in docs/trigger-internals.md, Replay protection.
 */
import type { IWebhookFunctions } from 'n8n-workflow';

import { ReplayCache } from './webhookSignature';
import { slotOf } from './slots';

/** Replay protection bounds: in memory per process, and in workflow static data. */
export const REPLAY_LIMITS = {
	memory: { maxEntries: 10_000, ttlSeconds: 3600 },
	staticData: { maxEntries: 1000, ttlSeconds: 3600 },
};

/** One cache per workflow, node and slot; at most 1000 of them, the oldest dropped first. */
const memoryCaches = new Map<string, ReplayCache>();

function memoryCacheOf(ctx: IWebhookFunctions): ReplayCache {
	const key = `${ctx.getWorkflow().id ?? ''}:${ctx.getNode().id}:${slotOf(ctx)}`;
	let cache = memoryCaches.get(key);
	if (!cache) {
		if (memoryCaches.size >= 1000) memoryCaches.delete(memoryCaches.keys().next().value as string);
		cache = new ReplayCache(REPLAY_LIMITS.memory);
		memoryCaches.set(key, cache);
	}
	return cache;
}

/** Whether the webhook-id was seen already (here or in static data); remembers it in both. */
export function isDuplicate(ctx: IWebhookFunctions, webhookId: string, now: number): boolean {
	const seenHere = memoryCacheOf(ctx).checkAndRemember(webhookId, now);
	const data = ctx.getWorkflowStaticData('node');
	const persisted = ReplayCache.fromRecord(data.seen, REPLAY_LIMITS.staticData, now);
	const seenElsewhere = persisted.checkAndRemember(webhookId, now);
	if (!seenElsewhere) data.seen = persisted.toRecord();
	return seenHere || seenElsewhere;
}
