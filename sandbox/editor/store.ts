/**
 * Editor state per workspace (edits, effect collections, audio mixes), kept out of state.ts in a
 * WeakMap keyed by the workspace: a reset makes new workspaces, so everything here goes with it.
 * Also the export engine: renders and audio exports as scaled jobs that end in a real asset and an
 * `export.completed` / `export.failed` event.
 */
import type { App } from '../app';
import { ApiError, conflict } from '../http';
import { createAsset } from '../library';
import { generateMedia, makeMp3 } from '../media';
import { now, recBase, Store, touch, type Rec, type Workspace } from '../state';
import { assetView } from '../views';
import { clone, duration, referencedAssets, type Timeline } from './timeline';

export interface ExportRec {
	id: string;
	status: 'queued' | 'running' | 'completed' | 'failed';
	kind: 'edit' | 'audio';
	sourceId: string;
	assetId: string | null;
	error: { code: string; message: string } | null;
	created_at: string;
	completed_at: string | null;
	/** Edit renders: preset, still, options; audio exports: format. */
	settings: Record<string, unknown>;
	/** Asset kind of the file it makes. */
	outputKind: 'video' | 'image' | 'audio';
}

export interface SavedVersion {
	version: number;
	name: string;
	label: string | null;
	preset: string | null;
	timeline: Timeline;
	reason: string;
	created_at: string;
}

export interface AiTask {
	id: string;
	type: 'captions' | 'translate' | 'cleanup' | 'highlights' | 'analyze' | 'ai' | 'dub';
	status: 'completed' | 'running';
	credits: number;
	result: Record<string, unknown>;
	created_at: string;
}

export interface Message {
	id: string;
	role: 'user' | 'assistant';
	content: string;
	baseVersion: number | null;
	version: number | null;
	credits: number;
	created_at: string;
}

export interface EditRec extends Rec {
	name: string;
	label: string | null;
	preset: string | null;
	sourceAssetId: string;
	projectId: string | null;
	parentId: string | null;
	version: number;
	timeline: Timeline;
	versions: SavedVersion[];
	exports: ExportRec[];
	aiTasks: AiTask[];
	analysis: Record<string, unknown> | null;
	conversation: Message[];
	/** Whether a transcription was already made (the AI estimate charges it the first time only). */
	transcribed: boolean;
	thumbnailAssetId: string | null;
	/** A dub variation: its clips use the dub generation's output once that completed. */
	dubGenerationId: string | null;
}

export interface EffectCollectionRec extends Rec {
	name: string;
	items: { effectId: string; on: boolean }[];
}

export interface MixTrack {
	id: string;
	assetId: string;
	start: number;
	in: number;
	out: number;
	volume: number;
	fadeIn: number;
	fadeOut: number;
	muted: boolean;
}

export interface MixRec extends Rec {
	name: string;
	version: number;
	tracks: MixTrack[];
	exports: ExportRec[];
}

export interface EditorStore {
	edits: Store<EditRec>;
	effectCollections: Store<EffectCollectionRec>;
	mixes: Store<MixRec>;
}

const stores = new WeakMap<Workspace, EditorStore>();

export function editorStore(ws: Workspace): EditorStore {
	let s = stores.get(ws);
	if (!s) {
		s = {
			edits: new Store<EditRec>('Edit'),
			effectCollections: new Store<EffectCollectionRec>('Effect collection'),
			mixes: new Store<MixRec>('Audio mix'),
		};
		stores.set(ws, s);
	}
	return s;
}

/** 409 `version_conflict` for a stale version, per the versions convention. */
export function checkVersion(what: string, id: string, current: number, given: number): void {
	if (given !== current)
		throw conflict(
			`${what} ${id} is at version ${current}, not ${given}: get the ${what.toLowerCase()} again and retry with version ${current}`,
			{ currentVersion: current, givenVersion: given },
			'version_conflict',
		);
}

/** Saves the current state as a new version (version + 1). */
export function saveVersion(e: EditRec, reason: string): void {
	e.version += 1;
	e.versions.push({
		version: e.version,
		name: e.name,
		label: e.label,
		preset: e.preset,
		timeline: clone(e.timeline),
		reason,
		created_at: now(),
	});
	touch(e);
}

/** Charges `credits` at once (tools that answer synchronously); 402 when the balance is short. */
export function chargeNow(ws: Workspace, credits: number, description: string): void {
	if (credits <= 0) return;
	if (credits > ws.balance)
		throw new ApiError(
			402,
			'insufficient_credits',
			`Not enough credits: ${credits} required, ${ws.balance} available`,
			{ balance: ws.balance, required: credits },
		);
	ws.book('charge', -credits, description);
}

// ---------------------------------------------------------------------------------------------
// Views

export const exportView = (x: ExportRec) => ({
	id: x.id,
	status: x.status,
	kind: x.kind,
	sourceId: x.sourceId,
	assetId: x.assetId,
	/** As on generation records: the file made, once completed. */
	outputs: x.assetId ? [{ asset_id: x.assetId, kind: x.outputKind }] : [],
	error: x.error,
	...x.settings,
	created_at: x.created_at,
	completed_at: x.completed_at,
});

/** A dub variation takes the dub's output video once its generation completed. */
function settleDub(ws: Workspace, e: EditRec): void {
	if (!e.dubGenerationId) return;
	const g = ws.generations.find(e.dubGenerationId);
	if (!g || g.status !== 'completed' || !g.outputs.length) return;
	e.dubGenerationId = null;
	const output = g.outputs[0].asset_id;
	for (const c of e.timeline.clips) c.assetId = output;
	saveVersion(e, 'dub');
}

