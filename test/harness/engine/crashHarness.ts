/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions -- dev-only code (tests): never published, see package.json "files" */
/**
 * Crash tests in every workflow shape: an execution run by n8n-core's engine in a CHILD process
 * (./crashWorker.ts, the package's real nodes against the sandbox over HTTP) that is killed with
 * SIGKILL at a chosen moment, like n8n under kill -9; what n8n would have kept of it (the
 * execution store's saves, the event log's node messages) is what the child told before dying.
 * Then n8n's start-up recovery (./n8nRecovery.ts recover: ExecutionRecoveryService.amend) and
 * its Retry (prepareRetry: ExecutionService.retry), run in-process (retry) or crashed again
 * (crashRetry). docs/development.md, "How the engine crash tests model n8n", lists the n8n facts.
 *
 *   const saved = new SavedExecutions();
 *   const x = await crashExecution(workflow, { credentials, saved, sandbox, killAt: { nodeStarted: 'Slow' } });
 *   recover(x.saved, x.events);                        // n8n starts again
 *   const r = await retry(saved, x.executionId, { credentials });
 */
import { type ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';

import type { IWorkflowBase } from 'n8n-workflow';

import { POLLING } from '../../../nodes/shared/jobs/poller';
import { RETRY } from '../../../nodes/shared/transport/retry';
import type { RequestEvent, Sandbox } from '../../../sandbox';
import type { AlongsideTask, CrashTask, WorkerMessage } from './crashWorker';
import type { RunOptions, RunResult } from './harness';
import { startWorkflow } from './harness';
import type { ExecutionStart, NodeEventMessage } from './n8nHost';
import type { PreparedRetry } from './n8nRecovery';
import { prepareRetry, recover } from './n8nRecovery';
import { SavedExecutions } from './savedExecutions';

export { recover, amend, prepareRetry } from './n8nRecovery';

const WORKER = path.join(__dirname, 'crashWorker.ts');
const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');

/**
 * When the process dies:
 * - `nodeStarted`: when node `nodeStarted` has logged `n8n.node.started` for the `run`-th time
 *   (default 1; any execution of the process, sub-executions too), `afterMs` later (default 0);
 * - `answered`: when the sandbox has answered the `answered`-th request matching `path` (a
 *   regular expression searched in the request path, e.g. "/generations$") and `method`;
 * - `held`: when a request matching `path`/`method` (after `skip` matching ones) has done its
 *   work at the sandbox and its answer is held back (a delay fault): a create made, unanswered;
 * - `afterMs`: that long after the child process started;
 * - `when`: when the promise resolves (a test's own moment, e.g. one fast-check's scheduler draws).
 */
export type KillPoint =
	| { nodeStarted: string; run?: number; afterMs?: number }
	| { answered: number; path: string; method?: string }
	| { held: { path: string; method?: string; skip?: number } }
	| { afterMs: number }
	| { when: Promise<unknown> };

export interface CrashOptions extends RunOptions {
	/** The sandbox the nodes talk to (its request log and faults place `answered`/`held` kills). */
	sandbox: Sandbox;
	killAt: KillPoint;
	/** The kill point must come within this time (default 60 s), else the test fails. */
	timeoutMs?: number;
	/**
	 * The killed n8n's clock against this process's (ms): n8n's clock at the crash differs from
	 * its clock at the Retry (an NTP step after a restart, the Retry run by another main).
	 */
	clockOffsetMs?: number;
	/**
	 * The execution may end before the kill point, or before its SIGKILL lands (a kill point a
	 * moment before the end): then the result says `ended` (its run as saved in `saved`), instead
	 * of a rejection.
	 */
	mayEnd?: boolean;
	/** Other executions started in the same process while it runs (they die with it). */
	alongside?: Alongside;
}

/**
 * Executions a test starts in the killed n8n process beside the first (CrashOptions.alongside):
 * the same main running two executions, both lost with it.
 */
export class Alongside {
	private child?: ChildProcess;
	private readonly pending = new Map<string, (status: string | undefined) => void>();

	/** Starts an execution in the process: its status when it ended, undefined if it died first. */
	async start(task: Omit<AlongsideTask, 'type'>): Promise<string | undefined> {
		const child = this.child;
		if (!child || !this.alive) return undefined;
		return await new Promise((resolve) => {
			this.pending.set(task.executionId, resolve);
			child.send({ type: 'alongside', ...task } satisfies AlongsideTask, (e) => {
				if (e) this.ended(task.executionId, undefined);
			});
		});
	}

	/** The process runs and can start another execution. */
	get alive(): boolean {
		return !!this.child?.connected;
	}

	bind(child: ChildProcess): void {
		this.child = child;
	}

	ended(executionId: string, status: string | undefined): void {
		this.pending.get(executionId)?.(status);
		this.pending.delete(executionId);
	}

	/** The process is gone: what still ran in it ended with it. */
	died(): void {
		for (const id of [...this.pending.keys()]) this.ended(id, undefined);
		this.child = undefined;
	}
}

/** What is left of a killed n8n process. */
export interface CrashedExecution {
	/** The execution the process ran (sub-executions have their own ids in `saved`). */
	executionId: string;
	workflowData: IWorkflowBase;
	/** n8n's database: `options.saved`, or a new store, with every save the process made. */
	saved: SavedExecutions;
	/** n8n's event log: the node messages of the execution and of its sub-executions. */
	events: NodeEventMessage[];
	/** When the process got SIGKILL (ms); 0 when it ended first (`mayEnd`). */
	killedAt: number;
	/** With `mayEnd`: the execution's status when it ended before the kill point. */
	ended?: string;
}

/**
 * Runs `workflowData` (`start`: a new execution, or a prepared retry's) in a child process and
 * kills it with SIGKILL at `options.killAt`. Rejects if the execution ends first, if the process
 * fails, or if the kill point does not come within `timeoutMs`.
 */
export async function crashExecution(
	workflowData: IWorkflowBase,
	options: CrashOptions,
	start: ExecutionStart = { mode: 'manual', startNode: options.startNode },
): Promise<CrashedExecution> {
	const saved = options.saved ?? new SavedExecutions();
	const executionId = options.executionId ?? saved.nextId();
	const task: CrashTask = {
		workflowData,
		start,
		executionId,
		credentials: options.credentials,
		n8nMajor: options.n8nMajor ?? 2,
		workflows: options.workflows ?? [],
		saved: saved.entries(),
		polling: { ...POLLING },
		retry: { ...RETRY },
		clockOffsetMs: options.clockOffsetMs,
		requestHeaders: options.requestHeaders,
		// the test's process gives out ids too: the child takes the next lane
		...(saved.lane ? { lane: { ...saved.lane, rem: (saved.lane.rem + 1) % saved.lane.mod } } : {}),
	};
	const child = spawn(process.execPath, ['--import', 'tsx', WORKER], {
		cwd: REPO_ROOT,
		stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
	});
	let output = '';
	const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-4000));
	child.stdout?.on('data', keep);
	child.stderr?.on('data', keep);
	const events: NodeEventMessage[] = [];
	const killer = armKill(child, options, events);
	let outcome: string | undefined;
	let ended: string | undefined;
	child.on('message', (m: WorkerMessage) => {
		if (m.type === 'done' && options.mayEnd) {
			ended = m.status;
			child.kill('SIGKILL');
			return;
		}
		if (m.type === 'alongsideDone') return options.alongside?.ended(m.executionId, m.status);
		if (m.type === 'save') saved.apply(m.entry);
		else if (m.type === 'event') {
			events.push(m.message);
			killer.onEvent(m.message);
			options.onNodeEvent?.(m.message);
		} else outcome = m.type === 'done' ? `ended (${m.status})` : `failed: ${m.message}`;
		if (outcome) killer.kill();
	});
	const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
	child.send(task);
	options.alongside?.bind(child);
	await closed;
	options.alongside?.died();
	killer.disarm();
	if (ended) return { executionId, workflowData, saved, events, killedAt: 0, ended };
	if (outcome) throw new Error(`The execution ${outcome} before the kill point\n${output}`);
	if (killer.timedOut) throw new Error(`The kill point did not come in time\n${output}`);
	return { executionId, workflowData, saved, events, killedAt: killer.killedAt };
}

