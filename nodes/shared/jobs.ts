/**
 * Jobs: the credits guard (estimate first), waiting for completion with adaptive polling, and the
 * outputs as binary. Used by every operation whose declaration has `job`.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { downloadAssetToBinary } from './binary';
import { asNodeError, backoffDelay, cancellableSleep, mediaGenRequest } from './transport';

/**
 * Polling schedule. The interval is a tenth of the time the job has run so far, at least
 * `minMs` and at most `maxMs`: the result is seen within max(1 s, 10 %) of the job's end with
 * few polls (about 30 for a 60 s job, 70 for 10 minutes). Exported so benchmarks can report it.
 */
export const POLLING = {
	minMs: 1000,
	maxMs: 30000,
	fraction: 0.1,
	/** Poll errors in a row (after the transport's own retries) before the item fails. */
	transientErrors: 3,
};

export type ReturnAs = 'json' | 'binary' | 'both';

export interface JobSettings {
	waitForCompletion: boolean;
	timeoutMinutes: number;
	maxCredits: number;
	returnAs: ReturnAs;
	binaryPropertyName: string;
}

/** Statuses after which a job changes no more; anything else is still running. */
const DONE = new Set(['completed', 'failed', 'cancelled']);

export function nextPollDelay(elapsedMs: number): number {
	return Math.min(POLLING.maxMs, Math.max(POLLING.minMs, Math.round(elapsedMs * POLLING.fraction)));
}

/** POSTs an estimate and returns its credit cost. */
export async function estimateCredits(
	ctx: IExecuteFunctions,
	estimatePath: string,
	body: unknown,
	itemIndex: number,
): Promise<number> {
	const estimate = await mediaGenRequest<IDataObject>(ctx, {
		method: 'POST',
		path: estimatePath,
		body: body ?? {},
		itemIndex,
	});
	const credits = Number(estimate?.credits);
	if (!Number.isFinite(credits)) {
		throw new NodeOperationError(ctx.getNode(), 'The estimate did not return a credit cost', {
			itemIndex,
			description: 'Nothing was started or charged.',
		});
	}
	return credits;
}

