/**
 * The parts of an n8n instance the engine harness gives n8n-core's engine: the node types it
 * knows (the package's nodes, the test nodes of ./testNodes.ts), the credentials helper (the
 * MediaGen API credential's own authenticate) and an execution's additional data.
 */
import type { ExecutionLifecycleHooks } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestOptions,
	INodeType,
	INodeTypes,
	IVersionedNodeType,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { ICredentialsHelper } from 'n8n-workflow';

import { MediaGenApi } from '../../../credentials/MediaGenApi.credentials';
// The explicit .ts: tsx (benchmarks) would otherwise resolve MediaGen.node to the codex .json.
import { MediaGen } from '../../../nodes/MediaGen/MediaGen.node.ts';
import type { SavedExecutions } from './savedExecutions';
import {
	ExecuteWorkflow,
	ExecuteWorkflowTrigger,
	LoopOverItems,
	TestItems,
	TestSlow,
	Wait,
} from './testNodes';

/** The credentials an execution of the harness runs with. */
export type TestCredentials = {
	/** The API key and Base URL, and any other field (e.g. a credit budget). */
	mediaGenApi: { apiKey: string; baseUrl: string } & Record<string, string | number>;
	mediaGenWebhookSecretApi?: { productionSecret: string; testSecret?: string };
};

/** Node types known to the harness; tests of other nodes register theirs here. */
export const NODE_TYPES: Record<string, INodeType | IVersionedNodeType> = {
	'n8n-nodes-mediagen.mediaGen': new MediaGen(),
	'test.items': new TestItems(),
	'test.slow': new TestSlow(),
	'n8n-nodes-base.splitInBatches': new LoopOverItems(),
	'n8n-nodes-base.executeWorkflow': new ExecuteWorkflow(),
	'n8n-nodes-base.executeWorkflowTrigger': new ExecuteWorkflowTrigger(),
	'n8n-nodes-base.wait': new Wait(),
};

export class NodeTypes implements INodeTypes {
	getByName(type: string): INodeType | IVersionedNodeType {
		return this.getByNameAndVersion(type);
	}

	getByNameAndVersion(type: string, version?: number): INodeType {
		const nodeType = NODE_TYPES[type];
		if (!nodeType) throw new Error(`Unknown node type ${type}`);
		// a versioned node type (the trigger): the class of the asked version, as n8n does
		return 'nodeVersions' in nodeType ? nodeType.getNodeType(version) : nodeType;
	}

	getKnownTypes() {
		return {};
	}
}

const CREDENTIAL_TYPES: Record<string, ICredentialType> = { mediaGenApi: new MediaGenApi() };

class CredentialsHelper extends ICredentialsHelper {
	constructor(
		private readonly data: Record<string, ICredentialDataDecryptedObject>,
		/** Headers added to every authenticated request (a test's mark of the execution). */
		private readonly headers: Record<string, string> = {},
	) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		// as n8n does for a credential whose authenticate is a function (MediaGen API's is)
		const auth = CREDENTIAL_TYPES[typeName]?.authenticate;
		if (typeof auth !== 'function') throw new Error(`No authenticate function for ${typeName}`);
		const done = await auth(credentials, requestOptions);
		return Object.keys(this.headers).length
			? { ...done, headers: { ...done.headers, ...this.headers } }
			: done;
	}

	async preAuthentication() {
		return undefined;
	}

	async runPreAuthentication() {
		return undefined;
	}

	async getCredentials(): Promise<never> {
		throw new Error('not used by the harness');
	}

	async getDecrypted(
		_a: unknown,
		_n: unknown,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		const found = this.data[type];
		if (!found) throw new Error(`No test credentials for ${type}`);
		return found;
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties() {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}
}

/** What n8n's engine needs around an execution: credentials, URLs, hooks. */
export function createAdditionalData(
	credentials: TestCredentials,
	executionId: string,
	hooks?: ExecutionLifecycleHooks,
	saved?: SavedExecutions,
	requestHeaders?: Record<string, string>,
): IWorkflowExecuteAdditionalData {
	return {
		hooks,
		credentialsHelper: new CredentialsHelper(credentials, requestHeaders),
		executionId,
		currentNodeExecutionIndex: 0,
		restApiUrl: 'http://localhost:5678/rest',
		instanceBaseUrl: 'http://localhost:5678/',
		formBaseUrl: 'http://localhost:5678/form',
		formWaitingBaseUrl: 'http://localhost:5678/form-waiting',
		formTestBaseUrl: 'http://localhost:5678/form-test',
		webhookBaseUrl: 'http://localhost:5678/webhook',
		webhookWaitingBaseUrl: 'http://localhost:5678/webhook-waiting',
		webhookTestBaseUrl: 'http://localhost:5678/webhook-test',
		mcpBaseUrl: 'http://localhost:5678/mcp',
		mcpTestBaseUrl: 'http://localhost:5678/mcp-test',
		variables: {},
		executeWorkflow: async () => {
			throw new Error('not used by the harness');
		},
		getRunExecutionData: async (id: string) => saved?.get(id),
		getRuntimeCredential: async () => undefined,
		logAiEvent: () => {},
	} as unknown as IWorkflowExecuteAdditionalData;
}
