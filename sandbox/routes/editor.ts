/**
 * MediaGen Editor (doc 3): edit projects, effects, audio mixes. State in ../editor/store.ts,
 * the timeline schema in ../editor/timeline.ts.
 */
import { conflict, json, notFound, validationError } from '../http';
import { createAsset } from '../library';
import { makePng } from '../media';
import { paginate } from '../pagination';
import { route } from '../route';
import { newId, now, recBase, touch, type Workspace } from '../state';
import { assetView, generationView } from '../views';
import { obj, oneOf, pageQuery, str, uuid, z } from '../validation';
import {
	chargeNow,
	checkVersion,
	editorStore,
	editView,
	effectCollectionView,
	exportView,
	mixView,
	saveVersion,
	startExport,
	type AiTask,
	type EditRec,
} from '../editor/store';
import {
	clone,
	duration,
	PRESET_ASPECT,
	PRESETS,
	referencedAssets,
	timelineSchema,
	type Cue,
	type Preset,
	type Timeline,
} from '../editor/timeline';

const MAX_VERSION = 9007199254740991;
const version = () => z.number().int().min(1).max(MAX_VERSION);
const range = (min: number, max: number) => z.number().min(min).max(max);
const preset = () => oneOf(PRESETS);

/** Frame rates the render accepts (the spec: four values, not shown). */
export const RENDER_FPS = [24, 25, 30, 60];

/** Credits of the editor's synchronous AI tools (assumptions). */
export const COSTS = {
	/** Transcription per started minute of the timeline. */
	transcribePerMinute: 2,
	/** Caption translation per started minute. */
	translatePerMinute: 1,
	cleanup: 2,
	highlights: 1,
	aiPlanning: 2,
};

const minutes = (t: Timeline) => Math.max(1, Math.ceil(duration(t) / 60));

const edits = (ws: Workspace) => editorStore(ws).edits;
const reply = (ws: Workspace, e: EditRec, status = 200) => json(editView(ws)(e), status);

function task(e: EditRec, type: AiTask['type'], credits: number, result: Record<string, unknown>) {
	const t: AiTask = { id: newId(), type, status: 'completed', credits, result, created_at: now() };
	e.aiTasks.push(t);
	return t;
}

/** Every asset the timeline refers to must exist in the workspace (404 with details.ids). */
function checkTimelineAssets(ws: Workspace, t: Timeline): void {
	ws.assets.requireAll(referencedAssets(t));
}

/** The timeline an edit opens with: the source as one clip (5 s of an image, 10 s of a video). */
function initialTimeline(assetId: string, kind: 'video' | 'image'): Timeline {
	return timelineSchema.parse({
		clips: [{ id: 'clip-1', assetId, kind, in: 0, out: kind === 'video' ? 10 : 5 }],
	});
}

/** A new edit in the editor's store, at version 1 (also used by cinema's Export Sequence). */
export function newEdit(
	ws: Workspace,
	from: Omit<
		EditRec,
		| keyof ReturnType<typeof recBase>
		| 'version'
		| 'versions'
		| 'exports'
		| 'aiTasks'
		| 'analysis'
		| 'conversation'
		| 'transcribed'
		| 'thumbnailAssetId'
		| 'dubGenerationId'
	>,
	reason: string,
): EditRec {
	const e: EditRec = {
		...recBase(),
		...from,
		version: 0,
		versions: [],
		exports: [],
		aiTasks: [],
		analysis: null,
		conversation: [],
		transcribed: false,
		thumbnailAssetId: null,
		dubGenerationId: null,
	};
	saveVersion(e, reason);
	return edits(ws).put(e);
}

/** Simulated transcript: one cue per 3 seconds of the timeline. */
function transcribe(t: Timeline): Cue[] {
	const words = ['welcome', 'to', 'the', 'show', 'today', 'we', 'make', 'something', 'new'];
	const cues: Cue[] = [];
	const total = Math.max(1, Math.ceil(duration(t)));
	for (let s = 0, i = 0; s < total; s += 3, i++) {
		const text = [0, 1, 2].map((k) => words[(i * 3 + k) % words.length]).join(' ');
		cues.push({ start: s, end: Math.min(total, s + 3), text });
	}
	return cues;
}

