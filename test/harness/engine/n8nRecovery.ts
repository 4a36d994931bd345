/**
 * n8n's crash recovery and Retry, ported from n8n 2.40.7's packages/cli (the same rules in
 * 1.123.81), over the harness's execution store (./savedExecutions.ts) and event log
 * (./n8nHost.ts NodeEventMessage):
 * - recover: what n8n does at start-up with executions its dead process left unfinished
 *   (eventbus/message-event-bus MessageEventBus.recoverOutstandingMessages: markAsCrashed, then
 *   executions/execution-recovery.service.ts ExecutionRecoveryService.recoverFromLogs → amend);
 * - prepareRetry: executions/execution.service.ts ExecutionService.retry up to
 *   workflowRunner.run (the new execution's mode, data and workflow);
 * - retryData: the part of retry that removes the failed node's errored run.
 */
import type { INode, IRunExecutionData, ITaskData, IWorkflowBase } from 'n8n-workflow';
import {
	createRunExecutionData,
	ManualExecutionCancelledError,
	NodeOperationError,
	WorkflowOperationError,
} from 'n8n-workflow';

import type { ExecutionStart, NodeEventMessage } from './n8nHost';
import { toWorkflow } from './n8nHost';
import type { SavedExecutions } from './savedExecutions';

/** packages/cli/src/errors/node-crashed.error.ts */
export class NodeCrashedError extends NodeOperationError {
	constructor(node: INode) {
		super(node, 'Node crashed, possible out-of-memory issue', {
			message: 'Execution stopped at this node',
			description:
				"n8n may have run out of memory while running this execution. More context and tips on how to avoid this <a href='https://docs.n8n.io/hosting/scaling/memory-errors/' target='_blank'>in the docs</a>",
		});
	}
}

/** packages/cli/src/errors/workflow-crashed.error.ts */
export class WorkflowCrashedError extends WorkflowOperationError {
	constructor() {
		super('Workflow did not finish, possible out-of-memory issue');
	}
}

/** packages/cli/src/constants.ts ARTIFICIAL_TASK_DATA */
export const ARTIFICIAL_TASK_DATA = {
	main: [[{ json: { isArtificialRecoveredEventItem: true }, pairedItem: undefined }]],
};

/**
 * ExecutionRecoveryService.amend for one execution: walks the nodes of the workflow saved with
 * the execution IN ARRAY ORDER; each node with an `n8n.node.started` message and no saved run
 * gets one run from the FIRST started (and finished) message of that node: a success holding
 * ARTIFICIAL_TASK_DATA, executionTime finished − started, when it finished; else a `crashed` run
 * with NodeCrashedError and executionTime 0, and the execution's error WorkflowCrashedError.
 * Each such node becomes lastNodeExecuted (so the last one in array order wins); startTime is in
 * whole seconds (luxon toUnixInteger). The amended data is saved (updateExistingExecution, then
 * the workflowExecuteAfter hooks save it again) and the execution marked crashed. No node
 * messages: nothing amended (null). No messages at all: amendWithoutLogs, the data as it was.
 */
export function amend(
	saved: SavedExecutions,
	executionId: string,
	messages: NodeEventMessage[],
): IRunExecutionData | null {
	const record = saved.record(executionId);
	if (!record) return null;
	if (messages.length === 0) {
		saved.setStatus(executionId, 'crashed');
		return saved.get(executionId) ?? null;
	}
	const byName = new Map<string, NodeEventMessage[]>();
	for (const m of messages)
		byName.set(m.payload.nodeName, [...(byName.get(m.payload.nodeName) ?? []), m]);
	if (byName.size === 0) return null;
	const current = saved.get(executionId);
	if (['success', 'error', 'canceled'].includes(record.status) && current) return null;
	const data = current ?? ({ resultData: { runData: {} } } as unknown as IRunExecutionData);
	data.resultData.runData ??= {};
	for (const node of record.workflowData.nodes) {
		const own = byName.get(node.name) ?? [];
		const started = own.find((m) => m.eventName === 'n8n.node.started');
		if (!started) continue;
		if (data.resultData.runData[node.name] !== undefined) continue;
		const finished = own.find((m) => m.eventName === 'n8n.node.finished');
		const taskData: ITaskData = {
			startTime: Math.floor(started.ts / 1000),
			executionIndex: 0,
			executionTime: -1,
			source: [null],
		};
		if (finished) {
			taskData.executionStatus = 'success';
			taskData.data ??= ARTIFICIAL_TASK_DATA;
			taskData.executionTime = finished.ts - started.ts;
		} else {
			taskData.executionStatus = 'crashed';
			taskData.error = new NodeCrashedError(node);
			taskData.executionTime = 0;
			data.resultData.error = new WorkflowCrashedError();
		}
		data.resultData.lastNodeExecuted = node.name;
		data.resultData.runData[node.name] = [taskData];
	}
	saved.save(executionId, data);
	saved.setStatus(executionId, 'crashed');
	return saved.get(executionId)!;
}

/**
 * n8n's start-up recovery of a dead process's executions: every execution that had not ended
 * (status `new` or `running`) is marked crashed and amended from its own event log messages
 * (the log groups messages by `payload.executionId`). Returns the ids, in creation order.
 */
export function recover(saved: SavedExecutions, events: NodeEventMessage[]): string[] {
	const unfinished = saved.executions().filter((e) => ['new', 'running'].includes(e.status));
	for (const { id } of unfinished) {
		const own = events.filter((m) => m.payload.executionId === id);
		amend(saved, id, own);
		saved.setStatus(id, 'crashed');
	}
	return unfinished.map((e) => e.id);
}

