/**
 * MediaGen 3D (doc 3, "3D scenes"): scenes saved with optimistic versions, renders registered from
 * uploaded assets, and the AI scene assistant (prompt → validated objects, nothing saved).
 * Records are kept per workspace in this module.
 */
import { conflict, json, validationError } from '../http';
import { paginate } from '../pagination';
import { route } from '../route';
import type { AssetRec, Rec, Workspace } from '../state';
import { newId, now, recBase, Store, touch } from '../state';
import { int, obj, oneOf, pageQuery, str, uuid, z } from '../validation';
import { assetView } from '../views';

const MAX_SAFE = 9007199254740991;

export const DEFAULT_SETTINGS = { background: '#0b0f17', grid: true, shadows: true, fog: false };
export const DEFAULT_ANIMATION = { duration: 5, fps: 24, keys: [] as Record<string, unknown>[] };

/** The scene object of the spec. */
const sceneObject = z.object({
	objects: z.array(obj()),
	settings: z
		.object({
			background: z.string().optional(),
			grid: z.boolean().optional(),
			shadows: z.boolean().optional(),
			fog: z.boolean().optional(),
		})
		.optional(),
	animation: z
		.object({
			duration: z.number().min(1).max(60).default(5),
			fps: int(12, 60).default(24),
			keys: z.array(obj()).default([]),
		})
		.optional(),
});

type SceneInput = z.output<typeof sceneObject>;

export interface Scene {
	objects: Record<string, unknown>[];
	settings: { background: string; grid: boolean; shadows: boolean; fog: boolean };
	animation: { duration: number; fps: number; keys: Record<string, unknown>[] };
}

interface RenderRec {
	id: string;
	assetId: string;
	kind: 'image' | 'animation' | 'glb';
	created_at: string;
}

interface Scene3dRec extends Rec {
	name: string;
	projectId: string | null;
	scene: Scene;
	version: number;
	renders: RenderRec[];
}

const stores = new WeakMap<Workspace, Store<Scene3dRec>>();
function scenes(ws: Workspace): Store<Scene3dRec> {
	let s = stores.get(ws);
	if (!s) {
		s = new Store<Scene3dRec>('3D scene');
		stores.set(ws, s);
	}
	return s;
}

/** Defaults of the spec filled in; given settings override the default settings one by one. */
function normalize(input: SceneInput | undefined): Scene {
	const settings = { ...DEFAULT_SETTINGS };
	for (const [k, v] of Object.entries(input?.settings ?? {}))
		if (v !== undefined) Object.assign(settings, { [k]: v });
	return {
		objects: input?.objects ?? [],
		settings,
		animation: input?.animation ?? { ...DEFAULT_ANIMATION, keys: [] },
	};
}

/** Asset ids referenced anywhere in the objects: values of keys named `assetId` / `…AssetId(s)`. */
function referencedAssetIds(value: unknown, out = new Set<string>(), key = ''): Set<string> {
	if (Array.isArray(value)) for (const v of value) referencedAssetIds(v, out, key);
	else if (value && typeof value === 'object')
		for (const [k, v] of Object.entries(value)) referencedAssetIds(v, out, k);
	else if (typeof value === 'string' && /assetids?$/i.test(key)) out.add(value);
	return out;
}

const summary = (s: Scene3dRec) => ({
	id: s.id,
	name: s.name,
	projectId: s.projectId,
	version: s.version,
	objectCount: s.scene.objects.length,
	renderCount: s.renders.length,
	created_at: s.created_at,
	updated_at: s.updated_at,
});

/** GET /3d/scenes/{id}: the scene with the files it references (object assets and renders). */
const fullView = (ws: Workspace) => (s: Scene3dRec) => {
	const ids = referencedAssetIds(s.scene.objects);
	for (const r of s.renders) ids.add(r.assetId);
	const files = [...ids]
		.map((id) => ws.assets.find(id))
		.filter((a): a is AssetRec => !!a)
		.map(assetView);
	return {
		id: s.id,
		name: s.name,
		projectId: s.projectId,
		version: s.version,
		scene: s.scene,
		renders: s.renders,
		files,
		created_at: s.created_at,
		updated_at: s.updated_at,
	};
};

