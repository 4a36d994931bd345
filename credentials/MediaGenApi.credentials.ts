import type {
	ICredentialDataDecryptedObject,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import {
	BUDGET_PROPERTIES,
	BUDGET_SCOPE_MESSAGE,
	BUDGET_TEST_URL,
} from '../nodes/shared/budget/settings';
import { keyedRequest } from '../nodes/shared/transport/urlPolicy';

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
			description:
				'The API base URL, including the version prefix (for example /v1). Must be https (plain http only for localhost): every request carries the API key.',
		},
		...BUDGET_PROPERTIES,
	];

	/**
	 * Sets `Authorization: Bearer <API key>` on a request n8n sends with this credential
	 * (httpRequestWithAuthentication, the credential test, the HTTP Request node's predefined
	 * credential type), only when it goes to the Base URL's origin. A function rather than the
	 * declarative `{ type: 'generic' }` block: n8n resolves a declarative header as an expression,
	 * in its expression isolate, on every request (about 0.4 ms each in n8n 2.40, the largest part
	 * of the node's per-item cost: bench/README.md, B1), and a declarative block cannot look at
	 * where the request goes.
	 *
	 * Refused with the reason (nothing is sent): a Base URL that is not https (plain http only to
	 * localhost, 127.0.0.0/8, ::1), and any request to another origin. A request with the key
	 * follows no redirect, whatever the caller asked (a 3xx is the answer), and over plain http it
	 * goes through no proxy (`keyedRequest`, nodes/shared/transport/urlPolicy.ts).
	 */
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const keyed = keyedRequest(String(credentials.baseUrl ?? ''), requestOptions);
		return {
			...keyed,
			headers: { ...keyed.headers, Authorization: `Bearer ${String(credentials.apiKey)}` },
		};
	}

	/**
	 * GET /workspace; with a credit budget set, GET /credits/ledger instead: the budget reads the
	 * ledger (scope billing.view), and a key without that scope is told so here.
	 */
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: BUDGET_TEST_URL,
			method: 'GET',
			disableFollowRedirect: true,
		},
		rules: [{ type: 'responseCode', properties: { value: 403, message: BUDGET_SCOPE_MESSAGE } }],
	};
}
