/**
 * One case of the simulation (./scenario.ts) against the sandbox, with the engine crash harness
 * (test/harness/engine/crashHarness.ts): n8n-core runs the workflow in a child process killed with
 * SIGKILL, n8n's start-up recovery and Retry run it again, and the invariants of issue #36 are
 * checked on what the sandbox counted:
 * 1. no item of the logical run is charged twice (per request: at most as many jobs as rows
 *    asked for it, before or after the change, per call of the sub-workflow);
 * 2. every output item carries the job made for its own request (prompt, language, record);
 * 3. every job the run was charged for reaches an item or is named in the error or a hint;
 * 4. a new execution never returns another execution's job (the other execution's, the first
 *    call's for the second call);
 * 5. a Retry that fails does so by refusing and naming (Cannot tell …), nothing else.
 * Returns the broken invariants (empty: the case passed).
 *
 * An adversary's case (Scenario.adversary, ./scenario.ts) sets the MediaGen node's settings,
 * injects a fault in the first run, may not kill n8n at all (then the run ends: a success is
 * checked as it is, a failure is retried), kills n8n again during its Retry and retries that,
 * and adds a Wait node. The invariants then read every output item as a job, an error (On
 * Error: continue) or Always Output Data's empty item: (2) each row's item in order is its own
 * job or an error, and with the error output no error item stays on the regular output; (3) an
 * error item's text names a job like a hint does; (5) an error item refuses and names (Cannot
 * tell …), as a failed Retry does, or is the drawn fault's own error (in the first run, or kept
 * by a Retry that resumed after MediaGen from the saved data).
 *
 * Its modes (Scenario.adversary stop, edit, queue): the user presses Stop instead of n8n dying
 * (`stoppedRun`) and Retries the canceled execution; the workflow is edited before the Retry
 * (`workflowsOf` with `edit`, `keepIds`, `retryOptions`); n8n's kill is a queue-mode worker's
 * (`stalledInQueue`, or recovery without the worker's event log). A job cancelled at MediaGen is
 * charged nothing and must be no item's result.
 */
import type {
	IDataObject,
	INodeExecutionData,
	INodeParameters,
	IRunExecutionData,
	ITaskData,
	IWorkflowBase,
} from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { ACTION_NODES } from '../actionNodes';
import type { Sandbox } from '../../../sandbox';
import { client } from '../sandbox/helpers';
import type { CrashedExecution, KillPoint } from '../engine/crashHarness';
import {
	crashExecution,
	crashRetry,
	prepareRetry,
	recover,
	restart,
	retry,
} from '../engine/crashHarness';
import { stalledInQueue, stopDuringRun } from '../engine/n8nRecovery';
import { isRecoveredRun } from '../../../nodes/shared/durable/identity';
import type { RunResult, TestNode } from '../engine/harness';
import { startWorkflow } from '../engine/harness';
import { SavedExecutions } from '../engine/savedExecutions';
import { shiftClock } from '../engine/clock';
import { clock } from '../../../sandbox/clock';
import type { Edge } from '../engine/shapes';
import {
	arrange,
	executeWorkflow,
	inOrder,
	items,
	loop,
	shape,
	slow,
	subTrigger,
	wait,
} from '../engine/shapes';
import { generationCreate, newEdit, nodeFactory, rl } from '../engine/setup';
import type { MoreRecords } from './kinds';
import {
	isMore,
	MORE_PATH,
	moreItem,
	moreMade,
	moreNodes,
	moreOther,
	moreRecords,
	moreRow,
} from './kinds';
import type { Adversary, Edit, Fault, Kind, NodeSettings, Scenario } from './scenario';
import { asked, calls, rowsAfter } from './scenario';

const mediaGenNode = nodeFactory(ACTION_NODES.mediaGen);
const editorNode = nodeFactory(ACTION_NODES.mediaGenEditor);

/**
 * A dub language per letter; the lower-case letters are the requests of the workflow edited
 * before the Retry (`Adversary.edit` `request`: each row asks for another thing).
 */
export const LANGUAGE: Record<string, string> = {
	A: 'es',
	B: 'fr',
	C: 'de',
	D: 'it',
	a: 'pt',
	b: 'nl',
	c: 'ja',
	d: 'ko',
};

/** The MediaGen node's name, renamed in the workflow edited before the Retry. */
export const nodeName = (edit?: Edit) => (edit === 'rename' ? 'MediaGen renamed' : 'MediaGen');

/** The request a row asks for in the workflow edited before the Retry. */
export const editedRow = (row: string, edit?: Edit) =>
	edit === 'request' ? row.toLowerCase() : row;

/**
 * What the case's records are: one edit for dubs, one edit per letter for captions, those of
 * ./kinds.ts for its kinds.
 */
export interface Records {
	dubEdit?: string;
	captionEdits: Record<string, string>;
	more?: MoreRecords;
}

const moreOf = (records: Records): MoreRecords => records.more ?? { byRow: {} };

export type Api = ReturnType<typeof client>;

/** The node settings of n8n's Settings tab, as the workflow JSON holds them. */
export function nodeSettings(set: NodeSettings = {}): Partial<TestNode> {
	const { retryOnFail, ...rest } = set;
	return retryOnFail ? { ...rest, retryOnFail: true, ...retryOnFail } : rest;
}

/** The MediaGen node of the case's kind, with the adversary's settings (and `edit`). */
export function jobNode(s: Scenario, records: Records, edit?: Edit): TestNode {
	return { ...kindNode(s, records, edit), ...nodeSettings(s.adversary?.settings) };
}

/**
 * The MediaGen node of the case's kind; each row's item holds `row` (and `edit`). Edited
 * (`request`), each row asks for its lower-case letter's prompt, language or record instead.
 */
function kindNode(s: Scenario, records: Records, edit?: Edit): TestNode {
	const name = nodeName(edit);
	const other = edit === 'request';
	const byRow = (map: Record<string, string | undefined>) =>
		`={{ (${JSON.stringify(
			Object.fromEntries(Object.keys(map).map((r) => [r.toUpperCase(), map[r.toLowerCase()]])),
		)})[$json.row] }}`;
	if (isMore(s.kind)) return { ...(moreNodes(s.kind, moreOf(records)).at(-1) as TestNode), name };
	if (s.kind === 'generation')
		return mediaGenNode(
			name,
			generationCreate(
				{},
				300,
				other ? '={{ "row " + $json.row.toLowerCase() }}' : '={{ "row " + $json.row }}',
			),
			{ typeVersion: 2 },
		);
	if (s.kind === 'dub')
		return editorNode(
			name,
			{
				resource: 'edit',
				operation: 'dub',
				editId: rl(records.dubEdit),
				language: other ? byRow(LANGUAGE) : '={{ $json.language }}',
			},
			{ typeVersion: 2 },
		);
	return editorNode(
		name,
		{
			resource: 'edit',
			operation: 'createCaptions',
			editId: rl(other ? byRow(records.captionEdits) : '={{ $json.edit }}'),
		},
		{ typeVersion: 2 },
	);
}

