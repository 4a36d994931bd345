/**
 * MediaGen Cinema (doc 3, "Cinema projects"): projects with continuity, scenes and shots, the
 * AI Director, storyboard and video generation (one generation per shot, through ../jobs.ts) and
 * the exports. Records live in ../cinema/store.ts.
 */
import { ApiError, conflict, json, notFound, validationError } from '../http';
import { createAsset } from '../library';
import { paginate } from '../pagination';
import { route } from '../route';
import type { GenerationInput } from '../jobs';
import type { Workspace } from '../state';
import { newId, recBase, touch } from '../state';
import { int, oneOf, pageQuery, str, uuid, z } from '../validation';
import { assetView, generationView } from '../views';
import type { EditRec } from '../editor/store';
import { editView } from '../editor/store';
import { newEdit } from './editor';
import { timelineSchema } from '../editor/timeline';
import { contactSheetPng } from '../cinema/contactSheet';
import { propose, STORYBOARD_MODEL, VIDEO_MODEL } from '../cinema/director';
import type {
	CinemaProjectRec,
	CinemaStore,
	ProposedScene,
	SceneRec,
	ShotRec,
} from '../cinema/store';
import {
	ASPECT_RATIOS,
	cinemaOf,
	emptyContinuity,
	projectShots,
	projectSummary,
	projectView,
	resolveMedia,
	sceneView,
	shotView,
} from '../cinema/store';

const MAX_SAFE = 9007199254740991;

// ---------------------------------------------------------------------------------------------
// Bodies, as in the spec

const camera = z.object({
	shotSize: str(30).optional(),
	angle: str(30).optional(),
	focalLength: int(8, 400).optional(),
	lens: str(30).optional(),
	dof: str(30).optional(),
	aperture: str(10).optional(),
	movement: str(30).optional(),
	intensity: str(20).optional(),
	focusTarget: str(120).optional(),
});

const shotAdd = z.object({
	title: str(120).default(''),
	action: str(2000).default(''),
	dialogue: str(1000).default(''),
	camera: camera.default({}),
	lighting: z.string().optional(),
	duration: int(2, 20).default(5),
	characters: z.array(uuid()).default([]),
	props: z.array(z.string()).default([]),
	promptOverride: z.string().optional(),
	videoModelId: z.string().optional(),
});

const shotEdit = z.object({
	title: str(120).optional(),
	action: str(2000).optional(),
	dialogue: str(1000).optional(),
	camera: camera.optional(),
	lighting: z.string().optional(),
	duration: int(2, 20).optional(),
	characters: z.array(uuid()).optional(),
	props: z.array(z.string()).optional(),
	promptOverride: z.string().optional(),
	videoModelId: z.string().optional(),
});

const continuityItem = (descriptionMax: number) =>
	z.object({
		id: str(40),
		name: str(80),
		description: str(descriptionMax).default(''),
		assetIds: z.array(uuid()).default([]),
	});

const continuity = z.object({
	characters: z.array(uuid()),
	locations: z.array(continuityItem(1000)),
	props: z.array(continuityItem(500)),
	styleRefs: z.array(uuid()),
	wardrobe: str(1000),
});

const generateBody = z.object({
	kind: oneOf(['storyboard', 'video'] as const),
	shotIds: z.array(uuid()).optional(),
});

// ---------------------------------------------------------------------------------------------
// Helpers

const store = (ws: Workspace) => cinemaOf(ws);

const replyProject = (ws: Workspace, p: CinemaProjectRec, status = 200) =>
	json(projectView(ws, store(ws))(p), status);

/** Removes a scene and its shots. */
function removeScene(c: CinemaStore, s: SceneRec): number {
	for (const id of s.shotIds) c.shots.delete(id);
	c.scenes.delete(s.id);
	const p = c.projects.find(s.projectId);
	if (p) {
		p.sceneIds = p.sceneIds.filter((id) => id !== s.id);
		touch(p);
	}
	return s.shotIds.length;
}

function addScene(
	c: CinemaStore,
	p: CinemaProjectRec,
	f: Omit<SceneRec, keyof ReturnType<typeof recBase> | 'projectId' | 'shotIds'>,
): SceneRec {
	const s = c.scenes.put({ ...recBase(), projectId: p.id, shotIds: [], ...f });
	p.sceneIds.push(s.id);
	touch(p);
	return s;
}

