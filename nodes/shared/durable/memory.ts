/**
 * What a node run keeps in its node context (`getContext('node')`), which n8n saves with the
 * execution when the node ends (succeeds or fails) and hands to its Retry: the run's token, what
 * each item started or was charged for, written as each answer arrives, and what a later lookup
 * must not give to another item (docs/batches.md).
 */
import type { IDataObject, IExecuteFunctions, IRunExecutionData } from 'n8n-workflow';

import type { RememberedUpload, UploadMemory } from '../files/upload';

/** What one execution's saved data says about this node's earlier tries (identity.ts). */
export interface SavedView {
	executionId: string;
	/** The run's token, and whether a retry of this execution derives it again. */
	token: string;
	durable: boolean;
	/** The earliest start n8n saved of this execution (ms). */
	since?: number;
	/** What the saved data holds of the nodes before this one (identity.ts, fingerprintOf). */
	fingerprint?: string;
	/** A sub-execution, whose token derives from its parent's run (identity.ts RunIdentity). */
	sub?: boolean;
	/** The executions n8n's Retries of this run copied (identity.ts, retriedOf). */
	retried?: string[];
	/** The token an earlier Retry kept, which n8n saved nothing to derive (identity.ts). */
	blind?: boolean;
	/** Runs n8n's crash recovery added to this node's runs (they shift its run index). */
	shift: number;
	/** A time (ms, n8n's clock) known to precede the lost try's runs of this node, if any. */
	lostAfter?: number;
	/**
	 * A sub-execution whose parent is n8n's Retry of an earlier execution: the parent's saved data
	 * holds runs n8n's crash recovery made up, or a node whose failed run the Retry removed.
	 */
	parentRecovered?: boolean;
	/**
	 * Whether an earlier try of this execution ran the node: n8n saved runs of it (a failed run
	 * removed by the Retry leaves an empty list), or its node context kept a token.
	 */
	ranBefore?: boolean;
}