const itemOf = (row: string, records: Records, kind: Kind): IDataObject => ({
	row,
	language: LANGUAGE[row],
	edit: records.captionEdits[row],
	...(isMore(kind) ? moreItem(kind, row, moreOf(records)) : {}),
});

const SUB_ID = 'wf-sim-sub';

/** The Wait node's time (s): a fraction of a second, waited in-process as n8n does under 65 s. */
export const WAIT_SECONDS = 0.3;

/**
 * The MediaGen node and the nodes next to it, with a Wait node before or after it (the
 * adversary's `wait`): the nodes, the edges among them, the first node and the node(s) its
 * successful items leave from (MediaGen's output 0, or the Wait after it).
 */
function around(s: Scenario, job: TestNode, records: Records, edit?: Edit) {
	const w = s.adversary?.wait;
	const name = job.name;
	const nodes = w ? [wait('Wait', WAIT_SECONDS), job] : [job];
	const edges: Edge[] = w === 'before' ? [['Wait', name]] : w ? [[name, 'Wait']] : [];
	// a node of the kind before MediaGen (an upload's file)
	const [pre] = isMore(s.kind) ? moreNodes(s.kind, moreOf(records)).slice(0, -1) : [];
	const first = pre ? pre.name : w === 'before' ? 'Wait' : name;
	if (pre) {
		nodes.unshift(pre);
		edges.unshift([pre.name, w === 'before' ? 'Wait' : name]);
	}
	// the edited workflow's node added before them (passes its items on)
	if (edit === 'nodeBefore') {
		nodes.unshift(slow('Prepare', 0, 0));
		edges.unshift(['Prepare', first]);
	}
	return {
		nodes,
		edges,
		first: edit === 'nodeBefore' ? 'Prepare' : first,
		last: w === 'after' ? 'Wait' : name,
	};
}

/**
 * The parent workflow and the sub-workflows of the case, with the rows given (`edit`: as edited
 * before the Retry).
 */
export function workflowsOf(s: Scenario, rows: string[], records: Records, edit?: Edit) {
	const rowItems = rows.map((r) => itemOf(r, records, s.kind));
	const list = items('Rows', rowItems);
	const job = around(s, jobNode(s, records, edit), records, edit);
	const name = nodeName(edit);
	const errorOutput = s.adversary?.settings.onError === 'continueErrorOutput';
	// an adversary's case waits in the node after MediaGen only where n8n is killed in it (a run
	// that ends before its kill point must not wait there)
	const after = slow('Slow', s.adversary && s.kill.at !== 'after' ? 0 : 30_000, 0);
	let nodes: TestNode[];
	let edges: Edge[];
	const workflows: IWorkflowBase[] = [];
	if (s.shape === 'plain') {
		nodes = [list, ...job.nodes, after];
		edges = [['Rows', job.first], ...job.edges, [job.last, 'Slow']];
		// the error output's items go on to a node of their own
		if (errorOutput) {
			nodes.push(slow('Errors', 0, 0));
			edges.push([name, 'Errors', 1]);
		}
	} else if (s.shape === 'loop') {
		nodes = [list, loop('Loop'), ...job.nodes, after];
		edges = [
			['Rows', 'Loop'],
			['Loop', job.first, 1],
			...job.edges,
			[job.last, 'Loop'],
			['Loop', 'Slow', 0],
		];
		// the error output's items go back to the loop too, as a workflow that handles them does
		if (errorOutput) edges.push([name, 'Loop', 1]);
	} else if (s.shape === 'two') {
		// the second MediaGen node asks the same for each row (the rows again before it)
		const second = { ...jobNode(s, records, edit), name: 'MediaGen 2' };
		nodes = [list, ...job.nodes, slow('First', 0, 0), items('Again', rowItems), second, after];
		edges = [
			['Rows', job.first],
			...job.edges,
			...inOrder(job.last, 'First', 'Again', 'MediaGen 2', 'Slow'),
		];
	} else {
		workflows.push(
			shape({
				id: SUB_ID,
				nodes: [subTrigger('Start'), ...job.nodes],
				edges: [['Start', job.first], ...job.edges],
			}),
		);
		if (s.shape === 'sub') {
			nodes = [list, executeWorkflow('Call 1', SUB_ID), after];
			edges = inOrder('Rows', 'Call 1', 'Slow');
		} else if (s.shape === 'subSeq') {
			// called twice in a row: the rows again before the second call
			const again = items('Again', rowItems);
			nodes = [
				list,
				executeWorkflow('Call 1', SUB_ID),
				again,
				executeWorkflow('Call 2', SUB_ID),
				after,
			];
			edges = inOrder('Rows', 'Call 1', 'Again', 'Call 2', 'Slow');
		} else {
			nodes = [list, executeWorkflow('Call 1', SUB_ID), executeWorkflow('Call 2', SUB_ID), after];
			edges = [
				['Rows', 'Call 1'],
				['Rows', 'Call 2'],
				['Call 2', 'Slow'],
			];
		}
	}
	const settings = s.progress ? { saveExecutionProgress: true } : {};
	let workflow = shape({ id: 'wf-sim', nodes, edges, settings });
	if (s.reversed)
		workflow = arrange(
			workflow,
			[...nodes].reverse().map((n) => n.name),
		);
	return { workflow, workflows };
}

/** Where a create or charged call goes, for the kill point and the counts. */
export const CREATE_PATH: Record<Kind, string> = {
	generation: '/generations$',
	dub: '/dub$',
	captions: '/captions$',
	...MORE_PATH,
};

/** A job the sandbox made, with the request (letter) it was made for. */
export interface Made {
	id: string;
	row: string;
	/** Cancelled at MediaGen (Stop): charged nothing, never a result. */
	cancelled?: boolean;
}

/** The jobs (or, for captions, the AI tasks) at the sandbox, by the request each answers. */
export async function madeJobs(s: Scenario, api: Api, records: Records): Promise<Made[]> {
	if (isMore(s.kind)) return await moreMade(s.kind, api, moreOf(records));
	if (s.kind === 'captions') {
		const made: Made[] = [];
		for (const [row, edit] of Object.entries(records.captionEdits)) {
			const tasks = ((await api('GET', `/edits/${edit}`)).body.aiTasks ?? []) as IDataObject[];
			for (const t of tasks.filter((x) => x.type === 'captions'))
				made.push({ id: String(t.id), row });
		}
		return made;
	}
	const all = (await api('GET', '/generations?status=all&limit=100')).body.data as IDataObject[];
	const byLanguage = Object.fromEntries(Object.entries(LANGUAGE).map(([k, v]) => [v, k]));
	return all.map((g) => ({
		id: String(g.id),
		row:
			s.kind === 'dub'
				? (byLanguage[String((g.context as IDataObject | undefined)?.language)] ?? '?')
				: String(g.prompt ?? '').replace(/^row /, ''),
		...(g.status === 'cancelled' ? { cancelled: true } : {}),
	}));
}

