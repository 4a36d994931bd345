/**
 * Asset operations shared by several endpoints (uploads, generations, duplicates, project deletes,
 * the control API): create with versions, duplicate, delete with clean-up of references.
 */
import type { AssetRec, AssetVersion, Blob, Workspace } from './state';
import { newId, now, recBase, touch } from './state';

export function kindFromMime(mimeType: string, filename = ''): AssetRec['kind'] {
	const m = mimeType.toLowerCase();
	if (m.startsWith('image/')) return 'image';
	if (m.startsWith('video/')) return 'video';
	if (m.startsWith('audio/')) return 'audio';
	if (m.startsWith('model/') || /\.(glb|gltf|obj|fbx|usdz)$/i.test(filename)) return 'model3d';
	if (
		m === 'application/pdf' ||
		m.startsWith('text/') ||
		/(msword|officedocument|opendocument|rtf|epub)/.test(m)
	)
		return 'document';
	return 'other';
}

/** Derived versions the service would make: thumbnails for images and videos, previews for audio. */
function derivedVersions(kind: AssetRec['kind'], created_at: string): AssetVersion[] {
	const v = (name: string, mimeType: string, size: number): AssetVersion => ({
		id: newId(),
		type: 'derived',
		name,
		mimeType,
		size,
		created_at,
	});
	switch (kind) {
		case 'image':
			return [v('thumbnail', 'image/webp', 4096), v('preview', 'image/webp', 32768)];
		case 'video':
			return [v('poster', 'image/jpeg', 16384), v('preview', 'video/mp4', 262144)];
		case 'audio':
			return [v('preview', 'audio/mpeg', 65536)];
		case 'model3d':
			return [v('thumbnail', 'image/png', 8192)];
		default:
			return [];
	}
}

export interface NewAsset {
	filename: string;
	mimeType: string;
	size: number;
	blob: Blob;
	source: AssetRec['source'];
	title?: string | null;
	tags?: string[];
	projectId?: string | null;
	generationId?: string | null;
	duplicatedFrom?: string | null;
	kind?: AssetRec['kind'];
}

export function createAsset(ws: Workspace, n: NewAsset): AssetRec {
	const base = recBase();
	const kind = n.kind ?? kindFromMime(n.mimeType, n.filename);
	const original: AssetVersion = {
		id: base.id,
		type: 'original',
		name: 'original',
		mimeType: n.mimeType,
		size: n.size,
		created_at: base.created_at,
	};
	return ws.assets.put({
		...base,
		kind,
		title: n.title ?? n.filename,
		filename: n.filename,
		mimeType: n.mimeType,
		size: n.size,
		tags: n.tags ?? [],
		favorite: false,
		projectId: n.projectId ?? null,
		visibility: 'private',
		source: n.source,
		generationId: n.generationId ?? null,
		characterId: null,
		duplicatedFrom: n.duplicatedFrom ?? null,
		blob: n.blob,
		versions: [original, ...derivedVersions(kind, base.created_at)],
	});
}

/** A copy sharing the same bytes. */
export function duplicateAsset(
	ws: Workspace,
	a: AssetRec,
	projectId: string | null = a.projectId,
): AssetRec {
	const copy = createAsset(ws, {
		filename: a.filename,
		mimeType: a.mimeType,
		size: a.size,
		blob: a.blob,
		source: 'duplicate',
		title: `${a.title} (copy)`,
		tags: [...a.tags],
		projectId,
		generationId: a.generationId,
		duplicatedFrom: a.id,
		kind: a.kind,
	});
	copy.visibility = a.visibility;
	copy.favorite = a.favorite;
	return copy;
}

/** Deletes assets and every reference to them (collections, project covers). Returns the file paths freed. */
export function deleteAssets(ws: Workspace, ids: string[]): string[] {
	const gone = new Set(ids);
	const paths: string[] = [];
	for (const id of ids) {
		const a = ws.assets.find(id);
		if (!a) continue;
		ws.assets.delete(id);
		const shared = ws.assets.all().some((o) => o.blob === a.blob);
		if (a.blob.type === 'files' && !shared) paths.push(...a.blob.paths);
	}
	for (const c of ws.collections.all()) {
		const kept = c.assetIds.filter((id) => !gone.has(id));
		if (kept.length !== c.assetIds.length) {
			c.assetIds = kept;
			touch(c);
		}
	}
	for (const p of ws.projects.all()) {
		if (p.cover_asset_id && gone.has(p.cover_asset_id)) {
			p.cover_asset_id = null;
			p.updated_at = now();
		}
	}
	return paths;
}
