/** Assets (doc 1). Downloads are served by ./files.ts at signed URLs. */
import { deleteAssets, duplicateAsset } from '../library';
import { json } from '../http';
import { route } from '../route';
import { touch } from '../state';
import { oneOf, pageQuery, qBool, str, uuid, z } from '../validation';
import { paginate } from '../pagination';
import { assetView } from '../views';
import { downloadLink } from './files';

const KINDS = ['image', 'video', 'audio', 'model3d', 'document', 'other'] as const;

export const assetRoutes = [
	route({
		method: 'GET',
		path: '/assets',
		scope: 'content.read',
		query: z.object({
			...pageQuery,
			kind: oneOf(KINDS).optional(),
			source: z.string().optional(),
			projectId: uuid().optional(),
			collectionId: uuid().optional(),
			favorite: qBool().optional(),
			q: z.string().optional(),
			tag: z.string().optional(),
			ids: z.string().optional(),
			characterId: uuid().optional(),
		}),
		handler: ({ ws, query }) => {
			const inCollection = query.collectionId
				? new Set(ws.collections.get(query.collectionId).assetIds)
				: null;
			const ids = query.ids
				? new Set(
						query.ids
							.split(',')
							.map((s) => s.trim())
							.filter(Boolean),
					)
				: null;
			const q = query.q?.toLowerCase();
			const list = ws.assets
				.all()
				.filter(
					(a) =>
						(!query.kind || a.kind === query.kind) &&
						(!query.source || a.source === query.source) &&
						(!query.projectId || a.projectId === query.projectId) &&
						(!inCollection || inCollection.has(a.id)) &&
						(query.favorite === undefined || a.favorite === query.favorite) &&
						(!q || `${a.title} ${a.filename} ${a.tags.join(' ')}`.toLowerCase().includes(q)) &&
						(!query.tag || a.tags.includes(query.tag)) &&
						(!ids || ids.has(a.id)) &&
						(!query.characterId || a.characterId === query.characterId),
				);
			return json(paginate(list, query, assetView));
		},
	}),
	route({
		method: 'GET',
		path: '/assets/{id}',
		scope: 'content.read',
		handler: ({ ws, params }) => json(assetView(ws.assets.get(params.id))),
	}),
	route({
		method: 'PATCH',
		path: '/assets/{id}',
		scope: 'content.create',
		body: z.object({
			title: str(200).optional(),
			tags: z.array(z.string()).optional(),
			favorite: z.boolean().optional(),
			projectId: uuid().optional(),
			visibility: oneOf(['private', 'unlisted', 'public'] as const).optional(),
		}),
		handler: ({ ws, params, body }) => {
			const a = ws.assets.get(params.id);
			if (body.projectId) ws.projects.get(body.projectId);
			if (body.title !== undefined) a.title = body.title;
			if (body.tags !== undefined) a.tags = body.tags;
			if (body.favorite !== undefined) a.favorite = body.favorite;
			if (body.projectId !== undefined) a.projectId = body.projectId;
			if (body.visibility !== undefined) a.visibility = body.visibility;
			touch(a);
			return json(assetView(a));
		},
	}),
	route({
		method: 'POST',
		path: '/assets/delete',
		scope: 'content.delete',
		body: z.object({ ids: z.array(uuid()) }),
		handler: ({ app, ws, body }) => {
			const ids = [...new Set(body.ids)];
			ws.assets.requireAll(ids);
			app.files.remove(deleteAssets(ws, ids));
			return json({ ids, deleted: true, count: ids.length });
		},
	}),
	route({
		method: 'POST',
		path: '/assets/{id}/duplicate',
		scope: 'content.create',
		handler: ({ ws, params }) => json(assetView(duplicateAsset(ws, ws.assets.get(params.id))), 201),
	}),
	route({
		method: 'GET',
		path: '/assets/{id}/download',
		scope: 'content.read',
		handler: ({ app, ws, params }) => json(downloadLink(app, ws, ws.assets.get(params.id))),
	}),
	route({
		method: 'GET',
		path: '/assets/{id}/versions',
		scope: 'content.read',
		handler: ({ ws, params }) =>
			json({ data: ws.assets.get(params.id).versions, nextCursor: null }),
	}),
];