/** The request (letter) an output item carries the job of, and that job's id. */
export function outputOf(s: Scenario, json: IDataObject, records: Records): Made {
	if (isMore(s.kind)) return { id: String(json.id), row: moreRow(s.kind, json, moreOf(records)) };
	if (s.kind === 'captions') {
		const row = Object.entries(records.captionEdits).find(([, e]) => e === json.id)?.[0];
		return { id: String(json.id), row: row ?? '?' };
	}
	if (s.kind === 'dub') {
		const language = String((json.context as IDataObject | undefined)?.language);
		const row = Object.entries(LANGUAGE).find(([, l]) => l === language)?.[0];
		return { id: String(json.id), row: row ?? '?' };
	}
	return { id: String(json.id), row: String(json.prompt ?? '').replace(/^row /, '') };
}

/** The other execution's work on the same record (a plain API call, as another workflow's). */
async function otherWork(s: Scenario, api: Api, records: Records, row: string): Promise<string[]> {
	if (isMore(s.kind)) return await moreOther(s.kind, api, moreOf(records), row);
	if (s.kind === 'generation') {
		const body = { modelId: 'flux-pro', tool: 'image', prompt: `row ${row}` };
		return [String((await api('POST', '/generations', body)).body.id)];
	}
	if (s.kind === 'dub') {
		const body = { language: LANGUAGE[row] };
		return [String((await api('POST', `/edits/${records.dubEdit}/dub`, body)).body.id)];
	}
	const edit = records.captionEdits[row];
	const before = new Set(
		(((await api('GET', `/edits/${edit}`)).body.aiTasks ?? []) as IDataObject[]).map((t) => t.id),
	);
	await api('POST', `/edits/${edit}/captions`, {});
	const tasks = ((await api('GET', `/edits/${edit}`)).body.aiTasks ?? []) as IDataObject[];
	return tasks.filter((t) => !before.has(t.id)).map((t) => String(t.id));
}

type Credentials = { mediaGenApi: { apiKey: string; baseUrl: string } };

/** The workflow and sub-workflows of a run. */
type Workflows = { workflow: IWorkflowBase; workflows: IWorkflowBase[] };

/**
 * What became of the first run: killed (`crashed`), or ended (`error` or `success`, its data as
 * n8n saved it).
 */
interface FirstRun {
	executionId: string;
	status: 'crashed' | 'error' | 'success';
	/** Stopped by the user (`Adversary.stop`, `retryStop`) before it ended. */
	stopped?: boolean;
	crashed?: CrashedExecution;
	data?: IRunExecutionData;
}

/** A run of n8n-core in this process, n8n not dying: it ends, and n8n saves it whole. */
async function runHere(
	s: Scenario,
	workflows: Workflows,
	saved: SavedExecutions,
	credentials: Credentials,
): Promise<FirstRun> {
	const executionId = saved.nextId();
	const r = await startWorkflow(workflows.workflow, {
		credentials,
		saved,
		n8nMajor: s.n8nMajor,
		workflows: workflows.workflows,
		executionId,
	}).done;
	return { executionId, status: r.error ? 'error' : 'success', data: r.run.data };
}

/**
 * The first try of a `refused` case: n8n-core runs the workflow in this process, the k-th create
 * is answered 402 (credits ran out: nothing made), the node fails and n8n saves the failed
 * execution whole (n8nHost: workflowExecuteAfter), ready for its Retry.
 */
async function failedRun(
	sb: Sandbox,
	s: Scenario,
	k: number,
	workflows: Workflows,
	saved: SavedExecutions,
	credentials: Credentials,
): Promise<FirstRun> {
	const path = CREATE_PATH[s.kind];
	const refuse = () =>
		sb.control.addFault({ kind: 'fail', method: 'POST', path, status: 402, count: 1 });
	let answered = 0;
	if (k === 1) refuse();
	const unwatch = sb.control.watchRequests((e) => {
		if (e.type !== 'answered' || e.entry.method !== 'POST' || e.entry.injected) return;
		if (new RegExp(path).test(e.entry.path) && ++answered === k - 1) refuse();
	});
	try {
		// the node after MediaGen does not wait in this run (a branch may reach it before the failure)
		const run = await runHere(
			s,
			{ ...workflows, workflow: withSlow(workflows.workflow, { ms: 0 }) },
			saved,
			credentials,
		);
		// the Retry follows whatever the run's end (as it always did for these cases)
		return { ...run, status: 'error' };
	} finally {
		unwatch();
		sb.control.clearFaults();
	}
}

/**
 * A try of a case with Stop (`Adversary.stop`, `retryStop`): n8n-core runs it in this process,
 * n8n not dying; when the k-th create was answered, when the node first reads at MediaGen after
 * a create was answered (`waiting`), or at its first read (`read`), the user presses Stop: n8n reads the execution as
 * saved, cancels the run (the node cancels its open jobs at MediaGen) and writes the read data
 * back as canceled (stopDuringRun). A run that ends before its Stop ends as it does.
 */
async function stoppedTry(
	sb: Sandbox,
	s: Scenario,
	stop: NonNullable<Adversary['stop']>,
	saved: SavedExecutions,
	start: (executionId: string) => { cancel(): void; done: Promise<RunResult> },
): Promise<FirstRun> {
	const path = new RegExp(CREATE_PATH[s.kind]);
	let once = false;
	let resolvePress: () => void = () => {};
	const pressed = new Promise<void>((resolve) => (resolvePress = resolve));
	const press = () => {
		if (once) return;
		once = true;
		resolvePress();
	};
	let answered = 0;
	let last = Date.now();
	const unwatch = sb.control.watchRequests((e) => {
		if (e.type !== 'answered') return;
		last = Date.now();
		const create = e.entry.method === 'POST' && path.test(e.entry.path);
		if (create) answered++;
		const read = e.entry.method === 'GET';
		if (
			stop.at === 'create'
				? create && answered === stop.k
				: read && (answered || stop.at === 'read')
		)
			press();
	});
	const executionId = saved.nextId();
	try {
		const run = start(executionId);
		const first = await Promise.race([pressed.then(() => 'stop' as const), run.done]);
		if (first !== 'stop')
			return { executionId, status: first.error ? 'error' : 'success', data: first.run.data };
		const atStop = saved.get(executionId);
		run.cancel();
		const end = await run.done;
		// it ended before the Stop reached it: n8n saves it succeeded, and offers no Retry
		if (end.run.status === 'success') return { executionId, status: 'success', data: end.run.data };
		if (!atStop) throw new Error('the execution was not saved before its Stop');
		stopDuringRun(saved, executionId, atStop);
		// the cancels the Stop sent were answered (a quiet second, at most 5 s: a sub-execution
		// the Stop did not reach polls on; on a loaded machine the cancels may leave late); that
		// sub-execution ends; the user's Retry comes after
		const quiet = async () => {
			const until = Date.now() + 5000;
			while (Date.now() - last < 1000 && Date.now() < until) await sleep(50);
		};
		await quiet();
		await subExecutionsEnded(saved);
		await quiet();
		return { executionId, status: 'error', data: saved.get(executionId), stopped: true };
	} finally {
		unwatch();
	}
}

