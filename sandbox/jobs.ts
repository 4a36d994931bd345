/**
 * Generation engine: cost estimate, credit reservation, the lifecycle
 * queued → running → completed | failed | cancelled on scaled timers, outputs as real assets,
 * charge on success, release on failure or cancel, events for webhooks.
 */
import { z } from 'zod';
import type { Hooks } from './hooks';
import { ApiError, conflict } from './http';
import { createAsset } from './library';
import { generateMedia, type MediaKind } from './media';
import {
	now,
	recBase,
	type GenerationRec,
	type SandboxConfig,
	type State,
	type Workspace,
} from './state';
import type { Scheduler } from './timers';
import { generationEventData } from './views';
import { parse } from './validation';

const VIDEO_TOOLS = ['video', 'motion', 'lipsync', 'cinema', 'editor'];

/** Unscaled default durations per output kind, in milliseconds. */
export const DEFAULT_DURATION_MS: Record<MediaKind, number> = {
	image: 2000,
	video: 8000,
	audio: 4000,
	model3d: 10000,
};
/** Simulated time a job waits in the queue before it starts when a slot is free. */
export const QUEUE_DELAY_MS = 200;

export interface GenerationInput {
	modelId: string;
	mode?: string;
	tool: string;
	prompt?: string;
	negativePrompt?: string;
	params: Record<string, unknown>;
	inputs: { slot: string; assetIds: string[] }[];
	projectId?: string;
	title?: string;
	idempotencyKey?: string;
	context: Record<string, unknown>;
	rightsConfirmed?: boolean;
}

/** `params.sandbox`: per-request control of the simulated job. */
const sandboxParams = z
	.object({
		durationMs: z.number().int().min(0).max(86_400_000).optional(),
		fail: z.union([z.boolean(), z.string().max(500)]).optional(),
		/** How many attempts fail when `fail` is set (default 1: a retry then succeeds). */
		failAttempts: z.number().int().min(1).optional(),
	})
	.optional();

export function outputKind(tool: string, mode?: string | null): MediaKind {
	const m = (mode ?? '').toLowerCase();
	if (/(audio|speech|tts|music|voice|sound)/.test(m)) return 'audio';
	if (/(video|animate|clip)/.test(m)) return 'video';
	if (/(3d|mesh|model3d)/.test(m)) return 'model3d';
	if (/(image|still|photo)/.test(m)) return 'image';
	if (tool === 'audio') return 'audio';
	if (tool === '3d') return 'model3d';
	if (VIDEO_TOOLS.includes(tool)) return 'video';
	return 'image'; // image, influencer, swap, ads, marketing, effects, canvas, agent, api
}

const num = (v: unknown): number | undefined =>
	typeof v === 'number' && Number.isFinite(v) ? v : undefined;
/** `params.count`: outputs per generation, integer 1..10 (default 1). */
export const outputCount = (params: Record<string, unknown>): number =>
	Math.max(1, Math.min(10, Math.floor(num(params.count) ?? 1)));
/** `params.duration`: seconds of video/audio (video default 5, audio default 30), clamped to 1..600. */
export const outputSeconds = (kind: MediaKind, params: Record<string, unknown>): number =>
	Math.max(1, Math.min(600, Math.ceil(num(params.duration) ?? (kind === 'audio' ? 30 : 5))));

export interface Estimate {
	credits: number;
	breakdown: { item: string; credits: number }[];
}

/**
 * Deterministic cost: per output, image 4; video 20 + 4 per second; audio 3 + 1 per started
 * 10 seconds; 3D 30. Modes hd|quality|pro double it. Times params.count.
 */
