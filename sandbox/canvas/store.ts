/**
 * Canvas workflows (doc 3, "Canvas workflows"): per-workspace records, templates, the graph
 * schema of PATCH /canvas/{id} and the graph rules the spec names without listing ("edge rules").
 */
import { randomBytes } from 'node:crypto';
import { validationError, type Issue } from '../http';
import { Store, type Rec, type Workspace } from '../state';
import { obj, oneOf, str, z } from '../validation';

export const NODE_TYPES = [
	'prompt',
	'text',
	'image_input',
	'video_input',
	'audio_input',
	'character',
	'model',
	'image_gen',
	'video_gen',
	'audio_gen',
	'transform',
	'upscale',
	'merge',
	'output',
	'group',
] as const;
export type NodeType = (typeof NODE_TYPES)[number];

/** Node types that run a generation (charged); every other type is a free step. */
export const GENERATING: Record<string, string> = {
	image_gen: 'image',
	video_gen: 'video',
	audio_gen: 'audio',
	transform: 'image-transform',
	upscale: 'image-upscale',
};

/** Types that are not steps of a run (containers). */
export const NOT_A_STEP = new Set(['group']);

export const graphSchema = z.object({
	nodes: z.array(
		z.object({
			id: str(60),
			type: oneOf(NODE_TYPES),
			position: obj(),
			data: obj().default({}),
			parentId: str(60).optional(),
			style: obj().optional(),
		}),
	),
	edges: z.array(
		z.object({
			id: str(200),
			source: str(60),
			target: str(60),
			targetHandle: str(40),
			sourceHandle: z.string().optional(),
		}),
	),
	viewport: z.object({ x: z.number(), y: z.number(), zoom: z.number() }).optional(),
});
export type Graph = z.output<typeof graphSchema>;
export type GraphNode = Graph['nodes'][number];

export interface WorkflowRec extends Rec {
	name: string;
	description: string;
	templateId: string | null;
	projectId: string | null;
	visibility: 'private' | 'workspace';
	version: number;
	graph: Graph;
	shareToken: string | null;
	importedFrom: string | null;
	duplicatedFrom: string | null;
}

export type StepStatus = 'pending' | 'running' | 'succeeded' | 'failed' | 'skipped' | 'cancelled';

export interface Step {
	nodeId: string;
	type: string;
	status: StepStatus;
	generationId: string | null;
	credits: number;
	credits_estimated: number;
	outputs: { asset_id: string; kind: string }[];
	error: { code: string; message: string } | null;
}

export type RunStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

export interface RunRec extends Rec {
	workflowId: string;
	workflowVersion: number;
	status: RunStatus;
	/** The graph as it was when the run started: retries run this, not later edits. */
	graph: Graph;
	steps: Step[];
	outputs: { asset_id: string; kind: string }[];
	credits_estimated: number;
	expectedCredits: number | null;
	error: { code: string; message: string } | null;
	attempts: number;
	started_at: string | null;
	completed_at: string | null;
}

export class CanvasStore {
	readonly workflows = new Store<WorkflowRec>('Canvas workflow');
	readonly runs = new Store<RunRec>('Canvas run');
}

const stores = new WeakMap<Workspace, CanvasStore>();
/** The canvas records of a workspace (a reset makes new workspaces, hence new stores). */
export function canvasOf(ws: Workspace): CanvasStore {
	let s = stores.get(ws);
	if (!s) stores.set(ws, (s = new CanvasStore()));
	return s;
}

export const newShareToken = (): string => `cvs_${randomBytes(16).toString('hex')}`;

export const blankGraph = (): Graph => ({
	nodes: [],
	edges: [],
	viewport: { x: 0, y: 0, zoom: 1 },
});

const pos = (x: number, y = 0) => ({ x, y });

export interface Template {
	id: string;
	seq: number;
	name: string;
	description: string;
	category: string;
	graph: Graph;
}