/** The first try of a case with Stop (`Adversary.stop`). */
const stoppedRun = (
	sb: Sandbox,
	s: Scenario,
	stop: NonNullable<Adversary['stop']>,
	workflows: Workflows,
	saved: SavedExecutions,
	credentials: Credentials,
) =>
	stoppedTry(sb, s, stop, saved, (executionId) =>
		startWorkflow(withSlow(workflows.workflow, { ms: 0 }), {
			credentials,
			saved,
			n8nMajor: s.n8nMajor,
			workflows: workflows.workflows,
			executionId,
		}),
	);

/** n8n's Retry of `executionId` in this process, stopped by the user (`Adversary.retryStop`). */
function stoppedRetry(
	sb: Sandbox,
	s: Scenario,
	saved: SavedExecutions,
	executionId: string,
	options: RetryOptions,
): Promise<FirstRun> {
	const prepared = prepareRetry(saved, executionId, options);
	const stop = s.adversary?.retryStop as NonNullable<Adversary['retryStop']>;
	return stoppedTry(sb, s, stop, saved, (id) =>
		startWorkflow(prepared.workflowData, { ...options, saved, executionId: id }, prepared.start),
	);
}

/**
 * Stop cancels the stopped execution only (ActiveExecutions.stopExecution: its own
 * workflowExecution): a sub-execution it was waiting for runs on to its end. The user's Retry
 * comes after it ended (at most a minute).
 */
async function subExecutionsEnded(saved: SavedExecutions): Promise<void> {
	for (let i = 0; i < 600; i++) {
		if (!saved.executions().some((e) => e.parentExecutionId && e.status === 'running')) return;
		await sleep(100);
	}
	throw new Error('a sub-execution of the stopped execution did not end within a minute');
}

/** The workflow with other parameters of its Slow node (how long it waits, in a Retry too). */
const withSlow = (w: IWorkflowBase, parameters: INodeParameters): IWorkflowBase => ({
	...w,
	nodes: w.nodes.map((n) =>
		n.name === 'Slow' ? { ...n, parameters: { ...n.parameters, ...parameters } } : n,
	),
});

/** The adversary's fault at the sandbox, from the k-th create of the first run on. */
export function injectFault(sb: Sandbox, path: string, f: Fault): void {
	const at = {
		method: 'POST',
		path,
		skip: f.k - 1,
		count: f.times === 'all' ? 1_000_000 : f.times,
	};
	if (f.kind === 'drop') sb.control.addFault({ kind: 'drop', ...at });
	// a gateway's 502: MediaGen made the job, its answer never came back
	else if (f.kind === 'lost')
		sb.control.addFault({ kind: 'fail', ...at, status: 502, afterWork: true });
	else if (f.kind === 'conflict')
		sb.control.addFault({
			kind: 'fail',
			...at,
			status: 409,
			code: 'conflict',
			message: 'The record is busy',
		});
	else sb.control.addFault({ kind: 'fail', ...at, status: 402 });
}

/** Where n8n is killed, as the crash harness places it (undefined: not killed). */
function killPointOf(
	s: Scenario,
	kill: Scenario['kill'] | NonNullable<Adversary['retryKill']>,
): KillPoint | undefined {
	if (kill.at === 'after') return { nodeStarted: 'Slow' };
	if (kill.at === 'wait') return { nodeStarted: 'Wait', run: kill.run };
	if (kill.at === 'create') return { answered: kill.k, path: CREATE_PATH[s.kind], method: 'POST' };
	return undefined;
}

/** n8n's clock in the first run: a day back (`dayPasses`), or stepped before the Retry. */
const firstClockOf = (s: Scenario) => (s.dayPasses ? -25 * 3_600_000 : s.clockOffsetMs);

/**
 * A first run in this process on n8n's clock of the case, as the crash harness's child process
 * has it (crashWorker.ts). MediaGen's clock (the sandbox's, in this process too) stays the real
 * one when n8n's clock was stepped; a day back for both when a day passes before the Retry (the
 * first run's records are a day old then).
 */
async function onFirstClock<T>(s: Scenario, run: () => Promise<T>): Promise<T> {
	const offset = firstClockOf(s);
	if (!offset) return await run();
	const restore = shiftClock(offset);
	try {
		return await onMediaGenClock(s.dayPasses ? 0 : -offset, run);
	} finally {
		restore();
	}
}

/** MediaGen's clock moved by `offsetMs` while `run` runs. */
async function onMediaGenClock<T>(offsetMs: number, run: () => Promise<T>): Promise<T> {
	const mediaGen = clock.offsetMs;
	clock.offsetMs = mediaGen + offsetMs;
	try {
		return await run();
	} finally {
		clock.offsetMs = mediaGen;
	}
}

/** The first run: failed by a 402 (`refused`), ended (no kill), or killed at its kill point. */
async function firstRun(
	sb: Sandbox,
	s: Scenario,
	workflows: Workflows,
	saved: SavedExecutions,
	credentials: Credentials,
): Promise<FirstRun> {
	if (s.kill.at === 'refused') {
		const { k } = s.kill;
		return await onFirstClock(s, () => failedRun(sb, s, k, workflows, saved, credentials));
	}
	const stop = s.adversary?.stop;
	if (stop)
		return await onFirstClock(s, () => stoppedRun(sb, s, stop, workflows, saved, credentials));
	const killAt = killPointOf(s, s.kill);
	if (!killAt) return await onFirstClock(s, () => runHere(s, workflows, saved, credentials));
	// the child process runs on n8n's clock of the case; a day passing moves MediaGen's too
	const x = await onMediaGenClock(s.dayPasses ? firstClockOf(s) : 0, () =>
		crashExecution(workflows.workflow, {
			credentials,
			saved,
			sandbox: sb,
			killAt,
			n8nMajor: s.n8nMajor,
			workflows: workflows.workflows,
			clockOffsetMs: firstClockOf(s),
			// a loaded machine (CI, other suites) can take long to start n8n-core in the child
			timeoutMs: 240_000,
			// the adversary's faults and settings may end the run before its kill point
			mayEnd: !!s.adversary,
		}),
	);
	if (x.ended)
		return {
			executionId: x.executionId,
			status: x.ended === 'success' ? 'success' : 'error',
			data: saved.get(x.executionId),
		};
	return { executionId: x.executionId, status: 'crashed', crashed: x };
}

export const count = (list: string[], row: string) => list.filter((r) => r === row).length;

export const lastOut = (runData: Record<string, ITaskData[]>, node: string): IDataObject[] =>
	lastItems(runData, node).map((i) => i.json);

