/**
 * What a node run remembers across n8n's Retry of a failed execution, so that a retried item
 * never starts (or is charged for) a second job.
 *
 * n8n's Retry (Executions list → Retry, `POST /rest/executions/:id/retry`) runs the failed node
 * again in a new execution (mode `retry`, a new execution id) from the saved execution data of
 * the failed one, whose node context (`getContext('node')`) is part of that data. The node keeps
 * two things there:
 * - a run token: the id of the execution in which the node first ran. Default idempotency keys
 *   are derived from it (not from the current execution id), so a retry sends the same keys;
 * - the jobs each item started, saved as each create answers: a retry waits for those jobs
 *   instead of creating them again (this covers the endpoints without an Idempotency-Key too).
 * A new execution (a new trigger event, the editor's Execute) starts with an empty context: new
 * token, new keys, new jobs. The started jobs of a run are forgotten when the run succeeds.
 */
import { randomUUID } from 'node:crypto';

import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

interface Memory {
	/** Execution id of the first run of this node in this execution's data. */
	token?: string;
	/** Jobs started per run index, then per item index. */
	started?: Record<string, Record<string, IDataObject[]>>;
}

const KEY = 'mediaGenRun';

function memoryOf(ctx: IExecuteFunctions): Memory {
	const context = ctx.getContext('node');
	let memory = context[KEY] as Memory | undefined;
	if (!memory || typeof memory !== 'object') {
		memory = {};
		context[KEY] = memory;
	}
	return memory;
}

/** The token default idempotency keys derive from: stable across n8n's Retry of the execution. */
export function runToken(ctx: IExecuteFunctions): string {
	const memory = memoryOf(ctx);
	memory.token ??= ctx.getExecutionId() || randomUUID();
	return memory.token;
}

/** The fields of a started job kept for a retry (the whole answer when it is the output). */
function kept(record: IDataObject, whole: boolean): IDataObject {
	return whole ? record : { id: record.id, status: record.status };
}

/** The run's memory of started jobs: read what an earlier try started, write what this one starts. */
export interface StartedJobs {
	/** Jobs an earlier try of this run started for the item (n8n's Retry), if any. */
	of(itemIndex: number): IDataObject[] | undefined;
	/** Remembers the jobs an item started (`whole`: keep the full answer, it is the output). */
	add(itemIndex: number, records: IDataObject[], whole: boolean): void;
	/** Forgets the run's jobs (the run succeeded: nothing is left to retry). */
	clear(): void;
}

export function startedJobsMemory(ctx: IExecuteFunctions, runIndex: number): StartedJobs {
	const memory = memoryOf(ctx);
	const run = String(runIndex);
	return {
		of: (itemIndex) => memory.started?.[run]?.[String(itemIndex)],
		add: (itemIndex, records, whole) => {
			memory.started ??= {};
			memory.started[run] ??= {};
			memory.started[run][String(itemIndex)] = records.map((r) => kept(r, whole));
		},
		clear: () => {
			if (memory.started) delete memory.started[run];
		},
	};
}
