/**
 * Canvas runs: validation and estimate of a graph, and the run engine. A run executes its graph
 * snapshot step by step in dependency order. Generating nodes (image_gen, video_gen, audio_gen,
 * transform, upscale) run as generations through the doc 1 lifecycle (tool `canvas`: credits
 * reserved when the step starts, charged on success, returned on failure); every other node is
 * a free step. A step whose sources did not all succeed is skipped. Completion emits
 * workflow.completed / workflow.failed with the run record.
 */
import type { App } from '../app';
import { ApiError, conflict, validationError, type Issue } from '../http';
import { estimate, type GenerationInput } from '../jobs';
import { now, recBase, type GenerationRec, type Workspace } from '../state';
import { z } from '../validation';
import {
	canvasOf,
	GENERATING,
	graphRuleIssues,
	NOT_A_STEP,
	topoOrder,
	type Graph,
	type GraphNode,
	type RunRec,
	type Step,
	type WorkflowRec,
} from './store';

/** Unscaled interval at which a run looks at its steps' generations. */
export const RUN_TICK_MS = 50;

/** `data.sandbox` of a node: failure injection and duration, like `params.sandbox` of doc 1. */
const nodeSandbox = z
	.object({
		durationMs: z.number().int().min(0).max(86_400_000).optional(),
		fail: z.union([z.boolean(), z.string().max(500)]).optional(),
		failAttempts: z.number().int().min(1).optional(),
	})
	.optional();
const nodeData = z.object({
	modelId: z.string().max(80).optional(),
	mode: z.string().max(40).optional(),
	prompt: z.string().max(50000).optional(),
	params: z.record(z.unknown()).optional(),
	sandbox: nodeSandbox,
});

type Data = z.output<typeof nodeData>;
const dataOf = (n: GraphNode): Data => {
	const r = nodeData.safeParse(n.data ?? {});
	return r.success ? r.data : {};
};

const isStep = (n: GraphNode) => !NOT_A_STEP.has(n.type);
const text = (n: GraphNode): string | undefined => {
	const d = n.data ?? {};
	const v = d.text ?? d.prompt;
	return typeof v === 'string' && v !== '' ? v : undefined;
};

/**
 * What a run needs beyond the saved graph's shape: at least one step, node data of the right
 * types for generating nodes, and an input (an edge or `data.prompt`) for each of them.
 */
export function validateGraph(graph: Graph): { valid: boolean; issues: Issue[] } {
	const issues = graphRuleIssues(graph);
	if (!graph.nodes.some(isStep))
		issues.push({
			path: 'graph.nodes',
			message: 'The graph has no steps to run',
			code: 'empty_graph',
		});
	graph.nodes.forEach((n, i) => {
		if (!GENERATING[n.type] && n.data?.sandbox === undefined) return;
		const r = nodeData.safeParse(n.data ?? {});
		if (!r.success)
			for (const is of r.error.issues)
				issues.push({
					path: `graph.nodes.${i}.data.${is.path.join('.')}`,
					message: is.message,
					code: is.code,
				});
		if (
			GENERATING[n.type] &&
			!graph.edges.some((e) => e.target === n.id) &&
			!(typeof n.data?.prompt === 'string' && n.data.prompt !== '')
		)
			issues.push({
				path: `graph.nodes.${i}`,
				message: `Node "${n.id}" (${n.type}) has no input: connect a source or set data.prompt`,
				code: 'missing_input',
			});
	});
	return { valid: issues.length === 0, issues };
}

function nodeCost(n: GraphNode): number {
	const mode = GENERATING[n.type];
	if (!mode) return 0;
	return estimate('canvas', mode, dataOf(n).params ?? {}).credits;
}

/** POST /canvas/{id}/estimate: 422 when the graph cannot run; credits per node otherwise. */
export function estimateGraph(graph: Graph) {
	const v = validateGraph(graph);
	if (!v.valid) throw validationError(v.issues);
	const nodes = graph.nodes
		.filter(isStep)
		.map((n) => ({ nodeId: n.id, type: n.type, credits: nodeCost(n) }));
	return {
		credits: nodes.reduce((s, n) => s + n.credits, 0),
		breakdown: nodes.map((n) => ({ item: `${n.nodeId} (${n.type})`, credits: n.credits })),
		nodes,
	};
}