function variation(ws: Workspace, e: EditRec, label: string, timeline: Timeline, reason: string) {
	return newEdit(
		ws,
		{
			name: e.name,
			label: label.slice(0, 40),
			preset: e.preset,
			sourceAssetId: e.sourceAssetId,
			projectId: e.projectId,
			parentId: e.id,
			timeline,
		},
		reason,
	);
}

/** Effect run/estimate input: `inputs` values that are UUIDs (or lists of them) become slots. */
function effectInput(id: string, body: z.output<typeof effectBody>) {
	const inputs = Object.entries(body.inputs).flatMap(([slot, v]) => {
		const ids = (Array.isArray(v) ? v : [v]).filter(
			(x): x is string => typeof x === 'string' && uuid().safeParse(x).success,
		);
		return ids.length ? [{ slot: slot.slice(0, 40), assetIds: ids }] : [];
	});
	return {
		modelId: body.modelId ?? `effect-${id}`.slice(0, 80),
		tool: 'effects',
		params: body.params,
		inputs,
		projectId: body.projectId,
		context: { effectId: id },
	};
}

const effectBody = z.object({
	modelId: str(80).optional(),
	inputs: obj().default({}),
	params: obj().default({}),
	projectId: uuid().optional(),
	idempotencyKey: str(120).optional(),
});

const mixTrack = z.object({
	id: str(40),
	assetId: uuid(),
	start: range(0, 3600),
	in: range(0, 3600),
	out: range(0, 3600),
	volume: range(0, 2).default(1),
	fadeIn: range(0, 30).default(0),
	fadeOut: range(0, 30).default(0),
	muted: z.boolean().default(false),
});

const mixes = (ws: Workspace) => editorStore(ws).mixes;