function addShot(c: CinemaStore, scene: SceneRec, f: z.output<typeof shotAdd>): ShotRec {
	const s = c.shots.put({
		...recBase(),
		sceneId: scene.id,
		title: f.title,
		action: f.action,
		dialogue: f.dialogue,
		camera: f.camera,
		lighting: f.lighting ?? null,
		duration: f.duration,
		characters: f.characters,
		props: f.props,
		promptOverride: f.promptOverride ?? null,
		videoModelId: f.videoModelId ?? null,
		frame: null,
		video: null,
	});
	scene.shotIds.push(s.id);
	touch(scene);
	return s;
}

function addProposedScene(c: CinemaStore, p: CinemaProjectRec, ps: ProposedScene): void {
	const scene = addScene(c, p, {
		title: ps.title,
		locationId: ps.locationId,
		description: ps.description,
		mood: ps.mood,
		lighting: ps.lighting,
		characters: ps.characters,
		props: ps.props,
	});
	for (const shot of ps.shots) addShot(c, scene, { ...shot, camera: { ...shot.camera } });
}

/** A shot's jobs are failed on purpose when its text carries this marker (sandbox only). */
export const FAIL_MARKER = 'sandbox:fail';

interface ShotJob {
	shot: ShotRec;
	input: GenerationInput;
}

/** The generation input of each selected shot; 404 (`details.ids`) for ids not in the project. */
function shotJobs(
	ws: Workspace,
	p: CinemaProjectRec,
	kind: 'storyboard' | 'video',
	shotIds: string[] | undefined,
	batchId: string,
): ShotJob[] {
	const c = store(ws);
	const all = projectShots(c, p);
	let shots = all;
	if (shotIds?.length) {
		const wanted = new Set(shotIds);
		const missing = [...wanted].filter((id) => !all.some((s) => s.id === id));
		if (missing.length) {
			const e = notFound('Shot', missing.join(', '));
			e.details.ids = missing;
			throw e;
		}
		shots = all.filter((s) => wanted.has(s.id));
	}
	return shots.map((shot) => {
		const scene = c.scenes.get(shot.sceneId);
		const number = all.indexOf(shot) + 1;
		const name = shot.title || `Shot ${number}`;
		const text = [p.style, scene.description, shot.action, shot.dialogue && `"${shot.dialogue}"`]
			.filter(Boolean)
			.join('. ');
		const prompt = shot.promptOverride ?? (text || `${p.name}, ${name}`);
		const fail = `${shot.promptOverride ?? ''} ${shot.action}`.includes(FAIL_MARKER);
		const frame = resolveMedia(ws, shot.frame).assetId;
		const input: GenerationInput = {
			tool: 'cinema',
			mode: kind === 'storyboard' ? 'storyboard-image' : 'shot-video',
			modelId:
				kind === 'storyboard'
					? (p.storyboardModelId ?? STORYBOARD_MODEL)
					: (shot.videoModelId ?? p.videoModelId ?? VIDEO_MODEL),
			prompt,
			params: {
				aspectRatio: p.aspectRatio,
				...(kind === 'video' ? { duration: shot.duration } : {}),
				...(fail ? { sandbox: { fail: `Simulated failure (${FAIL_MARKER} in the shot)` } } : {}),
			},
			inputs: kind === 'video' && frame ? [{ slot: 'startFrame', assetIds: [frame] }] : [],
			title: `${p.name}: ${name} (${kind})`.slice(0, 200),
			context: {
				batchId,
				cinemaProjectId: p.id,
				sceneId: scene.id,
				shotId: shot.id,
				kind,
			},
		};
		return { shot, input };
	});
}

const itemOf = (shot: ShotRec, kind: string) =>
	`${shot.title || `shot ${shot.id.slice(0, 8)}`}: ${kind === 'storyboard' ? 'storyboard frame' : `video ${shot.duration} s`}`;

interface Clip {
	assetId: string;
	kind: 'video' | 'image';
	seconds: number;
}

/**
 * A new editor project (edit) in the editor's own store, so that GET /edits/{id} and every edit
 * operation find it: the clips back to back, every other timeline field at its spec default.
 */
function sequenceEdit(ws: Workspace, p: CinemaProjectRec, clips: Clip[]): EditRec {
	return newEdit(
		ws,
		{
			name: `${p.name} (sequence)`.slice(0, 120),
			label: null,
			preset: null,
			sourceAssetId: clips[0].assetId,
			projectId: null,
			parentId: null,
			timeline: timelineSchema.parse({
				clips: clips.map((c, i) => ({
					id: `clip-${i + 1}`,
					assetId: c.assetId,
					kind: c.kind,
					in: 0,
					out: c.seconds,
				})),
			}),
		},
		'cinema sequence',
	);
}

