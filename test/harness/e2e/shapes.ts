/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only code (tests): never published, see package.json "files" */
/**
 * The workflow shapes of issue #29 in a real n8n (shapes.e2e.test.ts, bench/crash.ts B8): each
 * started by a Webhook that answers at once, with rows from a Code node (or a sheet the test
 * serves, read by an HTTP Request node), each row's job named by its prompt (`<tag> row <n>`) so
 * that what MediaGen made can be counted per row; a sub-workflow and its callers (issue #36); and
 * what a test reads of n8n besides REST: its event log (what its crash recovery reads) and
 * activation of a workflow through REST (2.x publishes a version, 1.x sets `active`).
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

import type { N8nHome, N8nWorkflow } from './n8n';
import { mg, node } from './workflows';

type Json = Record<string, unknown>;
export type Workflow = N8nWorkflow & { id: string };

/** An execution as n8n's REST API gives it (`GET /rest/executions`, a retry's answer). */
export interface RestExecution {
	id: string;
	status: string;
	mode: string;
	retryOf?: string | null;
	workflowId: string;
	data?: {
		resultData: {
			runData: Record<
				string,
				Array<{ data?: { main: Json[][] }; hints?: Array<{ message: string }> }>
			>;
		};
	};
}

const rl = (value: string) => ({ __rl: true, mode: 'id', value });

/** The prompt of a row's job: `<tag> row <n>`. */
export const rowPrompt = (tag: string) => `={{ '${tag} row ' + $json.row }}`;

/** Generation → Create of each row's image, waiting for it (`durationMs` an expression or ms). */
export function createNode(
	name: string,
	tag: string,
	durationMs: number | string,
	extra: Json = {},
	typeVersion = 1,
) {
	const ms = typeof durationMs === 'number' ? String(durationMs) : durationMs;
	return mg(
		name,
		{
			resource: 'generation',
			operation: 'create',
			modelId: 'flux-pro',
			tool: 'image',
			prompt: rowPrompt(tag),
			additionalFields: { params: `={{ JSON.stringify({ sandbox: { durationMs: ${ms} } }) }}` },
			...extra,
		},
		{ typeVersion },
	);
}

/** Generation → Wait (node version 2) for the job of each item (`$json.id`). */
export const waitNode = (name: string) =>
	mg(
		name,
		{ resource: 'generation', operation: 'wait', generationId: rl('={{ $json.id }}') },
		{ typeVersion: 2 },
	);

/** n8n's Wait node until `$('Webhook').first().json.body.until` (in-process below 65 s). */
export const waitUntilNode = (name: string) =>
	node(
		name,
		'n8n-nodes-base.wait',
		{ resume: 'specificTime', dateTime: "={{ $('Webhook').first().json.body.until }}" },
		{ typeVersion: 1.1, webhookId: '00000000-0000-4000-8000-0000000a17e1' },
	);

export const loopNode = (name: string) =>
	node(name, 'n8n-nodes-base.splitInBatches', { batchSize: 1, options: {} }, { typeVersion: 3 });

export const noOp = (name: string) => node(name, 'n8n-nodes-base.noOp', {});

const rowsNode = (rows: number) =>
	codeNode('Rows', `return Array.from({ length: ${rows} }, (_, i) => ({ json: { row: i + 1 } }));`);

/**
 * The rows of a sheet as a user's workflow reads them: an HTTP Request node (named Rows) that
 * GETs the URL in the Webhook's body (`sheet`), one item per row of the JSON array it answers. The
 * test serves it and changes it, as a user edits a sheet; n8n's Retry with progress saving off
 * runs the node again and reads the rows as they are then.
 */
export const sheetNode = () =>
	node(
		'Rows',
		'n8n-nodes-base.httpRequest',
		{ url: "={{ $('Webhook').first().json.body.sheet }}", options: {} },
		{ typeVersion: 4.2 },
	);

/** n8n's Execute Workflow node: runs workflow `id` once with all its input items. */
export const executeWorkflowNode = (name: string, id: string) =>
	node(
		name,
		'n8n-nodes-base.executeWorkflow',
		{ source: 'database', workflowId: rl(id), mode: 'once', options: {} },
		{ typeVersion: 1.2 },
	);

/** A Code node (all items at once). */
export const codeNode = (name: string, jsCode: string) =>
	node(name, 'n8n-nodes-base.code', { jsCode }, { typeVersion: 2 });

/** Merge: the items of input 1, then those of input 2 (once both have run). */
export const mergeNode = (name: string) =>
	node(name, 'n8n-nodes-base.merge', { mode: 'append' }, { typeVersion: 3 });

/**
 * A sub-workflow (When Executed by Another Workflow, its items passed through) that makes an
 * image for each item: Generation → Create, its prompt `<tag> row <row>`.
 */
