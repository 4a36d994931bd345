/**
 * Cinema projects (doc 3, "Cinema projects"): records kept per workspace in this module (not in
 * ../state.ts), and their response shapes. A new Workspace object on reset means a fresh store.
 */
import type { AssetRec, GenerationRec, Rec, Workspace } from '../state';
import { Store } from '../state';

export const ASPECT_RATIOS = ['16:9', '9:16', '1:1', '4:3', '21:9'] as const;
export type AspectRatio = (typeof ASPECT_RATIOS)[number];

export interface Continuity {
	characters: string[];
	locations: { id: string; name: string; description: string; assetIds: string[] }[];
	props: { id: string; name: string; description: string; assetIds: string[] }[];
	styleRefs: string[];
	wardrobe: string;
}

export interface Camera {
	shotSize?: string;
	angle?: string;
	focalLength?: number;
	lens?: string;
	dof?: string;
	aperture?: string;
	movement?: string;
	intensity?: string;
	focusTarget?: string;
}

/** A proposed shot or scene: the fields of the add bodies. */
export interface ProposedShot {
	title: string;
	action: string;
	dialogue: string;
	camera: Camera;
	lighting: string;
	duration: number;
	characters: string[];
	props: string[];
}
export interface ProposedScene {
	title: string;
	description: string;
	mood: string;
	lighting: string;
	locationId: string | null;
	characters: string[];
	props: string[];
	shots: ProposedShot[];
}
export interface Proposal {
	id: string;
	brief: string;
	status: 'proposed';
	storyboardModelId: string;
	videoModelId: string;
	totalSeconds: number;
	scenes: ProposedScene[];
	created_at: string;
}

export interface CinemaProjectRec extends Rec {
	name: string;
	logline: string;
	style: string;
	aspectRatio: AspectRatio;
	storyboardModelId: string | null;
	videoModelId: string | null;
	continuity: Continuity;
	sceneIds: string[];
	proposal: Proposal | null;
}

export interface SceneRec extends Rec {
	projectId: string;
	title: string;
	locationId: string | null;
	description: string;
	mood: string;
	lighting: string;
	characters: string[];
	props: string[];
	shotIds: string[];
}

/** Where a shot's storyboard frame or clip comes from: set by hand, or the latest generation. */
export type MediaSource = { assetId: string } | { generationId: string } | null;

export interface ShotRec extends Rec {
	sceneId: string;
	title: string;
	action: string;
	dialogue: string;
	camera: Camera;
	lighting: string | null;
	duration: number;
	characters: string[];
	props: string[];
	promptOverride: string | null;
	videoModelId: string | null;
	frame: MediaSource;
	video: MediaSource;
}

export class CinemaStore {
	readonly projects = new Store<CinemaProjectRec>('Cinema project');
	readonly scenes = new Store<SceneRec>('Scene');
	readonly shots = new Store<ShotRec>('Shot');
}

const stores = new WeakMap<Workspace, CinemaStore>();

export function cinemaOf(ws: Workspace): CinemaStore {
	let s = stores.get(ws);
	if (!s) {
		s = new CinemaStore();
		stores.set(ws, s);
	}
	return s;
}

export const emptyContinuity = (): Continuity => ({
	characters: [],
	locations: [],
	props: [],
	styleRefs: [],
	wardrobe: '',
});

/** The shots of a project in order (scene order, then shot order). */
export function projectShots(c: CinemaStore, p: CinemaProjectRec): ShotRec[] {
	return p.sceneIds.flatMap((sid) => c.scenes.get(sid).shotIds.map((id) => c.shots.get(id)));
}

/** The asset a media source resolves to now (a generation only once it completed). */
export function resolveMedia(
	ws: Workspace,
	src: MediaSource,
): { assetId: string | null; generationId: string | null; status: string | null } {
	if (!src) return { assetId: null, generationId: null, status: null };
	if ('assetId' in src) {
		const a: AssetRec | undefined = ws.assets.find(src.assetId);
		return { assetId: a ? a.id : null, generationId: null, status: a ? 'ready' : null };
	}
	const g: GenerationRec | undefined = ws.generations.find(src.generationId);
	if (!g) return { assetId: null, generationId: src.generationId, status: null };
	const out = g.status === 'completed' ? g.outputs[0]?.asset_id : undefined;
	const asset = out && ws.assets.find(out) ? out : null;
	return {
		assetId: asset,
		generationId: g.id,
		status: g.status === 'completed' ? (asset ? 'ready' : null) : g.status,
	};
}

// ---------------------------------------------------------------------------------------------
// Views

export const shotView = (ws: Workspace, c: CinemaStore) => (s: ShotRec) => {
	const scene = c.scenes.get(s.sceneId);
	const frame = resolveMedia(ws, s.frame);
	const video = resolveMedia(ws, s.video);
	return {
		id: s.id,
		sceneId: s.sceneId,
		projectId: scene.projectId,
		position: scene.shotIds.indexOf(s.id),
		title: s.title,
		action: s.action,
		dialogue: s.dialogue,
		camera: s.camera,
		lighting: s.lighting,
		duration: s.duration,
		characters: s.characters,
		props: s.props,
		promptOverride: s.promptOverride,
		videoModelId: s.videoModelId,
		frameAssetId: frame.assetId,
		frameGenerationId: frame.generationId,
		frameStatus: frame.status,
		videoAssetId: video.assetId,
		videoGenerationId: video.generationId,
		videoStatus: video.status,
		created_at: s.created_at,
		updated_at: s.updated_at,
	};
};

export const sceneView = (ws: Workspace, c: CinemaStore) => (s: SceneRec) => {
	const p = c.projects.get(s.projectId);
	return {
		id: s.id,
		projectId: s.projectId,
		position: p.sceneIds.indexOf(s.id),
		title: s.title,
		locationId: s.locationId,
		description: s.description,
		mood: s.mood,
		lighting: s.lighting,
		characters: s.characters,
		props: s.props,
		shots: s.shotIds.map((id) => shotView(ws, c)(c.shots.get(id))),
		created_at: s.created_at,
		updated_at: s.updated_at,
	};
};

const counts = (c: CinemaStore, p: CinemaProjectRec) => {
	const shots = projectShots(c, p);
	return {
		sceneCount: p.sceneIds.length,
		shotCount: shots.length,
		totalSeconds: shots.reduce((n, s) => n + s.duration, 0),
	};
};

/** List entry: the project without its scenes. */
export const projectSummary = (c: CinemaStore) => (p: CinemaProjectRec) => ({
	id: p.id,
	name: p.name,
	logline: p.logline,
	style: p.style,
	aspectRatio: p.aspectRatio,
	storyboardModelId: p.storyboardModelId,
	videoModelId: p.videoModelId,
	...counts(c, p),
	hasProposal: p.proposal !== null,
	created_at: p.created_at,
	updated_at: p.updated_at,
});

/** GET /cinema/{id}: the project with scenes, shots, continuity and the pending proposal. */
export const projectView = (ws: Workspace, c: CinemaStore) => (p: CinemaProjectRec) => ({
	id: p.id,
	name: p.name,
	logline: p.logline,
	style: p.style,
	aspectRatio: p.aspectRatio,
	storyboardModelId: p.storyboardModelId,
	videoModelId: p.videoModelId,
	continuity: p.continuity,
	...counts(c, p),
	scenes: p.sceneIds.map((id) => sceneView(ws, c)(c.scenes.get(id))),
	proposal: p.proposal,
	created_at: p.created_at,
	updated_at: p.updated_at,
});
