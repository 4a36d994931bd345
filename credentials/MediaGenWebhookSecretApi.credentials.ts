import type { Icon, ICredentialType, INodeProperties } from 'n8n-workflow';

/**
 * The signing secrets of webhook endpoints made by hand in MediaGen's settings, for the MediaGen
 * Trigger's manual registration (node version 3). Kept in n8n's encrypted credential store, so
 * that no secret is ever part of a workflow (its JSON, history, exports or shared templates).
 * Nothing is sent anywhere with it: the trigger only verifies signatures with it.
 */
export class MediaGenWebhookSecretApi implements ICredentialType {
	name = 'mediaGenWebhookSecretApi';

	displayName = 'MediaGen Webhook Secret API';

	icon: Icon = { light: 'file:../icons/mediagen.svg', dark: 'file:../icons/mediagen.dark.svg' };

	documentationUrl = 'https://github.com/n8n-nodes-mediagen/n8n-nodes-mediagen#security';

	properties: INodeProperties[] = [
		{
			displayName: 'Production Signing Secret',
			name: 'productionSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			placeholder: 'whsec_...',
			description:
				"The signing secret MediaGen showed once when the endpoint for the trigger's Production URL was created (starts with whsec_)",
		},
		{
			displayName: 'Test Signing Secret',
			name: 'testSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			placeholder: 'whsec_...',
			description:
				"The signing secret of a second endpoint, made for the trigger's Test URL, used while n8n listens for a test event. Empty: test events are refused.",
		},
	];
}
