/**
 * The run's one poller: waits for all the jobs a node run started, polling them within a request
 * budget, and cancels them at the service when the execution is stopped. The policy and its
 * reasons: docs/batches.md, Waiting for the jobs.
 */
import type { JobPoll } from '../catalog/dsl';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { asNodeError, statusOf } from '../transport/errors';
import { pageOf } from '../transport/pages';
import { cancellableSleep, mediaGenRequest } from '../transport/request';
import { backoffDelay } from '../transport/retry';
import { cancelJobs } from './cancel';
import { fillPath, timeOf } from './paths';

/** Polling bounds; exported so tests and benchmarks can read and scale them. */
export const POLLING = {
	minMs: 1000,
	maxMs: 30000,
	fraction: 0.1,
	/** Poll errors in a row (after the transport's own retries) before a job fails. */
	transientErrors: 3,
	/** Most poll requests in a rolling window of 2 × maxMs (a minute at the default bounds). */
	requestsPerWindow: 40,
	/** Records per list request. */
	pageSize: 100,
};

/** A job the poller waits for (its paths filled in from its endpoint's JobPoll). */
export interface PendingJob {
	itemIndex: number;
	id: string;
	/** The job's `poll` path, filled in. */
	pollPath: string;
	within?: string;
	cancelPath?: string;
	listPath?: string;
	record: IDataObject;
	/** When the create answered (local clock). */
	startedAt: number;
	/** When the job left `queued` (the service's `started_at`, else when it was seen running). */
	runningSince?: number;
	/** When the job was seen queued with none of the run's jobs running. */
	waitingSince?: number;
	timeoutMinutes: number;
	lastPollAt: number;
	errorsInARow: number;
	polls: number;
	result?: IDataObject;
	/** When this side first saw it completed (local clock). */
	doneAt?: number;
	error?: Error;
}

/** Statuses after which a job changes no more; anything else is still running. */
const DONE = new Set(['completed', 'failed', 'cancelled']);

export function pendingJob(
	itemIndex: number,
	record: IDataObject,
	declared: JobPoll,
	params: Record<string, string>,
	timeoutMinutes: number,
	now = Date.now(),
): PendingJob {
	const id = String(record.id);
	const job: PendingJob = {
		itemIndex,
		id,
		pollPath: fillPath(declared.poll, id, params),
		within: declared.within,
		cancelPath: declared.cancel ? fillPath(declared.cancel, id, params) : undefined,
		listPath: declared.list && !declared.within ? fillPath(declared.list, id, params) : undefined,
		record,
		startedAt: now,
		timeoutMinutes,
		lastPollAt: now,
		errorsInARow: 0,
		polls: 0,
	};
	observe(undefined, job, record, now);
	return job;
}

/** The poll interval after `runningMs` of running: a tenth, within the bounds. */
export function nextPollDelay(runningMs: number): number {
	return Math.min(
		POLLING.maxMs,
		Math.max(POLLING.minMs, Math.round(Math.max(0, runningMs) * POLLING.fraction)),
	);
}

const settled = (job: PendingJob) => !!(job.result || job.error);

function failure(ctx: IExecuteFunctions, job: PendingJob, record: IDataObject): NodeOperationError {
	const jobError = (record.error ?? {}) as IDataObject;
	const status = String(record.status);
	const reason = jobError.message ? `: ${String(jobError.message)}` : '';
	return new NodeOperationError(ctx.getNode(), `Job ${job.id} ${status}${reason}`, {
		itemIndex: job.itemIndex,
		description: `Its reserved credits were returned.${jobError.code ? ` Code: ${String(jobError.code)}.` : ''}`,
	});
}

/**
 * Takes in a job's record as seen at `at` (local clock); without `ctx` (at creation) a failed
 * job is settled later, when the wait begins.
 */
function observe(
	ctx: IExecuteFunctions | undefined,
	job: PendingJob,
	record: IDataObject,
	at: number,
): void {
	job.record = record;
	const status = String(record.status);
	if (status === 'completed') {
		job.result = record;
		job.doneAt ??= at;
	} else if (DONE.has(status) && ctx) job.error = failure(ctx, job, record);
	if (status !== 'queued' && job.runningSince === undefined) {
		const since = timeOf(record.started_at);
		// the service's clock, kept within what this side saw (creation .. now)
		job.runningSince =
			since === undefined ? at : Math.min(at, Math.max(job.startedAt - 1000, since));
	}
}

/** When a job's clock ends, or Infinity while it has no clock (queued behind the run). */
function deadlineOf(job: PendingJob): number {
	const from = job.runningSince ?? job.waitingSince;
	return from === undefined ? Infinity : from + job.timeoutMinutes * 60_000;
}