export const runView = (r: RunRec) => ({
	id: r.id,
	workflowId: r.workflowId,
	workflowVersion: r.workflowVersion,
	status: r.status,
	nodes: r.steps.map((s) => ({
		nodeId: s.nodeId,
		type: s.type,
		status: s.status,
		generationId: s.generationId,
		credits: s.credits,
		credits_estimated: s.credits_estimated,
		outputs: s.outputs,
		error: s.error,
	})),
	outputs: r.outputs,
	credits_estimated: r.credits_estimated,
	credits_charged: r.steps.reduce((n, s) => n + s.credits, 0),
	expectedCredits: r.expectedCredits,
	error: r.error,
	attempts: r.attempts,
	created_at: r.created_at,
	updated_at: r.updated_at,
	started_at: r.started_at,
	completed_at: r.completed_at,
});

const insufficient = (ws: Workspace, required: number) =>
	new ApiError(
		402,
		'insufficient_credits',
		`Not enough credits: ${required} required, ${ws.balance} available`,
		{ balance: ws.balance, required },
	);

/** The run engine of one sandbox app. */
export class CanvasRuns {
	private readonly timers = new Map<string, NodeJS.Timeout>();
	/** Attempts of free steps (generating steps count theirs in their generation). */
	private readonly freeAttempts = new Map<string, number>();

	constructor(private readonly app: App) {}

	start(ws: Workspace, wf: WorkflowRec, expectedCredits: number | undefined): RunRec {
		const est = estimateGraph(wf.graph);
		if (expectedCredits !== undefined && expectedCredits !== est.credits)
			throw conflict(
				`The estimate is ${est.credits} credits, not the expected ${expectedCredits}: estimate again and confirm`,
				{ expectedCredits, credits: est.credits },
				'estimate_changed',
			);
		if (est.credits > ws.balance) throw insufficient(ws, est.credits);
		const graph = JSON.parse(JSON.stringify(wf.graph)) as Graph;
		const order = topoOrder(graph) ?? [];
		const byId = new Map(graph.nodes.map((n) => [n.id, n]));
		const run: RunRec = {
			...recBase(),
			workflowId: wf.id,
			workflowVersion: wf.version,
			status: 'queued',
			graph,
			steps: order.map((id) => {
				const n = byId.get(id)!;
				const cost = nodeCost(n);
				return {
					nodeId: id,
					type: n.type,
					status: 'pending',
					generationId: null,
					credits: 0,
					credits_estimated: cost,
					outputs: [],
					error: null,
				};
			}),
			outputs: [],
			credits_estimated: est.credits,
			expectedCredits: expectedCredits ?? null,
			error: null,
			attempts: 1,
			started_at: null,
			completed_at: null,
		};
		canvasOf(ws).runs.put(run);
		this.schedule(ws, run);
		return run;
	}

	cancel(ws: Workspace, run: RunRec): RunRec {
		if (run.status !== 'queued' && run.status !== 'running')
			throw conflict(`Canvas run ${run.id} is ${run.status} and cannot be cancelled`, {
				status: run.status,
			});
		for (const s of run.steps) {
			const g =
				s.status === 'running' && s.generationId ? ws.generations.find(s.generationId) : undefined;
			if (g?.status === 'completed') {
				// Finished just before the cancel: it was charged, so it counts as succeeded.
				s.status = 'succeeded';
				s.credits = g.credits_charged;
				s.outputs = g.outputs.map((o) => ({ ...o }));
				continue;
			}
			if (g && (g.status === 'queued' || g.status === 'running')) this.app.jobs.cancel(ws, g);
			if (s.status === 'pending' || s.status === 'running') {
				s.status = 'cancelled';
				s.error = { code: 'cancelled', message: 'Cancelled by request' };
			}
		}
		this.end(ws, run, 'cancelled', { code: 'cancelled', message: 'Cancelled by request' });
		return run;
	}

