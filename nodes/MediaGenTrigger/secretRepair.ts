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

/** When each URL's endpoint was last looked at (URL -> ms). */
const lastRepairCheck = new Map<string, number>();

/** Whether the URL may be checked now; if so, the check is counted. */
function checkDue(key: string): boolean {
	const now = Date.now();
	if (now - (lastRepairCheck.get(key) ?? -Infinity) < SECRET_REPAIR.minIntervalMs) return false;
	if (lastRepairCheck.size >= 1000) lastRepairCheck.clear();
	lastRepairCheck.set(key, now);
	return true;
}

/** The request that was refused: its webhook-id and webhook-timestamp (Unix seconds). */
export interface RefusedRequest {
	webhookId: string;
	timestamp: number;
}

/**
 * Whether the log proves the request genuine: a delivery of its event that MediaGen will send again
 * (pending), one of whose attempts was made at the request's timestamp (to the second).
 */
export function provesRequest(deliveries: DeliveryRecord[], request: RefusedRequest): boolean {
	return deliveries.some(
		(delivery) =>
			delivery.event_id === request.webhookId &&
			delivery.status === 'pending' &&
			(delivery.attempts ?? []).some(
				(attempt) => Math.floor(Date.parse(attempt.at ?? '') / 1000) === request.timestamp,
			),
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

/** Whether the endpoint's log proves the request, looking twice when its attempt is not in yet. */
async function logProves(
	ctx: IWebhookFunctions,
	endpointId: string,
	request: RefusedRequest,
): Promise<boolean | undefined> {
	const deliveries = await firstPage(ctx, endpointId);
	if (deliveries === undefined) return undefined;
	if (provesRequest(deliveries, request)) return true;
	// MediaGen records an attempt once it has the answer: it may not be in the log yet
	const pending = deliveries.some(
		(delivery) => delivery.event_id === request.webhookId && delivery.status === 'pending',
	);
	if (!pending) return false;
	await sleep(SECRET_REPAIR.recheckMs);
	return provesRequest((await firstPage(ctx, endpointId)) ?? [], request);
}

/**
 * The endpoint at the node's URL that sent the request: the stored one, or (when that is gone:
 * static data saved over a newer registration) the one now at the URL.
 */
async function senderOf(
	ctx: IWebhookFunctions,
	stored: StoredEndpoint,
	request: RefusedRequest,
): Promise<{ id: string; events?: string[] } | undefined> {
	const proved = await logProves(ctx, stored.id, request);
	if (proved !== undefined) return proved ? stored : undefined;
	const current = endpointToKeep(await listEndpoints(ctx), stored.url);
	if (!current || !(await logProves(ctx, current.id, request))) return undefined;
	return current;
}

/**
 * Called after a request with a well-formed but wrong signature was refused: sets a new secret of
 * the endpoint at the node's URL when MediaGen's log proves the request came from it.
 */
export async function repairRotatedSecret(
	ctx: IWebhookFunctions,
	slot: Slot,
	request: RefusedRequest,
): Promise<void> {
	const stored = storedEndpoint(ctx, slot);
	if (!stored || stored.url !== ctx.getNodeWebhookUrl('default') || !checkDue(stored.url)) return;
	try {
		const sender = await senderOf(ctx, stored, request);
		if (!sender) return;
		const secret = await rotateSecret(ctx, sender.id);
		const events = sender.id === stored.id ? stored.events : (sender.events ?? stored.events);
		setStoredEndpoint(ctx, slot, { ...stored, id: sender.id, events, secret });
		ctx.logger.warn(
			`MediaGen Trigger "${ctx.getNode().name}": deliveries of webhook endpoint ${sender.id}, which this node manages, were signed with a secret the node did not have (rotated outside n8n, or the workflow's data was saved over a newer registration). The node set a new secret; MediaGen's next retry of the delivery verifies. Rotate the secret of this endpoint only by deactivating and activating the workflow.`,
		);
	} catch (error) {
		ctx.logger.warn(
			`MediaGen Trigger "${ctx.getNode().name}": deliveries fail verification and the endpoint ${stored.id} could not be checked (${(error as Error).message}). If its secret was rotated, deactivate and activate the workflow.`,
		);
	}
}
