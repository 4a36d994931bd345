import { bool, endpoint, group, manyOf, oneOf, ref, str } from './dsl';

/** Event types a webhook endpoint can subscribe to (spec doc 1, "Events"). */
export const EVENT_TYPES = [
	'generation.completed',
	'generation.failed',
	'publication.published',
	'publication.failed',
	'workflow.completed',
	'workflow.failed',
	'export.completed',
	'export.failed',
	'*',
] as const;

const webhookId = { id: ref('webhook') };
const secretNotice =
	'The signing secret is shown only this once: store it now (for example in a MediaGen Trigger in manual mode).';

/** Spec doc 1, "Webhooks" (scope webhooks.manage for all). */
export const webhooks = group('webhook', 'Webhook', { doc: 1, section: 'Webhooks' }, [
	endpoint('getAll', 'GET /webhooks', 'webhooks.manage', {
		name: 'Get Many',
		action: 'Get many webhook endpoints',
		description: 'Get the webhook endpoints, each with the subscribable event types',
		paginate: 'string',
		listExtras: ['eventTypes'],
	}),
	endpoint('create', 'POST /webhooks', 'webhooks.manage', {
		name: 'Create',
		action: 'Create a webhook endpoint',
		body: {
			url: str({
				required: true,
				max: 2000,
				format: 'uri',
				displayName: 'URL',
				description: 'A public https URL',
			}),
			description: str({ max: 200, default: '' }),
			events: manyOf(EVENT_TYPES, { required: true }),
		},
		notice: secretNotice,
	}),
	endpoint('update', 'PATCH /webhooks/{id}', 'webhooks.manage', {
		name: 'Update',
		action: 'Update a webhook endpoint',
		description:
			'Update a webhook endpoint; set Status to disabled or active to disable or enable it',
		path: webhookId,
		body: {
			url: str({ max: 2000, displayName: 'URL' }),
			description: str({ max: 200 }),
			events: manyOf(EVENT_TYPES),
			status: oneOf(['active', 'disabled']),
		},
	}),
	endpoint('delete', 'DELETE /webhooks/{id}', 'webhooks.manage', {
		name: 'Delete',
		action: 'Delete a webhook endpoint',
		path: webhookId,
	}),
	endpoint('rotateSecret', 'POST /webhooks/{id}/rotate-secret', 'webhooks.manage', {
		name: 'Rotate Secret',
		action: 'Rotate the signing secret of a webhook endpoint',
		path: webhookId,
		notice: secretNotice,
	}),
	endpoint('test', 'POST /webhooks/{id}/test', 'webhooks.manage', {
		name: 'Send Test',
		action: 'Send a test ping to a webhook endpoint',
		description: 'Send a ping now and return the delivery result',
		path: webhookId,
	}),
	endpoint('getDeliveries', 'GET /webhooks/{id}/deliveries', 'webhooks.manage', {
		name: 'Get Deliveries',
		action: 'Get the deliveries of a webhook endpoint',
		description: 'Get recent deliveries with their response codes',
		path: webhookId,
		paginate: 'string',
	}),
	endpoint('retryDelivery', 'POST /webhooks/deliveries/{id}/retry', 'webhooks.manage', {
		name: 'Retry One Delivery',
		action: 'Retry one webhook delivery by its ID',
		description: 'Have MediaGen send one delivery again, by its ID (from Get Deliveries)',
		toolText: 'Retry a failed webhook delivery',
		path: { id: str({ displayName: 'Delivery ID' }) },
	}),
	endpoint('retryFailedDeliveries', 'GET /webhooks/{id}/deliveries', 'webhooks.manage', {
		name: 'Retry Failed Deliveries',
		action: 'Resend the events an n8n outage missed',
		description:
			'Have MediaGen send all failed deliveries of an endpoint again, oldest first; enables it if needed',
		toolText:
			'Enable the endpoint if MediaGen disabled it, then have MediaGen send its failed deliveries again, oldest first: the events an n8n outage missed. For a MediaGen Trigger in manual mode, run it from a Schedule Trigger.',
		path: webhookId,
		query: {
			enableEndpoint: bool({
				top: true,
				default: true,
				displayName: 'Enable If Disabled',
				description:
					'Whether to enable the endpoint first when MediaGen disabled it (after 15 failed events in a row); its ID, URL and secret stay',
			}),
		},
		nodeOperation: { kind: 'retryDeliveries', since: 2 },
	}),
]);