export function subWorkflow(id: string, tag: string, durationMs: number): Workflow {
	return {
		id,
		name: `e2e shapes: ${id}`,
		nodes: [
			node(
				'Start',
				'n8n-nodes-base.executeWorkflowTrigger',
				{ inputSource: 'passthrough' },
				{ typeVersion: 1.1 },
			),
			createNode('Generate', tag, durationMs),
		],
		connections: { Start: { main: [[{ node: 'Generate', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

const webhookNode = (hook: string, n: number, respond: 'onReceived' | 'lastNode') =>
	node(
		'Webhook',
		'n8n-nodes-base.webhook',
		{
			httpMethod: 'POST',
			path: hook,
			responseMode: respond,
			...(respond === 'lastNode' ? { responseData: 'allEntries' } : {}),
			options: {},
		},
		{
			typeVersion: 2,
			webhookId: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
		},
	);

/**
 * A workflow: Webhook → Rows (`rows` items with `row` 1..n, or the node `source`) → `after` in a
 * chain, plus `edges` ([from, to, output, input]) when given instead; `order` puts the `nodes`
 * array in that order (the names given first, the others after); `progress` turns on Save
 * Execution Progress; `respond: 'lastNode'` makes the Webhook answer with the last node's items
 * (else it answers at once).
 */
export function shapeWorkflow(o: {
	id: string;
	hook: string;
	n: number;
	rows: number;
	source?: Record<string, unknown>;
	after: Array<Record<string, unknown>>;
	edges?: Array<[string, string, number?, number?]>;
	order?: string[];
	progress: boolean;
	respond?: 'onReceived' | 'lastNode';
}): Workflow {
	const all = [
		webhookNode(o.hook, o.n, o.respond ?? 'onReceived'),
		o.source ?? rowsNode(o.rows),
		...o.after,
	];
	const names = all.map((x) => String(x.name));
	const edges = o.edges ?? names.slice(1).map((to, i): [string, string] => [names[i], to]);
	const connections: Record<string, { main: Array<Array<Json>> }> = {};
	for (const [from, to, output = 0, input = 0] of edges) {
		const main = (connections[from] ??= { main: [] }).main;
		while (main.length <= output) main.push([]);
		main[output].push({ node: to, type: 'main', index: input });
	}
	const order = o.order ?? [];
	const rank = (n: string) => (order.includes(n) ? order.indexOf(n) : order.length);
	const nodes = all
		.map((x, i) => ({ x, i }))
		.sort((a, b) => rank(String(a.x.name)) - rank(String(b.x.name)) || a.i - b.i)
		.map(({ x }) => x);
	return {
		id: o.id,
		name: `e2e shapes: ${o.id}`,
		nodes,
		connections,
		settings: { executionOrder: 'v1', ...(o.progress ? { saveExecutionProgress: true } : {}) },
	};
}

/** A node message of n8n's event log (`<userFolder>/.n8n/n8nEventLog.log`). */
export interface LoggedNodeEvent {
	eventName: string;
	executionId: string;
	workflowId: string;
	nodeName: string;
}

/** The node messages n8n has written to its event log so far (the file crash recovery reads). */
export function nodeEvents(home: N8nHome): LoggedNodeEvent[] {
	const file = path.join(home.userFolder, '.n8n', 'n8nEventLog.log');
	if (!existsSync(file)) return [];
	const out: LoggedNodeEvent[] = [];
	for (const line of readFileSync(file, 'utf8').split('\n')) {
		if (!line.includes('"n8n.node.')) continue;
		try {
			const m = JSON.parse(line) as { eventName: string; payload: Json };
			out.push({
				eventName: m.eventName,
				executionId: String(m.payload.executionId),
				workflowId: String(m.payload.workflowId),
				nodeName: String(m.payload.nodeName),
			});
		} catch {
			/* a line being written */
		}
	}
	return out;
}

type Rest = <T>(method: string, url: string, body?: unknown) => Promise<T>;

/** Activates a workflow as the editor does: 2.x publishes its current version, 1.x sets active. */
export async function activate(rest: Rest, id: string, major: number): Promise<void> {
	const { versionId } = await rest<{ versionId: string }>('GET', `/workflows/${id}`);
	if (major >= 2) await rest('POST', `/workflows/${id}/activate`, { versionId });
	else await rest('PATCH', `/workflows/${id}`, { active: true, versionId });
}

type Api = (method: string, p: string, body?: unknown) => Promise<Json>;

/** A canvas workflow per row at the sandbox (prompt `<tag> row <n>` → image → output); ids. */
export async function canvasPerRow(api: Api, tag: string, rows: number): Promise<string[]> {
	const at = { x: 0, y: 0 };
	const ids: string[] = [];
	for (let row = 1; row <= rows; row++) {
		const c = await api('POST', '/canvas', { name: `${tag} row ${row}` });
		const graph = {
			nodes: [
				{ id: 'p', type: 'prompt', position: at, data: { text: `${tag} row ${row}` } },
				{ id: 'a', type: 'image_gen', position: at, data: {} },
				{ id: 'out', type: 'output', position: at, data: {} },
			],
			edges: [
				{ id: 'e1', source: 'p', target: 'a', targetHandle: 'in' },
				{ id: 'e2', source: 'a', target: 'out', targetHandle: 'in' },
			],
			viewport: { x: 0, y: 0, zoom: 1 },
		};
		await api('PATCH', `/canvas/${String(c.id)}`, { graph, version: c.version });
		ids.push(String(c.id));
	}
	return ids;
}

/** Every generation of the workspace, page by page (`get` answers the JSON of a GET path). */
export async function allGenerations(get: (p: string) => Promise<Json>): Promise<Json[]> {
	const out: Json[] = [];
	let before: unknown;
	for (;;) {
		const q = `/generations?status=all&limit=100${before ? `&before=${String(before)}` : ''}`;
		const page = await get(q);
		out.push(...(page.data as Json[]));
		if (!page.nextCursor) return out;
		before = page.nextCursor;
	}
}
