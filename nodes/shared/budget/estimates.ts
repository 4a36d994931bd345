/**
 * What each charging item of a run is estimated to cost, before anything is sent: the estimate
 * the guard already has (Max Credits), a canvas run's confirmed credits, or the operation's
 * estimate endpoint, one request per distinct priced body, a few at a time.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { ItemPlan } from '../behaviours/behaviour';
import { PROVENANCE_KEY } from '../durable/identity';
import { estimateCredits } from '../jobs/credits';
import { fillPath } from '../jobs/paths';

/** Estimate requests in flight at once. */
export const ESTIMATES_IN_FLIGHT = 8;

/** An item whose cost the budget needs (undefined: the operation has no estimate). */
export interface Costed {
	plan: ItemPlan;
	cost?: number;
}

/**
 * What an estimate is priced by: its path and body, less what identifies the item rather than
 * the work (the Idempotency-Key field, the node's provenance in `context`): items that differ
 * only there share one estimate.
 */
function priceKey(path: string, plan: ItemPlan): string {
	const body: IDataObject = { ...(plan.request.body ?? {}) };
	for (const [name, field] of Object.entries(plan.endpoint.body))
		if (field.derived === 'idempotencyKey') delete body[name];
	const context = body.context as IDataObject | undefined;
	if (context && PROVENANCE_KEY in context)
		body.context = Object.fromEntries(
			Object.entries(context).filter(([k]) => k !== PROVENANCE_KEY),
		);
	return `${path} ${JSON.stringify(body)}`;
}

/** Sets each item's cost; returns the items whose estimate failed (e.g. a 422), by item. */
export async function estimateAll(
	ctx: IExecuteFunctions,
	items: Costed[],
): Promise<Map<number, unknown>> {
	const failed = new Map<number, unknown>();
	const prices = new Map<string, Promise<number>>();
	const work = items.filter((item) => {
		const { job, endpoint, request } = item.plan;
		const into = endpoint.estimateInto && request.body?.[endpoint.estimateInto.field];
		item.cost = job?.estimate ?? (typeof into === 'number' ? into : undefined);
		return item.cost === undefined && !!(endpoint.job?.estimate ?? endpoint.charged?.estimate);
	});
	for (let k = 0; k < work.length; k += ESTIMATES_IN_FLIGHT) {
		const batch = work.slice(k, k + ESTIMATES_IN_FLIGHT).map(async (item) => {
			const { endpoint, request, itemIndex } = item.plan;
			const template = String(endpoint.job?.estimate ?? endpoint.charged?.estimate);
			const path = fillPath(template, '', request.params);
			const key = priceKey(path, item.plan);
			if (!prices.has(key))
				prices.set(key, estimateCredits(ctx, path, request.body ?? {}, itemIndex));
			try {
				item.cost = await prices.get(key);
			} catch (error) {
				failed.set(itemIndex, error);
			}
		});
		await Promise.all(batch);
	}
	return failed;
}