const lastItems = (runData: Record<string, ITaskData[]>, node: string): INodeExecutionData[] =>
	(runData[node] ?? []).at(-1)?.data?.main?.[0] ?? [];

/** What the workflow output: the node after MediaGen's, or each call's of a sub-workflow called twice. */
export const outputsOf = (shape: Scenario['shape'], runData: Record<string, ITaskData[]>) =>
	shape === 'subTwice' || shape === 'subSeq'
		? [lastOut(runData, 'Call 1'), lastOut(runData, 'Call 2')]
		: shape === 'two'
			? [lastOut(runData, 'First'), lastOut(runData, 'Slow')]
			: [lastOut(runData, 'Slow')];

/** The input item an output item comes from (its first paired item). */
const pairedOf = (item: INodeExecutionData) => {
	const p = Array.isArray(item.pairedItem) ? item.pairedItem[0] : item.pairedItem;
	return typeof p === 'number'
		? { item: p, input: 0 }
		: { item: p?.item ?? 0, input: p?.input ?? 0 };
};

/**
 * The row an item of `node`'s last run comes from: its paired items followed back, node by node
 * (each task's source), to the rows node, as n8n's `$('Rows').item` does. Infinity when the chain
 * breaks (Always Output Data's empty item pairs with every row: it sorts last).
 */
function rowIndexOf(
	runData: Record<string, ITaskData[]>,
	node: string,
	item: INodeExecutionData,
): number {
	let task = runData[node]?.at(-1);
	let current: INodeExecutionData | undefined = item;
	for (let name = node; name !== 'Rows'; ) {
		if (!current || !task || !Object.keys(current.json).length) return Infinity;
		const paired = pairedOf(current);
		const source = task.source?.[paired.input];
		if (!source) return Infinity;
		name = source.previousNode;
		task = runData[name]?.[source.previousNodeRun ?? 0];
		const from = task?.data?.main?.[source.previousNodeOutput ?? 0] ?? [];
		if (name === 'Rows') return paired.item;
		current = from[paired.item];
	}
	return Infinity;
}

/**
 * What the workflow output, item by item in row order: the node after MediaGen's, each call's
 * of a sub-workflow called twice; with MediaGen's error output after the rows, the regular and
 * the error branch's items together, by the row each comes from.
 */
function itemsOf(s: Scenario, runData: Record<string, ITaskData[]>): IDataObject[][] {
	if (s.adversary?.settings.onError !== 'continueErrorOutput' || s.shape !== 'plain')
		return outputsOf(s.shape, runData);
	const all = ['Slow', 'Errors'].flatMap((node) =>
		lastItems(runData, node).map((item) => ({ item, row: rowIndexOf(runData, node, item) })),
	);
	return [all.sort((a, b) => a.row - b.row).map(({ item }) => item.json)];
}

/** An output item: a job (the request it was made for), an error, or Always Output Data's `{}`. */
type Slot = { job: Made } | { error: string } | { empty: true };

/** An error item (On Error: continue): an error and no job (a job's record has `error: null`). */
const isError = (json: IDataObject) => json.error != null && json.id === undefined;

function slotOf(s: Scenario, json: IDataObject, records: Records): Slot {
	if (!Object.keys(json).length) return { empty: true };
	if (isError(json)) return { error: JSON.stringify(json) };
	return { job: outputOf(s, json, records) };
}

/** Every hint's message of a run, in one text (where lost jobs are named). */
export const hintsOf = (runData: Record<string, ITaskData[]>) =>
	Object.values(runData)
		.flat()
		.flatMap((t) => t.hints ?? [])
		.map((h) => h.message)
		.join(' ');

/** Waits until the sandbox's jobs have settled (generations completed or failed). */
export async function settle(api: Api): Promise<void> {
	for (let i = 0; i < 200; i++) {
		const all = (await api('GET', '/generations?status=active&limit=100')).body
			.data as IDataObject[];
		if (!all.length) return;
		await sleep(25);
	}
}

/**
 * A limit docs/batches.md states instead of a promise: in Loop Over Items, a record-matched kind
 * (found by the record it belongs to, with no provenance) takes the records made since the lost
 * try began for its positions in order, so another execution's work on the same record can go to
 * a later iteration the lost try never reached (and the lost try's own job it displaced reaches
 * no item, unnamed); so can an item whose request another row asks too when the lookup finds as
 * many matching jobs as rows asking (a soak's seed 414768541: rows D, A, D, the A create refused
 * and n8n killed there, another client's D dub before the Retry: the second D got it). Cases that
 * hit it are reported, not failed. (runCase adds the same limit's cases where the lost try made
 * no job for the row another execution asks: the other's is the only one found.)
 */
export const knownLimit = (s: Scenario) =>
	s.kind !== 'generation' &&
	s.other &&
	(s.shape === 'loop' || new Set(s.rows).size < s.rows.length);

/**
 * The limits docs/files.md states for uploads ("Not covered"): n8n killed while MediaGen's node
 * ran (or before its end was saved) keeps no node context, so its Retry uploads the file again,
 * a second asset if the killed run's complete had been answered; so does the Retry of a parent
 * whose sub-workflow uploads (n8n starts the sub-workflow again as a new execution, without the
 * failed one's node context); so does a Retry after Stop (n8n writes back the execution's data
 * as read at the Stop: the node context of the stopped run is not in it). Such a case's extra
 * asset (invariant 1) and the unnamed first one (3) are reported, not failed.
 */
const uploadLimit = (s: Scenario, first: FirstRun) =>
	s.kind === 'upload' &&
	(first.status === 'crashed' ||
		!!s.adversary?.retryKill ||
		// Stop: n8n writes back the data it read at the Stop, without the node context
		!!s.adversary?.stop ||
		!!s.adversary?.retryStop ||
		(first.status === 'error' &&
			(s.shape === 'sub' || s.shape === 'subTwice' || s.shape === 'subSeq')));

/**
 * The broken invariants a stated limit covers: the upload's above, an open finding, and
 * docs/batches.md's (Not covered) for a kind with a record per row (Canvas Run → Start: a canvas workflow per row): a
 * lost try's job on a record no item of the Retry works on any more (its row edited or removed,
 * or left out by Execute Once) reaches no item and is named nowhere (3): nothing the Retry
 * reads leads to that record.
 */