interface Memory {
	/** The run's token (identity.ts), from the first try of this node in this execution's data. */
	token?: string;
	/** What the current execution's saved data says, read once per execution. */
	view?: SavedView;
	/** Jobs started per run position, then per item index. */
	started?: Record<string, Record<string, IDataObject[]>>;
	/**
	 * The request id (identity.ts requestIdOf) of each item that started jobs or was answered, per
	 * position then item index: a retry whose input changed finds an item's work by its request.
	 */
	requests?: Record<string, Record<string, string>>;
	/** Answers of charged calls that answer at once, per run position, then per item index. */
	answered?: Record<string, Record<string, IDataObject[]>>;
	/** Items whose create or charged call was sent and not answered, per position. */
	unsure?: Record<string, number[]>;
	/**
	 * The key of this execution an item's request is sent under instead of its default key, per
	 * position then item index, with the item's request id (until the item is answered).
	 */
	keys?: Record<string, Record<string, { key: string; request: string }>>;
	/**
	 * Items whose create or charged call MediaGen refused (nothing was done), per position, then
	 * item index: the item's request id ('' when none was recorded).
	 */
	refused?: Record<string, Record<string, string>>;
	/** When each run position began (ms, n8n's clock). */
	began?: Record<string, number>;
	/** The execution whose try recorded `began`, per position. */
	beganIn?: Record<string, string>;
	/** Ids of jobs and tasks finished positions took: a later lookup must not take them again. */
	claimed?: string[];
	/** The records (lists, records) the positions' lookups read, as orphans.ts writes them. */
	worked?: string[];
	/** The upload each item's complete was sent for (../files/upload.ts), per position and item. */
	uploads?: Record<string, Record<string, RememberedUpload>>;
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

/** What this execution's saved data said, if this node read it earlier in the execution. */
export function rememberedView(ctx: IExecuteFunctions): SavedView | undefined {
	const view = memoryOf(ctx).view;
	return view?.executionId === String(ctx.getExecutionId() ?? '') ? view : undefined;
}

/** The view an earlier execution of this run kept in the node context n8n's Retry copied. */
export function keptView(ctx: IExecuteFunctions): SavedView | undefined {
	const view = memoryOf(ctx).view;
	return view?.executionId !== String(ctx.getExecutionId() ?? '') ? view : undefined;
}

/**
 * The view a run of the node `nodeName` kept in another execution's saved node context (n8n's
 * `executionData.contextData`, key `node:<name>`: saved when that execution ended).
 */
export function viewKeptIn(
	data: IRunExecutionData | undefined,
	nodeName: string,
): SavedView | undefined {
	const context = data?.executionData?.contextData?.[`node:${nodeName}`] as IDataObject | undefined;
	const view = (context?.[KEY] as Memory | undefined)?.view;
	return view && typeof view === 'object' && typeof view.executionId === 'string'
		? view
		: undefined;
}

/** Keeps what this execution's saved data said (not for a call outside a saved execution). */
export function rememberView(ctx: IExecuteFunctions, view: SavedView): void {
	if (view.executionId) memoryOf(ctx).view = view;
}

/** The fields of a started job kept for a retry (the whole answer when it is the output). */
function kept(record: IDataObject, whole: boolean): IDataObject {
	return whole ? record : { id: record.id, status: record.status };
}

/** One run position's memory: read what an earlier try did, write what this one does. */
export interface RunMemory {
	/**
	 * Jobs an earlier try of this run started for the item (n8n's Retry), if any: those of the
	 * earlier item with the same `request` id where the earlier try recorded it (the input may
	 * have changed between the tries), else those of the same index.
	 */
	of(itemIndex: number, request?: string): IDataObject[] | undefined;
	/**
	 * Jobs an earlier try of this run position started for requests it recorded that are not in
	 * `asked` (the input or the workflow changed before n8n's Retry): no item of this run takes them.
	 */
	unasked(asked: Set<string | undefined>): IDataObject[];
	/** Remembers the jobs an item started (`whole`: keep the full answer, it is the output). */
	add(itemIndex: number, records: IDataObject[], whole: boolean, request?: string): void;
	/** The answer of a charged call an earlier try got for the item (as `of`), if any. */
	answerOf(itemIndex: number, request?: string): IDataObject[] | undefined;
	/** Remembers the answer of an item's charged call. */
	answer(itemIndex: number, records: IDataObject[], request?: string): void;
	/** Whether an earlier try sent the item's create or charged call and got no answer. */
	isUnsure(itemIndex: number): boolean;
	/** Written before an item's create or charged call is sent: until its answer, it may be done. */
	sending(itemIndex: number): void;
	/** The item's request is sent under `key`, a key of this execution, not its default key. */
	keyed(itemIndex: number, request: string, key: string): void;
	/** The key an earlier try sent the request under instead of its default (as `keyed`), if any. */
	keyOf(request: string): string | undefined;
	/** The item's request was refused (a 4xx answer): nothing was done. */
	notDone(itemIndex: number, request?: string): void;
	/**
	 * Whether an earlier try of this run had the item's request refused (as `of`) and nothing
	 * since recorded work for it.
	 */
	wasRefused(itemIndex: number, request?: string): boolean;
	/** Items sent without an answer. */
	unsure(): number[];
	/** When this position began in an earlier try that recorded it (ms), if one did. */
	began(): number | undefined;
	/** Whether that try was one of this execution (Retry On Fail), not of one n8n's Retry copied. */
	beganHere(): boolean;
	/** Ids that other positions of this execution's runs took (jobs, tasks). */
	claimed(): Set<string>;
	/** Adds ids to what this execution's runs took (kept at once, for a later retry too). */
	claim(ids: Iterable<string>): void;
	/** Adds records this position's lookups read to every position's, and returns them all. */
	worked(records: string[]): string[];
	/**
	 * The run ended well: its jobs and answers are forgotten; with `keepClaims` (its jobs are
	 * found by the record they belong to) their ids stay claimed for a later lookup.
	 */
	clear(keepClaims: boolean): void;
	/** Whether an earlier try of this run wrote here (so its jobs are known without MediaGen). */
	recorded(): boolean;
	/** The item's upload for `key` (what it is for). */
	upload(itemIndex: number, key: string): UploadMemory;
}

/**
 * The index under which an earlier try recorded an item's work: the item with the same request
 * where the try recorded requests, else the same index.
 */
function slotOf(
	memory: Memory,
	at: string,
	itemIndex: number,
	request: string | undefined,
): string | undefined {
	const requests = memory.requests?.[at];
	if (!request || !requests || !Object.keys(requests).length) return String(itemIndex);
	return Object.entries(requests).find(([, r]) => r === request)?.[0];
}

/** What a position's item keeps of its upload for `key` (what it is for). */
function uploadMemory(memory: Memory, at: string, item: string, key: string): UploadMemory {
	const set = (entry: RememberedUpload) => (((memory.uploads ??= {})[at] ??= {})[item] = entry);
	return {
		remembered: () => {
			const entry = memory.uploads?.[at]?.[item];
			return entry?.key === key ? entry : undefined;
		},
		completing: (uploadId, parts) => void set({ key, uploadId, parts }),
		completed: (uploadId, assetId) => void set({ key, uploadId, assetId }),
		forget: () => void delete memory.uploads?.[at]?.[item],
	};
}

/** Whether a position's refusals hold the item's request (by request id, else by index). */
function refusedIn(
	refused: Record<string, string> | undefined,
	itemIndex: number,
	request: string | undefined,
): boolean {
	if (!refused) return false;
	if (!request) return String(itemIndex) in refused;
	return Object.values(refused).includes(request) || refused[String(itemIndex)] === '';
}

/**
 * When a position began in an earlier try (`earlier`), whether that try was of this execution
 * (`here`, read when asked: a read-only run never asks), and `begin`, the position's first
 * write: when its first create or charged call is sent. A try that only found an earlier try's
 * jobs began nothing: its start bounds no later lookup (the adversary's seed 1208215).
 */
function startOf(memory: Memory, at: string, executionId: () => string) {
	const earlier = memory.began?.[at];
	const begin = () => {
		if (memory.began?.[at] !== undefined) return;
		(memory.began ??= {})[at] = Date.now();
		(memory.beganIn ??= {})[at] = executionId();
	};
	const here = () => earlier !== undefined && memory.beganIn?.[at] === executionId();
	return { earlier, here, begin };
}

/** Adds ids to an execution-wide list of the memory (kept only when not empty); returns it. */
function union(memory: Memory, list: 'claimed' | 'worked', more: Iterable<string>): string[] {
	const all = [...new Set([...(memory[list] ?? []), ...more])];
	if (all.length) memory[list] = all;
	return all;
}

/** The memory of run position `position` of this node (n8n's run index, less recovered runs). */
export function runMemory(ctx: IExecuteFunctions, position: number): RunMemory {
	const memory = memoryOf(ctx);
	const at = String(position);
	const { earlier, here, begin } = startOf(memory, at, () => String(ctx.getExecutionId() ?? ''));
	const settle = (itemIndex: number) => {
		const unsure = memory.unsure;
		if (unsure?.[at]) unsure[at] = unsure[at].filter((i) => i !== itemIndex);
		delete memory.refused?.[at]?.[String(itemIndex)];
		delete memory.keys?.[at]?.[String(itemIndex)];
	};
	const idsOf = (byItem: Record<string, IDataObject[]> | undefined) =>
		Object.values(byItem ?? {}).flatMap((records) => records.map((r) => String(r.id)));
	const note = (itemIndex: number, request: string | undefined) =>
		request && (((memory.requests ??= {})[at] ??= {})[String(itemIndex)] = request);
	const read = (byPosition: Memory['started'], itemIndex: number, request?: string) =>
		byPosition?.[at]?.[slotOf(memory, at, itemIndex, request) ?? ''];
	return {
		of: (itemIndex, request) => read(memory.started, itemIndex, request),
		unasked: (asked) =>
			Object.entries(memory.started?.[at] ?? {}).flatMap(([item, records]) => {
				const request = memory.requests?.[at]?.[item];
				return request && !asked.has(request) ? records : [];
			}),
		add: (itemIndex, records, whole, request) => {
			((memory.started ??= {})[at] ??= {})[String(itemIndex)] = records.map((r) => kept(r, whole));
			note(itemIndex, request);
			settle(itemIndex);
		},
		answerOf: (itemIndex, request) => read(memory.answered, itemIndex, request),
		answer: (itemIndex, records, request) => {
			((memory.answered ??= {})[at] ??= {})[String(itemIndex)] = records;
			note(itemIndex, request);
			settle(itemIndex);
		},
		isUnsure: (itemIndex) => !!memory.unsure?.[at]?.includes(itemIndex),
		sending: (itemIndex) => {
			begin();
			const list = ((memory.unsure ??= {})[at] ??= []);
			if (!list.includes(itemIndex)) list.push(itemIndex);
		},
		keyed: (itemIndex, request, key) =>
			void (((memory.keys ??= {})[at] ??= {})[String(itemIndex)] = { key, request }),
		keyOf: (request) =>
			Object.values(memory.keys?.[at] ?? {}).find((k) => k.request === request)?.key,
		notDone: (itemIndex, request) => {
			settle(itemIndex);
			((memory.refused ??= {})[at] ??= {})[String(itemIndex)] = request ?? '';
		},
		wasRefused: (itemIndex, request) => refusedIn(memory.refused?.[at], itemIndex, request),
		unsure: () => [...(memory.unsure?.[at] ?? [])],
		began: () => earlier,
		beganHere: here,
		claimed: () => new Set([...(memory.claimed ?? []), ...idsOf(memory.started?.[at])]),
		claim: (ids) => void union(memory, 'claimed', ids),
		worked: (records) => union(memory, 'worked', records),
		clear: (keepClaims) => {
			if (keepClaims) union(memory, 'claimed', idsOf(memory.started?.[at]));
			const positions = [
				memory.started,
				memory.requests,
				memory.answered,
				memory.unsure,
				memory.keys,
				memory.refused,
				memory.began,
				memory.beganIn,
				memory.uploads,
			];
			for (const byPosition of positions) if (byPosition) delete byPosition[at];
		},
		recorded: () =>
			memory.started?.[at] !== undefined ||
			memory.answered?.[at] !== undefined ||
			memory.unsure?.[at] !== undefined,
		upload: (itemIndex, key) => uploadMemory(memory, at, String(itemIndex), key),
	};
}