export function estimate(
	tool: string,
	mode: string | null | undefined,
	params: Record<string, unknown>,
): Estimate {
	const kind = outputKind(tool, mode);
	const seconds = outputSeconds(kind, params);
	const items: Estimate['breakdown'] = [];
	switch (kind) {
		case 'image':
			items.push({ item: 'image', credits: 4 });
			break;
		case 'video':
			items.push(
				{ item: 'video base', credits: 20 },
				{ item: `video ${seconds} s × 4`, credits: 4 * seconds },
			);
			break;
		case 'audio':
			items.push(
				{ item: 'audio base', credits: 3 },
				{ item: `audio ${seconds} s (1 per 10 s)`, credits: Math.ceil(seconds / 10) },
			);
			break;
		case 'model3d':
			items.push({ item: '3d model', credits: 30 });
			break;
	}
	let perOutput = items.reduce((s, i) => s + i.credits, 0);
	if (mode && /^(hd|quality|pro)$/i.test(mode)) {
		items.push({ item: `mode ${mode} ×2`, credits: perOutput });
		perOutput *= 2;
	}
	const count = outputCount(params);
	if (count > 1) items.push({ item: `${count} outputs`, credits: perOutput * (count - 1) });
	return { credits: perOutput * count, breakdown: items };
}

/** What the generation engine uses of the sandbox (app.ts's App, which builds the engine). */
export interface JobsHost {
	readonly config: SandboxConfig;
	readonly state: State;
	readonly scheduler: Scheduler;
	readonly hooks: Hooks;
}

export class Jobs {
	private readonly timers = new Map<string, NodeJS.Timeout>();
	/** Workspace of each queued or running job. */
	private readonly active = new Map<string, Workspace>();

	constructor(private readonly app: JobsHost) {}

	reset(): void {
		for (const t of this.timers.values()) this.app.scheduler.cancel(t);
		this.timers.clear();
		this.active.clear();
	}

	/** Checks references (project, input assets) and the sandbox params; returns the estimate. */
	validate(ws: Workspace, input: GenerationInput): Estimate {
		parse(sandboxParams, input.params.sandbox, 'params.sandbox');
		if (input.projectId) ws.projects.get(input.projectId);
		ws.assets.requireAll(input.inputs.flatMap((i) => i.assetIds));
		return estimate(input.tool, input.mode, input.params);
	}

	create(ws: Workspace, input: GenerationInput, idempotencyKey: string | null): GenerationRec {
		const est = this.validate(ws, input);
		const batch =
			typeof input.context.batchId === 'string' &&
			z.string().uuid().safeParse(input.context.batchId).success
				? input.context.batchId
				: null;
		const g: GenerationRec = {
			...recBase(),
			status: 'queued',
			tool: input.tool,
			mode: input.mode ?? null,
			model_id: input.modelId,
			project_id: input.projectId ?? null,
			batch_id: batch,
			title: input.title ?? null,
			prompt: input.prompt ?? null,
			negative_prompt: input.negativePrompt ?? null,
			params: input.params,
			inputs: input.inputs,
			context: input.context,
			rights_confirmed: input.rightsConfirmed ?? null,
			idempotency_key: idempotencyKey,
			credits_estimated: est.credits,
			credits_reserved: 0,
			credits_charged: 0,
			outputs: [],
			error: null,
			attempts: 0,
			started_at: null,
			completed_at: null,
		};
		this.reserve(ws, g);
		ws.generations.put(g);
		this.enqueue(ws, g);
		return g;
	}

	cancel(ws: Workspace, g: GenerationRec): GenerationRec {
		if (g.status !== 'queued' && g.status !== 'running')
			throw conflict(`Generation ${g.id} is ${g.status} and cannot be cancelled`, {
				status: g.status,
			});
		this.end(ws, g, 'cancelled', { code: 'cancelled', message: 'Cancelled by request' });
		return g;
	}

	retry(ws: Workspace, g: GenerationRec): GenerationRec {
		if (g.status !== 'failed')
			throw conflict(`Only failed generations can be retried; ${g.id} is ${g.status}`, {
				status: g.status,
			});
		this.reserve(ws, g);
		g.error = null;
		g.outputs = [];
		g.completed_at = null;
		g.started_at = null;
		g.status = 'queued';
		g.updated_at = now();
		this.enqueue(ws, g);
		return g;
	}

	private reserve(ws: Workspace, g: GenerationRec): void {
		const cost = g.credits_estimated;
		if (cost > ws.balance)
			throw new ApiError(
				402,
				'insufficient_credits',
				`Not enough credits: ${cost} required, ${ws.balance} available`,
				{ balance: ws.balance, required: cost },
			);
		ws.book('reserve', -cost, `Reservation for generation ${g.id}`, g.id);
		ws.reserved += cost;
		g.credits_reserved = cost;
	}