function statedLimit(s: Scenario, first: FirstRun, after: string[]): (v: string) => boolean {
	if (uploadLimit(s, first)) return (v) => /^[13]:/.test(v);
	const a = s.adversary;
	// n8n 1.x without progress saving, a lost try n8n saved nothing of (its queue worker lost
	// without its event log, or Stop), a day, then its Retry lost too (killed, or its worker lost
	// with the log): the next Retry's data shows only that Retry's runs, which bound its lookups a
	// day after the first try's jobs; nothing n8n saved leads back to them, so it makes them again
	// or, for kinds found by their record, takes another execution's made since (docs/batches.md)
	const unsavedFirst = a?.queue === 'crashedNoLog' || !!a?.stop;
	const retryLost = !!a?.retryKill || a?.retryQueue === 'crashed';
	if (s.n8nMajor === 1 && !s.progress && s.dayPasses && unsavedFirst && retryLost)
		return (v) => /^[134]:/.test(v);
	// n8n 1.x without progress saving, a Stop, then its Retry killed: the next Retry's data holds
	// nothing of the stopped try (crash recovery replaced Stop's error), and the kinds found by
	// their record make the job again (docs/batches.md "Not covered"); Generation → Create refuses
	if (s.n8nMajor === 1 && !s.progress && a?.stop && a.retryKill && s.kind !== 'generation')
		return (v) => /^[13]:/.test(v);
	if (s.kind !== 'canvas') return () => false;
	const read = new Set(asked(s, after));
	return (v) => {
		const row = /^3: job \S+ \(row (\w)\)/.exec(v)?.[1];
		return !!row && !read.has(row);
	};
}

export interface CaseResult {
	violations: string[];
	/** Broken invariants that a stated limit covers (knownLimit). */
	known: string[];
	/** What happened, for the report: creates in the crash and in the Retry, the Retry's end. */
	summary: string;
}

/** How the case ended: the data of its last execution. */
interface Outcome {
	data: IRunExecutionData;
	/** Its sub-executions' hints (a sub-workflow names the jobs no item asks for there). */
	subHints: string;
	/** The rows that last execution read (the requests they ask for, the workflow edited). */
	after: string[];
	/** The MediaGen node's name in that execution's workflow. */
	node: string;
	/** `after` as the rows read them, the workflow not edited. */
	unedited: string[];
	/** Whether item `item` of output `output` was made in that execution, not kept from saved data. */
	ranNow: (output: number, item: number) => boolean;
	/**
	 * Its status: a Retry that succeeded may keep the error of the execution it retried in its
	 * data (ExecutionService.retry removes it only where the data names a last node executed).
	 */
	status: string;
}

type RetryOptions = Parameters<typeof retry>[2];

/**
 * Whether an output item was made by a Retry (with the workflow as edited), or kept from what the
 * first execution saved (a Retry resumed after it): the run of the node it comes from (MediaGen,
 * its iteration in a loop, the call of a sub-workflow, the second MediaGen node) is not one the
 * first execution saved (a crashed Retry's saved runs ran the edited workflow too).
 */
function ranNowIn(
	s: Scenario,
	saved: SavedExecutions,
	firstId: string,
	data: IRunExecutionData,
	node: string,
) {
	const earlier = new Set(
		Object.values(saved.get(firstId)?.resultData.runData ?? {})
			.flat()
			.map((t) => `${t.startTime}:${t.executionIndex}`),
	);
	const fresh = (name: string, run?: number) => {
		// the runs n8n's crash recovery made up hold no items: an iteration's are the others
		const runs = (data.resultData.runData[name] ?? []).filter((t) => !isRecoveredRun(t));
		const task = run === undefined ? runs.at(-1) : runs[run];
		return !task || !earlier.has(`${task.startTime}:${task.executionIndex}`);
	};
	return (output: number, item: number) =>
		s.shape === 'plain'
			? fresh(node)
			: s.shape === 'loop'
				? fresh(node, item)
				: s.shape === 'two'
					? fresh(output === 0 ? node : 'MediaGen 2')
					: fresh(`Call ${output + 1}`);
}

/**
 * The workflows as edited in n8n's editor: each node keeps its id (the renamed MediaGen node
 * too), a node added gets a new one (the harness's ids come from the nodes' places and names).
 */
function keepIds(edited: Workflows, original: Workflows): Workflows {
	const idsOf = (w: IWorkflowBase) => {
		const ids = new Map(w.nodes.map((n) => [n.name, n.id]));
		ids.set(nodeName('rename'), ids.get('MediaGen') ?? '');
		return ids;
	};
	const keep = (w: IWorkflowBase, o: IWorkflowBase | undefined): IWorkflowBase => {
		const ids = o ? idsOf(o) : new Map<string, string>();
		return { ...w, nodes: w.nodes.map((n) => ({ ...n, id: ids.get(n.name) || n.id })) };
	};
	return {
		workflow: keep(edited.workflow, original.workflow),
		workflows: edited.workflows.map((w) =>
			keep(
				w,
				original.workflows.find((o) => o.id === w.id),
			),
		),
	};
}

/**
 * The user's Retry: with the workflow as saved now ("Retry with currently saved workflow"); where
 * n8n refuses it (a node of the saved stack renamed: "Could not find the node …"), with the
 * workflow the execution ran ("Retry with original workflow").
 */
function retryOptions(saved: SavedExecutions, executionId: string, options: RetryOptions) {
	try {
		prepareRetry(saved, executionId, options);
		return options;
	} catch (error) {
		// any other refusal: the Retry itself meets it
		return /Could not find the node/.test((error as Error).message)
			? { ...options, loadWorkflow: false }
			: options;
	}
}

/**
 * The hints of the case's sub-executions, in one text: of the last execution's, and of those an
 * earlier try called that n8n saved (a Retry resumed with progress saving after a killed try's
 * calls: their sub-executions, which named what they found, are in the executions list).
 */
const subHintsOf = (saved: SavedExecutions) =>
	saved
		.executions()
		.filter((e) => e.parentExecutionId)
		.map((e) => hintsOf(saved.get(e.id)?.resultData.runData ?? {}))
		.join(' ');

/**
 * The creates the sandbox logged since it last cleared its log, and how many it answered 409.
 * A create the crash harness's gate refused (503, no work: sent by a process the kill had not
 * reached yet on a loaded machine) is no create: the simulation injects no 503.
 */
function createsLogged(sb: Sandbox, s: Scenario) {
	const list = sb.control
		.requests({ method: 'POST', path: CREATE_PATH[s.kind] })
		.filter((r) => r.status !== 503);
	return { n: list.length, conflicts: list.filter((r) => r.status === 409).length };
}