function timeout(ctx: IExecuteFunctions, job: PendingJob): NodeOperationError {
	const status = String(job.record.status);
	const clock = job.runningSince !== undefined ? 'of running' : 'in the queue behind other work';
	return new NodeOperationError(
		ctx.getNode(),
		`Job ${job.id} is still ${status} after ${job.timeoutMinutes} minutes ${clock}`,
		{
			itemIndex: job.itemIndex,
			description: `Job ID ${job.id}, status ${status}. It keeps going at MediaGen and may still be charged if it succeeds. Get it later by its ID, cancel it, raise the timeout, or start a workflow from the MediaGen Trigger on its completion event instead of waiting.`,
		},
	);
}

/** Time-window cap on the poller's own requests. */
class RequestCap {
	private readonly sent: number[] = [];
	async take(ctx: IExecuteFunctions): Promise<void> {
		for (;;) {
			const window = 2 * POLLING.maxMs;
			const now = Date.now();
			while (this.sent.length && this.sent[0] <= now - window) this.sent.shift();
			if (this.sent.length < POLLING.requestsPerWindow) {
				this.sent.push(now);
				return;
			}
			await cancellableSleep(ctx, this.sent[0] + window - now + 1);
		}
	}
}

/** Records newer than the run's oldest queued job on its page that spare reading the page above. */
const QUEUED_MARGIN = 10;

/** Where the next list sweep starts, learned from the previous one. */
interface ListState {
	path: string;
	jobs: PendingJob[];
	/** `before` of the first page to read; undefined: the newest page. */
	from?: string | number;
	lastPollAt: number;
	errorsInARow: number;
	/** The list request failed for a reason other than a fault: read these jobs one by one. */
	unusable?: boolean;
}

/** Shortest running time among the run's completed jobs (they are usually alike). */
function learnedRunningMs(jobs: PendingJob[]): number | undefined {
	let best: number | undefined;
	for (const job of jobs) {
		if (!job.result || job.runningSince === undefined) continue;
		const end = timeOf(job.record.completed_at);
		if (end === undefined) continue;
		// both ends on the service's clock (MediaGen's clock may be far from this side's), and
		// never longer than this side saw pass from the create to the job done (a clock that
		// jumped meanwhile)
		const ms = Math.min(
			end - (timeOf(job.record.started_at) ?? job.runningSince),
			(job.doneAt ?? Infinity) - job.startedAt + 1000,
		);
		if (ms > 0 && (best === undefined || ms < best)) best = ms;
	}
	return best;
}

/** When `jobs` (polled together) need their next look. */
function dueAt(jobs: PendingJob[], lastPollAt: number, all: PendingJob[]): number {
	const open = jobs.filter((job) => !settled(job));
	const running = open.filter((job) => job.record.status !== 'queued');
	const queued = open.length - running.length;
	let due = Infinity;
	if (!running.length) {
		// all waiting: look again by the time since creation (the old schedule)
		for (const job of open)
			due = Math.min(due, lastPollAt + nextPollDelay(lastPollAt - job.startedAt));
	}
	const learned = learnedRunningMs(all);
	for (const job of running) {
		const since = job.runningSince ?? lastPollAt;
		const scheduled = lastPollAt + nextPollDelay(lastPollAt - since);
		let at = scheduled;
		if (learned !== undefined) {
			// just after the end expected from the run's finished jobs
			const expected = since + Math.round(learned * 1.02);
			if (queued) at = Math.max(scheduled, expected);
			else if (expected > lastPollAt) at = Math.min(scheduled, expected);
		}
		due = Math.min(due, at);
	}
	for (const job of open) due = Math.min(due, Math.max(lastPollAt, deadlineOf(job)));
	return due;
}

/**
 * After a look: clocks of jobs waiting behind work outside the run, and timeouts of the jobs
 * just seen (a job times out only on a look at or after its deadline).
 */
function afterLook(ctx: IExecuteFunctions, seen: PendingJob[], all: PendingJob[], at: number) {
	const open = all.filter((job) => !settled(job));
	const anyRunning = open.some((job) => job.record.status !== 'queued');
	for (const job of open) {
		if (job.record.status !== 'queued') continue;
		if (anyRunning) job.waitingSince = undefined;
		else job.waitingSince ??= at;
	}
	for (const job of seen) if (!settled(job) && at >= deadlineOf(job)) job.error = timeout(ctx, job);
}

function findWithin(parent: IDataObject, key: string, id: string): IDataObject | undefined {
	const list = parent?.[key];
	return Array.isArray(list) ? (list as IDataObject[]).find((entry) => entry.id === id) : undefined;
}

