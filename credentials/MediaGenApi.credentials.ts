import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

export class MediaGenApi implements ICredentialType {
	name = 'mediaGenApi';

	displayName = 'MediaGen API';

	icon: Icon = { light: 'file:../icons/mediagen.svg', dark: 'file:../icons/mediagen.dark.svg' };

	documentationUrl = 'https://github.com/n8n-nodes-mediagen/n8n-nodes-mediagen#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'An API key from the workspace settings (API section). Keys need the Pro plan or above.',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: 'https://api.mediagen.example/v1',
			required: true,
			placeholder: 'https://api.mediagen.example/v1',
			description: 'The API base URL, including the version prefix (for example /v1)',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '=Bearer {{$credentials.apiKey}}',
			},
		},
	};

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '/workspace',
			method: 'GET',
		},
	};
}
