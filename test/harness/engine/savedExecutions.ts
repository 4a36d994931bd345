/**
 * What n8n keeps of executions in its database, for the engine harness: each execution's data as
 * JSON text (as n8n stores it: flatted, which keeps what JSON keeps and calls an error's toJSON),
 * the data as first saved (when n8n created the execution), and the execution's row (mode, the
 * workflow as it ran, retryOf, status).
 */
import type {
	ExecutionStatus,
	IRunExecutionData,
	IWorkflowBase,
	WorkflowExecuteMode,
} from 'n8n-workflow';

/** An execution's row: what n8n's Retry and crash recovery read besides the data. */
export interface ExecutionRecord {
	id: string;
	mode: WorkflowExecuteMode;
	/** The workflow as the execution ran it (n8n keeps a copy with each execution). */
	workflowData: IWorkflowBase;
	status: ExecutionStatus;
	retryOf?: string;
	/** The calling execution of a sub-execution (Execute Workflow). */
	parentExecutionId?: string;
	/** When it was created (ms). */
	createdAt: number;
}

/** One change, as it crosses a process boundary (see crashHarness.ts): data, a row, a status. */
export interface SavedEntry {
	executionId: string;
	text?: string;
	record?: Omit<ExecutionRecord, 'id'>;
	status?: ExecutionStatus;
}

/**
 * n8n's execution store. `save` copies (JSON), `get` gives a copy. `onSave` hears each change (a
 * crash test's child process forwards them to the test through it).
 */
export class SavedExecutions {
	private readonly data = new Map<string, string>();
	private readonly first = new Map<string, string>();
	private readonly records = new Map<string, ExecutionRecord>();
	onSave?: (entry: SavedEntry) => void;
	/**
	 * The ids this store gives out, where two processes give out ids at the same time (a test's
	 * and a child n8n's): those with remainder `rem` modulo `mod`, so that they never give out the
	 * same id before each has seen the other's saves (n8n's database has one sequence).
	 */
	lane?: { mod: number; rem: number };
	private lastId = 0;

	/**
	 * A new execution's id as n8n gives it: the next number (the execution entity's generated id),
	 * after every id saved here (also by another process: the same database) or given out before.
	 */
	nextId(): string {
		for (const id of this.first.keys())
			if (/^\d+$/.test(id)) this.lastId = Math.max(this.lastId, Number(id));
		this.lastId++;
		const lane = this.lane;
		while (lane && this.lastId % lane.mod !== lane.rem) this.lastId++;
		return String(this.lastId);
	}

	/** Saves `data`; `record` creates the execution's row (n8n does that with the first save). */
	save(executionId: string, data: IRunExecutionData, record?: Omit<ExecutionRecord, 'id'>): void {
		this.apply({ executionId, text: JSON.stringify(data), record });
	}

	setStatus(executionId: string, status: ExecutionStatus): void {
		this.apply({ executionId, status });
	}

	/** Applies a change (made here, or by another process's store: the same database). */
	apply(entry: SavedEntry): void {
		const { executionId, text, record, status } = entry;
		if (text !== undefined) {
			if (!this.first.has(executionId)) this.first.set(executionId, text);
			this.data.set(executionId, text);
		}
		if (record) this.records.set(executionId, { ...record, id: executionId });
		const row = this.records.get(executionId);
		if (status && row) row.status = status;
		this.onSave?.(entry);
	}

	get(executionId: string): IRunExecutionData | undefined {
		const text = this.data.get(executionId);
		return text === undefined ? undefined : (JSON.parse(text) as IRunExecutionData);
	}

	/** The data as saved when the execution was created (all n8n has of one whose process died). */
	atStart(executionId: string): IRunExecutionData | undefined {
		const text = this.first.get(executionId);
		return text === undefined ? undefined : (JSON.parse(text) as IRunExecutionData);
	}

	/** The execution's row (a copy), if it was saved with one. */
	record(executionId: string): ExecutionRecord | undefined {
		const r = this.records.get(executionId);
		return r && (JSON.parse(JSON.stringify(r)) as ExecutionRecord);
	}

	/** Every execution with a row, in the order they were created. */
	executions(): ExecutionRecord[] {
		return [...this.records.keys()].map((id) => this.record(id)!);
	}

	/** Everything, as changes to replay in another process's store (the same database). */
	entries(): SavedEntry[] {
		const out: SavedEntry[] = [];
		for (const [executionId, text] of this.first) {
			const row = this.records.get(executionId);
			const record = row && { ...row, id: undefined };
			out.push({ executionId, text, record });
			const last = this.data.get(executionId)!;
			if (last !== text) out.push({ executionId, text: last });
		}
		return out;
	}
}
