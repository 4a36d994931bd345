/**
 * Engine harness: runs workflow JSON in-process with n8n-core's own execution engine
 * (WorkflowExecute), our real node classes and credential, and real HTTP to a sandbox.
 * Modelled on n8n's NodeTestHarness (packages/core/nodes-testing), without network mocks.
 */
import { randomUUID } from 'node:crypto';

import { ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
	INodeType,
	INodeTypes,
	IRun,
	ITaskData,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
	IConnections,
	INodeParameters,
	IVersionedNodeType,
	IExecuteFunctions,
	IRunExecutionData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { createRunExecutionData, ICredentialsHelper, Workflow } from 'n8n-workflow';

import { MediaGenApi } from '../../credentials/MediaGenApi.credentials';
// The explicit .ts: tsx (benchmarks) would otherwise resolve MediaGen.node to the codex .json.
import { MediaGen } from '../../nodes/MediaGen/MediaGen.node.ts';

/** Test-only start node: emits the items given in its `items` parameter (JSON array). */
class TestItems implements INodeType {
	description = {
		displayName: 'Test Items',
		name: 'testItems',
		group: ['input'],
		version: 1,
		description: 'Emits the configured items',
		defaults: { name: 'Items' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [{ displayName: 'Items', name: 'items', type: 'json', default: '[{}]' }],
	} as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const raw = this.getNodeParameter('items', 0) as string | IDataObject[];
		const items = (typeof raw === 'string' ? JSON.parse(raw) : raw) as IDataObject[];
		return [items.map((json) => ({ json }))];
	}
}

/** Node types known to the harness; tests of other nodes register theirs here. */
export const NODE_TYPES: Record<string, INodeType | IVersionedNodeType> = {
	'n8n-nodes-mediagen.mediaGen': new MediaGen(),
	'test.items': new TestItems(),
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
	constructor(private readonly data: Record<string, ICredentialDataDecryptedObject>) {
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
		return await auth(credentials, requestOptions);
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

export interface TestNode {
	name: string;
	type: string;
	/** Node version (default 1, the released form every engine test was written for). */
	typeVersion?: number;
	parameters: INodeParameters;
	continueOnFail?: boolean;
	retryOnFail?: boolean;
	maxTries?: number;
	waitBetweenTries?: number;
}

export interface RunOptions {
	credentials: {
		/** The API key and Base URL, and any other field (e.g. a credit budget). */
		mediaGenApi: { apiKey: string; baseUrl: string } & Record<string, string | number>;
		mediaGenWebhookSecretApi?: { productionSecret: string; testSecret?: string };
	};
	executionId?: string;
	/**
	 * n8n's execution store, as nodes read it (`getExecutionDataById`): each execution started
	 * with it is saved there as it starts (as n8n 2.x saves its data before running it).
	 */
	saved?: SavedExecutions;
}

/**
 * What n8n keeps of executions in its database, for the nodes' `getExecutionDataById`: JSON
 * copies, as n8n stores them. `save` copies; `get` gives a copy.
 */
export class SavedExecutions {
	private readonly data = new Map<string, string>();
	private readonly first = new Map<string, string>();
	save(executionId: string, data: IRunExecutionData): void {
		const text = JSON.stringify(data);
		if (!this.first.has(executionId)) this.first.set(executionId, text);
		this.data.set(executionId, text);
	}
	get(executionId: string): IRunExecutionData | undefined {
		const text = this.data.get(executionId);
		return text === undefined ? undefined : (JSON.parse(text) as IRunExecutionData);
	}
	/** The data as saved when the execution started (all n8n has of one whose process died). */
	atStart(executionId: string): IRunExecutionData | undefined {
		const text = this.first.get(executionId);
		return text === undefined ? undefined : (JSON.parse(text) as IRunExecutionData);
	}
}

export interface RunResult {
	run: IRun;
	/** JSON of each output item of a node (first run, first output). */
	json(nodeName: string): IDataObject[];
	items(nodeName: string): INodeExecutionData[];
	/** The error of the run, if the workflow stopped on one. */
	error?: { message: string; description?: string | null; node?: string };
	taskData(nodeName: string): ITaskData | undefined;
}

/** Items node followed by a chain of nodes, connected in order. */
export function chain(items: IDataObject[], nodes: TestNode[]): IWorkflowBase {
	const all: TestNode[] = [
		{ name: 'Items', type: 'test.items', parameters: { items: JSON.stringify(items) } },
		...nodes,
	];
	const connections: IConnections = {};
	for (let i = 0; i < all.length - 1; i++) {
		connections[all[i].name] = { main: [[{ node: all[i + 1].name, type: 'main', index: 0 }]] };
	}
	return {
		id: 'wf-test',
		name: 'engine test',
		active: false,
		isArchived: false,
		createdAt: new Date(),
		updatedAt: new Date(),
		activeVersionId: null,
		nodes: all.map(
			(n, i): INode => ({
				id: `node-${i}-${n.name.replace(/\W/g, '')}`,
				name: n.name,
				type: n.type,
				typeVersion: n.typeVersion ?? 1,
				position: [i * 200, 0],
				parameters: n.parameters,
				credentials: n.type.startsWith('n8n-nodes-mediagen')
					? { mediaGenApi: { id: 'cred-1', name: 'MediaGen sandbox' } }
					: undefined,
				continueOnFail: n.continueOnFail,
				retryOnFail: n.retryOnFail,
				maxTries: n.maxTries,
				waitBetweenTries: n.waitBetweenTries,
			}),
		),
		connections,
	} as IWorkflowBase;
}

/** A MediaGen node for chain(). */
export function mediaGen(
	name: string,
	parameters: INodeParameters,
	extra: Partial<TestNode> = {},
): TestNode {
	return { name, type: 'n8n-nodes-mediagen.mediaGen', parameters, ...extra };
}

/** What n8n's engine needs around an execution: credentials, URLs, hooks. */
export function createAdditionalData(
	credentials: RunOptions['credentials'],
	executionId: string,
	hooks?: ExecutionLifecycleHooks,
	saved?: SavedExecutions,
): IWorkflowExecuteAdditionalData {
	return {
		hooks,
		credentialsHelper: new CredentialsHelper(credentials),
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

/** A started execution: cancel it like n8n's Stop button, or wait for its result. */
export interface StartedRun {
	cancel(): void;
	done: Promise<RunResult>;
}

/**
 * Starts a workflow with n8n-core's WorkflowExecute, from its first node, or (`from`) resumes
 * saved execution data in another mode, as n8n's Retry does (see retryExecution).
 */
export function startWorkflow(
	workflowData: IWorkflowBase,
	options: RunOptions,
	from?: { mode: WorkflowExecuteMode; data: IRunExecutionData },
): StartedRun {
	const executionId = options.executionId ?? randomUUID();
	const mode = from?.mode ?? 'manual';
	const workflow = new Workflow({
		id: workflowData.id,
		name: workflowData.name,
		nodes: workflowData.nodes,
		connections: workflowData.connections,
		nodeTypes: new NodeTypes(),
		active: false,
		settings: workflowData.settings,
	});
	const hooks = new ExecutionLifecycleHooks(mode, executionId, workflowData);
	let finished: (run: IRun) => void = () => {};
	const done = new Promise<IRun>((resolve) => (finished = resolve));
	hooks.addHandler('workflowExecuteAfter', (fullRunData) => {
		// n8n saves the whole execution when it ends (a crashed one keeps its start: atStart)
		options.saved?.save(executionId, fullRunData.data);
		finished(fullRunData);
	});
	const additionalData = createAdditionalData(
		options.credentials,
		executionId,
		hooks,
		options.saved,
	);

	const startNode = workflow.getNode(workflowData.nodes[0].name);
	if (!startNode) throw new Error('workflow has no nodes');
	const runExecutionData =
		from?.data ??
		createRunExecutionData({
			executionData: {
				nodeExecutionStack: [{ node: startNode, data: { main: [[{ json: {} }]] }, source: null }],
			},
		});

	options.saved?.save(executionId, runExecutionData);
	const execute = new WorkflowExecute(additionalData, mode, runExecutionData);
	const running = execute.processRunExecutionData(workflow);
	return {
		cancel: () => running.cancel(),
		done: (async () => {
			await running.catch(() => undefined);
			return toResult(await done);
		})(),
	};
}

/** Runs a workflow with n8n-core's WorkflowExecute, from its first node. */
export async function runWorkflow(
	workflowData: IWorkflowBase,
	options: RunOptions,
): Promise<RunResult> {
	return await startWorkflow(workflowData, options).done;
}

/**
 * n8n's Retry of a failed execution, as packages/cli's ExecutionService.retry does it: a new
 * execution (new id) in mode `retry` from the failed one's execution data as saved (a JSON copy),
 * the error and the failed node's errored run removed, so that the failed node runs again with
 * the same input (and the node context the failed execution saved).
 */
export async function retryExecution(
	workflowData: IWorkflowBase,
	failed: IRun,
	options: RunOptions,
): Promise<RunResult> {
	const data = JSON.parse(JSON.stringify(failed.data)) as IRunExecutionData;
	const { lastNodeExecuted } = data.resultData;
	if (lastNodeExecuted) {
		delete data.resultData.error;
		const runs = data.resultData.runData?.[lastNodeExecuted];
		if (runs?.length && runs[runs.length - 1].error !== undefined) runs.pop();
	}
	return await startWorkflow(workflowData, options, { mode: 'retry', data }).done;
}

/**
 * What n8n does with an execution whose process died while `crashedNode` ran, then with its
 * Retry, on the data it had saved (`saved`, as saved when the execution started):
 * packages/cli's ExecutionRecoveryService.amend adds, from the event log, a run for every node
 * that had started (`started`, in order; a second-resolution start time, an artificial item) and
 * a crashed run for `crashedNode`; ExecutionService.retry then removes the error and that run and
 * starts a new execution in mode `retry` from this data. Nothing of the node context is left.
 * `n8nMajor: 1` first takes out what 1.x does not save when an execution starts (its
 * resumeToken and execution context).
 */
export async function retryCrashed(
	workflowData: IWorkflowBase,
	crashed: { executionId: string; startedAt: number },
	started: string[],
	crashedNode: string,
	options: RunOptions & { saved: SavedExecutions; n8nMajor?: 1 | 2 },
): Promise<RunResult> {
	const data = options.saved.atStart(crashed.executionId);
	if (!data) throw new Error(`execution ${crashed.executionId} was not saved`);
	if (options.n8nMajor === 1) {
		delete data.resumeToken;
		if (data.executionData) delete data.executionData.runtimeData;
	}
	const startTime = Math.floor(crashed.startedAt / 1000);
	for (const name of [...started, crashedNode]) {
		if (data.resultData.runData[name]?.length) continue; // saved by progress saving
		const crashedHere = name === crashedNode;
		data.resultData.runData[name] = [
			{
				startTime,
				executionIndex: 0,
				executionTime: crashedHere ? 0 : -1,
				source: [null],
				executionStatus: crashedHere ? 'crashed' : 'success',
				...(crashedHere
					? { error: { name: 'NodeCrashedError', message: 'Node crashed' } as never }
					: { data: { main: [[{ json: { isArtificialRecoveredEventItem: true } }]] } }),
			},
		];
		data.resultData.lastNodeExecuted = name;
	}
	options.saved.save(crashed.executionId, data);
	const retry = JSON.parse(JSON.stringify(data)) as IRunExecutionData;
	delete retry.resultData.error;
	retry.resultData.runData[crashedNode].pop();
	return await startWorkflow(workflowData, options, { mode: 'retry', data: retry }).done;
}

function toResult(run: IRun): RunResult {
	const runData = run.data.resultData.runData;
	const taskData = (nodeName: string) => runData[nodeName]?.[0];
	const items = (nodeName: string) => taskData(nodeName)?.data?.main?.[0] ?? [];
	const error = run.data.resultData.error;
	return {
		run,
		taskData,
		items,
		json: (nodeName) => items(nodeName).map((i) => i.json),
		error: error
			? {
					message: error.message,
					description: (error as { description?: string | null }).description,
					node: (error as { node?: INode }).node?.name,
				}
			: undefined,
	};
}

/** Binary data (memory or filesystem mode) for executions run here: see ./binaryData.ts. */
export { setupBinaryData } from './binaryData';
export type { BinaryDataSetup, BinaryMode } from './binaryData';