/** Refuses, before anything is created, a job whose estimate is above Max Credits. */
export function checkMaxCredits(
	ctx: IExecuteFunctions,
	credits: number,
	maxCredits: number,
	itemIndex: number,
): void {
	if (credits > maxCredits) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Estimated cost is ${credits} credits, above Max Credits (${maxCredits})`,
			{ itemIndex, description: 'Nothing was started or charged. Raise Max Credits to allow it.' },
		);
	}
}

export interface PendingJob {
	itemIndex: number;
	id: string;
	pollPath: string;
	/** The polled record holds the job in this array (e.g. an edit's `exports`). */
	within?: string;
	record: IDataObject;
	startedAt: number;
	timeoutMinutes: number;
	deadline: number;
	nextPollAt: number;
	errorsInARow: number;
	polls: number;
	result?: IDataObject;
	error?: Error;
}

/** Fills `{jobId}` and the request's path parameters into a path template. */
export function jobPath(template: string, jobId: string, params: Record<string, string>): string {
	return template.replace(/\{(\w+)\}/g, (_, name: string) =>
		encodeURIComponent(name === 'jobId' ? jobId : (params[name] ?? '')),
	);
}

/** The jobs an answer started: one record, or several in `{ data: [...] }`. */
export function startedJobs(response: unknown): IDataObject[] {
	const data = (response as IDataObject | undefined)?.data;
	if (Array.isArray(data)) return data as IDataObject[];
	return [response as IDataObject];
}

export function pendingJob(
	itemIndex: number,
	record: IDataObject,
	poll: { path: string; within?: string },
	params: Record<string, string>,
	timeoutMinutes: number,
	now = Date.now(),
): PendingJob {
	const id = String(record.id);
	return {
		itemIndex,
		id,
		pollPath: jobPath(poll.path, id, params),
		within: poll.within,
		record,
		startedAt: now,
		timeoutMinutes,
		deadline: now + timeoutMinutes * 60_000,
		nextPollAt: now + nextPollDelay(0),
		errorsInARow: 0,
		polls: 0,
	};
}

function failure(ctx: IExecuteFunctions, job: PendingJob, record: IDataObject): NodeOperationError {
	const err = (record.error ?? {}) as IDataObject;
	const status = String(record.status);
	const reason = err.message ? `: ${String(err.message)}` : '';
	return new NodeOperationError(ctx.getNode(), `Job ${job.id} ${status}${reason}`, {
		itemIndex: job.itemIndex,
		description: `Its reserved credits were returned.${err.code ? ` Code: ${String(err.code)}.` : ''}`,
	});
}

function timeout(ctx: IExecuteFunctions, job: PendingJob): NodeOperationError {
	return new NodeOperationError(
		ctx.getNode(),
		`Job ${job.id} is still ${String(job.record.status)} after ${job.timeoutMinutes} minutes`,
		{
			itemIndex: job.itemIndex,
			description:
				'It keeps running at MediaGen and is charged only if it succeeds. Get it later by its ID, raise the timeout, or start a workflow from the MediaGen Trigger on its completion event instead of waiting.',
		},
	);
}

/**
 * Waits for all jobs together: each is polled when its own next poll is due. Settles each job
 * with `result` or `error`; throws only when the execution is cancelled.
 */
export async function waitForJobs(ctx: IExecuteFunctions, jobs: PendingJob[]): Promise<void> {
	for (const j of jobs) {
		if (DONE.has(String(j.record.status))) settle(ctx, j, j.record);
	}
	for (;;) {
		const active = jobs.filter((j) => !j.result && !j.error);
		if (!active.length) return;
		const next = active.reduce((a, b) => (b.nextPollAt < a.nextPollAt ? b : a));
		const wait = next.nextPollAt - Date.now();
		if (wait > 0) await cancellableSleep(ctx, wait);
		const now = Date.now();
		next.polls++;
		try {
			const polled = await mediaGenRequest<IDataObject>(ctx, {
				method: 'GET',
				path: next.pollPath,
				itemIndex: next.itemIndex,
			});
			const record = next.within ? findWithin(polled, next.within, next.id) : polled;
			next.errorsInARow = 0;
			next.record = record;
			if (DONE.has(String(record.status))) {
				settle(ctx, next, record);
				continue;
			}
			next.nextPollAt = Date.now() + nextPollDelay(now - next.startedAt);
		} catch (error) {
			if (ctx.getExecutionCancelSignal()?.aborted) throw asNodeError(ctx, error, next.itemIndex);
			next.errorsInARow++;
			if (next.errorsInARow > POLLING.transientErrors) {
				next.error = error as Error;
				continue;
			}
			next.nextPollAt = Date.now() + backoffDelay(next.errorsInARow);
		}
		if (!next.result && !next.error && next.nextPollAt > next.deadline) {
			next.error = timeout(ctx, next);
		}
	}
}

function findWithin(parent: IDataObject, key: string, id: string): IDataObject {
	const list = parent?.[key];
	const found = Array.isArray(list) ? (list as IDataObject[]).find((x) => x.id === id) : undefined;
	if (!found) throw new Error(`Job ${id} is not in the ${key} of ${String(parent?.id)}`);
	return found;
}

/** The files a finished job made: `outputs` of a generation or run, `assetId` of an export. */
export function outputsOf(record: IDataObject): Array<{ assetId: string; kind: unknown }> {
	if (Array.isArray(record.outputs)) {
		return (record.outputs as IDataObject[]).map((o) => ({
			assetId: String(o.asset_id ?? o.assetId ?? o.id),
			kind: o.kind ?? null,
		}));
	}
	const single = record.assetId ?? record.asset_id;
	return single ? [{ assetId: String(single), kind: record.kind ?? null }] : [];
}

function settle(ctx: IExecuteFunctions, job: PendingJob, record: IDataObject): void {
	job.record = record;
	if (record.status === 'completed') job.result = record;
	else job.error = failure(ctx, job, record);
}

/** Output of a finished job, with its outputs downloaded as binary when asked. */
export async function jobOutput(
	ctx: IExecuteFunctions,
	record: IDataObject,
	settings: Pick<JobSettings, 'returnAs' | 'binaryPropertyName'>,
	itemIndex: number,
): Promise<INodeExecutionData> {
	if (settings.returnAs === 'json') return { json: record, pairedItem: { item: itemIndex } };
	const outputs = (Array.isArray(record.outputs) ? record.outputs : []) as IDataObject[];
	const binary: INodeExecutionData['binary'] = {};
	const files: IDataObject[] = [];
	for (const [i, output] of outputs.entries()) {
		const propertyName =
			i === 0 ? settings.binaryPropertyName : `${settings.binaryPropertyName}_${i}`;
		const assetId = String(output.asset_id ?? output.assetId ?? output.id);
		const file = await downloadAssetToBinary(ctx, assetId, { propertyName, itemIndex });
		binary[file.propertyName] = file.binary;
		files.push({ binaryProperty: file.propertyName, asset_id: assetId, kind: output.kind ?? null });
	}
	const json: IDataObject =
		settings.returnAs === 'both'
			? { ...record, files }
			: { id: record.id, status: record.status, credits_charged: record.credits_charged, files };
	return { json, binary, pairedItem: { item: itemIndex } };
}