const slug = (s: string) =>
	s
		.toLowerCase()
		.replace(/[^a-z0-9]+/g, '-')
		.replace(/^-|-$/g, '')
		.slice(0, 60) || 'cinema';

// ---------------------------------------------------------------------------------------------
// Routes

export const cinemaRoutes = [
	route({
		method: 'GET',
		path: '/cinema',
		scope: 'content.read',
		query: z.object(pageQuery),
		handler: ({ ws, query }) => {
			const c = store(ws);
			return json(paginate(c.projects.all(), query, projectSummary(c)));
		},
	}),
	route({
		method: 'POST',
		path: '/cinema',
		scope: 'content.create',
		body: z.object({
			name: str(120),
			logline: str(1000).default(''),
			style: str(500).default(''),
			aspectRatio: oneOf(ASPECT_RATIOS).default('16:9'),
		}),
		handler: ({ ws, body }) => {
			const p = store(ws).projects.put({
				...recBase(),
				name: body.name,
				logline: body.logline,
				style: body.style,
				aspectRatio: body.aspectRatio,
				storyboardModelId: null,
				videoModelId: null,
				continuity: emptyContinuity(),
				sceneIds: [],
				proposal: null,
			});
			return replyProject(ws, p, 201);
		},
	}),
	route({
		method: 'GET',
		path: '/cinema/{id}',
		scope: 'content.read',
		handler: ({ ws, params }) => replyProject(ws, store(ws).projects.get(params.id)),
	}),
	route({
		method: 'PATCH',
		path: '/cinema/{id}',
		scope: 'content.create',
		body: z.object({
			name: str(120).optional(),
			logline: str(1000).optional(),
			style: str(500).optional(),
			aspectRatio: oneOf(ASPECT_RATIOS).optional(),
			storyboardModelId: z.string().optional(),
			videoModelId: z.string().optional(),
			continuity: continuity.optional(),
		}),
		handler: ({ ws, params, body }) => {
			const p = store(ws).projects.get(params.id);
			if (body.continuity) {
				const k = body.continuity;
				ws.assets.requireAll([
					...new Set([
						...k.styleRefs,
						...k.locations.flatMap((l) => l.assetIds),
						...k.props.flatMap((x) => x.assetIds),
					]),
				]);
			}
			if (body.name !== undefined) p.name = body.name;
			if (body.logline !== undefined) p.logline = body.logline;
			if (body.style !== undefined) p.style = body.style;
			if (body.aspectRatio !== undefined) p.aspectRatio = body.aspectRatio;
			if (body.storyboardModelId !== undefined) p.storyboardModelId = body.storyboardModelId;
			if (body.videoModelId !== undefined) p.videoModelId = body.videoModelId;
			if (body.continuity !== undefined) p.continuity = body.continuity;
			touch(p);
			return replyProject(ws, p);
		},
	}),
	route({
		method: 'DELETE',
		path: '/cinema/{id}',
		scope: 'content.delete',
		handler: ({ ws, params }) => {
			const c = store(ws);
			const p = c.projects.get(params.id);
			for (const id of [...p.sceneIds]) removeScene(c, c.scenes.get(id));
			c.projects.delete(p.id);
			return json({ id: p.id, deleted: true });
		},
	}),
	route({
		method: 'POST',
		path: '/cinema/{id}/scenes',
		scope: 'content.create',
		body: z.object({
			title: str(120),
			locationId: z.string().optional(),
			description: str(2000).default(''),
			mood: str(200).default(''),
			lighting: str(40).default('natural'),
			characters: z.array(uuid()).default([]),
			props: z.array(z.string()).default([]),
		}),
		handler: ({ ws, params, body }) => {
			const c = store(ws);
			const p = c.projects.get(params.id);
			const s = addScene(c, p, { ...body, locationId: body.locationId ?? null });
			return json(sceneView(ws, c)(s), 201);
		},
	}),
	route({
		method: 'PATCH',
		path: '/cinema/scenes/{id}',
		scope: 'content.create',
		body: z.object({
			title: str(120).optional(),
			locationId: z.string().optional(),
			description: str(2000).optional(),
			mood: str(200).optional(),
			lighting: str(40).optional(),
			characters: z.array(uuid()).optional(),
			props: z.array(z.string()).optional(),
		}),
		handler: ({ ws, params, body }) => {
			const c = store(ws);
			const s = c.scenes.get(params.id);
			for (const [k, v] of Object.entries(body)) {
				if (v !== undefined) (s as unknown as Record<string, unknown>)[k] = v;
			}
			touch(s);
			return json(sceneView(ws, c)(s));
		},
	}),
	route({
		method: 'DELETE',
		path: '/cinema/scenes/{id}',
		scope: 'content.create',
		handler: ({ ws, params }) => {
			const c = store(ws);
			const s = c.scenes.get(params.id);
			const shotsDeleted = removeScene(c, s);
			return json({ id: s.id, deleted: true, shotsDeleted });
		},
	}),
	route({
		method: 'POST',
		path: '/cinema/scenes/{id}/shots',
		scope: 'content.create',
		body: shotAdd,
		handler: ({ ws, params, body }) => {
			const c = store(ws);
			const shot = addShot(c, c.scenes.get(params.id), body);
			return json(shotView(ws, c)(shot), 201);
		},
	}),
	route({
		method: 'PATCH',
		path: '/cinema/shots/{id}',
		scope: 'content.create',
		body: shotEdit,
		handler: ({ ws, params, body }) => {
			const c = store(ws);
			const s = c.shots.get(params.id);
			for (const [k, v] of Object.entries(body)) {
				if (v !== undefined) (s as unknown as Record<string, unknown>)[k] = v;
			}
			touch(s);
			return json(shotView(ws, c)(s));
		},
	}),
	route({
		method: 'DELETE',
		path: '/cinema/shots/{id}',
		scope: 'content.create',
		handler: ({ ws, params }) => {
			const c = store(ws);
			const s = c.shots.get(params.id);
			const scene = c.scenes.get(s.sceneId);
			scene.shotIds = scene.shotIds.filter((id) => id !== s.id);
			touch(scene);
			c.shots.delete(s.id);
			return json({ id: s.id, deleted: true });
		},
	}),
	route({
		method: 'POST',
		path: '/cinema/shots/{id}/move',
		scope: 'content.create',
		body: z.object({ sceneId: uuid(), position: int(0, MAX_SAFE) }),
		handler: ({ ws, params, body }) => {
			const c = store(ws);
			const s = c.shots.get(params.id);
			const from = c.scenes.get(s.sceneId);
			const to = c.scenes.get(body.sceneId);
			if (to.projectId !== from.projectId)
				throw conflict('A shot can only move to a scene of its own cinema project', {
					projectId: from.projectId,
					sceneProjectId: to.projectId,
				});
			from.shotIds = from.shotIds.filter((id) => id !== s.id);
			to.shotIds.splice(Math.min(body.position, to.shotIds.length), 0, s.id);
			s.sceneId = to.id;
			touch(from);
			touch(to);
			touch(s);
			return json(shotView(ws, c)(s));
		},
	}),
	route({
		method: 'POST',
		path: '/cinema/shots/{id}/frame',
		scope: 'content.create',
		body: z.object({ assetId: uuid() }),
		handler: ({ ws, params, body }) => {
			const c = store(ws);
			const s = c.shots.get(params.id);
			const a = ws.assets.get(body.assetId);
			if (a.kind !== 'image')
				throw validationError([
					{
						path: 'assetId',
						message: `The storyboard frame must be an image asset, got ${a.kind}`,
						code: 'invalid_asset_kind',
					},
				]);
			s.frame = { assetId: a.id };
			touch(s);
			return json(shotView(ws, c)(s));
		},
	}),
	route({
		method: 'POST',
		path: '/cinema/{id}/estimate',
		scope: 'content.create',
		body: generateBody,
		handler: ({ app, ws, params, body }) => {
			const p = store(ws).projects.get(params.id);
			const jobs = shotJobs(ws, p, body.kind, body.shotIds, newId());
			const breakdown = jobs.map(({ shot, input }) => ({
				item: itemOf(shot, body.kind),
				credits: app.jobs.validate(ws, input).credits,
			}));
			return json({ credits: breakdown.reduce((n, b) => n + b.credits, 0), breakdown });
		},
	}),
	route({
		method: 'POST',
		path: '/cinema/{id}/generate',
		scope: 'content.create',
		body: generateBody,
		handler: ({ app, ws, params, body }) => {
			const p = store(ws).projects.get(params.id);
			const batchId = newId();
			const jobs = shotJobs(ws, p, body.kind, body.shotIds, batchId);
			if (!jobs.length) throw conflict('The cinema project has no shots to generate');
			const required = jobs.reduce((n, j) => n + app.jobs.validate(ws, j.input).credits, 0);
			if (required > ws.balance)
				throw new ApiError(
					402,
					'insufficient_credits',
					`Not enough credits: ${required} required, ${ws.balance} available`,
					{ balance: ws.balance, required },
				);
			const data = jobs.map(({ shot, input }) => {
				const g = app.jobs.create(ws, input, null);
				if (body.kind === 'storyboard') shot.frame = { generationId: g.id };
				else shot.video = { generationId: g.id };
				touch(shot);
				return generationView(g);
			});
			return json({ batchId, data, nextCursor: null }, 201);
		},
	}),
	route({
		method: 'POST',
		path: '/cinema/{id}/director',
		scope: 'content.create',
		body: z.object({
			brief: str(4000),
			scenes: int(1, 8).optional(),
			shotsPerScene: int(1, 8).optional(),
			totalSeconds: int(5, 600).optional(),
		}),
		handler: ({ ws, params, body }) => {
			const p = store(ws).projects.get(params.id);
			p.proposal = propose(p, body);
			touch(p);
			return json({ ...p.proposal, projectId: p.id });
		},
	}),
	route({
		method: 'DELETE',
		path: '/cinema/{id}/director',
		scope: 'content.create',
		handler: ({ ws, params }) => {
			const p = store(ws).projects.get(params.id);
			if (!p.proposal) throw notFound('Director proposal of cinema project', p.id);
			const id = p.proposal.id;
			p.proposal = null;
			touch(p);
			return json({ id, deleted: true });
		},
	}),
	route({
		method: 'POST',
		path: '/cinema/{id}/director/apply',
		scope: 'content.create',
		body: z.object({ mode: oneOf(['replace', 'append'] as const).default('append') }),
		handler: ({ ws, params, body }) => {
			const c = store(ws);
			const p = c.projects.get(params.id);
			const proposal = p.proposal;
			if (!proposal)
				throw conflict('There is no director proposal to apply: propose one first', {
					projectId: p.id,
				});
			if (body.mode === 'replace') {
				for (const id of [...p.sceneIds]) removeScene(c, c.scenes.get(id));
				p.storyboardModelId = proposal.storyboardModelId;
				p.videoModelId = proposal.videoModelId;
			} else {
				p.storyboardModelId ??= proposal.storyboardModelId;
				p.videoModelId ??= proposal.videoModelId;
			}
			for (const ps of proposal.scenes) addProposedScene(c, p, ps);
			p.proposal = null;
			touch(p);
			return replyProject(ws, p);
		},
	}),
	route({
		method: 'POST',
		path: '/cinema/{id}/export/sequence',
		scope: 'content.create',
		handler: ({ ws, params }) => {
			const c = store(ws);
			const p = c.projects.get(params.id);
			const clips = projectShots(c, p).flatMap((s): Clip[] => {
				const video = resolveMedia(ws, s.video).assetId;
				if (video) return [{ assetId: video, kind: 'video', seconds: s.duration }];
				const frame = resolveMedia(ws, s.frame).assetId;
				if (frame) return [{ assetId: frame, kind: 'image', seconds: s.duration }];
				return [];
			});
			if (!clips.length)
				throw conflict(
					'No shot has a clip or a storyboard frame yet: generate or set them before exporting the sequence',
					{ projectId: p.id },
				);
			return json(editView(ws)(sequenceEdit(ws, p, clips)), 201);
		},
	}),
	route({
		method: 'POST',
		path: '/cinema/{id}/export/storyboard',
		scope: 'content.create',
		handler: ({ ws, params }) => {
			const c = store(ws);
			const p = c.projects.get(params.id);
			const shots = projectShots(c, p);
			if (!shots.length)
				throw conflict('The cinema project has no shots: add shots before exporting a storyboard', {
					projectId: p.id,
				});
			const sheet = contactSheetPng(shots.map((s) => resolveMedia(ws, s.frame).assetId));
			const filename = `${slug(p.name)}-storyboard.png`;
			const asset = createAsset(ws, {
				filename,
				mimeType: 'image/png',
				size: sheet.data.length,
				blob: { type: 'buffer', data: sheet.data },
				source: 'export',
				title: `${p.name} storyboard`.slice(0, 200),
				kind: 'image',
			});
			return json(assetView(asset), 201);
		},
	}),
	route({
		method: 'GET',
		path: '/cinema/{id}/export/metadata',
		scope: 'content.read',
		handler: ({ ws, params }) => {
			const c = store(ws);
			const p = c.projects.get(params.id);
			const view: Partial<ReturnType<ReturnType<typeof projectView>>> = projectView(ws, c)(p);
			delete view.proposal;
			return json({ ...view, exported_at: new Date().toISOString() });
		},
	}),
];
