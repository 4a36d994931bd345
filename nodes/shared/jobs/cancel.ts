/**
 * What Stop does to the jobs a node run is still waiting for: cancels them at the service, a few
 * at a time within a time budget, and says which were cancelled and which not (docs/batches.md).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { isNodeError } from '../transport/errors';
import { mediaGenRequest } from '../transport/request';

/** What Stop may spend on cancelling the run's jobs at the service. */
export const CANCEL = {
	/** Total time for all cancel requests after the execution was cancelled. */
	budgetMs: 10_000,
	/** Cancel requests in flight at once. */
	inFlight: 4,
};

/** A job not settled yet, as its cancel needs it. */
export interface OpenJob {
	id: string;
	itemIndex: number;
	/** POST path that cancels the job; undefined where the API has no cancel. */
	cancelPath?: string;
	/** The job's record, replaced by the answer of its cancel. */
	record: IDataObject;
}

/** The sentence of the error: what was cancelled (and in how long), what may still be charged. */
function cancelReport(cancelled: string[], notCancelled: string[], elapsedMs: number): string {
	const parts = [
		cancelled.length
			? `cancelled ${cancelled.length} job(s) at MediaGen in ${elapsedMs} ms (nothing is charged for them): ${cancelled.join(', ')}`
			: '',
		notCancelled.length ? `not cancelled, may still be charged: ${notCancelled.join(', ')}` : '',
	].filter(Boolean);
	return parts.join('; ') || 'no job was still running';
}

/** Cancels the run's open jobs at the service, within the cancel budget; says what happened. */
export async function cancelJobs(ctx: IExecuteFunctions, open: OpenJob[]): Promise<string> {
	const cancelled: string[] = [];
	const notCancelled: string[] = [];
	const queue = open.filter((job) => job.cancelPath);
	for (const job of open)
		if (!job.cancelPath) notCancelled.push(`${job.id} (no cancel in the API)`);
	const started = Date.now();
	const sending = new Set<OpenJob>();
	const worker = async () => {
		for (let job = queue.shift(); job; job = queue.shift()) {
			const current = job;
			sending.add(current);
			try {
				current.record = await mediaGenRequest<IDataObject>(ctx, {
					method: 'POST',
					path: String(current.cancelPath),
					itemIndex: current.itemIndex,
					ignoreCancel: true,
				});
				cancelled.push(current.id);
			} catch (error) {
				const status = isNodeError(error) ? ` (${error.message})` : '';
				notCancelled.push(`${current.id}${status}`);
			} finally {
				sending.delete(current);
			}
		}
	};
	let finished = false;
	const workers = Promise.all(
		Array.from({ length: Math.min(CANCEL.inFlight, queue.length) }, worker),
	).then(() => {
		finished = true;
	});
	// n8n-workflow's sleep cannot be cleared: wait in short steps up to the budget
	while (!finished && Date.now() - started < CANCEL.budgetMs) {
		await Promise.race([workers, sleep(Math.min(100, CANCEL.budgetMs))]);
	}
	if (!finished) {
		for (const job of [...sending, ...queue.splice(0)])
			notCancelled.push(`${job.id} (not reached within the cancel budget)`);
	}
	return cancelReport(cancelled, notCancelled, Date.now() - started);
}