	private release(ws: Workspace, g: GenerationRec, why = 'returned'): void {
		if (!g.credits_reserved) return;
		ws.book('release', g.credits_reserved, `Reservation ${why} for generation ${g.id}`, g.id);
		ws.reserved -= g.credits_reserved;
		g.credits_reserved = 0;
	}

	private enqueue(ws: Workspace, g: GenerationRec): void {
		this.active.set(g.id, ws);
		this.pump(ws);
	}

	/** Starts queued jobs (oldest first) while the workspace has free slots. */
	private pump(ws: Workspace): void {
		const mine = ws.generations.all().filter((g) => this.active.get(g.id) === ws);
		let running = mine.filter((g) => g.status === 'running' || this.timers.has(g.id)).length;
		const waiting = mine
			.filter((g) => g.status === 'queued' && !this.timers.has(g.id))
			.sort((a, b) => a.seq - b.seq);
		for (const g of waiting) {
			if (running >= this.app.state.concurrentJobs(ws)) break;
			running++;
			this.timers.set(
				g.id,
				this.app.scheduler.after(QUEUE_DELAY_MS, () => this.start(ws, g)),
			);
		}
	}

	private start(ws: Workspace, g: GenerationRec): void {
		g.status = 'running';
		g.attempts++;
		g.started_at = g.updated_at = now();
		const opts = (g.params.sandbox ?? {}) as NonNullable<z.output<typeof sandboxParams>>;
		const kind = outputKind(g.tool, g.mode);
		const duration =
			opts.durationMs ?? this.app.config.defaultJobDurationMs ?? DEFAULT_DURATION_MS[kind];
		this.timers.set(
			g.id,
			this.app.scheduler.after(duration, () => this.finish(ws, g)),
		);
	}

	private finish(ws: Workspace, g: GenerationRec): void {
		const opts = (g.params.sandbox ?? {}) as NonNullable<z.output<typeof sandboxParams>>;
		const forced =
			opts.fail !== undefined && opts.fail !== false && g.attempts <= (opts.failAttempts ?? 1);
		if (forced || (opts.fail === undefined && Math.random() < this.app.config.failureRate)) {
			const message =
				typeof opts.fail === 'string'
					? opts.fail
					: 'The model failed to produce an output (simulated)';
			this.end(ws, g, 'failed', { code: 'generation_failed', message });
			return;
		}
		const kind = outputKind(g.tool, g.mode);
		const seconds = outputSeconds(kind, g.params);
		for (let i = 0; i < outputCount(g.params); i++) {
			const media = generateMedia(kind, `${g.id}:${i}:${g.prompt ?? ''}`, seconds);
			const filename = `${g.tool}-${g.id.slice(0, 8)}-${i + 1}.${media.ext}`;
			const asset = createAsset(ws, {
				filename,
				mimeType: media.mimeType,
				size: media.data.length,
				blob: { type: 'buffer', data: media.data },
				source: 'generation',
				title: g.title ?? (g.prompt ? g.prompt.slice(0, 80) : filename),
				projectId: g.project_id && ws.projects.find(g.project_id) ? g.project_id : null,
				generationId: g.id,
				kind,
			});
			g.outputs.push({ asset_id: asset.id, kind });
		}
		const cost = g.credits_reserved;
		this.release(ws, g, 'settled');
		ws.book('charge', -cost, `Generation ${g.id} completed`, g.id);
		g.credits_charged += cost;
		this.end(ws, g, 'completed', null);
	}

	/** Terminal transition: timers cleared, reservation returned if still held, event emitted, queue pumped. */
	private end(
		ws: Workspace,
		g: GenerationRec,
		status: 'completed' | 'failed' | 'cancelled',
		error: GenerationRec['error'],
	): void {
		this.app.scheduler.cancel(this.timers.get(g.id));
		this.timers.delete(g.id);
		this.active.delete(g.id);
		this.release(ws, g);
		g.status = status;
		g.error = error;
		g.completed_at = g.updated_at = now();
		this.app.hooks.emit(
			ws,
			status === 'completed' ? 'generation.completed' : 'generation.failed',
			generationEventData(g),
		);
		this.pump(ws);
	}
}
