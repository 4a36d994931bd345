/**
 * Repair of a registered endpoint whose signing secret was rotated outside n8n: a refused request
 * that MediaGen's delivery log proves genuine makes the node rotate the secret itself and store it
 * (docs/trigger-internals.md, Secret repair).
 */
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { mediaGenRequest } from '../shared/transport';
import { isValidSecret } from '../shared/webhookSignature';
import type { Slot, StoredEndpoint } from './slots';
import { setStoredEndpoint, storedEndpoint } from './slots';

/** At most one look at an endpoint's deliveries per interval (per process). */
export const SECRET_REPAIR = { minIntervalMs: 60_000 };

/** When each endpoint's deliveries were last looked at (endpoint id -> ms). */
const lastRepairCheck = new Map<string, number>();

/** A record of GET /webhooks/{id}/deliveries, as far as the repair reads it. */
interface DeliveryRecord {
	id?: string;
	event_id?: string;
	status?: string;
}

/** Whether the endpoint may be checked now; if so, the check is counted. */
function checkDue(endpointId: string): boolean {
	const now = Date.now();
	if (now - (lastRepairCheck.get(endpointId) ?? -Infinity) < SECRET_REPAIR.minIntervalMs)
		return false;
	if (lastRepairCheck.size >= 1000) lastRepairCheck.clear();
	lastRepairCheck.set(endpointId, now);
	return true;
}

/** Whether the webhook-id is a delivery of the endpoint that has not succeeded yet. */
async function isPendingDelivery(
	ctx: IWebhookFunctions,
	endpoint: StoredEndpoint,
	webhookId: string,
): Promise<boolean> {
	const log = await mediaGenRequest<{ data?: DeliveryRecord[] }>(ctx, {
		method: 'GET',
		path: `/webhooks/${encodeURIComponent(endpoint.id)}/deliveries`,
		qs: { limit: 100 },
	});
	return (log.data ?? []).some(
		(delivery) =>
			(delivery.event_id === webhookId || delivery.id === webhookId) &&
			delivery.status !== 'succeeded',
	);
}

/**
 * Called after a request with a well-formed but wrong signature was refused: rotates the secret of
 * the slot's endpoint when the request's webhook-id proves it came from MediaGen.
 */
export async function repairRotatedSecret(
	ctx: IWebhookFunctions,
	slot: Slot,
	webhookId: string,
): Promise<void> {
	const stored = storedEndpoint(ctx, slot);
	if (!stored || !checkDue(stored.id)) return;
	try {
		if (!(await isPendingDelivery(ctx, stored, webhookId))) return;
		const rotated = await mediaGenRequest<IDataObject>(ctx, {
			method: 'POST',
			path: `/webhooks/${encodeURIComponent(stored.id)}/rotate-secret`,
		});
		if (typeof rotated.secret !== 'string' || !isValidSecret(rotated.secret)) return;
		setStoredEndpoint(ctx, slot, { ...stored, secret: rotated.secret });
		ctx.logger.warn(
			`MediaGen Trigger "${ctx.getNode().name}": the signing secret of webhook endpoint ${stored.id}, which this node manages, was changed outside n8n, so MediaGen's deliveries failed verification. The node set a new secret; MediaGen retries the failed deliveries on its schedule. Rotate the secret of this endpoint only by deactivating and activating the workflow.`,
		);
	} catch (error) {
		ctx.logger.warn(
			`MediaGen Trigger "${ctx.getNode().name}": deliveries fail verification and the endpoint ${stored.id} could not be checked (${(error as Error).message}). If its secret was rotated, deactivate and activate the workflow.`,
		);
	}
}