// ---------------------------------------------------------------------------------------------
// AI scene: a deterministic reading of the prompt

const SHAPES: Array<[RegExp, string]> = [
	[/^(cubes?|box(es)?|crates?|blocks?)$/, 'box'],
	[/^(spheres?|balls?|planets?|orbs?|moons?)$/, 'sphere'],
	[/^(cylinders?|pillars?|columns?|cans?|towers?)$/, 'cylinder'],
	[/^(cones?|pyramids?|trees?)$/, 'cone'],
	[/^(torus|toruses|donuts?|rings?)$/, 'torus'],
	[/^(planes?|floors?|ground|grounds|tables?)$/, 'plane'],
	[/^(lights?|lamps?|suns?)$/, 'light'],
	[/^(texts?|titles?|signs?)$/, 'text'],
];
const COLOURS: Record<string, string> = {
	red: '#e53935',
	green: '#43a047',
	blue: '#1e88e5',
	yellow: '#fdd835',
	orange: '#fb8c00',
	purple: '#8e24aa',
	pink: '#d81b60',
	white: '#ffffff',
	black: '#111111',
	grey: '#9e9e9e',
	gray: '#9e9e9e',
	gold: '#d4af37',
	silver: '#c0c0c0',
};
const NUMBERS: Record<string, number> = {
	a: 1,
	an: 1,
	one: 1,
	two: 2,
	three: 3,
	four: 4,
	five: 5,
	six: 6,
	seven: 7,
	eight: 8,
};

export function aiScene(prompt: string, existing: string[]): Record<string, unknown>[] {
	const words = prompt.toLowerCase().match(/[a-z]+|\d+/g) ?? [];
	const taken = new Set(existing);
	const objects: Record<string, unknown>[] = [];
	const idFor = (type: string) => {
		let n = 1;
		while (taken.has(`${type}-${n}`)) n++;
		taken.add(`${type}-${n}`);
		return `${type}-${n}`;
	};
	for (let i = 0; i < words.length; i++) {
		const type = SHAPES.find(([re]) => re.test(words[i]))?.[1];
		if (!type) continue;
		let count = 1;
		let colour = '#b0bec5';
		for (const w of words.slice(Math.max(0, i - 3), i)) {
			if (COLOURS[w]) colour = COLOURS[w];
			const n = /^\d+$/.test(w) ? Number(w) : NUMBERS[w];
			if (n) count = Math.min(8, Math.max(1, n));
		}
		for (let k = 0; k < count && objects.length < 50; k++) {
			const index = objects.length;
			const base = {
				id: idFor(type),
				name: `${words[i].replace(/e?s$/, '') || type} ${k + 1}`,
				type,
				position:
					type === 'plane' ? [0, 0, 0] : [(index % 5) * 1.5 - 3, 0.5, -Math.floor(index / 5) * 1.5],
				rotation: [type === 'plane' ? -90 : 0, 0, 0],
				scale: type === 'plane' ? [10, 10, 1] : [1, 1, 1],
				color: colour,
			};
			objects.push(
				type === 'light'
					? { ...base, position: [2, 5, 3], intensity: 1.2, castShadow: true }
					: type === 'text'
						? { ...base, text: prompt.slice(0, 40) }
						: base,
			);
		}
	}
	if (!objects.length)
		objects.push({
			id: idFor('box'),
			name: prompt.slice(0, 40) || 'object',
			type: 'box',
			position: [0, 0.5, 0],
			rotation: [0, 0, 0],
			scale: [1, 1, 1],
			color: '#b0bec5',
		});
	return objects;
}

/** Which asset kinds a render kind accepts. */
const RENDER_KINDS: Record<RenderRec['kind'], AssetRec['kind'][]> = {
	image: ['image'],
	animation: ['video', 'image'],
	glb: ['model3d'],
};

// ---------------------------------------------------------------------------------------------
// Routes