/** Runs one case; `sb` is reset first. */
export async function runCase(
	sb: Sandbox,
	s: Scenario,
	credentials: Credentials,
): Promise<CaseResult> {
	sb.control.reset();
	sb.control.setCredits('main', 100_000);
	const api = client(sb, sb.keys.pro);
	const edit = s.adversary?.edit;
	const queue = s.adversary?.queue;
	const records: Records = { captionEdits: {} };
	if (s.kind === 'dub') records.dubEdit = await newEdit(sb);
	if (s.kind === 'captions')
		for (const row of new Set([...s.rows, ...rowsAfter(s)].flatMap((r) => [r, editedRow(r, edit)])))
			records.captionEdits[row] = await newEdit(sb);
	if (isMore(s.kind))
		records.more = await moreRecords(s.kind, api, [...new Set([...s.rows, ...rowsAfter(s)])]);
	const before = workflowsOf(s, s.rows, records);
	const saved = new SavedExecutions();
	const fault = s.adversary?.fault;
	if (fault) injectFault(sb, CREATE_PATH[s.kind], fault);
	const first = await firstRun(sb, s, before, saved, credentials);
	sb.control.clearFaults();
	const phases = [createsLogged(sb, s)];
	await settle(api);
	const summary: string[] = [`crash creates ${phases[0].n}`];
	let others: string[] = [];
	let onlyOther = knownLimit(s);
	let outcome: Outcome;
	if (first.status === 'success' && first.data) {
		// n8n not killed, the run succeeded (On Error or Retry On Fail carried it): no Retry
		outcome = {
			data: first.data,
			status: 'success',
			after: s.rows,
			unedited: s.rows,
			subHints: subHintsOf(saved),
			node: 'MediaGen',
			ranNow: () => true,
		};
		summary[0] = `first run creates ${phases[0].n}, ended without a Retry`;
	} else {
		// with progress saving the rows node's output was saved before the kill: the Retry resumes
		// from it (ExecutionService.retry keeps the saved run data) and reads no changed rows; a run
		// that ended failed is retried on its saved data too
		// a canceled execution's saved data is the data read at Stop: without progress saving, its
		// start (the Retry reads the rows again, as after a crash)
		const after = (first.crashed || s.adversary?.stop) && !s.progress ? rowsAfter(s) : s.rows;
		// the stated limit also where the lost try made no job for the row the other execution
		// asks in one of its calls (two MediaGen nodes, a sub-workflow called twice, each asking
		// for it): the other's is then the only one that call's lookup by record finds, the
		// other call's job being taken (docs/batches.md)
		// so also where the Retry's rows ask for the same more than once (a row added or edited
		// into another): the lookup finds as many such jobs as rows asking (docs/batches.md)
		const lostMade = s.other ? await madeJobs(s, api, records) : [];
		onlyOther ||=
			s.other &&
			s.kind !== 'generation' &&
			(lostMade.filter((m) => m.row === s.rows[0] && !m.cancelled).length < calls(s.shape) ||
				new Set(after).size < after.length);
		others = s.other ? await otherWork(s, api, records, s.rows[0]) : [];
		if (s.dayPasses) sb.control.expireIdempotencyKeys('main');
		if (first.crashed) {
			if (queue === 'stalled') stalledInQueue(saved, first.executionId);
			// the leader main's queue recovery marks it crashed; no worker's event log to amend it from
			else if (queue === 'crashedNoLog') recover(saved, []);
			else restart(first.crashed);
		}
		sb.control.clearRequests();
		const retried = keepIds(workflowsOf(s, after, records, edit), before);
		let executionId = first.executionId;
		const options = retryOptions(saved, executionId, {
			credentials,
			n8nMajor: s.n8nMajor,
			workflows: retried.workflows,
			loadWorkflow: true,
			currentWorkflow: retried.workflow,
		});
		const retryKill = s.adversary?.retryKill;
		let data: IRunExecutionData | undefined;
		let status = 'error';
		if (retryKill) {
			// n8n killed again during its Retry: restarted, and the crashed Retry retried
			const x = await crashRetry(saved, executionId, {
				...options,
				// the node after MediaGen waits in the Retry n8n is killed in (it is killed there)
				currentWorkflow: withSlow(retried.workflow, { retryMs: 30_000 }),
				saved,
				sandbox: sb,
				killAt: killPointOf(s, retryKill) as KillPoint,
				timeoutMs: 240_000,
				mayEnd: true,
			});
			phases.push(createsLogged(sb, s));
			summary.push(
				`retry crash creates ${phases.at(-1)?.n ?? 0}${x.ended ? ` (ended ${x.ended})` : ''}`,
			);
			await settle(api);
			sb.control.clearRequests();
			executionId = x.executionId;
			const retryQueue = s.adversary?.retryQueue;
			// it ended before the kill point (n8n saved it succeeded, also where the kill reached
			// the process between that save and its end: the adversary's seed 1208214): no Retry
			const succeeded = saved.record(x.executionId)?.status === 'success';
			if (x.ended || succeeded) {
				data = saved.get(x.executionId);
				status = x.ended ?? 'success';
			} else if (retryQueue === 'stalled') stalledInQueue(saved, x.executionId);
			else if (retryQueue === 'crashedNoLog') recover(saved, []);
			else restart(x);
		}
		const retryStop = s.adversary?.retryStop;
		if (retryStop && !retryKill) {
			// the user stops the Retry, then presses Retry on the canceled Retry
			const x = await stoppedRetry(
				sb,
				s,
				saved,
				executionId,
				retryOptions(saved, executionId, options),
			);
			phases.push(createsLogged(sb, s));
			summary.push(
				`retry ${x.stopped ? 'stopped' : `ended ${x.status}`}, creates ${phases.at(-1)?.n ?? 0}`,
			);
			await settle(api);
			sb.control.clearRequests();
			executionId = x.executionId;
			// it ended before the Stop reached it (n8n saved it succeeded): no Retry follows
			if (x.status === 'success' || saved.record(executionId)?.status === 'success') {
				data = x.data ?? saved.get(executionId);
				status = 'success';
			}
		}
		if (!data) {
			const r = await retry(saved, executionId, retryOptions(saved, executionId, options));
			data = r.run.data;
			status = r.run.status;
			executionId = r.executionId;
			phases.push(createsLogged(sb, s));
			await settle(api);
			summary.push(`retry creates ${phases.at(-1)?.n ?? 0}`);
		}
		const ran = saved.record(executionId)?.workflowData.nodes.map((n) => n.name) ?? [];
		const node = ran.includes(nodeName(edit)) ? nodeName(edit) : 'MediaGen';
		outcome = {
			data,
			status,
			after: after.map((r) => editedRow(r, edit)),
			unedited: after,
			subHints: subHintsOf(saved),
			node,
			ranNow: ranNowIn(s, saved, first.executionId, data, node),
		};
		summary.push(`retry ${status === 'success' ? 'ok' : 'refused'}`);
	}
	const conflicts = phases.reduce((n, p) => n + p.conflicts, 0);
	if (conflicts) summary.push(`${conflicts} create${conflicts === 1 ? '' : 's'} answered 409`);
	const made = (await madeJobs(s, api, records)).filter((m) => !others.includes(m.id));
	const checked = check(s, outcome, made, others, records, onlyOther);
	const limited = statedLimit(s, first, outcome.after);
	const violations = checked.violations.filter((v) => !limited(v));
	const known = [...checked.known, ...checked.violations.filter(limited)];
	return { violations, known, summary: summary.join(', ') };
}

/** How the node tells each fault of `injectFault` in an item's error. */
const FAULT_ERROR: Record<Fault['kind'], RegExp> = {
	refused: /\(402\)/,
	lost: /\(502\)/,
	drop: /Could not reach MediaGen/,
	conflict: /Conflict: The record is busy/,
};

