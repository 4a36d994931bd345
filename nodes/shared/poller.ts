/**
 * One poller for all the jobs of a node run (phase 4, "wait", of DESIGN.md).
 *
 * - A job's clock is its running time: it starts when the job leaves `queued` (the record's
 *   `started_at`), so time queued behind the run's own jobs never counts against the timeout.
 *   A job queued while none of the run's jobs runs (it waits behind work outside the run) starts
 *   its clock when that is seen, so a stuck queue still ends.
 * - Jobs of an endpoint with a `list` (GET /generations) are seen together with list requests of
 *   100 records (`status=all`, newest first), read from the page that holds the run's oldest
 *   waiting jobs down to its oldest unsettled one; the others are read one by one.
 * - Polls are due at a tenth of a job's running time (between `minMs` and `maxMs`), at its
 *   deadline (a last poll), and just after the end that the run's finished jobs predict (their
 *   shortest running time). While the run still has queued jobs, a running job is not looked at
 *   before that predicted end: nothing is delivered earlier anyway, as the node outputs when the
 *   last job ends.
 * - The poller sends at most `requestsPerWindow` requests per `2 × maxMs` (40 a minute at the
 *   default bounds), a third of the service's 120 a minute per key, leaving the rest to creates
 *   and to other workflows on the key.
 * - When the execution is cancelled, unsettled jobs are cancelled at the service where the
 *   endpoint has a cancel path, a few at a time, within `CANCEL.budgetMs`; the error names what
 *   was cancelled and what was not.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { pageOf } from './pages';
import { backoffDelay } from './retry';
import { asNodeError, cancellableSleep, isNodeError, mediaGenRequest } from './transport';

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

/** What Stop may spend on cancelling the run's jobs at the service. */
export const CANCEL = {
	/** Total time for all cancel requests after the execution was cancelled. */
	budgetMs: 10_000,
	/** Cancel requests in flight at once. */
	inFlight: 4,
};

/** Where and how a job is polled, from its endpoint's `job` declaration. */
export interface JobPoll {
	/** Path of the single read; `{jobId}` is the job's id. */
	path: string;
	/** The polled record holds the job in this array (e.g. an edit's `exports`). */
	within?: string;
	/** POST path that cancels the job. */
	cancel?: string;
	/** List path that returns such jobs, newest first, with `status=all`, `limit` and `before`. */
	list?: string;
}

export interface PendingJob {
	itemIndex: number;
	id: string;
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
	error?: Error;
}

/** Statuses after which a job changes no more; anything else is still running. */
const DONE = new Set(['completed', 'failed', 'cancelled']);

/** Fills `{jobId}` and the request's path parameters into a path template. */
export function jobPath(template: string, jobId: string, params: Record<string, string>): string {
	return template.replace(/\{(\w+)\}/g, (_, name: string) =>
		encodeURIComponent(name === 'jobId' ? jobId : (params[name] ?? '')),
	);
}