	/** Runs failed and skipped steps again; succeeded steps (and their charges) are kept. */
	retry(ws: Workspace, run: RunRec): RunRec {
		if (run.status !== 'failed')
			throw conflict(`Only failed canvas runs can be retried; ${run.id} is ${run.status}`, {
				status: run.status,
			});
		const again = run.steps.filter((s) => s.status === 'failed' || s.status === 'skipped');
		const required = again.reduce((n, s) => n + s.credits_estimated, 0);
		if (required > ws.balance) throw insufficient(ws, required);
		for (const s of again) {
			s.status = 'pending';
			s.error = null;
			s.outputs = [];
		}
		run.status = 'queued';
		run.error = null;
		run.outputs = [];
		run.completed_at = null;
		run.attempts++;
		run.updated_at = now();
		this.schedule(ws, run);
		return run;
	}

	private schedule(ws: Workspace, run: RunRec): void {
		this.app.scheduler.cancel(this.timers.get(run.id));
		this.timers.set(
			run.id,
			this.app.scheduler.after(RUN_TICK_MS, () => this.tick(ws, run)),
		);
	}

	private tick(ws: Workspace, run: RunRec): void {
		this.timers.delete(run.id);
		if (run.status !== 'queued' && run.status !== 'running') return;
		if (run.status === 'queued') {
			run.status = 'running';
			run.started_at ??= now();
			run.updated_at = now();
		}
		const byId = new Map(run.graph.nodes.map((n) => [n.id, n]));
		const steps = new Map(run.steps.map((s) => [s.nodeId, s]));
		const sources = (id: string) =>
			run.graph.edges.filter((e) => e.target === id).map((e) => steps.get(e.source)!);
		let changed = true;
		while (changed) {
			changed = false;
			for (const s of run.steps) {
				if (s.status === 'running' && s.generationId) {
					const g = ws.generations.find(s.generationId);
					if (!g) this.failStep(s, 'generation_missing', 'The generation of this step is gone');
					else if (g.status === 'completed') {
						s.status = 'succeeded';
						s.credits = g.credits_charged;
						s.outputs = g.outputs.map((o) => ({ ...o }));
					} else if (g.status === 'failed' || g.status === 'cancelled')
						this.failStep(s, g.error?.code ?? 'generation_failed', g.error?.message ?? g.status);
					else continue;
					changed = true;
					continue;
				}
				if (s.status !== 'pending') continue;
				const from = sources(s.nodeId);
				if (from.some((p) => ['failed', 'skipped', 'cancelled'].includes(p.status))) {
					s.status = 'skipped';
					s.error = { code: 'skipped', message: 'A source of this step did not succeed' };
					changed = true;
					continue;
				}
				if (from.some((p) => p.status !== 'succeeded')) continue;
				this.startStep(ws, run, s, byId.get(s.nodeId)!, from, byId);
				changed = true;
			}
		}
		run.updated_at = now();
		if (run.steps.some((s) => s.status === 'pending' || s.status === 'running')) {
			this.schedule(ws, run);
			return;
		}
		const failed = run.steps.filter((s) => s.status === 'failed');
		if (failed.length) {
			const first = failed[0];
			this.end(ws, run, 'failed', {
				code: 'step_failed',
				message: `Node ${first.nodeId} failed: ${first.error?.message ?? 'unknown error'}`,
			});
		} else this.end(ws, run, 'completed', null);
	}

	private failStep(s: Step, code: string, message: string): void {
		s.status = 'failed';
		s.error = { code, message };
	}

