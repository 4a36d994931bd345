/** How a node run reports: its errors (the item, what was not sent, the jobs started) and its cost. */
import type {
	IExecuteFunctions,
	INodeExecutionData,
	NodeApiError,
	NodeOperationError,
} from 'n8n-workflow';

import { isRefusal } from '../budget/messages';
import type { PendingJob } from '../jobs/poller';
import { asNodeError } from '../transport/errors';

/**
 * An error as an output item of its input item (Continue On Fail). With the error output (On
 * Error: Continue (using error output)) n8n moves an item to that output only when its JSON holds
 * nothing but `error`, `message` and `details` (n8n-core WorkflowExecute.handleNodeErrorOutput;
 * it then adds the input item's fields): there the description and HTTP code go under `details`,
 * as n8n's HTTP Request node puts them.
 */
export function errorItem(
	error: Error,
	itemIndex: number,
	toErrorOutput = false,
): INodeExecutionData {
	const { message, description, httpCode } = error as Error & {
		description?: string;
		httpCode?: string;
	};
	const more = { ...(description ? { description } : {}), ...(httpCode ? { httpCode } : {}) };
	const extra = toErrorOutput ? (Object.keys(more).length ? { details: more } : {}) : more;
	return { json: { error: message, ...extra }, pairedItem: { item: itemIndex } };
}

/** A job's line in an error: item, id, status and charge. */
function jobLine(job: PendingJob): string {
	const record = job.result ?? job.record;
	const charged = job.result ? `, ${String(record.credits_charged ?? '?')} credits charged` : '';
	return `item ${job.itemIndex + 1}: ${job.id} (${String(record.status)}${charged})`;
}

/** Adds the jobs the run had started to the description of the error that stops the node. */
export function withStartedJobs(error: NodeApiError | NodeOperationError, jobs: PendingJob[]) {
	if (!jobs.length) return error;
	error.description = [
		error.description,
		`Jobs this run had already started (${jobs.length}): ${jobs.map(jobLine).join('; ')}.`,
		'They keep running at MediaGen and are charged if they succeed. Retry this execution (Executions → Retry) to collect them: the node waits for these jobs instead of starting them again.',
	]
		.filter(Boolean)
		.join('\n');
	return error;
}

/**
 * An error of the prepare, recover or guard phase, told truthfully: nothing was sent (prepare,
 * recover) or nothing was started or charged (guard), for this item or, when the node stops, for
 * any item.
 */
export function beforeSending(
	ctx: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
	count: number,
	phase: 'prepare' | 'recover' | 'guard',
	stops: boolean,
): NodeApiError | NodeOperationError {
	const nodeError = asNodeError(ctx, error, itemIndex);
	const nothing =
		phase === 'guard' ? 'Nothing was started or charged' : 'Nothing was sent to MediaGen';
	// a budget's refusal is no wrong value: it says itself what to do
	const fix = phase === 'recover' || isRefusal(error) ? '.' : ': fix the value and run again.';
	const own = (nodeError.description ?? '').replace(/^Nothing was (sent|started)[^.]*\.\s*/, '');
	nodeError.description = [
		`Item ${itemIndex + 1} of ${count}.`,
		stops ? `${nothing} for any item${fix}` : `${nothing} for this item.`,
		own,
	]
		.filter(Boolean)
		.join(' ');
	return nodeError;
}

/**
 * What the run's jobs cost, as an n8n execution hint on the node's output ("12 jobs, 48 credits
 * charged; 2 failed (credits returned)"), where the n8n version has hints, and how much of the
 * credit budget is used (`budget`: its line, budget/messages.ts).
 */
export function costHint(waited: PendingJob[], unwaited: number, budget?: string) {
	if (!waited.length && !unwaited && !budget) return undefined;
	const parts: string[] = [];
	if (waited.length) {
		const completed = waited.filter((j) => j.result);
		const charged = completed.reduce((n, j) => n + Number(j.result?.credits_charged ?? 0), 0);
		const ended = (status: string) => waited.filter((j) => j.record.status === status).length;
		const failed = ended('failed') + ended('cancelled');
		const open = waited.length - completed.length - failed;
		parts.push(
			`${waited.length} job${waited.length === 1 ? '' : 's'}, ${charged} credits charged`,
			...(failed ? [`${failed} failed (credits returned)`] : []),
			...(open ? [`${open} still running at MediaGen (charged if they succeed)`] : []),
		);
	}
	if (unwaited) {
		parts.push(
			`${unwaited} item${unwaited === 1 ? '' : 's'} started jobs without waiting (charged when they succeed)`,
		);
	}
	if (budget) parts.push(budget);
	const failed = parts.some((p) => p.includes('failed') || p.includes('refused'));
	return {
		message: parts.join('; '),
		type: failed ? ('warning' as const) : ('info' as const),
		location: 'outputPane' as const,
	};
}
