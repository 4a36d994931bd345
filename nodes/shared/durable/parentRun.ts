/**
 * Whether a sub-execution's parent is n8n's Retry of an earlier execution where the parent's
 * saved data does not show it by the runs n8n's crash recovery made up or a failed run the Retry
 * removed (identity.ts savedViewOf): a queue-mode worker lost without its event log (the leader
 * marks the execution crashed without amending it, ScalingService.recoverFromQueue), or a lost
 * try whose data was saved with progress but without the node that called the sub-workflow.
 * Then the sub-executions of the Retry repeat lost ones and must look for their work
 * (docs/batches.md). Two facts of n8n tell it:
 * - the parent's execution context, which Execute Workflow hands to the sub-execution and n8n
 *   saves with it when it creates it (n8n-core base-execute-context.js `executeWorkflow`:
 *   `parentExecution.executionContext`). A Retry whose copied data holds no context establishes
 *   one with `source: 'retry'` (n8n-core execution-context.js `establishExecutionContext`). n8n
 *   1.x (1.123) establishes the context in memory when a run starts
 *   (WorkflowExecute.processRunExecutionData), so a lost try saved without progress saving had
 *   none, and its Retry's context says `retry`;
 * - n8n 2.x saves the context and a random `resumeToken` with the execution before it first runs
 *   (WorkflowRunner.establishContextForPersistence), and a Retry keeps both
 *   (ExecutionService.retry copies the saved data): an execution n8n created before the parent
 *   with the same anchor (identity.ts anchorOf) is the parent's lost try. Read: at most
 *   CALLS.maxBetween executions below the parent's id, once per parent (`known`).
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { CALLS, numberOf } from './calls';
import type { Saved } from './identity';
import { anchorOf } from './identity';
import { savedExecutionData } from './savedRuns';

/** The parent's execution context as a sub-execution's saved data holds it. */
function parentContextOf(data: Saved['data']): { source?: unknown } | undefined {
	const context = (data as { parentExecution?: { executionContext?: unknown } } | undefined)
		?.parentExecution?.executionContext;
	return context && typeof context === 'object' ? context : undefined;
}

/** What the scan found per parent run (id and anchor), in this process: the same for each call. */
const known = new Map<string, Promise<boolean>>();
const KNOWN_MAX = 500;

async function lostTryBelow(ctx: IExecuteFunctions, parent: Saved): Promise<boolean> {
	const anchor = anchorOf(parent.data);
	const parentNo = numberOf(parent.id);
	if (!anchor || parentNo === undefined) return false;
	for (let n = parentNo - 1; n >= Math.max(1, parentNo - CALLS.maxBetween); n--)
		if (anchorOf(await savedExecutionData(ctx, String(n))) === anchor) return true;
	return false;
}

/** Whether `parent`, the caller of sub-execution `self`, is n8n's Retry of an earlier execution. */
export async function parentIsRetry(
	ctx: IExecuteFunctions,
	self: Saved,
	parent: Saved,
): Promise<boolean> {
	if (parentContextOf(self.data)?.source === 'retry') return true;
	const key = `${parent.id}|${anchorOf(parent.data) ?? ''}`;
	let found = known.get(key);
	if (!found) {
		found = lostTryBelow(ctx, parent);
		if (known.size >= KNOWN_MAX) known.delete(known.keys().next().value as string);
		known.set(key, found);
	}
	return await found;
}