/** A job MediaGen does not know (deleted, or an id of something else): it fails at once. */
function notFound(ctx: IExecuteFunctions, job: PendingJob): NodeOperationError {
	const where = job.within ? ` in the ${job.within} of ${job.pollPath}` : '';
	return new NodeOperationError(ctx.getNode(), `Job ${job.id} was not found at MediaGen${where}`, {
		itemIndex: job.itemIndex,
		description: `MediaGen answered that job ${job.id} does not exist: it may have been deleted, or the ID is not a job's.`,
	});
}

/**
 * After a failed look at a job or a list (past the transport's own retries): whether it failed
 * more than `POLLING.transientErrors` times in a row; if not, its next look waits a backoff.
 */
function failedTooOften(polled: { errorsInARow: number; lastPollAt: number }): boolean {
	polled.errorsInARow++;
	if (polled.errorsInARow > POLLING.transientErrors) return true;
	polled.lastPollAt = Date.now() - nextPollDelay(0) + backoffDelay(polled.errorsInARow);
	return false;
}

async function readOne(
	ctx: IExecuteFunctions,
	cap: RequestCap,
	job: PendingJob,
): Promise<PendingJob[]> {
	await cap.take(ctx);
	job.polls++;
	try {
		const polled = await mediaGenRequest<IDataObject>(ctx, {
			method: 'GET',
			path: job.pollPath,
			itemIndex: job.itemIndex,
		});
		const at = Date.now();
		job.errorsInARow = 0;
		job.lastPollAt = at;
		const record = job.within ? findWithin(polled, job.within, job.id) : polled;
		if (!record) {
			job.error = notFound(ctx, job);
			return [job];
		}
		observe(ctx, job, record, at);
		return [job];
	} catch (error) {
		if (ctx.getExecutionCancelSignal()?.aborted) throw asNodeError(ctx, error, job.itemIndex);
		if (statusOf(error) === 404) {
			job.error = notFound(ctx, job);
			return [job];
		}
		if (failedTooOften(job)) job.error = asNodeError(ctx, error, job.itemIndex);
		return [];
	}
}

/**
 * One look at the list: pages of `status=all` from `state.from` down to the run's oldest
 * unsettled job. Jobs newer than the first page read keep their last status (still queued:
 * the service starts jobs oldest first); when the run's newest job seen is no longer queued,
 * the next sweep starts again from the newest page.
 */
async function sweep(
	ctx: IExecuteFunctions,
	cap: RequestCap,
	state: ListState,
): Promise<PendingJob[]> {
	const open = new Map(state.jobs.filter((job) => !settled(job)).map((job) => [job.id, job]));
	const seen = new Set<string>();
	// each page read: its `before`, and the run's jobs on it with their place (0 = newest)
	const pages: Array<{
		before?: string | number;
		ours: Array<{ job: PendingJob; place: number }>;
	}> = [];
	let before = state.from;
	let top: number | undefined;
	for (;;) {
		await cap.take(ctx);
		const qs: IDataObject = { status: 'all', limit: POLLING.pageSize };
		if (before !== undefined) qs.before = before;
		const response = await mediaGenRequest(ctx, { method: 'GET', path: state.path, qs });
		const at = Date.now();
		const { records, next } = pageOf(response);
		const ours: Array<{ job: PendingJob; place: number }> = [];
		for (const [place, record] of records.entries()) {
			const job = open.get(String(record.id));
			if (!job) continue;
			job.polls++;
			observe(ctx, job, record, at);
			seen.add(job.id);
			ours.push({ job, place });
		}
		if (state.from !== undefined && top === undefined) top = timeOf(records[0]?.created_at);
		pages.push({ before, ours });
		const above = (job: PendingJob) =>
			top !== undefined && (timeOf(job.record.created_at) ?? Infinity) >= top;
		const missing = [...open.values()].filter((job) => !seen.has(job.id) && !above(job));
		if (!missing.length) break;
		if (next === undefined || next === before) {
			// not on the list (any more): read them one by one
			for (const job of missing) {
				if ((await readOne(ctx, cap, job)).length) seen.add(job.id);
			}
			break;
		}
		before = next;
	}
	state.lastPollAt = Date.now();
	state.errorsInARow = 0;
	// The next sweep starts at the page of the oldest job still queued, or one page above when
	// fewer than QUEUED_MARGIN newer records share its page: jobs start oldest first, so older
	// pages hold what changes and newer ones what is still queued.
	let front = -1;
	let place = 0;
	for (let pageIndex = pages.length - 1; pageIndex >= 0 && front < 0; pageIndex--) {
		const queued = pages[pageIndex].ours.filter((our) => our.job.record.status === 'queued');
		if (queued.length) [front, place] = [pageIndex, Math.max(...queued.map((our) => our.place))];
	}
	const unseenOpen = [...open.values()].some((job) => !seen.has(job.id) && !settled(job));
	if (front >= 0 && place >= QUEUED_MARGIN) state.from = pages[front].before;
	else if (front > 0) state.from = pages[front - 1].before;
	else if (front === 0 || unseenOpen) state.from = undefined;
	else state.from = pages.find((page) => page.ours.some((our) => !settled(our.job)))?.before;
	return state.jobs.filter((job) => seen.has(job.id));
}

