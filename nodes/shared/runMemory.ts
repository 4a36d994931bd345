/**
 * What a node run keeps in its node context (`getContext('node')`), which n8n saves with the
 * execution when the node ends (succeeds or fails) and hands to its Retry: the run's token and
 * the jobs each item started, written as each create answers (docs/batches.md).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

interface Memory {
	/** The run's token (runIdentity.ts), from the first try of this node in this execution's data. */
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

/** The token an earlier try of this run kept (n8n's Retry of a failed execution), if any. */
export function rememberedToken(ctx: IExecuteFunctions): string | undefined {
	return memoryOf(ctx).token;
}

/** Keeps the run's token for a retry of this execution. */
export function rememberToken(ctx: IExecuteFunctions, token: string): void {
	memoryOf(ctx).token ??= token;
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
	/** Whether an earlier try of this run wrote here (so its jobs are known without MediaGen). */
	recorded(): boolean;
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
		recorded: () => memory.started?.[run] !== undefined,
	};
}
