/**
 * MediaGen Trigger: starts a workflow when MediaGen sends a signed webhook event. The node and its
 * versions; registration.ts manages the endpoint, delivery.ts handles each request, enrichment.ts
 * adds files and context in the execution, catchUp.ts recovers what MediaGen could not deliver
 * (docs/trigger-internals.md).
 */
import type {
	IExecuteFunctions,
	INodeCredentialDescription,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeBaseDescription,
	INodeTypeDescription,
	ITriggerFunctions,
	ITriggerResponse,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, VersionedNodeType } from 'n8n-workflow';
import { CREDENTIAL } from '../shared/transport/context';
import { startKeeper } from './catchUp';
import { receiveDelivery } from './delivery';
import { enrichEvents } from './enrichment';
import { propertiesV1, propertiesV3 } from './properties';
import { registrationMethods } from './registration';
import { webhookSecretTest } from './slots';

/**
 * Version 2 differs from 1 only in that n8n does not evaluate a version 1 webhook node's
 * "binaryData" expression per request; version 3 moves manual mode's secrets into a credential;
 * version 4 shows that credential by `hide` instead of `show`, so that n8n's editor no longer takes
 * Registration for the node's authentication field (docs/trigger-internals.md, Versions).
 */
const baseDescription: INodeTypeBaseDescription = {
	displayName: 'MediaGen Trigger',
	name: 'mediaGenTrigger',
	icon: { light: 'file:../../icons/mediagen.svg', dark: 'file:../../icons/mediagen.dark.svg' },
	group: ['trigger'],
	description:
		'Starts the workflow when MediaGen sends an event: generations, canvas runs, exports, publications',
	defaultVersion: 4,
};

const apiCredential: INodeCredentialDescription = {
	name: CREDENTIAL,
	required: true,
	displayOptions: { show: { registration: ['automatic'] } },
};

const SUBTITLE =
	'={{$parameter["registration"] === "manual" ? "Manual endpoint" : $parameter["events"].join(", ")}}';

function versionDescription(
	version: number | number[],
	properties: INodeProperties[],
): INodeTypeDescription {
	return {
		...baseDescription,
		version,
		defaults: { name: 'MediaGen Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				// answered when the execution starts, with an empty 200 (docs/trigger-internals.md)
				responseMode: 'onReceived',
				responseData: 'noData',
				path: 'webhook',
			},
		],
		properties,
	};
}

/**
 * What every version of the trigger does; the versions differ in their description. Besides n8n's
 * webhook methods: `trigger` makes n8n (2.x) run the activation on every start of n8n and holds
 * the periodic check; `execute` adds files and context to the event in the execution, and passes
 * the event on (without it n8n would run `trigger` for a test event instead of passing the
 * webhook's items on: docs/trigger-internals.md, n8n entry points).
 */
abstract class MediaGenTriggerBehaviour {
	methods = { credentialTest: { webhookSecretTest } };

	webhookMethods = { default: registrationMethods };

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await receiveDelivery(this);
	}

	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		return await startKeeper(this);
	}

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await enrichEvents(this);
	}
}

// n8n's lint reads icon, group, subtitle and credentials from each version's class itself

/** Versions 1 and 2, as released: manual mode's secret is a node parameter. */
class MediaGenTriggerV1 extends MediaGenTriggerBehaviour implements INodeType {
	description: INodeTypeDescription = {
		...versionDescription([1, 2], propertiesV1),
		icon: { light: 'file:../../icons/mediagen.svg', dark: 'file:../../icons/mediagen.dark.svg' },
		group: ['trigger'],
		subtitle: SUBTITLE,
		credentials: [apiCredential],
	};
}

/** Version 3: manual mode's secrets in a MediaGen Webhook Secret API credential. */
class MediaGenTriggerV3 extends MediaGenTriggerBehaviour implements INodeType {
	description: INodeTypeDescription = {
		...versionDescription(3, propertiesV3),
		icon: { light: 'file:../../icons/mediagen.svg', dark: 'file:../../icons/mediagen.dark.svg' },
		group: ['trigger'],
		subtitle: SUBTITLE,
		credentials: [
			apiCredential,
			{
				name: 'mediaGenWebhookSecretApi', // WEBHOOK_SECRET_CREDENTIAL
				required: true,
				testedBy: 'webhookSecretTest',
				displayOptions: { show: { registration: ['manual'] } },
			},
		],
	};
}

/**
 * Version 4: version 3's parameters, its Webhook Secret credential shown by `hide` (registration
 * automatic) instead of `show` (registration manual). n8n's editor takes a parameter every one of
 * whose values shows a credential for the node's authentication field (getMainAuthField); when it
 * selects a credential for a new node, it writes that field back with the form's copy of the
 * parameters, made before the node panel's action set Events ("On export failed" became Generation
 * Completed). With `hide` there is no such field: Registration is an ordinary dropdown.
 */
class MediaGenTriggerV4 extends MediaGenTriggerBehaviour implements INodeType {
	description: INodeTypeDescription = {
		...versionDescription(4, propertiesV3),
		icon: { light: 'file:../../icons/mediagen.svg', dark: 'file:../../icons/mediagen.dark.svg' },
		group: ['trigger'],
		subtitle: SUBTITLE,
		credentials: [
			apiCredential,
			{
				name: 'mediaGenWebhookSecretApi', // WEBHOOK_SECRET_CREDENTIAL
				required: true,
				testedBy: 'webhookSecretTest',
				displayOptions: { hide: { registration: ['automatic'] } },
			},
		],
	};
}

/** MediaGen Trigger, versions 1 and 2 (one description), 3 and 4 (the default). */
export class MediaGenTrigger extends VersionedNodeType {
	constructor() {
		const v1 = new MediaGenTriggerV1();
		super(
			{ 1: v1, 2: v1, 3: new MediaGenTriggerV3(), 4: new MediaGenTriggerV4() },
			baseDescription,
		);
	}
}
