/**
 * The trigger's parameters: versions 1 and 2 as released (manual mode's secret pasted into the
 * node) and versions 3 and 4 (manual mode's secrets in a MediaGen Webhook Secret API credential;
 * version 4 differs only in how its credentials are shown: MediaGenTrigger.node.ts).
 */
import type { INodeProperties } from 'n8n-workflow';

import { EVENT_TYPES as SUBSCRIBABLE_EVENT_TYPES } from '../shared/catalog/webhooks';

/** The event types an endpoint can subscribe to (the spec's), without `*`. */
export const EVENT_TYPES = SUBSCRIBABLE_EVENT_TYPES.filter((type) => type !== '*');

/** The values of the Options collection. */
export interface TriggerOptions {
	onlyEventTypes?: string[];
	includePings?: boolean;
	downloadFiles?: boolean;
	binaryPropertyName?: string;
	includeContext?: boolean;
}

const eventOptions = [
	{
		name: 'Export Completed',
		value: 'export.completed',
		description: 'An editor export is ready; includes the new asset ID',
	},
	{
		name: 'Export Failed',
		value: 'export.failed',
		description: 'An editor export could not be rendered',
	},
	{
		name: 'Generation Completed',
		value: 'generation.completed',
		description: 'A generation finished; its outputs are assets',
	},
	{
		name: 'Generation Failed',
		value: 'generation.failed',
		description: 'A generation failed or was cancelled; its credits were returned',
	},
	{
		name: 'Publication Failed',
		value: 'publication.failed',
		description: 'A publication could not be posted (MediaGen does not document its data)',
	},
	{
		name: 'Publication Published',
		value: 'publication.published',
		description: 'A publication was posted (MediaGen does not document its data)',
	},
	{
		name: 'Workflow Completed',
		value: 'workflow.completed',
		description: 'A canvas run finished; includes the output asset IDs',
	},
	{
		name: 'Workflow Failed',
		value: 'workflow.failed',
		description: 'A canvas run stopped',
	},
];

/** Versions 1 and 2, as released: manual mode's secret is a node parameter. */
export const propertiesV1: INodeProperties[] = [
	{
		displayName: 'Registration',
		name: 'registration',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Automatic',
				value: 'automatic',
				description:
					'Activating the workflow creates the endpoint in MediaGen; deactivating deletes it',
			},
			{
				name: 'Manual',
				value: 'manual',
				description: "Use an endpoint made in MediaGen's settings and paste its signing secret",
			},
		],
		default: 'automatic',
	},
	{
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		required: true,
		options: [
			{ name: 'All Events (*)', value: '*', description: 'Every event, also future ones' },
			...eventOptions,
		],
		default: ['generation.completed'],
		description: 'The events the endpoint subscribes to',
		displayOptions: { show: { registration: ['automatic'] } },
	},
	{
		displayName:
			'While n8n is down, MediaGen retries each event for about 11 hours. After a longer outage this trigger has MediaGen send the missed events again once n8n is back (of the events chosen here, made while the workflow was active). To see what failed: MediaGen → Webhook → Get Deliveries. On n8n 2.x, a workflow published before n8n-nodes-mediagen was updated gets this only once it is published again.',
		name: 'outageNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { registration: ['automatic'] } },
	},
	{
		displayName:
			"In MediaGen's settings (Webhooks), create an endpoint with this node's Production URL, choose its events, and paste the signing secret it shows once below",
		name: 'manualNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { registration: ['manual'] } },
	},
	{
		displayName: 'Signing Secret',
		name: 'signingSecret',
		type: 'string',
		typeOptions: { password: true },
		required: true,
		default: '',
		placeholder: 'whsec_...',
		description: 'The secret MediaGen showed when the endpoint was created (starts with whsec_)',
		displayOptions: { show: { registration: ['manual'] } },
	},
	{
		displayName:
			"While n8n is down, MediaGen retries each event for about 11 hours, then gives up on it (and disables the endpoint after 15 such events). To have those events sent again, run MediaGen → Webhook → Retry Failed Deliveries with this endpoint's ID from a Schedule Trigger (say, every hour).",
		name: 'manualOutageNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { registration: ['manual'] } },
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Binary Property',
				name: 'binaryPropertyName',
				type: 'string',
				default: 'data',
				description:
					'Field for the first downloaded file; further files go to the same name followed by _1, _2 and so on',
				displayOptions: { show: { '/registration': ['automatic'] } },
			},
			{
				displayName: 'Download Files',
				name: 'downloadFiles',
				type: 'boolean',
				default: false,
				description:
					'Whether to download the outputs of Generation Completed (and the asset of Export Completed) as binary data, up to 100 MB each (larger files: use MediaGen → Asset → Download after the trigger). The request is answered before the download starts.',
				displayOptions: { show: { '/registration': ['automatic'] } },
			},
			{
				displayName: 'Include Generation Context',
				name: 'includeContext',
				type: 'boolean',
				default: false,
				description:
					"Whether to add to Generation Completed and Generation Failed events the generation's context (what the workflow that started it put there, e.g. a row's reference), read from MediaGen: the event itself does not carry it. The request is answered before the read.",
				displayOptions: { show: { '/registration': ['automatic'] } },
			},
			{
				displayName: 'Include Test Pings',
				name: 'includePings',
				type: 'boolean',
				default: false,
				description:
					'Whether test pings sent from MediaGen start the workflow (otherwise they are only acknowledged)',
			},
			{
				displayName: 'Only Event Types',
				name: 'onlyEventTypes',
				type: 'multiOptions',
				options: eventOptions,
				default: [],
				description:
					'Start the workflow only for these event types; other events are acknowledged and dropped. Empty: all.',
			},
		],
	},
];

/** Versions 3 and 4: manual mode's secrets come from the MediaGen Webhook Secret API credential. */
export const propertiesV3: INodeProperties[] = propertiesV1.flatMap(
	(property): INodeProperties[] => {
		if (property.name === 'signingSecret') return [];
		if (property.name !== 'manualNotice') return [property];
		return [
			{
				displayName:
					"In MediaGen's settings (Webhooks), create an endpoint with this node's Production URL and choose its events; put the signing secret it shows once into a MediaGen Webhook Secret API credential. For test events, make a second endpoint with the Test URL and put its secret in the credential's Test Signing Secret.",
				name: 'manualCredentialNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { registration: ['manual'] } },
			},
		];
	},
);
