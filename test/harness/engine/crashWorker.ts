/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev-only code (tests): never published, see package.json "files" */
/**
 * The child process of crashHarness.ts: an n8n process that runs one execution with n8n-core's
 * engine (n8nHost.ts startExecution), the package's real nodes against the sandbox over HTTP, and
 * tells its parent over IPC everything n8n would have written before dying: each save of the
 * execution store (the database) and each event bus message (the event log). The parent kills
 * it with SIGKILL. Run as `node --import tsx test/harness/engine/crashWorker.ts` with an IPC channel.
 */
import type { IWorkflowBase } from 'n8n-workflow';

import { ACTION_NODES } from '../actionNodes';
import { POLLING } from '../../../nodes/shared/jobs/poller';
import { RETRY } from '../../../nodes/shared/transport/retry';
import type { ExecutionStart, HostOptions } from './n8nHost';
import { TestBinarySource } from './binaryData';
import { startExecution } from './n8nHost';
import { NODE_TYPES } from './n8nTypes';
import { shiftClock } from './clock';
import type { SavedEntry } from './savedExecutions';
import { SavedExecutions } from './savedExecutions';

/** What the parent asks: one execution. */
export interface CrashTask {
	workflowData: IWorkflowBase;
	start: ExecutionStart;
	executionId: string;
	credentials: HostOptions['credentials'];
	n8nMajor: 1 | 2;
	workflows: IWorkflowBase[];
	/** The database as it is (executions saved before: what a retry's nodes read). */
	saved: SavedEntry[];
	polling: Partial<typeof POLLING>;
	retry: Partial<typeof RETRY>;
	/** This n8n process's clock against the real one (ms): n8n's clock stepped before a restart. */
	clockOffsetMs?: number;
	requestHeaders?: Record<string, string>;
	/** The ids this process gives out (SavedExecutions.lane), when the parent gives out some too. */
	lane?: { mod: number; rem: number };
}

/**
 * Another execution the parent starts in this process while the first runs (the same n8n main:
 * it dies with it): a new execution of `workflowData` (mode manual).
 */
export interface AlongsideTask {
	type: 'alongside';
	workflowData: IWorkflowBase;
	executionId: string;
	workflows: IWorkflowBase[];
	requestHeaders?: Record<string, string>;
}

/** What the child tells, in the order it happens. */
export type WorkerMessage =
	| { type: 'save'; entry: SavedEntry }
	| { type: 'event'; message: import('./n8nHost').NodeEventMessage }
	| { type: 'done'; status: string }
	| { type: 'alongsideDone'; executionId: string; status: string }
	| { type: 'failed'; message: string };

for (const node of Object.values(ACTION_NODES))
	NODE_TYPES[`n8n-nodes-mediagen.${node.description.name}`] = node;
// the file node before an upload (the simulation's upload kind, test/harness/sim/kinds.ts)
NODE_TYPES['test.binarySource'] = new TestBinarySource();

const send = (m: WorkerMessage) => process.send?.(m);

/** The process's database: one for every execution it runs. */
const saved = new SavedExecutions();

async function run(task: CrashTask): Promise<void> {
	if (task.clockOffsetMs) shiftClock(task.clockOffsetMs);
	Object.assign(POLLING, task.polling);
	Object.assign(RETRY, task.retry);
	for (const entry of task.saved) saved.apply(entry);
	saved.lane = task.lane;
	saved.onSave = (entry) => send({ type: 'save', entry });
	process.on('message', (m: AlongsideTask) => {
		if (m.type === 'alongside') alongside(task, m).catch(fail);
	});
	const execution = startExecution(
		task.workflowData,
		{
			credentials: task.credentials,
			executionId: task.executionId,
			saved,
			n8nMajor: task.n8nMajor,
			workflows: task.workflows,
			requestHeaders: task.requestHeaders,
			onNodeEvent: (message) => send({ type: 'event', message }),
		},
		task.start,
	);
	const result = await execution.done;
	send({ type: 'done', status: result.status });
}

/** Another execution in this process (AlongsideTask), with the first one's credentials. */
async function alongside(task: CrashTask, m: AlongsideTask): Promise<void> {
	const execution = startExecution(m.workflowData, {
		credentials: task.credentials,
		executionId: m.executionId,
		saved,
		n8nMajor: task.n8nMajor,
		workflows: m.workflows,
		requestHeaders: m.requestHeaders,
		onNodeEvent: (message) => send({ type: 'event', message }),
	});
	const result = await execution.done;
	send({ type: 'alongsideDone', executionId: m.executionId, status: result.status });
}

const fail = (e: Error) => send({ type: 'failed', message: e.stack ?? String(e) });

process.once('message', (task: CrashTask) => {
	run(task).catch(fail);
});