/** The invariants of the header, on the case's last execution and the jobs the sandbox made. */
function check(
	s: Scenario,
	outcome: Outcome,
	made: Made[],
	others: string[],
	records: Records,
	limited: boolean,
): { violations: string[]; known: string[] } {
	const violations: string[] = [];
	const known: string[] = [];
	const { runData, error: saidError } = outcome.data.resultData;
	const failure = outcome.status === 'success' ? undefined : saidError;
	const error = failure ? `${failure.message} ${failure.description ?? ''}` : '';
	const settings = s.adversary?.settings ?? {};
	const fault = s.adversary?.fault;
	const callCount = calls(s.shape);
	const rows = asked(s, s.rows);
	const after = asked(s, outcome.after);

	// 1. no request charged more often than rows asked for it (per call); a job cancelled at
	// MediaGen (Stop) is charged nothing
	const charged = made.filter((m) => !m.cancelled);
	for (const row of new Set(charged.map((m) => m.row))) {
		const allowed = Math.max(count(rows, row), count(after, row)) * callCount;
		const n = count(
			charged.map((m) => m.row),
			row,
		);
		if (n > allowed) violations.push(`1: ${n} jobs for row ${row}, at most ${allowed} asked for`);
	}
	// 5. a Retry that fails refuses and names. n8n's own: the Retry of a stopped execution whose
	// saved data names no last node keeps Stop's error (ExecutionService.retry), and under Retry
	// On Fail the node's second try rethrows it in place of the first try's refusal
	// (WorkflowExecute.rethrowLastNodeError): nothing sent, the refusal's text lost (a limit,
	// docs/batches.md "Not covered")
	const stopError =
		!!(s.adversary?.stop || s.adversary?.retryStop) &&
		!!settings.retryOnFail &&
		failure?.message === 'The execution was cancelled manually';
	if (failure && !/Cannot tell/.test(failure.message))
		(stopError ? known : violations).push(`5: the Retry failed otherwise: ${error.slice(0, 300)}`);
	if (failure) return { violations, known };
	// queue mode, the worker lost and the main alive: n8n kept no data of the execution, and its
	// Retry runs no node (a limit of n8n's, docs/batches.md): the lost worker's jobs reach nothing
	if (s.adversary?.queue === 'stalled' || s.adversary?.retryQueue === 'stalled') {
		for (const m of charged)
			known.push(`3: job ${m.id} (row ${m.row}) lost with the worker (the Retry ran no node)`);
		return { violations, known };
	}
	// with the error output, no failed item stays on the regular output
	if (settings.onError === 'continueErrorOutput')
		for (const task of runData[outcome.node] ?? [])
			for (const item of task.data?.main?.[0] ?? [])
				if (isError(item.json))
					violations.push(
						`2: a failed item on MediaGen's regular output, not its error output: ${JSON.stringify(item.json).slice(0, 200)}`,
					);
	const outputs = itemsOf(s, runData).map((out) => out.map((o) => slotOf(s, o, records)));
	const errorTexts = outputs.flat().flatMap((x) => ('error' in x ? [x.error] : []));
	// 3. named: in a hint, or in an error item's text
	const named = `${hintsOf(runData)} ${outcome.subHints} ${errorTexts.join(' ')}`;
	const delivered = new Set<string>();
	const jobsOf = (out: Slot[]) => out.flatMap((x) => ('job' in x ? [x.job] : []));
	for (const [o, out] of outputs.entries()) {
		const empties = out.filter((x) => 'empty' in x).length;
		const rest = out.filter((x) => !('empty' in x));
		const failed = rest.length - jobsOf(rest).length;
		// Always Output Data's empty item: only where MediaGen's regular output was empty (every
		// item of a run on the error output)
		if (
			empties &&
			!(
				settings.alwaysOutputData &&
				settings.onError === 'continueErrorOutput' &&
				empties <= failed &&
				(s.shape === 'loop' || failed === rest.length)
			)
		)
			violations.push(`2: ${empties} empty item(s) in the output`);
		// 2. each row's item, in order: its own job, or an error
		// (the workflow edited: a Retry that resumed after MediaGen keeps the saved items, of the
		// requests before the edit)
		const shown = rest.map((x) => ('job' in x ? x.job.row : '!'));
		const want = after.map((row, i) =>
			outcome.ranNow(o, i) ? row : (asked(s, outcome.unedited)[i] ?? row),
		);
		if (rest.length !== want.length || rest.some((x, i) => 'job' in x && x.job.row !== want[i]))
			violations.push(`2: outputs for rows ${shown.join()} (rows ${want.join()})`);
		// 5. an error item refuses and names, or is the drawn fault's own error (in the first run,
		// or kept by a Retry that resumed after MediaGen from the saved data)
		for (const x of rest) {
			if (!('error' in x) || /Cannot tell/.test(x.error)) continue;
			if (!fault || !FAULT_ERROR[fault.kind].test(x.error))
				violations.push(`5: an item failed otherwise: ${x.error.slice(0, 300)}`);
		}
		// 4. never another execution's job (record-matched kinds in a loop: a known limit)
		const got = jobsOf(rest);
		for (const g of got) {
			if (others.includes(g.id))
				(limited ? known : violations).push(`4: output ${g.id} is another execution's job`);
			delivered.add(g.id);
		}
		if (s.kind !== 'captions' && new Set(got.map((g) => g.id)).size !== got.length)
			violations.push(`2: one job given to two items (${got.map((g) => g.id).join()})`);
	}
	if (calls(s.shape) === 2 && s.kind !== 'captions') {
		const [one, two] = outputs.map((o) => new Set(jobsOf(o).map((j) => j.id)));
		if ([...one].some((id) => two.has(id)))
			violations.push('4: both calls (or both MediaGen nodes) output the same job');
	}
	// Stop: no job cancelled at MediaGen given to an item as its result
	for (const m of made)
		if (m.cancelled && delivered.has(m.id))
			violations.push(`2: job ${m.id} (row ${m.row}), cancelled by Stop, given to an item`);
	// 3. every job charged reaches an item or is named (captions: tasks are not output); in the
	// known limit, the job another execution's displaced is the same finding
	const displaced = limited && [...delivered].some((id) => others.includes(id));
	// an upload whose complete's answer was lost is named by its upload and file (its asset's id
	// is what was lost): "may have been completed", file name "<row>.txt"
	const nameOf = (m: Made) =>
		named.includes(m.id) ||
		(s.kind === 'upload' &&
			/may have been completed/.test(named) &&
			named.includes(`file name \\"${m.row}.txt\\"`));
	if (s.kind !== 'captions')
		for (const m of charged)
			if (!delivered.has(m.id) && !nameOf(m))
				(displaced ? known : violations).push(
					`3: job ${m.id} (row ${m.row}) reached no item and is named nowhere`,
				);
	return { violations, known };
}
