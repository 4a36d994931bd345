/**
 * What n8n's own process (packages/cli of n8n 2.40.7) does around n8n-core's WorkflowExecute, for
 * the engine harness: it creates the execution (saves its data first), logs node events to its
 * event bus, saves progress after each node when the workflow asks for it, saves the run when it
 * ends, and runs sub-workflows for Execute Workflow. The n8n code each part follows is named
 * there; docs/development.md ("How the engine crash tests model n8n") sums it up.
 */
import { randomUUID } from 'node:crypto';

import { establishExecutionContext, ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import type {
	ExecuteWorkflowData,
	IDataObject,
	ExecuteWorkflowOptions,
	IExecuteWorkflowInfo,
	INode,
	INodeExecutionData,
	IRun,
	IRunExecutionData,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
	RelatedExecution,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { createRunExecutionData, Workflow } from 'n8n-workflow';

import type { TestCredentials } from './n8nTypes';
import { createAdditionalData, NodeTypes } from './n8nTypes';
import type { SavedExecutions } from './savedExecutions';

/**
 * A message of n8n's event bus as its log keeps it (eventbus/event-message-classes): node events
 * come from the `nodeExecuteBefore` / `nodeExecuteAfter` lifecycle hooks
 * (execution-lifecycle-hooks.js hookFunctionsNodeEvents → events/relays/log-streaming.event-relay
 * nodePreExecute / nodePostExecute); `ts` is when the message was made (DateTime.now()).
 */
export interface NodeEventMessage {
	eventName: 'n8n.node.started' | 'n8n.node.finished';
	/** Milliseconds since the epoch. */
	ts: number;
	payload: {
		executionId: string;
		workflowId: string;
		nodeName: string;
		nodeType?: string;
		nodeId?: string;
	};
}

/** The n8n instance an execution runs in. */
export interface HostOptions {
	credentials: TestCredentials;
	/** The new execution's id (default a random UUID). */
	executionId?: string;
	/** n8n's database. Without it nothing is saved and nodes read no saved data. */
	saved?: SavedExecutions;
	/**
	 * Which n8n saves the data (default 2): 1.x saves no `resumeToken` and no execution context
	 * (`runtimeData`), and its progress save adds the node's run to what was saved.
	 */
	n8nMajor?: 1 | 2;
	/** n8n's event bus log: every node event of this execution and its sub-executions. */
	onNodeEvent?: (message: NodeEventMessage) => void;
	/** The instance's other workflows, for Execute Workflow (by id). */
	workflows?: IWorkflowBase[];
	/**
	 * Headers the nodes' authenticated requests carry (test/harness/sim's mark of which execution sent a
	 * request; sub-executions carry their caller's).
	 */
	requestHeaders?: Record<string, string>;
}

/** How an execution starts: a new one from its start node, or from saved data (a retry). */
export interface ExecutionStart {
	mode: WorkflowExecuteMode;
	/** Saved data to run from (n8n's Retry); otherwise a new run of `startNode`. */
	data?: IRunExecutionData;
	retryOf?: string;
	/** The node a new run starts with (default: the first node without a main input). */
	startNode?: string;
	/** A sub-execution (mode `integrated`): its caller. */
	parentExecutionId?: string;
}

/** A started execution: cancel it like n8n's Stop button, or wait for its end. */
export interface HostRun {
	executionId: string;
	cancel(): void;
	done: Promise<IRun>;
}

/** A JSON copy, as n8n's database keeps the workflow's static data. */
const stored = (data: IDataObject | undefined) =>
	data === undefined ? undefined : (JSON.parse(JSON.stringify(data)) as IDataObject);

/**
 * The Workflow n8n runs: with the workflow's static data as its database row holds it
 * (`workflowData.staticData`: workflow-runner.js runMainProcess, scaling/job-processor.js). Its
 * constructor gives each node of `w` (the same objects) its type's defaults, which n8n does not
 * save (n8n-workflow Workflow: getNodeParameters with the defaults).
 */
export const toWorkflow = (w: IWorkflowBase) =>
	new Workflow({
		id: w.id,
		name: w.name,
		nodes: w.nodes,
		connections: w.connections,
		nodeTypes: new NodeTypes(),
		active: false,
		settings: w.settings,
		staticData: stored(w.staticData),
	});

/** The first node in array order that no main connection leads to. */
export function defaultStartNode(w: IWorkflowBase): INode {
	const targets = new Set(
		Object.values(w.connections).flatMap((c) => (c.main ?? []).flat().map((t) => t?.node)),
	);
	const start = w.nodes.find((n) => !targets.has(n.name)) ?? w.nodes[0];
	if (!start) throw new Error('workflow has no nodes');
	return start;
}

/** 1.x's saved data: no resumeToken, no execution context (both are 2.x). */
function as1x(data: IRunExecutionData): IRunExecutionData {
	const copy = JSON.parse(JSON.stringify(data)) as IRunExecutionData;
	delete copy.resumeToken;
	if (copy.executionData) delete copy.executionData.runtimeData;
	return copy;
}

/**
 * Starts an execution of `workflowData` as n8n does (WorkflowRunner.run, or for a sub-execution
 * workflow-execute-additional-data executeWorkflow): 2.x first establishes the execution context
 * (establishContextForPersistence; not for a sub-execution), then ActiveExecutions.add saves the
 * data (with the execution's row), then WorkflowExecute runs it with the lifecycle hooks.
 */
export function startExecution(
	workflowData: IWorkflowBase,
	options: HostOptions,
	start: ExecutionStart = { mode: 'manual' },
): HostRun {
	const executionId = options.executionId ?? options.saved?.nextId() ?? randomUUID();
	const major = options.n8nMajor ?? 2;
	const workflow = toWorkflow(workflowData);
	const startNode = start.startNode ? workflow.getNode(start.startNode) : undefined;
	const data =
		start.data ??
		createRunExecutionData({
			executionData: {
				nodeExecutionStack: [
					{
						node: startNode ?? defaultStartNode(workflowData),
						data: { main: [[{ json: {} }]] },
						source: null,
					},
				],
			},
		});
	let cancelled = false;
	let cancel = () => {
		cancelled = true;
	};
	const done = (async () => {
		if (major === 2 && start.mode !== 'integrated' && data.executionData)
			await establishExecutionContext(workflow, data, {} as never, start.mode);
		const save = (d: IRunExecutionData) => (major === 1 ? as1x(d) : d);
		options.saved?.save(executionId, save(data), {
			mode: start.mode,
			workflowData,
			status: 'running',
			retryOf: start.retryOf,
			parentExecutionId: start.parentExecutionId,
			createdAt: Date.now(),
		});
		const { hooks, ended } = lifecycleHooks(workflowData, options, start.mode, executionId);
		const additionalData = createAdditionalData(
			options.credentials,
			executionId,
			hooks,
			options.saved,
			options.requestHeaders,
		);
		additionalData.executeWorkflow = subWorkflowRunner(options);
		const running = new WorkflowExecute(additionalData, start.mode, data).processRunExecutionData(
			workflow,
		);
		cancel = () => running.cancel();
		if (cancelled) running.cancel();
		await running.catch(() => undefined);
		return await ended;
	})();
	return { executionId, cancel: () => cancel(), done };
}

/** n8n's isWorkflowIdValid (packages/cli/src/utils.ts). */
const isWorkflowIdValid = (id: unknown) =>
	typeof id === 'string' && id.length > 0 && id.length <= 21;

/**
 * The lifecycle hooks of a regular main process (getLifecycleHooksForRegularMain) and of a
 * sub-execution (getLifecycleHooksForSubExecutions), as far as they touch what n8n keeps:
 * hookFunctionsNodeEvents (the event bus), hookFunctionsSaveProgress (with the workflow setting
 * "Save execution progress") and hookFunctionsSave (the run when it ends, and the workflow's
 * static data when it changed, in `workflowData.staticData`).
 */
function lifecycleHooks(
	workflowData: IWorkflowBase,
	options: HostOptions,
	mode: WorkflowExecuteMode,
	executionId: string,
) {
	const hooks = new ExecutionLifecycleHooks(mode, executionId, workflowData);
	const event = (eventName: NodeEventMessage['eventName'], nodeName: string) => {
		const node = workflowData.nodes.find((n) => n.name === nodeName);
		const ids = { executionId, workflowId: workflowData.id };
		const payload = { ...ids, nodeName, nodeType: node?.type, nodeId: node?.id };
		options.onNodeEvent?.({ eventName, ts: Date.now(), payload });
	};
	hooks.addHandler('nodeExecuteBefore', (nodeName) => event('n8n.node.started', nodeName));
	hooks.addHandler('nodeExecuteAfter', (nodeName) => event('n8n.node.finished', nodeName));
	const { saved } = options;
	if (saved && workflowData.settings?.saveExecutionProgress === true) {
		hooks.addHandler('nodeExecuteAfter', (nodeName, taskData, executionData) =>
			options.n8nMajor === 1
				? saveProgress1x(saved, executionId, nodeName, taskData, executionData)
				: saveProgress(saved, executionId, nodeName, executionData),
		);
	}
	let finished: (run: IRun) => void = () => {};
	const ended = new Promise<IRun>((resolve) => (finished = resolve));
	hooks.addHandler('workflowExecuteAfter', (fullRunData, newStaticData) => {
		// hookFunctionsSave (and hookFunctionsSaveWorker in queue mode): the changed static data is
		// saved with the workflow (saveStaticDataById), except in manual mode; the next execution
		// of the workflow starts with it
		if (mode !== 'manual' && isWorkflowIdValid(workflowData.id) && newStaticData)
			workflowData.staticData = stored(newStaticData);
		if (saved) {
			saved.save(executionId, options.n8nMajor === 1 ? as1x(fullRunData.data) : fullRunData.data);
			saved.setStatus(executionId, fullRunData.status);
		}
		finished(fullRunData);
	});
	return { hooks, ended };
}

/**
 * 2.x's saveExecutionProgress (execution-lifecycle/save-execution-progress.js): sets
 * lastNodeExecuted on the live execution data and saves all of it (run data, stack, node contexts).
 */
function saveProgress(
	saved: SavedExecutions,
	executionId: string,
	nodeName: string,
	executionData: IRunExecutionData,
) {
	executionData.resultData.lastNodeExecuted = nodeName;
	saved.save(executionId, executionData);
}

/**
 * 1.x's saveExecutionProgress (n8n 1.123.81, same file): reads the saved execution, adds the
 * node's run to its run data, takes the live `executionData` (stack, node contexts) and sets
 * lastNodeExecuted.
 */
function saveProgress1x(
	saved: SavedExecutions,
	executionId: string,
	nodeName: string,
	taskData: unknown,
	executionData: IRunExecutionData,
) {
	const stored = saved.get(executionId) ?? createRunExecutionData();
	(stored.resultData.runData[nodeName] ??= []).push(JSON.parse(JSON.stringify(taskData)));
	stored.executionData = executionData.executionData;
	stored.resultData.lastNodeExecuted = nodeName;
	saved.save(executionId, as1x(stored));
}

/**
 * additionalData.executeWorkflow as workflow-execute-additional-data.js executeWorkflow does it:
 * the workflow by id, getRunData (mode `integrated`, the start node found as findSubworkflowStart
 * does, `parentExecution` in the data and in the start item's metadata), a new execution saved
 * at creation, run with sub-execution hooks; the output of its last node's last run
 * (buildSubWorkflowOutput with a trigger before version 1.2), or its error thrown.
 */
function subWorkflowRunner(
	options: HostOptions,
): IWorkflowExecuteAdditionalData['executeWorkflow'] {
	return async (
		workflowInfo: IExecuteWorkflowInfo,
		_additionalData: IWorkflowExecuteAdditionalData,
		o: ExecuteWorkflowOptions,
	): Promise<ExecuteWorkflowData> => {
		const workflowData =
			o.loadedWorkflowData ?? options.workflows?.find((w) => w.id === workflowInfo.id);
		if (!workflowData) throw new Error(`Workflow ${String(workflowInfo.id)} not found`);
		const data = o.loadedRunData?.executionData ?? subRunData(workflowData, o);
		const run = startExecution(
			workflowData,
			{ ...options, executionId: undefined },
			{ mode: 'integrated', data, parentExecutionId: o.parentExecution?.executionId },
		);
		if (o.doNotWaitToFinish) return { executionId: run.executionId, data: [null] };
		const result = await run.done;
		if (result.finished === true || result.status === 'waiting') {
			const { runData, lastNodeExecuted } = result.data.resultData;
			const last = lastNodeExecuted ? runData[lastNodeExecuted]?.at(-1) : undefined;
			const output = (last?.data?.main ?? [null]) as Array<INodeExecutionData[] | null>;
			return { executionId: run.executionId, data: output, waitTill: result.waitTill };
		}
		const error = result.data.resultData.error;
		throw Object.assign(new Error(error?.message ?? 'The sub-workflow failed'), {
			...error,
			executionId: run.executionId,
			workflowId: workflowData.id,
		});
	};
}

/** getRunData of workflow-execute-additional-data.js. */
function subRunData(workflowData: IWorkflowBase, o: ExecuteWorkflowOptions): IRunExecutionData {
	const parentExecution: RelatedExecution | undefined = o.parentExecution;
	const startingNode =
		workflowData.nodes.find((n) => n.type === 'n8n-nodes-base.executeWorkflowTrigger') ??
		workflowData.nodes.find((n) => n.type === 'n8n-nodes-base.manualTrigger');
	if (!startingNode) throw new Error('Missing node to start execution');
	return createRunExecutionData({
		executionData: {
			nodeExecutionStack: [
				{
					node: startingNode,
					data: { main: [o.inputData ?? [{ json: {} }]] },
					metadata: { parentExecution },
					source: null,
				},
			],
		},
		parentExecution,
	});
}
