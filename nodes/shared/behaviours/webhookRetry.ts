/**
 * Webhook → Retry Failed Deliveries (a node operation): the endpoint enabled again when MediaGen
 * disabled it, then its failed deliveries retried, oldest first, within the rate limit; the same
 * recovery the MediaGen Trigger makes by itself in automatic mode (../webhooks/deliveries.ts).
 */
import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	enableEndpoint,
	failedEventDeliveries,
	listEndpoints,
	readDeliveryLog,
	retryDeliveries,
} from '../webhooks/deliveries';
import type { Behaviour } from './behaviour';
import { outputs, requestPlan } from './behaviour';

/** The endpoint id of the plan's request (`/webhooks/{id}/deliveries`). */
function endpointIdOf(path: string): string {
	return decodeURIComponent(path.split('/')[2] ?? '');
}

export const webhookRetry: Behaviour = {
	properties: () => ({
		beforeOptional: [
			{
				displayName:
					"Recovers the events an n8n outage missed: MediaGen retries an event for about 11 hours, then gives up on it, and disables the endpoint after 15 such events. For a MediaGen Trigger in manual mode, run this from a Schedule Trigger (say, every hour) with the endpoint's ID; a trigger in automatic mode does it by itself.",
				name: 'retryFailedNotice',
				type: 'notice',
				default: '',
			},
		],
	}),
	prepare: async (ctx, endpoint, itemIndex, _run, values) =>
		requestPlan(ctx, endpoint, itemIndex, values),
	async send(ctx, { request, itemIndex }) {
		const id = endpointIdOf(request.path);
		const endpoint = (await listEndpoints(ctx, { itemIndex })).find((e) => e.id === id);
		if (!endpoint)
			throw new NodeOperationError(ctx.getNode(), `MediaGen has no webhook endpoint ${id}`, {
				itemIndex,
				description:
					'GET /webhooks does not list it: it was deleted, or belongs to another workspace.',
			});
		const enable = endpoint.status !== 'active' && request.qs?.enableEndpoint !== false;
		if (enable) await enableEndpoint(ctx, id, itemIndex);
		const log = await readDeliveryLog(ctx, id, { itemIndex });
		const failed = failedEventDeliveries(log.deliveries);
		const run = await retryDeliveries(ctx, failed, { itemIndex });
		if (run.error) throw run.error;
		const retried = run.results.filter((r) => r.outcome === 'retried');
		const summary: IDataObject = {
			webhook_id: id,
			status: enable ? 'active' : (endpoint.status ?? null),
			enabled: enable,
			failed: failed.length,
			retried: retried.length,
			delivered: retried.filter((r) => r.delivery.status === 'succeeded').length,
			skipped: run.results.length - retried.length,
			logTruncated: log.truncated,
			deliveries: run.results.map((r) => r.delivery as unknown as IDataObject),
		};
		return outputs([summary], itemIndex);
	},
};