/**
 * The Retry's change to the failed execution's data (ExecutionService.retry): the error removed
 * and lastNodeExecuted's last run popped, only if that run has an error. Changes `data`.
 */
export function retryData(data: IRunExecutionData): IRunExecutionData {
	const { lastNodeExecuted } = data.resultData;
	if (lastNodeExecuted) {
		delete data.resultData.error;
		const runs = data.resultData.runData?.[lastNodeExecuted];
		if (runs?.length && runs[runs.length - 1].error !== undefined) runs.pop();
	}
	return data;
}

/** What ExecutionService.retry hands workflowRunner.run: the workflow and how to start. */
export interface PreparedRetry {
	workflowData: IWorkflowBase;
	start: ExecutionStart & { data: IRunExecutionData; retryOf: string };
}

/**
 * ExecutionService.retry of execution `executionId` as saved: refused for a `new` execution, one
 * without execution data (aborted) or one that finished; the saved workflow (inactive), the data
 * through retryData, mode `retry`, retryOf. With `loadWorkflow` (the Executions list's "Retry with
 * currently saved workflow"): `currentWorkflow` instead, and each node of the saved stack replaced
 * by the node of that name in a Workflow built of it (an error if it is gone): n8n builds that
 * Workflow first, so the stack's nodes carry their types' defaults, which n8n does not save
 * (2.40.7 dist/executions/execution.service.js `retry`: `new Workflow(...)`, then
 * `workflowInstance.getNode`). Start it with startExecution (in process, harness.ts) or
 * crashExecution (in a child process, crashHarness.ts).
 */
export function prepareRetry(
	saved: SavedExecutions,
	executionId: string,
	options: { loadWorkflow?: boolean; currentWorkflow?: IWorkflowBase } = {},
): PreparedRetry {
	const record = saved.record(executionId);
	const data = saved.get(executionId);
	if (!record || !data)
		throw new Error(`The execution with the ID "${executionId}" does not exist.`);
	if (record.status === 'new') throw new Error('The execution is queued and cannot be retried');
	if (!data.executionData) throw new Error('The execution was aborted before starting');
	if (record.status === 'success')
		throw new Error('The execution succeeded, so it cannot be retried.');
	let workflowData: IWorkflowBase = {
		...record.workflowData,
		active: false,
		activeVersionId: null,
	};
	retryData(data);
	if (options.loadWorkflow) {
		if (!options.currentWorkflow) throw new Error('loadWorkflow needs the current workflow');
		workflowData = options.currentWorkflow;
		const workflow = toWorkflow(workflowData);
		for (const item of data.executionData.nodeExecutionStack) {
			const node = workflow.getNode(item.node.name);
			if (!node)
				throw new Error(
					`Could not find the node "${item.node.name}" in workflow. It probably got deleted or renamed. Without it the workflow can sadly not be retried.`,
				);
			item.node = node;
		}
	}
	return { workflowData, start: { mode: 'retry', data, retryOf: executionId } };
}

/**
 * n8n's Stop of a running execution (executions/execution.service.js ExecutionService.stop, 2.40.7):
 * it reads the execution from the database first (`atStop`: the data as last saved, with
 * progress saving the last node's save, else the data of its start), cancels the run
 * (ActiveExecutions.stopExecution: WorkflowExecute's onCancel runs the workflowExecuteAfter hooks,
 * whose save, `requireNotCanceled`, loses to this one), then stopDuringRun writes that data back
 * with ManualExecutionCancelledError as its error and the status `canceled`. Call it once the
 * cancelled run has ended.
 */
export function stopDuringRun(
	saved: SavedExecutions,
	executionId: string,
	atStop: IRunExecutionData,
): void {
	const error = new ManualExecutionCancelledError(executionId);
	atStop.resultData.error = { ...error, message: error.message, stack: error.stack } as never;
	saved.save(executionId, atStop);
	saved.setStatus(executionId, 'canceled');
}

/**
 * n8n's queue mode when the worker running `executionId` died (2.40.7): ScalingService.setupQueue
 * gives Bull `maxStalledCount: 0`, so the first stalled-job check (of any worker, once the dead
 * worker's lock expired) fails the job ("job stalled more than allowable limit") and no worker
 * runs it again; the main awaiting it (WorkflowRunner.enqueueExecution, `job.finished()`) turns
 * that into MaxStalledCountError and processError saves, through the scaling worker's hooks
 * (hookFunctionsSaveWorker, no condition), a run of status `error` whose data is
 * createRunExecutionData with that error and empty run data: the worker's progress is gone, the
 * node stack empty. Sub-executions the worker ran stay unfinished until the leader's queue
 * recovery (ScalingService.recoverFromQueue) marks them crashed.
 */
export function stalledInQueue(saved: SavedExecutions, executionId: string): void {
	const error = new Error(
		'This execution failed to be processed too many times and will no longer retry. To allow this execution to complete, please break down your workflow or scale up your workers or adjust your worker settings.',
	);
	const data = createRunExecutionData({
		resultData: { error: { ...error, message: error.message } as never, runData: {} },
	});
	saved.save(executionId, data);
	saved.setStatus(executionId, 'error');
	for (const e of saved.executions())
		if (e.id !== executionId && ['new', 'running'].includes(e.status))
			saved.setStatus(e.id, 'crashed');
}
