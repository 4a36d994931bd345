/* eslint-disable @n8n/community-nodes/no-deprecated-workflow-functions -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * Test-only node: what n8n's HTTP Request node does with a predefined credential type (here the
 * MediaGen API credential): n8n-core's `requestWithAuthentication` with the node's legacy options
 * (`uri`, redirects followed, and, as HTTP Request before 4.4, the credential sent on a
 * cross-origin redirect), or `httpRequestWithAuthentication` with `url` and n8n's defaults
 * (redirects followed, the credential sent on a cross-origin redirect), or
 * `requestWithAuthenticationPaginated` (its Pagination option) with the legacy options. Optionally through the
 * node's own proxy (the HTTP Request node's Proxy option). Outputs the answer's status.
 */
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	IRequestOptions,
} from 'n8n-workflow';

import { nodeFactory } from './setup';

class TestHttpRequest implements INodeType {
	description = {
		displayName: 'Test HTTP Request',
		name: 'testHttpRequest',
		group: ['transform'],
		version: 1,
		description: 'A request with the MediaGen API credential',
		defaults: { name: 'HTTP' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [{ name: 'mediaGenApi', required: true }],
		properties: [
			{ displayName: 'URL', name: 'url', type: 'string', default: '' },
			{ displayName: 'Helper', name: 'helper', type: 'string', default: 'legacy' },
			{ displayName: 'Proxy', name: 'proxy', type: 'string', default: '' },
		],
	} as unknown as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const url = this.getNodeParameter('url', 0) as string;
		const proxy = (this.getNodeParameter('proxy', 0, '') as string) || undefined;
		const helper = this.getNodeParameter('helper', 0) as string;
		const legacy: IRequestOptions = {
			method: 'GET',
			uri: url,
			followRedirect: true,
			followAllRedirects: true,
			resolveWithFullResponse: true,
			simple: false,
			sendCredentialsOnCrossOriginRedirect: true,
			...(proxy ? { proxy } : {}),
		};
		let response: { statusCode: number };
		if (helper === 'legacy')
			response = (await this.helpers.requestWithAuthentication.call(
				this,
				'mediaGenApi',
				legacy,
				undefined,
				0,
			)) as { statusCode: number };
		else if (helper === 'paginated')
			// the HTTP Request node with Pagination: one page here (continue: false)
			[response] = (await this.helpers.requestWithAuthenticationPaginated.call(
				this,
				legacy,
				0,
				{ continue: false, request: {}, requestInterval: 0 },
				'mediaGenApi',
			)) as Array<{ statusCode: number }>;
		else
			response = (await this.helpers.httpRequestWithAuthentication.call(this, 'mediaGenApi', {
				method: 'GET',
				url,
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				...(proxy ? { proxy: proxyOption(proxy) } : {}),
			})) as { statusCode: number };
		return [[{ json: { statusCode: response.statusCode } }]];
	}
}

/** A proxy URL as the `proxy` object of n8n's `httpRequest` options. */
function proxyOption(url: string) {
	const { protocol, hostname, port } = new URL(url);
	return { protocol: protocol.replace(/:$/, ''), host: hostname, port: Number(port) };
}

export const httpRequest = nodeFactory(new TestHttpRequest());