/** Sets up the kill of `child` at `options.killAt`. */
function armKill(child: ChildProcess, options: CrashOptions, events: NodeEventMessage[]) {
	const at = options.killAt;
	const timers: NodeJS.Timeout[] = [];
	const state = { killedAt: 0, timedOut: false, disarmed: false };
	const kill = () => {
		if (state.killedAt) return;
		state.killedAt = Date.now();
		child.kill('SIGKILL');
	};
	const later = (ms: number, fn: () => void) => timers.push(setTimeout(fn, ms));
	later(options.timeoutMs ?? 60_000, () => {
		state.timedOut = !state.killedAt;
		kill();
	});
	let unwatch = () => {};
	let ungate = () => {};
	let faultId: number | undefined;
	const { control } = options.sandbox;
	const matches = (method: string, p: string, want: { path: string; method?: string }) =>
		new RegExp(want.path).test(p) && (!want.method || want.method.toUpperCase() === method);
	if ('answered' in at) {
		let seen = 0;
		// The kill follows the n-th answer at once, but on a loaded machine the child can send the
		// next matching request before the SIGKILL lands: it is refused before any work (nothing
		// made, nothing charged), so the kill point is the same whatever the timing. The sandbox's
		// request gate counts every matching request as it arrives, whatever faults the test
		// injected besides (a fault's `skip` counts only the requests no earlier fault took).
		let arrived = 0;
		ungate = control.gateRequests(async (r) =>
			matches(r.method, r.path, at) && ++arrived > at.answered ? 'refuse' : undefined,
		);
		unwatch = control.watchRequests((e: RequestEvent) => {
			if (
				e.type === 'answered' &&
				matches(e.entry.method, e.entry.path, at) &&
				++seen === at.answered
			)
				kill();
		});
	} else if ('held' in at) {
		const { path: p, method, skip = 0 } = at.held;
		faultId = control.addFault({ kind: 'delay', path: p, method, skip, delayMs: 600_000 }).id;
		unwatch = control.watchRequests((e) => {
			if (e.type === 'held' && matches(e.method, e.path, at.held)) kill();
		});
	} else if ('when' in at) {
		void at.when.then(() => {
			if (!state.disarmed) kill();
		});
	} else if (!('nodeStarted' in at)) later(at.afterMs, kill);
	return {
		kill,
		get killedAt() {
			return state.killedAt;
		},
		get timedOut() {
			return state.timedOut;
		},
		onEvent: (m: NodeEventMessage) => {
			if (!('nodeStarted' in at) || m.eventName !== 'n8n.node.started') return;
			if (m.payload.nodeName !== at.nodeStarted) return;
			const starts = events.filter(
				(e) => e.eventName === 'n8n.node.started' && e.payload.nodeName === at.nodeStarted,
			).length;
			if (starts !== (at.run ?? 1)) return;
			if (at.afterMs) later(at.afterMs, kill);
			else kill();
		},
		disarm: () => {
			state.disarmed = true;
			for (const t of timers) clearTimeout(t);
			unwatch();
			ungate();
			if (faultId !== undefined) control.removeFault(faultId);
		},
	};
}