export const scene3dRoutes = [
	route({
		method: 'POST',
		path: '/3d/ai/scene',
		scope: 'content.create',
		body: z.object({ prompt: str(2000), existing: z.array(z.string()).optional() }),
		handler: ({ body }) => {
			const objects = aiScene(body.prompt, body.existing ?? []);
			return json({ prompt: body.prompt, objects, count: objects.length });
		},
	}),
	route({
		method: 'GET',
		path: '/3d/scenes',
		scope: 'content.read',
		query: z.object(pageQuery),
		handler: ({ ws, query }) => json(paginate(scenes(ws).all(), query, summary)),
	}),
	route({
		method: 'POST',
		path: '/3d/scenes',
		scope: 'content.create',
		body: z.object({ name: str(120), projectId: uuid().optional(), scene: sceneObject.optional() }),
		handler: ({ ws, body }) => {
			if (body.projectId) ws.projects.get(body.projectId);
			const s = scenes(ws).put({
				...recBase(),
				name: body.name,
				projectId: body.projectId ?? null,
				scene: normalize(body.scene),
				version: 1,
				renders: [],
			});
			return json(fullView(ws)(s), 201);
		},
	}),
	route({
		method: 'GET',
		path: '/3d/scenes/{id}',
		scope: 'content.read',
		handler: ({ ws, params }) => json(fullView(ws)(scenes(ws).get(params.id))),
	}),
	route({
		method: 'PUT',
		path: '/3d/scenes/{id}',
		scope: 'content.create',
		body: z.object({ scene: sceneObject, version: int(1, MAX_SAFE) }),
		handler: ({ ws, params, body }) => {
			const s = scenes(ws).get(params.id);
			if (body.version !== s.version)
				throw conflict(
					`Version ${body.version} is stale: the scene is at version ${s.version}; reload it and save again`,
					{ currentVersion: s.version },
					'version_conflict',
				);
			s.scene = normalize(body.scene);
			s.version++;
			touch(s);
			return json(fullView(ws)(s));
		},
	}),
	route({
		method: 'PATCH',
		path: '/3d/scenes/{id}',
		scope: 'content.create',
		body: z.object({ name: str(120).optional(), projectId: uuid().optional() }),
		handler: ({ ws, params, body }) => {
			const s = scenes(ws).get(params.id);
			if (body.projectId) ws.projects.get(body.projectId);
			if (body.name !== undefined) s.name = body.name;
			if (body.projectId !== undefined) s.projectId = body.projectId;
			touch(s);
			return json(fullView(ws)(s));
		},
	}),
	route({
		method: 'DELETE',
		path: '/3d/scenes/{id}',
		scope: 'content.delete',
		handler: ({ ws, params }) => {
			const s = scenes(ws).get(params.id);
			scenes(ws).delete(s.id);
			return json({ id: s.id, deleted: true });
		},
	}),
	route({
		method: 'POST',
		path: '/3d/scenes/{id}/duplicate',
		scope: 'content.create',
		handler: ({ ws, params }) => {
			const s = scenes(ws).get(params.id);
			const copy = scenes(ws).put({
				...recBase(),
				name: `${s.name} (copy)`.slice(0, 120),
				projectId: s.projectId,
				scene: JSON.parse(JSON.stringify(s.scene)) as Scene,
				version: 1,
				renders: [],
			});
			return json(fullView(ws)(copy), 201);
		},
	}),
	route({
		method: 'POST',
		path: '/3d/scenes/{id}/renders',
		scope: 'content.create',
		body: z.object({ assetId: uuid(), kind: oneOf(['image', 'animation', 'glb'] as const) }),
		handler: ({ ws, params, body }) => {
			const s = scenes(ws).get(params.id);
			const a = ws.assets.get(body.assetId);
			if (!RENDER_KINDS[body.kind].includes(a.kind))
				throw validationError([
					{
						path: 'assetId',
						message: `A ${body.kind} render must be a ${RENDER_KINDS[body.kind].join(' or ')} asset, got ${a.kind}`,
						code: 'invalid_asset_kind',
					},
				]);
			const r: RenderRec = { id: newId(), assetId: a.id, kind: body.kind, created_at: now() };
			s.renders.push(r);
			touch(s);
			return json({ ...r, sceneId: s.id, asset: assetView(a) }, 201);
		},
	}),
];
