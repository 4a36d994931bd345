/**
 * Repair of a registered endpoint whose signing secret the node does not have: rotated outside
 * n8n, or a copy of the workflow's static data saved over a newer registration. A refused request
 * that MediaGen's delivery log proves genuine (a pending delivery, attempted at the request's
 * timestamp) makes the node set a new secret of the endpoint at its URL and store it
 * (docs/trigger-internals.md, Secret repair).
 */
import type { IWebhookFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';
import { asNodeError, statusOf } from '../shared/transport/errors';
import type { DeliveryRecord } from '../shared/webhooks/deliveries';
import { readDeliveryLog } from '../shared/webhooks/deliveries';
import { endpointToKeep, listEndpoints, rotateSecret } from './endpoints';
import type { Slot, StoredEndpoint } from './slots';
import { setStoredEndpoint, storedEndpoint } from './slots';

/**
 * At most one look per interval and URL (per process); `recheckMs`: the second look at the log
 * when the refused attempt is not recorded yet.
 */
export const SECRET_REPAIR = { minIntervalMs: 60_000, recheckMs: 1000 };

/** How long, and how many, refused webhook-timestamps are remembered per URL. */
const REFUSALS = { ttlSeconds: 3600, maxEntries: 5000, maxUrls: 1000 };

/**
 * Per URL (this process): when its endpoint was last looked at, and the webhook-timestamps of the
 * requests refused there for their signature (Unix seconds -> when refused, ms).
 */
interface Watch {
	lastLook: number;
	refused: Map<number, number>;
}

const watches = new Map<string, Watch>();

function watchOf(url: string): Watch {
	let watch = watches.get(url);
	if (!watch) {
		if (watches.size >= REFUSALS.maxUrls) watches.delete(watches.keys().next().value as string);
		watch = { lastLook: -Infinity, refused: new Map() };
		watches.set(url, watch);
	}
	return watch;
}

/** Remembers a refused request's timestamp (the oldest forgotten first, and after an hour). */
function remember(watch: Watch, timestamp: number, now: number): void {
	watch.refused.delete(timestamp);
	watch.refused.set(timestamp, now);
	for (const [second, at] of watch.refused) {
		if (watch.refused.size <= REFUSALS.maxEntries && now - at < REFUSALS.ttlSeconds * 1000) break;
		watch.refused.delete(second);
	}
}

/** Whether the URL may be looked at now; if so, the look is counted. */
function lookDue(watch: Watch, now: number): boolean {
	if (now - watch.lastLook < SECRET_REPAIR.minIntervalMs) return false;
	watch.lastLook = now;
	return true;
}

/** The request that was refused: its webhook-id and webhook-timestamp (Unix seconds). */
export interface RefusedRequest {
	webhookId: string;
	timestamp: number;
}

/**
 * Whether the log proves that the node refuses MediaGen's own deliveries: an attempt MediaGen
 * made after the node set its secret (`since`, ms), answered 401, signed at a second at which a
 * request was refused here for its signature (MediaGen signs each attempt when it starts it:
 * webhook-timestamp is the attempt's time). A forged request cannot make such an attempt; one
 * refused for another reason (its timestamp) has no such second.
 */
export function provesRefusal(
	deliveries: DeliveryRecord[],
	refused: ReadonlySet<number> | ReadonlyMap<number, unknown>,
	since: number,
): boolean {
	return deliveries.some((delivery) =>
		(delivery.attempts ?? []).some((attempt) => {
			const at = Date.parse(attempt.at ?? '');
			return attempt.response_status === 401 && at >= since && refused.has(Math.floor(at / 1000));
		}),
	);
}

/** The first page of an endpoint's delivery log; undefined when the endpoint is gone (404). */
async function firstPage(
	ctx: IWebhookFunctions,
	endpointId: string,
): Promise<DeliveryRecord[] | undefined> {
	try {
		return (await readDeliveryLog(ctx, endpointId, { maxPages: 1 })).deliveries;
	} catch (error) {
		if (statusOf(error) === 404) return undefined;
		throw asNodeError(ctx, error);
	}
}

/** What a look needs: the refused timestamps of the URL and when the node's secret was set. */
interface Evidence {
	watch: Watch;
	since: number;
	request: RefusedRequest;
}

/**
 * Whether the endpoint's log proves refused deliveries, looking twice when the refused request's
 * own attempt is not in yet (a delivery of its event is pending).
 */
async function logProves(
	ctx: IWebhookFunctions,
	endpointId: string,
	{ watch, since, request }: Evidence,
): Promise<boolean | undefined> {
	const deliveries = await firstPage(ctx, endpointId);
	if (deliveries === undefined) return undefined;
	if (provesRefusal(deliveries, watch.refused, since)) return true;
	// MediaGen records an attempt once it has the answer: it may not be in the log yet
	const pending = deliveries.some(
		(delivery) => delivery.event_id === request.webhookId && delivery.status === 'pending',
	);
	if (!pending) return false;
	await sleep(SECRET_REPAIR.recheckMs);
	return provesRefusal((await firstPage(ctx, endpointId)) ?? [], watch.refused, since);
}

/**
 * The endpoint at the node's URL that sent the request: the stored one, or (when that is gone:
 * static data saved over a newer registration) the one now at the URL.
 */
async function senderOf(
	ctx: IWebhookFunctions,
	stored: StoredEndpoint,
	evidence: Evidence,
): Promise<{ id: string; events?: string[] } | undefined> {
	const proved = await logProves(ctx, stored.id, evidence);
	if (proved !== undefined) return proved ? stored : undefined;
	const current = endpointToKeep(await listEndpoints(ctx), stored.url);
	if (!current || !(await logProves(ctx, current.id, evidence))) return undefined;
	return current;
}

/**
 * Called after a request with a well-formed but wrong signature was refused: its timestamp is
 * remembered, and (at most once per interval and URL, whoever sent the request) the log is looked
 * at; the node sets a new secret of the endpoint at its URL when the log proves that MediaGen's
 * deliveries were refused since the node set its secret.
 */
export async function repairRotatedSecret(
	ctx: IWebhookFunctions,
	slot: Slot,
	request: RefusedRequest,
): Promise<void> {
	const stored = storedEndpoint(ctx, slot);
	if (!stored || stored.url !== ctx.getNodeWebhookUrl('default')) return;
	const watch = watchOf(stored.url);
	const now = Date.now();
	remember(watch, request.timestamp, now);
	if (!lookDue(watch, now)) return;
	const since = Date.parse(stored.secretAt ?? stored.createdAt) || 0;
	try {
		const sender = await senderOf(ctx, stored, { watch, since, request });
		if (!sender) return;
		const secret = await rotateSecret(ctx, sender.id);
		watch.refused.clear();
		const events = sender.id === stored.id ? stored.events : (sender.events ?? stored.events);
		const secretAt = new Date().toISOString();
		setStoredEndpoint(ctx, slot, { ...stored, id: sender.id, events, secret, secretAt });
		ctx.logger.warn(
			`MediaGen Trigger "${ctx.getNode().name}": deliveries of webhook endpoint ${sender.id}, which this node manages, were signed with a secret the node did not have (rotated outside n8n, or the workflow's data was saved over a newer registration). The node set a new secret; MediaGen's next retry of the delivery verifies. Rotate the secret of this endpoint only by deactivating and activating the workflow.`,
		);
	} catch (error) {
		ctx.logger.warn(
			`MediaGen Trigger "${ctx.getNode().name}": deliveries fail verification and the endpoint ${stored.id} could not be checked (${(error as Error).message}). If its secret was rotated, deactivate and activate the workflow.`,
		);
	}
}