/** A run of the harness plus the id of its execution. */
export type IdentifiedRun = RunResult & { executionId: string };

/**
 * n8n's Retry of saved execution `executionId` (ExecutionService.retry, see prepareRetry), run
 * in this process: a new execution (`options.executionId` or a random id) in mode `retry`, its
 * data saved in `saved` when it is created (the copied data, run data included).
 */
export async function retry(
	saved: SavedExecutions,
	executionId: string,
	options: RunOptions & { loadWorkflow?: boolean; currentWorkflow?: IWorkflowBase },
): Promise<IdentifiedRun> {
	const prepared = prepareRetry(saved, executionId, options);
	const id = options.executionId ?? saved.nextId();
	const r = await startWorkflow(
		prepared.workflowData,
		{ ...options, saved, executionId: id },
		prepared.start,
	).done;
	return { ...r, executionId: id };
}

/** n8n's Retry of saved execution `executionId`, run in a child process that is killed too. */
export async function crashRetry(
	saved: SavedExecutions,
	executionId: string,
	options: CrashOptions & { loadWorkflow?: boolean; currentWorkflow?: IWorkflowBase },
): Promise<CrashedExecution> {
	const prepared: PreparedRetry = prepareRetry(saved, executionId, options);
	return await crashExecution(prepared.workflowData, { ...options, saved }, prepared.start);
}

/** n8n starting again after `crashed`: recovery of every execution the process left unfinished. */
export const restart = (crashed: CrashedExecution): string[] =>
	recover(crashed.saved, crashed.events);