export function pendingJob(
	itemIndex: number,
	record: IDataObject,
	poll: JobPoll,
	params: Record<string, string>,
	timeoutMinutes: number,
	now = Date.now(),
): PendingJob {
	const id = String(record.id);
	const job: PendingJob = {
		itemIndex,
		id,
		pollPath: jobPath(poll.path, id, params),
		within: poll.within,
		cancelPath: poll.cancel ? jobPath(poll.cancel, id, params) : undefined,
		listPath: poll.list && !poll.within ? jobPath(poll.list, id, params) : undefined,
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

export const settled = (j: PendingJob) => !!(j.result || j.error);

function timeOf(value: unknown): number | undefined {
	if (typeof value !== 'string' && typeof value !== 'number') return undefined;
	const t = typeof value === 'number' ? value : Date.parse(value);
	return Number.isFinite(t) ? t : undefined;
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
	if (status === 'completed') job.result = record;
	else if (DONE.has(status) && ctx) job.error = failure(ctx, job, record);
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
	for (const j of jobs) {
		if (!j.result || j.runningSince === undefined) continue;
		const end = timeOf(j.record.completed_at);
		if (end === undefined) continue;
		const ms = end - j.runningSince;
		if (ms > 0 && (best === undefined || ms < best)) best = ms;
	}
	return best;
}

/** When `jobs` (polled together) need their next look. */
function dueAt(jobs: PendingJob[], lastPollAt: number, all: PendingJob[]): number {
	const open = jobs.filter((j) => !settled(j));
	const running = open.filter((j) => j.record.status !== 'queued');
	const queued = open.length - running.length;
	let due = Infinity;
	if (!running.length) {
		// all waiting: look again by the time since creation (the old schedule)
		for (const j of open) due = Math.min(due, lastPollAt + nextPollDelay(lastPollAt - j.startedAt));
	}
	const learned = learnedRunningMs(all);
	for (const j of running) {
		const since = j.runningSince ?? lastPollAt;
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
	for (const j of open) due = Math.min(due, Math.max(lastPollAt, deadlineOf(j)));
	return due;
}

/**
 * After a look: clocks of jobs waiting behind work outside the run, and timeouts of the jobs
 * just seen (a job times out only on a look at or after its deadline).
 */
function afterLook(ctx: IExecuteFunctions, seen: PendingJob[], all: PendingJob[], at: number) {
	const open = all.filter((j) => !settled(j));
	const anyRunning = open.some((j) => j.record.status !== 'queued');
	for (const j of open) {
		if (j.record.status !== 'queued') continue;
		if (anyRunning) j.waitingSince = undefined;
		else j.waitingSince ??= at;
	}
	for (const j of seen) if (!settled(j) && at >= deadlineOf(j)) j.error = timeout(ctx, j);
}

function findWithin(parent: IDataObject, key: string, id: string): IDataObject | undefined {
	const list = parent?.[key];
	return Array.isArray(list) ? (list as IDataObject[]).find((x) => x.id === id) : undefined;
}

/** A job MediaGen does not know (deleted, or an id of something else): it fails at once. */
function notFound(ctx: IExecuteFunctions, job: PendingJob): NodeOperationError {
	const where = job.within ? ` in the ${job.within} of ${job.pollPath}` : '';
	return new NodeOperationError(ctx.getNode(), `Job ${job.id} was not found at MediaGen${where}`, {
		itemIndex: job.itemIndex,
		description: `MediaGen answered that job ${job.id} does not exist: it may have been deleted, or the ID is not a job's.`,
	});
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
		if (String((error as NodeApiError).httpCode) === '404') {
			job.error = notFound(ctx, job);
			return [job];
		}
		job.errorsInARow++;
		if (job.errorsInARow > POLLING.transientErrors)
			job.error = asNodeError(ctx, error, job.itemIndex);
		// look again after a backoff
		else job.lastPollAt = Date.now() - nextPollDelay(0) + backoffDelay(job.errorsInARow);
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
	const open = new Map(state.jobs.filter((j) => !settled(j)).map((j) => [j.id, j]));
	const seen = new Set<string>();
	// each page read: its `before`, and the run's jobs on it with their place (0 = newest)
	const pages: Array<{ before?: string | number; ours: Array<{ job: PendingJob; at: number }> }> =
		[];
	let before = state.from;
	let top: number | undefined;
	for (;;) {
		await cap.take(ctx);
		const qs: IDataObject = { status: 'all', limit: POLLING.pageSize };
		if (before !== undefined) qs.before = before;
		const response = await mediaGenRequest(ctx, { method: 'GET', path: state.path, qs });
		const at = Date.now();
		const { records, next } = pageOf(response);
		const ours: Array<{ job: PendingJob; at: number }> = [];
		for (const [place, record] of records.entries()) {
			const job = open.get(String(record.id));
			if (!job) continue;
			job.polls++;
			observe(ctx, job, record, at);
			seen.add(job.id);
			ours.push({ job, at: place });
		}
		if (state.from !== undefined && top === undefined) top = timeOf(records[0]?.created_at);
		pages.push({ before, ours });
		const above = (j: PendingJob) =>
			top !== undefined && (timeOf(j.record.created_at) ?? Infinity) >= top;
		const missing = [...open.values()].filter((j) => !seen.has(j.id) && !above(j));
		if (!missing.length) break;
		if (next === undefined || next === before) {
			// not on the list (any more): read them one by one
			for (const j of missing) {
				if ((await readOne(ctx, cap, j)).length) seen.add(j.id);
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
	for (let p = pages.length - 1; p >= 0 && front < 0; p--) {
		const queued = pages[p].ours.filter((o) => o.job.record.status === 'queued');
		if (queued.length) [front, place] = [p, Math.max(...queued.map((o) => o.at))];
	}
	const unseenOpen = [...open.values()].some((j) => !seen.has(j.id) && !settled(j));
	if (front >= 0 && place >= QUEUED_MARGIN) state.from = pages[front].before;
	else if (front > 0) state.from = pages[front - 1].before;
	else if (front === 0 || unseenOpen) state.from = undefined;
	else state.from = pages.find((p) => p.ours.some((o) => !settled(o.job)))?.before;
	return state.jobs.filter((j) => seen.has(j.id));
}

/** Cancels the run's unsettled jobs at the service, within the cancel budget; says what happened. */
async function cancelAll(ctx: IExecuteFunctions, jobs: PendingJob[]): Promise<string> {
	const open = jobs.filter((j) => !settled(j));
	const cancelled: string[] = [];
	const notCancelled: string[] = [];
	const queue = open.filter((j) => j.cancelPath);
	for (const j of open) if (!j.cancelPath) notCancelled.push(`${j.id} (no cancel in the API)`);
	const started = Date.now();
	const sending = new Set<PendingJob>();
	const worker = async () => {
		for (let job = queue.shift(); job; job = queue.shift()) {
			const j = job;
			sending.add(j);
			try {
				const record = await mediaGenRequest<IDataObject>(ctx, {
					method: 'POST',
					path: String(j.cancelPath),
					itemIndex: j.itemIndex,
					ignoreCancel: true,
				});
				j.record = record;
				cancelled.push(j.id);
			} catch (error) {
				const status = isNodeError(error) ? ` (${error.message})` : '';
				notCancelled.push(`${j.id}${status}`);
			} finally {
				sending.delete(j);
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
		for (const j of [...sending, ...queue.splice(0)])
			notCancelled.push(`${j.id} (not reached within the cancel budget)`);
	}
	const done = Date.now() - started;
	const parts = [
		cancelled.length
			? `cancelled ${cancelled.length} job(s) at MediaGen in ${done} ms (nothing is charged for them): ${cancelled.join(', ')}`
			: '',
		notCancelled.length ? `not cancelled, may still be charged: ${notCancelled.join(', ')}` : '',
	].filter(Boolean);
	return parts.join('; ') || 'no job was still running';
}

/**
 * Waits for all jobs together. Settles each job with `result` or `error`; throws only when the
 * execution is cancelled, after cancelling the unsettled jobs at the service.
 */
/**
 * Waits until every job is settled (a result or an error). With `until` (a wall-clock time, ms),
 * it returns at that time at the latest, leaving the jobs still running unsettled: nothing is
 * cancelled and no error is made (a tool call's bounded wait, nodes/shared/tool.ts).
 */
export async function waitForJobs(
	ctx: IExecuteFunctions,
	jobs: PendingJob[],
	opts: { until?: number } = {},
): Promise<void> {
	const until = opts.until ?? Infinity;
	const cap = new RequestCap();
	for (const j of jobs) if (!settled(j)) observe(ctx, j, j.record, j.startedAt);
	const lists = new Map<string, ListState>();
	const singles: PendingJob[] = [];
	for (const j of jobs) {
		if (!j.listPath) {
			singles.push(j);
			continue;
		}
		let state = lists.get(j.listPath);
		if (!state) {
			state = { path: j.listPath, jobs: [], lastPollAt: j.startedAt, errorsInARow: 0 };
			lists.set(j.listPath, state);
		}
		state.jobs.push(j);
		state.lastPollAt = Math.max(state.lastPollAt, j.startedAt);
	}
	try {
		for (;;) {
			for (const s of lists.values()) {
				if (s.unusable) {
					singles.push(...s.jobs);
					lists.delete(s.path);
				}
			}
			const open = jobs.filter((j) => !settled(j));
			if (!open.length || Date.now() >= until) return;
			let nextAt = Infinity;
			let nextList: ListState | undefined;
			let nextSingle: PendingJob | undefined;
			for (const s of lists.values()) {
				if (s.jobs.every(settled)) continue;
				const at = dueAt(s.jobs, s.lastPollAt, jobs);
				if (at < nextAt) [nextAt, nextList, nextSingle] = [at, s, undefined];
			}
			for (const j of singles) {
				if (settled(j)) continue;
				const at = dueAt([j], j.lastPollAt, jobs);
				if (at < nextAt) [nextAt, nextList, nextSingle] = [at, undefined, j];
			}
			const wait = Math.min(nextAt, until) - Date.now();
			if (wait > 0) await cancellableSleep(ctx, Number.isFinite(wait) ? wait : POLLING.maxMs);
			if (nextAt > until) continue;
			let seen: PendingJob[] = [];
			if (nextList) seen = await sweepOrCount(ctx, cap, nextList);
			else if (nextSingle) seen = await readOne(ctx, cap, nextSingle);
			afterLook(ctx, seen, jobs, Date.now());
		}
	} catch (error) {
		if (!ctx.getExecutionCancelSignal()?.aborted) throw asNodeError(ctx, error);
		const what = await cancelAll(ctx, jobs);
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
		const code = Number((error as NodeApiError).httpCode);
		if (code >= 400 && code < 500 && code !== 429) {
			state.unusable = true;
			return [];
		}
		state.errorsInARow++;
		state.from = undefined;
		if (state.errorsInARow > POLLING.transientErrors) {
			for (const j of state.jobs) if (!settled(j)) j.error = asNodeError(ctx, error, j.itemIndex);
		} else state.lastPollAt = Date.now() - nextPollDelay(0) + backoffDelay(state.errorsInARow);
		return [];
	}
}