	private startStep(
		ws: Workspace,
		run: RunRec,
		s: Step,
		node: GraphNode,
		from: Step[],
		byId: Map<string, GraphNode>,
	): void {
		const data = dataOf(node);
		const upstream = dedupe(from.flatMap((p) => p.outputs));
		const mode = GENERATING[node.type];
		if (!mode) {
			const key = `${run.id}:${s.nodeId}`;
			const attempt = (this.freeAttempts.get(key) ?? 0) + 1;
			this.freeAttempts.set(key, attempt);
			const fail = data.sandbox?.fail;
			if (fail !== undefined && fail !== false && attempt <= (data.sandbox?.failAttempts ?? 1)) {
				this.failStep(
					s,
					'step_failed',
					typeof fail === 'string' ? fail : 'The step failed (simulated)',
				);
				return;
			}
			s.status = 'succeeded';
			s.outputs = this.freeOutputs(ws, node, upstream);
			return;
		}
		const sourceNodes = run.graph.edges
			.filter((e) => e.target === node.id)
			.map((e) => byId.get(e.source)!)
			.filter(Boolean);
		const prompt =
			data.prompt ??
			(sourceNodes
				.map(text)
				.filter((t): t is string => !!t)
				.join('\n') ||
				undefined);
		const modelNode = sourceNodes.find((n) => n.type === 'model');
		const modelId =
			data.modelId ??
			(typeof modelNode?.data?.modelId === 'string'
				? modelNode.data.modelId.slice(0, 80)
				: undefined) ??
			'canvas-default';
		const wf = canvasOf(ws).workflows.find(run.workflowId);
		const params: Record<string, unknown> = { ...(data.params ?? {}) };
		if (data.sandbox) params.sandbox = data.sandbox;
		else delete params.sandbox;
		const input: GenerationInput = {
			modelId,
			mode,
			tool: 'canvas',
			prompt: prompt?.slice(0, 50000),
			params,
			inputs: upstream.length ? [{ slot: 'input', assetIds: upstream.map((o) => o.asset_id) }] : [],
			projectId: wf?.projectId && ws.projects.find(wf.projectId) ? wf.projectId : undefined,
			title: `${wf?.name ?? 'Canvas'} · ${node.id}`.slice(0, 200),
			context: { canvasRunId: run.id, canvasWorkflowId: run.workflowId, canvasNodeId: node.id },
		};
		try {
			const prior = s.generationId ? ws.generations.find(s.generationId) : undefined;
			const g: GenerationRec =
				prior && prior.status === 'failed'
					? this.app.jobs.retry(ws, prior)
					: this.app.jobs.create(ws, input, null);
			s.generationId = g.id;
			s.status = 'running';
		} catch (e) {
			const err = e as ApiError;
			this.failStep(s, err.code ?? 'step_failed', err.message);
		}
	}

	private freeOutputs(ws: Workspace, node: GraphNode, upstream: Step['outputs']): Step['outputs'] {
		if (node.type.endsWith('_input') || node.type === 'character') {
			const id = node.data?.assetId;
			const a = typeof id === 'string' ? ws.assets.find(id) : undefined;
			return a ? [{ asset_id: a.id, kind: a.kind }] : [];
		}
		return upstream;
	}

	private end(
		ws: Workspace,
		run: RunRec,
		status: 'completed' | 'failed' | 'cancelled',
		error: RunRec['error'],
	): void {
		this.app.scheduler.cancel(this.timers.get(run.id));
		this.timers.delete(run.id);
		run.status = status;
		run.error = error;
		const outputSteps = run.steps.filter((s) => s.type === 'output');
		const from = outputSteps.length
			? outputSteps
			: run.steps.filter((s) => GENERATING[s.type] !== undefined);
		run.outputs = dedupe(from.flatMap((s) => s.outputs));
		run.completed_at = run.updated_at = now();
		this.app.hooks.emit(
			ws,
			status === 'completed' ? 'workflow.completed' : 'workflow.failed',
			runView(run),
		);
	}
}

function dedupe(list: Step['outputs']): Step['outputs'] {
	const seen = new Set<string>();
	return list.filter((o) => !seen.has(o.asset_id) && seen.add(o.asset_id));
}

const engines = new WeakMap<App, CanvasRuns>();
/** The run engine of an app (one per sandbox). */
export function runsOf(app: App): CanvasRuns {
	let r = engines.get(app);
	if (!r) engines.set(app, (r = new CanvasRuns(app)));
	return r;
}
