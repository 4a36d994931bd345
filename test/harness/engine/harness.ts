/**
 * Engine harness: runs workflow JSON in-process with n8n-core's own execution engine
 * (WorkflowExecute), our real node classes and credential, and real HTTP to a sandbox.
 * Modelled on n8n's NodeTestHarness (packages/core/nodes-testing), without network mocks.
 */
import type {
	IConnections,
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	IRun,
	IRunExecutionData,
	ITaskData,
	IWorkflowBase,
	WorkflowExecuteMode,
} from 'n8n-workflow';

import type { HostOptions } from './n8nHost';
import { startExecution } from './n8nHost';
import type { SavedExecutions } from './savedExecutions';
import { retryData } from './n8nRecovery';

export { createAdditionalData, NODE_TYPES, NodeTypes } from './n8nTypes';
export type { TestCredentials } from './n8nTypes';
export { SavedExecutions } from './savedExecutions';

export interface TestNode {
	name: string;
	type: string;
	/** Node version (default 1, the released form every engine test was written for). */
	typeVersion?: number;
	parameters: INodeParameters;
	continueOnFail?: boolean;
	/** n8n's On Error setting: continue with the error as the item's output, or on the error output. */
	onError?: 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';
	retryOnFail?: boolean;
	maxTries?: number;
	waitBetweenTries?: number;
	alwaysOutputData?: boolean;
	executeOnce?: boolean;
}

/**
 * How the harness runs an execution: the n8n instance (credentials, n8n's execution store
 * `saved`, which n8n major saves, the event log, other workflows: see n8nHost.ts) and, for a
 * new run, the node it starts with (default: the first node without a main input) and its mode
 * (default `manual`, the editor's; any other saves the workflow's changed static data in
 * `workflowData.staticData`, as n8n saves it with the workflow).
 */
export type RunOptions = HostOptions & { startNode?: string; mode?: WorkflowExecuteMode };

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
	return workflowOf(all, connections);
}

/**
 * A workflow of `nodes`, in this order in its `nodes` array (which n8n's crash recovery walks),
 * whatever the connections; MediaGen nodes get the MediaGen API credential.
 */
export function workflowOf(
	nodes: TestNode[],
	connections: IConnections,
	extra: Partial<IWorkflowBase> = {},
): IWorkflowBase {
	return {
		id: 'wf-test',
		name: 'engine test',
		active: false,
		isArchived: false,
		createdAt: new Date(),
		updatedAt: new Date(),
		activeVersionId: null,
		nodes: nodes.map(
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
				onError: n.onError,
				retryOnFail: n.retryOnFail,
				maxTries: n.maxTries,
				waitBetweenTries: n.waitBetweenTries,
				alwaysOutputData: n.alwaysOutputData,
				executeOnce: n.executeOnce,
			}),
		),
		connections,
		...extra,
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
	from?: { mode: WorkflowExecuteMode; data: IRunExecutionData; retryOf?: string },
): StartedRun {
	const run = startExecution(
		workflowData,
		options,
		from ?? { mode: options.mode ?? 'manual', startNode: options.startNode },
	);
	return { cancel: () => run.cancel(), done: run.done.then(toResult) };
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
	const data = retryData(JSON.parse(JSON.stringify(failed.data)) as IRunExecutionData);
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