export const editorRoutes = [
	// ------------------------------------------------------------------ Edit projects
	route({
		method: 'GET',
		path: '/edits',
		scope: 'content.read',
		query: z.object({ ...pageQuery, sourceAssetId: uuid().optional() }),
		handler: ({ ws, query }) => {
			const list = edits(ws)
				.all()
				.filter((e) => !query.sourceAssetId || e.sourceAssetId === query.sourceAssetId);
			return json(paginate(list, query, editView(ws)));
		},
	}),
	route({
		method: 'POST',
		path: '/edits',
		scope: 'content.create',
		body: z.object({
			sourceAssetId: uuid(),
			name: str(120).optional(),
			preset: preset().optional(),
			projectId: uuid().optional(),
		}),
		handler: ({ ws, body }) => {
			const source = ws.assets.get(body.sourceAssetId);
			if (body.projectId) ws.projects.get(body.projectId);
			if (source.kind !== 'image' && source.kind !== 'video')
				throw validationError([
					{
						path: 'sourceAssetId',
						message: `The editor opens images and videos; asset ${source.id} is ${source.kind}`,
						code: 'invalid_asset_kind',
					},
				]);
			const e = newEdit(
				ws,
				{
					name: body.name ?? source.title.slice(0, 120),
					label: null,
					preset: body.preset ?? null,
					sourceAssetId: source.id,
					projectId: body.projectId ?? source.projectId,
					parentId: null,
					timeline: initialTimeline(source.id, source.kind),
				},
				'create',
			);
			return reply(ws, e, 201);
		},
	}),
	route({
		method: 'GET',
		path: '/edits/{id}',
		scope: 'content.read',
		handler: ({ ws, params }) => reply(ws, edits(ws).get(params.id)),
	}),
	route({
		method: 'PUT',
		path: '/edits/{id}',
		scope: 'content.create',
		body: z.object({
			timeline: timelineSchema.optional(),
			name: str(120).optional(),
			label: str(40).optional(),
			preset: preset().optional(),
			version: version(),
		}),
		handler: ({ ws, params, body }) => {
			const e = edits(ws).get(params.id);
			if (body.timeline) checkTimelineAssets(ws, body.timeline);
			checkVersion('Edit', e.id, e.version, body.version);
			if (body.timeline) e.timeline = body.timeline;
			if (body.name !== undefined) e.name = body.name;
			if (body.label !== undefined) e.label = body.label;
			if (body.preset !== undefined) e.preset = body.preset;
			saveVersion(e, 'save');
			return reply(ws, e);
		},
	}),
	route({
		method: 'DELETE',
		path: '/edits/{id}',
		scope: 'content.delete',
		handler: ({ ws, params }) => {
			const e = edits(ws).get(params.id);
			edits(ws).delete(e.id);
			return json({ id: e.id, deleted: true });
		},
	}),
	route({
		method: 'POST',
		path: '/edits/{id}/duplicate',
		scope: 'content.create',
		body: z.object({
			label: str(40).optional(),
			name: str(120).optional(),
			timeline: timelineSchema.optional(),
		}),
		handler: ({ ws, params, body }) => {
			const e = edits(ws).get(params.id);
			if (body.timeline) checkTimelineAssets(ws, body.timeline);
			const copy = variation(
				ws,
				e,
				body.label ?? `Variation of v${e.version}`,
				body.timeline ?? clone(e.timeline),
				'duplicate',
			);
			if (body.name !== undefined) copy.name = body.name;
			return reply(ws, copy, 201);
		},
	}),
	route({
		method: 'POST',
		path: '/edits/{id}/render',
		scope: 'content.create',
		body: z.object({
			preset: preset().optional(),
			still: z.boolean().optional(),
			options: z
				.object({
					resolution: oneOf(['720p', '1080p', '1440p', '2160p'] as const).optional(),
					fps: z
						.number()
						.refine((n) => RENDER_FPS.includes(n), {
							message: `fps must be one of ${RENDER_FPS.join(', ')}`,
						})
						.optional(),
					quality: oneOf(['standard', 'high', 'max'] as const).optional(),
					burnCaptions: z.boolean().optional(),
				})
				.optional(),
		}),
		handler: ({ app, ws, params, body }) => {
			const e = edits(ws).get(params.id);
			const still = body.still === true;
			if (!e.timeline.clips.length)
				throw conflict(`Edit ${e.id} has no clips to render`, { clips: 0 });
			if (!still && duration(e.timeline) > 600)
				throw validationError([
					{
						path: 'timeline',
						message: `The timeline lasts ${duration(e.timeline)} s; renders are at most 600 s`,
						code: 'too_long',
					},
				]);
			const settings = {
				preset: body.preset ?? e.preset ?? 'standard',
				still,
				options: {
					resolution: '1080p',
					fps: 30,
					quality: 'standard',
					burnCaptions: false,
					...(body.options ?? {}),
				},
			};
			const x = startExport(app, ws, e.exports, {
				kind: 'edit',
				sourceId: e.id,
				title: e.name,
				projectId: e.projectId,
				seconds: still ? 1 : duration(e.timeline),
				output: still ? 'image' : 'video',
				settings,
			});
			touch(e);
			return json(exportView(x), 202);
		},
	}),
	route({
		method: 'POST',
		path: '/edits/{id}/thumbnail',
		scope: 'content.create',
		body: z.object({ time: range(0, 3600) }),
		handler: ({ ws, params, body }) => {
			const e = edits(ws).get(params.id);
			const data = makePng(`${e.id}:${body.time}`);
			const asset = createAsset(ws, {
				filename: `thumbnail-${e.id.slice(0, 8)}-${body.time}s.png`,
				mimeType: 'image/png',
				size: data.length,
				blob: { type: 'buffer', data },
				source: 'export',
				title: `${e.name} (thumbnail at ${body.time} s)`.slice(0, 200),
				projectId: e.projectId && ws.projects.find(e.projectId) ? e.projectId : null,
			});
			e.thumbnailAssetId = asset.id;
			e.timeline.thumbnailTime = body.time;
			touch(e);
			return json(assetView(asset), 201);
		},
	}),
	route({
		method: 'POST',
		path: '/edits/{id}/smart-crop',
		scope: 'content.create',
		body: z.object({ preset: preset() }),
		handler: ({ ws, params, body }) => {
			const e = edits(ws).get(params.id);
			const [w, h] = PRESET_ASPECT[body.preset as Preset];
			// Source frames are taken as 16:9; the crop is the largest centred rectangle of the ratio.
			const target = w / h;
			const source = 16 / 9;
			const width = target < source ? target / source : 1;
			const height = target < source ? 1 : source / target;
			const r = (n: number) => Math.round(n * 10000) / 10000;
			return json({
				editId: e.id,
				preset: body.preset,
				aspectRatio: `${w}:${h}`,
				crops: e.timeline.clips.map((c) => ({
					clipId: c.id,
					x: r((1 - width) / 2),
					y: r((1 - height) / 2),
					width: r(width),
					height: r(height),
				})),
			});
		},
	}),
	route({
		method: 'POST',
		path: '/edits/{id}/captions/estimate',
		scope: 'content.create',
		body: z.object({ modelId: str(80).optional() }),
		handler: ({ ws, params }) => {
			const e = edits(ws).get(params.id);
			const m = minutes(e.timeline);
			const credits = m * COSTS.transcribePerMinute;
			return json({ credits, breakdown: [{ item: `transcription ${m} min`, credits }] });
		},
	}),
	route({
		method: 'POST',
		path: '/edits/{id}/captions',
		scope: 'content.create',
		body: z.object({ modelId: str(80).optional(), language: str(10).optional() }),
		handler: ({ ws, params, body }) => {
			const e = edits(ws).get(params.id);
			const credits = minutes(e.timeline) * COSTS.transcribePerMinute;
			chargeNow(ws, credits, `Captions for edit ${e.id}`);
			const language = body.language ?? 'en';
			const cues = transcribe(e.timeline);
			e.timeline.captions = { ...e.timeline.captions, enabled: true, language, cues };
			e.transcribed = true;
			task(e, 'captions', credits, { language, cues: cues.length, modelId: body.modelId ?? null });
			saveVersion(e, 'captions');
			return reply(ws, e);
		},
	}),
	route({
		method: 'POST',
		path: '/edits/{id}/captions/translate',
		scope: 'content.create',
		body: z.object({ language: str(20) }),
		handler: ({ ws, params, body }) => {
			const e = edits(ws).get(params.id);
			const cues = e.timeline.captions.cues as Cue[];
			if (!cues.length)
				throw conflict(`Edit ${e.id} has no captions to translate; create captions first`);
			const credits = minutes(e.timeline) * COSTS.translatePerMinute;
			chargeNow(ws, credits, `Caption translation for edit ${e.id}`);
			e.timeline.captions = {
				...e.timeline.captions,
				language: body.language,
				cues: cues.map((c) => ({ ...c, text: `[${body.language}] ${String(c.text ?? '')}` })),
			};
			task(e, 'translate', credits, { language: body.language, cues: cues.length });
			saveVersion(e, 'translate');
			return reply(ws, e);
		},
	}),
	route({
		method: 'POST',
		path: '/edits/{id}/cleanup',
		scope: 'content.create',
		handler: ({ ws, params }) => {
			const e = edits(ws).get(params.id);
			chargeNow(ws, COSTS.cleanup, `Audio cleanup for edit ${e.id}`);
			e.timeline.audioFx = { ...e.timeline.audioFx, normalize: true, denoise: 'medium' };
			task(e, 'cleanup', COSTS.cleanup, { normalize: true, denoise: 'medium' });
			saveVersion(e, 'cleanup');
			return reply(ws, e);
		},
	}),
	route({
		method: 'POST',
		path: '/edits/{id}/highlights',
		scope: 'content.create',
		body: z.object({
			count: z.number().int().min(1).max(5).default(3),
			maxSeconds: z.number().int().min(5).max(90).default(30),
		}),
		handler: ({ ws, params, body }) => {
			const e = edits(ws).get(params.id);
			const credits = body.count * COSTS.highlights;
			chargeNow(ws, credits, `Highlights for edit ${e.id}`);
			const total = duration(e.timeline);
			const first = e.timeline.clips[0];
			const created = [];
			for (let i = 0; i < body.count; i++) {
				const t = clone(e.timeline);
				if (first) {
					const span = Math.min(body.maxSeconds, Math.max(1, total));
					const start = total > span ? ((total - span) * i) / Math.max(1, body.count - 1) : 0;
					t.clips = [
						{
							...first,
							id: `highlight-${i + 1}`,
							in: Math.round(start * 100) / 100,
							out: Math.round((start + span) * 100) / 100,
						},
					];
				}
				t.texts = [];
				t.overlays = [];
				created.push(variation(ws, e, `Highlight ${i + 1}`, t, 'highlights'));
			}
			task(e, 'highlights', credits, { editIds: created.map((c) => c.id) });
			touch(e);
			return json({ data: created.map(editView(ws)), nextCursor: null }, 201);
		},
	}),
	route({
		method: 'POST',
		path: '/edits/{id}/analyze',
		scope: 'content.create',
		body: z.object({ transcribe: z.boolean().default(false) }),
		handler: ({ ws, params, body }) => {
			const e = edits(ws).get(params.id);
			const total = duration(e.timeline);
			const credits = body.transcribe ? minutes(e.timeline) * COSTS.transcribePerMinute : 0;
			chargeNow(ws, credits, `Transcription for the analysis of edit ${e.id}`);
			if (body.transcribe) e.transcribed = true;
			const scenes = [];
			for (let s = 0; s < total; s += 4)
				scenes.push({ start: s, end: Math.min(total, s + 4), score: 0.8 });
			e.analysis = {
				id: newId(),
				editId: e.id,
				version: e.version,
				metadata: { duration: total, width: 1920, height: 1080, fps: 30, hasAudio: true },
				silences: total > 2 ? [{ start: Math.max(0, total - 1), end: total }] : [],
				scenes,
				waveform: Array.from(
					{ length: 32 },
					(_, i) => Math.round(Math.abs(Math.sin(i)) * 100) / 100,
				),
				frames: scenes.map((s) => ({ time: s.start })),
				transcript: body.transcribe ? { language: 'en', cues: transcribe(e.timeline) } : null,
				credits,
				created_at: now(),
			};
			task(e, 'analyze', credits, { analysisId: e.analysis.id, transcribe: body.transcribe });
			touch(e);
			return json(e.analysis);
		},
	}),
	route({
		method: 'GET',
		path: '/edits/{id}/analysis',
		scope: 'content.read',
		handler: ({ ws, params }) => {
			const e = edits(ws).get(params.id);
			if (!e.analysis) throw notFound('Analysis of edit', e.id);
			return json(e.analysis);
		},
	}),
	route({
		method: 'POST',
		path: '/edits/{id}/ai/estimate',
		scope: 'content.create',
		body: obj(),
		handler: ({ ws, params }) => {
			const e = edits(ws).get(params.id);
			return json(aiEstimate(e));
		},
	}),
	route({
		method: 'POST',
		path: '/edits/{id}/ai',
		scope: 'content.create',
		body: z.object({ instruction: str(2000), baseVersion: version() }),
		handler: ({ ws, params, body }) => {
			const e = edits(ws).get(params.id);
			checkVersion('Edit', e.id, e.version, body.baseVersion);
			const est = aiEstimate(e);
			chargeNow(ws, est.credits, `AI edit of edit ${e.id}`);
			e.transcribed = true;
			const n = e.timeline.texts.length + 1;
			e.timeline.texts.push({
				id: `ai-${n}`,
				text: body.instruction.slice(0, 300),
				start: 0,
				end: Math.min(3600, Math.max(1, Math.ceil(duration(e.timeline)))),
				x: 0.5,
				y: 0.1,
				size: 64,
				color: '#ffffff',
				background: null,
				bold: true,
				align: 'center',
			});
			saveVersion(e, 'ai');
			const at = now();
			e.conversation.push(
				{
					id: newId(),
					role: 'user',
					content: body.instruction,
					baseVersion: body.baseVersion,
					version: null,
					credits: 0,
					created_at: at,
				},
				{
					id: newId(),
					role: 'assistant',
					content: `Added the text "${body.instruction.slice(0, 60)}" as ai-${n}.`,
					baseVersion: body.baseVersion,
					version: e.version,
					credits: est.credits,
					created_at: at,
				},
			);
			task(e, 'ai', est.credits, { version: e.version });
			return reply(ws, e);
		},
	}),
	route({
		method: 'GET',
		path: '/edits/{id}/ai',
		scope: 'content.read',
		handler: ({ ws, params }) => {
			const e = edits(ws).get(params.id);
			return json({ data: e.conversation, nextCursor: null });
		},
	}),
	route({
		method: 'GET',
		path: '/edits/{id}/versions',
		scope: 'content.read',
		handler: ({ ws, params }) => {
			const e = edits(ws).get(params.id);
			const data = [...e.versions].reverse().map((v) => ({
				version: v.version,
				name: v.name,
				label: v.label,
				preset: v.preset,
				reason: v.reason,
				current: v.version === e.version,
				created_at: v.created_at,
			}));
			return json({ data, nextCursor: null });
		},
	}),
	route({
		method: 'POST',
		path: '/edits/{id}/versions/{number}/restore',
		scope: 'content.create',
		body: z.object({ baseVersion: version() }),
		handler: ({ ws, params, body }) => {
			const e = edits(ws).get(params.id);
			const saved = /^\d+$/.test(params.number)
				? e.versions.find((v) => v.version === Number(params.number))
				: undefined;
			if (!saved) throw notFound(`Version of edit ${e.id}`, params.number);
			checkVersion('Edit', e.id, e.version, body.baseVersion);
			e.timeline = clone(saved.timeline);
			e.name = saved.name;
			e.label = saved.label;
			e.preset = saved.preset;
			saveVersion(e, `restore ${saved.version}`);
			return reply(ws, e);
		},
	}),
	route({
		method: 'POST',
		path: '/edits/{id}/dub',
		scope: 'content.create',
		body: z.object({ language: z.string(), watermark: z.boolean().optional() }),
		handler: ({ app, ws, params, body }) => {
			const e = edits(ws).get(params.id);
			const g = app.jobs.create(
				ws,
				{
					modelId: 'voiceprovider-dub',
					mode: 'dub',
					tool: 'editor',
					title: `${e.name} (${body.language})`.slice(0, 200),
					params: {
						duration: Math.max(1, Math.ceil(duration(e.timeline))),
						language: body.language,
						watermark: body.watermark ?? false,
					},
					inputs: [
						{ slot: 'source', assetIds: [e.sourceAssetId].filter((id) => ws.assets.find(id)) },
					],
					projectId: e.projectId && ws.projects.find(e.projectId) ? e.projectId : undefined,
					context: { editId: e.id, language: body.language },
				},
				null,
			);
			const v = variation(ws, e, `Dub ${body.language}`, clone(e.timeline), 'dub started');
			v.dubGenerationId = g.id;
			g.context = { ...g.context, variationEditId: v.id };
			task(e, 'dub', 0, { generationId: g.id, editId: v.id, language: body.language });
			return json(generationView(g), 201);
		},
	}),

	// ------------------------------------------------------------------ Effects
	route({
		method: 'GET',
		path: '/effects/collections',
		scope: 'content.read',
		query: z.object(pageQuery),
		handler: ({ ws, query }) =>
			json(paginate(editorStore(ws).effectCollections.all(), query, effectCollectionView)),
	}),
	route({
		method: 'POST',
		path: '/effects/collections',
		scope: 'content.create',
		body: z.object({ name: str(60) }),
		handler: ({ ws, body }) => {
			const c = editorStore(ws).effectCollections.put({ ...recBase(), name: body.name, items: [] });
			return json(effectCollectionView(c), 201);
		},
	}),
	route({
		method: 'DELETE',
		path: '/effects/collections/{id}',
		scope: 'content.create',
		handler: ({ ws, params }) => {
			const store = editorStore(ws).effectCollections;
			const c = store.get(params.id);
			store.delete(c.id);
			return json({ id: c.id, deleted: true });
		},
	}),
	route({
		method: 'POST',
		path: '/effects/collections/{id}/items',
		scope: 'content.create',
		body: z.object({ effectId: str(60), on: z.boolean() }),
		handler: ({ ws, params, body }) => {
			const c = editorStore(ws).effectCollections.get(params.id);
			c.items = c.items.filter((i) => i.effectId !== body.effectId);
			if (body.on) c.items.push({ effectId: body.effectId, on: true });
			touch(c);
			return json(effectCollectionView(c));
		},
	}),
	route({
		method: 'POST',
		path: '/effects/{id}/estimate',
		scope: 'content.create',
		body: effectBody,
		handler: ({ app, ws, params, body }) =>
			json(app.jobs.validate(ws, effectInput(params.id, body))),
	}),
	route({
		method: 'POST',
		path: '/effects/{id}/run',
		scope: 'content.create',
		body: effectBody,
		idempotent: true,
		handler: ({ app, ws, params, body, idempotencyKey }) =>
			json(generationView(app.jobs.create(ws, effectInput(params.id, body), idempotencyKey)), 201),
	}),

	// ------------------------------------------------------------------ Audio mixes
	route({
		method: 'GET',
		path: '/audio/mixes',
		scope: 'content.read',
		query: z.object(pageQuery),
		handler: ({ ws, query }) => json(paginate(mixes(ws).all(), query, mixView)),
	}),
	route({
		method: 'POST',
		path: '/audio/mixes',
		scope: 'content.create',
		body: z.object({ name: str(120), assetIds: z.array(uuid()).optional() }),
		handler: ({ ws, body }) => {
			const assets = ws.assets.requireAll(body.assetIds ?? []);
			const m = mixes(ws).put({
				...recBase(),
				name: body.name,
				version: 1,
				tracks: assets.map((a, i) => ({
					id: `track-${i + 1}`,
					assetId: a.id,
					start: 0,
					in: 0,
					out: 30,
					volume: 1,
					fadeIn: 0,
					fadeOut: 0,
					muted: false,
				})),
				exports: [],
			});
			return json(mixView(m), 201);
		},
	}),
	route({
		method: 'GET',
		path: '/audio/mixes/{id}',
		scope: 'content.read',
		handler: ({ ws, params }) => json(mixView(mixes(ws).get(params.id))),
	}),
	route({
		method: 'PUT',
		path: '/audio/mixes/{id}',
		scope: 'content.create',
		body: z.object({
			name: str(120).optional(),
			tracks: z.array(mixTrack).optional(),
			version: version(),
		}),
		handler: ({ ws, params, body }) => {
			const m = mixes(ws).get(params.id);
			if (body.tracks) ws.assets.requireAll([...new Set(body.tracks.map((t) => t.assetId))]);
			checkVersion('Audio mix', m.id, m.version, body.version);
			if (body.name !== undefined) m.name = body.name;
			if (body.tracks) m.tracks = body.tracks;
			m.version += 1;
			touch(m);
			return json(mixView(m));
		},
	}),
	route({
		method: 'DELETE',
		path: '/audio/mixes/{id}',
		scope: 'content.delete',
		handler: ({ ws, params }) => {
			const m = mixes(ws).get(params.id);
			mixes(ws).delete(m.id);
			return json({ id: m.id, deleted: true });
		},
	}),
	route({
		method: 'POST',
		path: '/audio/mixes/{id}/export',
		scope: 'content.create',
		body: z.object({ format: oneOf(['mp3', 'wav', 'm4a'] as const).default('mp3') }),
		handler: ({ app, ws, params, body }) => {
			const m = mixes(ws).get(params.id);
			const audible = m.tracks.filter((t) => !t.muted);
			if (!audible.length) throw conflict(`Audio mix ${m.id} has no audible tracks to export`);
			const seconds = Math.max(...audible.map((t) => t.start + Math.max(0, t.out - t.in)));
			const x = startExport(app, ws, m.exports, {
				kind: 'audio',
				sourceId: m.id,
				title: m.name,
				projectId: null,
				seconds,
				output: body.format,
				settings: { format: body.format },
			});
			touch(m);
			return json(exportView(x), 202);
		},
	}),
];

/** Credits of the next AI instruction: planning, plus transcription the first time. */
function aiEstimate(e: EditRec) {
	const breakdown = [{ item: 'planning', credits: COSTS.aiPlanning }];
	if (!e.transcribed) {
		const m = minutes(e.timeline);
		breakdown.push({ item: `transcription ${m} min`, credits: m * COSTS.transcribePerMinute });
	}
	return { credits: breakdown.reduce((s, b) => s + b.credits, 0), breakdown };
}