export const editView = (ws: Workspace) => (e: EditRec) => {
	settleDub(ws, e);
	const ids = [
		...new Set([e.sourceAssetId, ...referencedAssets(e.timeline), ...exportAssets(e.exports)]),
	];
	return {
		id: e.id,
		name: e.name,
		label: e.label,
		preset: e.preset,
		sourceAssetId: e.sourceAssetId,
		projectId: e.projectId,
		parentId: e.parentId,
		version: e.version,
		duration: duration(e.timeline),
		timeline: e.timeline,
		thumbnailAssetId: e.thumbnailAssetId,
		assets: ids.flatMap((id) => {
			const a = ws.assets.find(id);
			return a ? [assetView(a)] : [];
		}),
		exports: e.exports.map(exportView),
		aiTasks: e.aiTasks,
		created_at: e.created_at,
		updated_at: e.updated_at,
	};
};

const exportAssets = (xs: ExportRec[]) => xs.flatMap((x) => (x.assetId ? [x.assetId] : []));

export const mixView = (m: MixRec) => ({
	id: m.id,
	name: m.name,
	version: m.version,
	tracks: m.tracks,
	duration: Math.max(0, ...m.tracks.map((t) => t.start + Math.max(0, t.out - t.in))),
	exports: m.exports.map(exportView),
	created_at: m.created_at,
	updated_at: m.updated_at,
});

export const effectCollectionView = (c: EffectCollectionRec) => ({
	id: c.id,
	name: c.name,
	items: c.items,
	itemCount: c.items.length,
	created_at: c.created_at,
	updated_at: c.updated_at,
});

// ---------------------------------------------------------------------------------------------
// Exports

/** Unscaled simulated time an export takes once running (renders and audio exports). */
export const EXPORT_DURATION_MS = 3000;
const EXPORT_QUEUE_MS = 200;

/** A 16-bit mono PCM WAV of silence. */
function makeWav(seconds: number): Buffer {
	const rate = 8000;
	const samples = Math.max(1, Math.round(rate * seconds));
	const data = samples * 2;
	const b = Buffer.alloc(44 + data);
	b.write('RIFF', 0);
	b.writeUInt32LE(36 + data, 4);
	b.write('WAVE', 8);
	b.write('fmt ', 12);
	b.writeUInt32LE(16, 16);
	b.writeUInt16LE(1, 20);
	b.writeUInt16LE(1, 22);
	b.writeUInt32LE(rate, 24);
	b.writeUInt32LE(rate * 2, 28);
	b.writeUInt16LE(2, 32);
	b.writeUInt16LE(16, 34);
	b.write('data', 36);
	b.writeUInt32LE(data, 40);
	return b;
}

export interface ExportJob {
	kind: 'edit' | 'audio';
	sourceId: string;
	title: string;
	projectId: string | null;
	seconds: number;
	/** Edits: 'video' or 'image' (still); audio: the format. */
	output: 'video' | 'image' | 'mp3' | 'wav' | 'm4a';
	settings: Record<string, unknown>;
}

/** Starts an export: queued → running → completed (new asset) | failed; events on the end. */
export function startExport(app: App, ws: Workspace, list: ExportRec[], job: ExportJob): ExportRec {
	const x: ExportRec = {
		id: recBase().id,
		status: 'queued',
		kind: job.kind,
		sourceId: job.sourceId,
		assetId: null,
		error: null,
		created_at: now(),
		completed_at: null,
		settings: job.settings,
		outputKind: job.output === 'video' || job.output === 'image' ? job.output : 'audio',
	};
	list.push(x);
	app.scheduler.after(EXPORT_QUEUE_MS, () => {
		x.status = 'running';
		app.scheduler.after(app.config.defaultJobDurationMs ?? EXPORT_DURATION_MS, () =>
			finishExport(app, ws, x, job),
		);
	});
	return x;
}

function finishExport(app: App, ws: Workspace, x: ExportRec, job: ExportJob): void {
	x.completed_at = now();
	if (Math.random() < app.config.failureRate) {
		x.status = 'failed';
		x.error = { code: 'export_failed', message: 'The export could not be rendered (simulated)' };
		app.hooks.emit(ws, 'export.failed', exportView(x));
		return;
	}
	const seconds = Math.max(1, Math.min(600, Math.ceil(job.seconds)));
	let file: { ext: string; mimeType: string; data: Buffer };
	if (job.output === 'video' || job.output === 'image')
		file = generateMedia(job.output, `${x.id}:${job.title}`, seconds);
	else if (job.output === 'wav')
		file = { ext: 'wav', mimeType: 'audio/wav', data: makeWav(seconds) };
	else if (job.output === 'm4a')
		// Simplification: the sandbox has no AAC encoder; the bytes are its MP3.
		file = { ext: 'm4a', mimeType: 'audio/mp4', data: makeMp3(seconds) };
	else file = { ext: 'mp3', mimeType: 'audio/mpeg', data: makeMp3(seconds) };
	const filename = `${job.kind}-export-${x.id.slice(0, 8)}.${file.ext}`;
	const asset = createAsset(ws, {
		filename,
		mimeType: file.mimeType,
		size: file.data.length,
		blob: { type: 'buffer', data: file.data },
		source: 'export',
		title: `${job.title} (export)`.slice(0, 200),
		projectId: job.projectId && ws.projects.find(job.projectId) ? job.projectId : null,
	});
	x.assetId = asset.id;
	x.status = 'completed';
	app.hooks.emit(ws, 'export.completed', exportView(x));
}