/** Built-in templates (the spec lists none; these are the sandbox's). */
export const TEMPLATES: Template[] = [
	{
		id: 'text-to-image',
		seq: 3,
		name: 'Text to image',
		description: 'A prompt, an image generation and an output',
		category: 'image',
		graph: {
			nodes: [
				{ id: 'prompt-1', type: 'prompt', position: pos(0), data: { text: 'A product photo' } },
				{ id: 'image-1', type: 'image_gen', position: pos(300), data: { modelId: 'flux-pro' } },
				{ id: 'output-1', type: 'output', position: pos(600), data: {} },
			],
			edges: [
				{ id: 'e1', source: 'prompt-1', target: 'image-1', targetHandle: 'prompt' },
				{ id: 'e2', source: 'image-1', target: 'output-1', targetHandle: 'media' },
			],
			viewport: { x: 0, y: 0, zoom: 1 },
		},
	},
	{
		id: 'image-to-video',
		seq: 2,
		name: 'Image to video',
		description: 'Generate a still, then animate it into a 5 second clip',
		category: 'video',
		graph: {
			nodes: [
				{
					id: 'prompt-1',
					type: 'prompt',
					position: pos(0),
					data: { text: 'A lighthouse at dusk' },
				},
				{ id: 'image-1', type: 'image_gen', position: pos(300), data: {} },
				{ id: 'video-1', type: 'video_gen', position: pos(600), data: { params: { duration: 5 } } },
				{ id: 'output-1', type: 'output', position: pos(900), data: {} },
			],
			edges: [
				{ id: 'e1', source: 'prompt-1', target: 'image-1', targetHandle: 'prompt' },
				{ id: 'e2', source: 'image-1', target: 'video-1', targetHandle: 'image' },
				{ id: 'e3', source: 'video-1', target: 'output-1', targetHandle: 'media' },
			],
			viewport: { x: 0, y: 0, zoom: 1 },
		},
	},
	{
		id: 'voiceover',
		seq: 1,
		name: 'Voice-over',
		description: 'A script read as a 30 second audio track',
		category: 'audio',
		graph: {
			nodes: [
				{ id: 'text-1', type: 'text', position: pos(0), data: { text: 'Welcome to our store.' } },
				{ id: 'audio-1', type: 'audio_gen', position: pos(300), data: {} },
				{ id: 'output-1', type: 'output', position: pos(600), data: {} },
			],
			edges: [
				{ id: 'e1', source: 'text-1', target: 'audio-1', targetHandle: 'text' },
				{ id: 'e2', source: 'audio-1', target: 'output-1', targetHandle: 'media' },
			],
			viewport: { x: 0, y: 0, zoom: 1 },
		},
	},
];

export const templateView = (t: Template) => ({
	id: t.id,
	name: t.name,
	description: t.description,
	category: t.category,
	nodeCount: t.graph.nodes.length,
	graph: t.graph,
});

/**
 * Structural rules of a graph beyond its field list (the spec says "edge rules" without listing
 * them): unique node and edge ids, edges between nodes of the graph, no edge from a node to
 * itself, parentId naming a group node of the graph, and no cycles. Issues use body paths.
 */
export function graphRuleIssues(graph: Graph, prefix = 'graph'): Issue[] {
	const issues: Issue[] = [];
	const ids = new Map<string, GraphNode>();
	graph.nodes.forEach((n, i) => {
		if (ids.has(n.id))
			issues.push({
				path: `${prefix}.nodes.${i}.id`,
				message: `Duplicate node id "${n.id}"`,
				code: 'duplicate_id',
			});
		else ids.set(n.id, n);
	});
	graph.nodes.forEach((n, i) => {
		if (n.parentId === undefined) return;
		const parent = ids.get(n.parentId);
		if (!parent || parent.type !== 'group' || n.parentId === n.id)
			issues.push({
				path: `${prefix}.nodes.${i}.parentId`,
				message: `parentId "${n.parentId}" is not a group node of the graph`,
				code: 'invalid_parent',
			});
	});
	const edgeIds = new Set<string>();
	graph.edges.forEach((e, i) => {
		const at = `${prefix}.edges.${i}`;
		if (edgeIds.has(e.id))
			issues.push({
				path: `${at}.id`,
				message: `Duplicate edge id "${e.id}"`,
				code: 'duplicate_id',
			});
		edgeIds.add(e.id);
		for (const end of ['source', 'target'] as const) {
			const node = ids.get(e[end]);
			if (!node)
				issues.push({
					path: `${at}.${end}`,
					message: `${end} "${e[end]}" is not a node of the graph`,
					code: 'unknown_node',
				});
			else if (node.type === 'group')
				issues.push({
					path: `${at}.${end}`,
					message: `${end} "${e[end]}" is a group; edges connect steps`,
					code: 'invalid_edge',
				});
		}
		if (e.source === e.target)
			issues.push({
				path: at,
				message: `Edge "${e.id}" connects node "${e.source}" to itself`,
				code: 'invalid_edge',
			});
	});
	if (!issues.length && hasCycle(graph))
		issues.push({ path: `${prefix}.edges`, message: 'The graph has a cycle', code: 'cycle' });
	return issues;
}

function hasCycle(graph: Graph): boolean {
	return topoOrder(graph) === null;
}

/** Step node ids in an order where every node comes after its sources; null when cyclic. */
export function topoOrder(graph: Graph): string[] | null {
	const steps = graph.nodes.filter((n) => !NOT_A_STEP.has(n.type)).map((n) => n.id);
	const indeg = new Map(steps.map((id) => [id, 0]));
	for (const e of graph.edges)
		if (indeg.has(e.target)) indeg.set(e.target, indeg.get(e.target)! + 1);
	const ready = steps.filter((id) => indeg.get(id) === 0);
	const out: string[] = [];
	while (ready.length) {
		const id = ready.shift()!;
		out.push(id);
		for (const e of graph.edges)
			if (e.source === id && indeg.has(e.target)) {
				indeg.set(e.target, indeg.get(e.target)! - 1);
				if (indeg.get(e.target) === 0) ready.push(e.target);
			}
	}
	return out.length === steps.length ? out : null;
}

/** Throws 422 with the rule issues of a graph being saved. */
export function checkGraphRules(graph: Graph): void {
	const issues = graphRuleIssues(graph);
	if (issues.length) throw validationError(issues);
}