/**
 * Waits for all jobs together, until every job is settled (a result or an error); throws only
 * when the execution is cancelled, after cancelling the unsettled jobs at the service. With
 * `until` (a wall-clock time, ms), it returns at that time at the latest, leaving the jobs still
 * running unsettled: nothing is cancelled and no error is made (a tool call's bounded wait,
 * nodes/shared/jobs/toolCall.ts).
 */
export async function waitForJobs(
	ctx: IExecuteFunctions,
	jobs: PendingJob[],
	options: { until?: number; onLook?: () => Promise<void> } = {},
): Promise<void> {
	const until = options.until ?? Infinity;
	const cap = new RequestCap();
	for (const job of jobs) if (!settled(job)) observe(ctx, job, job.record, job.startedAt);
	const lists = new Map<string, ListState>();
	const singles: PendingJob[] = [];
	for (const job of jobs) {
		if (!job.listPath) {
			singles.push(job);
			continue;
		}
		let state = lists.get(job.listPath);
		if (!state) {
			state = { path: job.listPath, jobs: [], lastPollAt: job.startedAt, errorsInARow: 0 };
			lists.set(job.listPath, state);
		}
		state.jobs.push(job);
		state.lastPollAt = Math.max(state.lastPollAt, job.startedAt);
	}
	try {
		for (;;) {
			for (const list of lists.values()) {
				if (list.unusable) {
					singles.push(...list.jobs);
					lists.delete(list.path);
				}
			}
			const open = jobs.filter((job) => !settled(job));
			if (!open.length || Date.now() >= until) return;
			let nextAt = Infinity;
			let nextList: ListState | undefined;
			let nextSingle: PendingJob | undefined;
			for (const list of lists.values()) {
				if (list.jobs.every(settled)) continue;
				const at = dueAt(list.jobs, list.lastPollAt, jobs);
				if (at < nextAt) [nextAt, nextList, nextSingle] = [at, list, undefined];
			}
			for (const job of singles) {
				if (settled(job)) continue;
				const at = dueAt([job], job.lastPollAt, jobs);
				if (at < nextAt) [nextAt, nextList, nextSingle] = [at, undefined, job];
			}
			const wait = Math.min(nextAt, until) - Date.now();
			if (wait > 0) await cancellableSleep(ctx, Number.isFinite(wait) ? wait : POLLING.maxMs);
			if (nextAt > until) continue;
			let seen: PendingJob[] = [];
			if (nextList) seen = await sweepOrCount(ctx, cap, nextList);
			else if (nextSingle) seen = await readOne(ctx, cap, nextSingle);
			afterLook(ctx, seen, jobs, Date.now());
			// the credit budget looks at what a canvas run's steps reserved (budget/run.ts)
			if (seen.length) await options.onLook?.();
		}
	} catch (error) {
		if (!ctx.getExecutionCancelSignal()?.aborted) throw asNodeError(ctx, error);
		const open = jobs.filter((job) => !settled(job));
		const what = await cancelJobs(ctx, open);
		throw new NodeOperationError(ctx.getNode(), `The execution was cancelled: ${what}`, {
			description: 'Stopped while waiting for MediaGen jobs.',
		});
	}
}

/** A sweep whose failures count like a single read's (and a list the API refuses is given up). */
async function sweepOrCount(
	ctx: IExecuteFunctions,
	cap: RequestCap,
	state: ListState,
): Promise<PendingJob[]> {
	try {
		return await sweep(ctx, cap, state);
	} catch (error) {
		if (ctx.getExecutionCancelSignal()?.aborted) throw asNodeError(ctx, error);
		const status = statusOf(error) ?? 0;
		if (status >= 400 && status < 500 && status !== 429) {
			state.unusable = true;
			return [];
		}
		state.from = undefined;
		if (failedTooOften(state)) {
			for (const job of state.jobs)
				if (!settled(job)) job.error = asNodeError(ctx, error, job.itemIndex);
		}
		return [];
	}
}
