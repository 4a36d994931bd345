/** Projects (doc 1). */
import { deleteAssets, duplicateAsset } from '../library';
import { json } from '../http';
import { route } from '../route';
import { recBase, touch, type Workspace } from '../state';
import { oneOf, pageQuery, qBool, str, uuid, z } from '../validation';
import { paginate } from '../pagination';
import { projectView } from '../views';

const assetIdsBody = z.object({ assetIds: z.array(uuid()) });

const reply = (ws: Workspace, id: string, status = 200) =>
	json(projectView(ws)(ws.projects.get(id)), status);

export const projectRoutes = [
	route({
		method: 'GET',
		path: '/projects',
		scope: 'content.read',
		query: z.object({
			...pageQuery,
			status: oneOf(['active', 'archived'] as const).optional(),
			q: z.string().optional(),
		}),
		handler: ({ ws, query }) => {
			const q = query.q?.toLowerCase();
			const list = ws.projects
				.all()
				.filter(
					(p) =>
						(!query.status || p.status === query.status) &&
						(!q || `${p.name} ${p.description ?? ''}`.toLowerCase().includes(q)),
				);
			return json(paginate(list, query, projectView(ws)));
		},
	}),
	route({
		method: 'POST',
		path: '/projects',
		scope: 'content.create',
		body: z.object({ name: str(120), description: str(2000).optional() }),
		handler: ({ ws, body }) => {
			const p = ws.projects.put({
				...recBase(),
				name: body.name,
				description: body.description ?? null,
				cover_asset_id: null,
				status: 'active',
			});
			return reply(ws, p.id, 201);
		},
	}),
	route({
		method: 'GET',
		path: '/projects/{id}',
		scope: 'content.read',
		handler: ({ ws, params }) => reply(ws, params.id),
	}),
	route({
		method: 'PATCH',
		path: '/projects/{id}',
		scope: 'content.create',
		body: z.object({
			name: str(120).optional(),
			description: str(2000).optional(),
			cover_asset_id: uuid().optional(),
			status: oneOf(['active', 'archived'] as const).optional(),
		}),
		handler: ({ ws, params, body }) => {
			const p = ws.projects.get(params.id);
			if (body.cover_asset_id) ws.assets.get(body.cover_asset_id);
			if (body.name !== undefined) p.name = body.name;
			if (body.description !== undefined) p.description = body.description;
			if (body.cover_asset_id !== undefined) p.cover_asset_id = body.cover_asset_id;
			if (body.status !== undefined) p.status = body.status;
			touch(p);
			return reply(ws, p.id);
		},
	}),
	route({
		method: 'DELETE',
		path: '/projects/{id}',
		scope: 'content.delete',
		query: z.object({ deleteAssets: qBool().default(false) }),
		handler: ({ app, ws, params, query }) => {
			const p = ws.projects.get(params.id);
			const assets = ws.assets.all().filter((a) => a.projectId === p.id);
			if (query.deleteAssets)
				app.files.remove(
					deleteAssets(
						ws,
						assets.map((a) => a.id),
					),
				);
			else
				for (const a of assets) {
					a.projectId = null;
					touch(a);
				}
			ws.projects.delete(p.id);
			return json({
				id: p.id,
				deleted: true,
				assetsDeleted: query.deleteAssets ? assets.length : 0,
			});
		},
	}),
	route({
		method: 'POST',
		path: '/projects/{id}/duplicate',
		scope: 'content.create',
		handler: ({ ws, params }) => {
			const p = ws.projects.get(params.id);
			const copy = ws.projects.put({
				...recBase(),
				name: `${p.name} (copy)`.slice(0, 120),
				description: p.description,
				cover_asset_id: null,
				status: 'active',
			});
			for (const a of ws.assets
				.all()
				.filter((x) => x.projectId === p.id)
				.sort((x, y) => x.seq - y.seq)) {
				const dup = duplicateAsset(ws, a, copy.id);
				if (p.cover_asset_id === a.id) copy.cover_asset_id = dup.id;
			}
			return reply(ws, copy.id, 201);
		},
	}),
	route({
		method: 'POST',
		path: '/projects/{id}/assets',
		scope: 'content.create',
		body: assetIdsBody,
		handler: ({ ws, params, body }) => {
			const p = ws.projects.get(params.id);
			for (const a of ws.assets.requireAll(body.assetIds)) {
				a.projectId = p.id;
				touch(a);
			}
			touch(p);
			return reply(ws, p.id);
		},
	}),
	route({
		method: 'POST',
		path: '/projects/{id}/assets/remove',
		scope: 'content.create',
		body: assetIdsBody,
		handler: ({ ws, params, body }) => {
			const p = ws.projects.get(params.id);
			for (const a of ws.assets.requireAll(body.assetIds)) {
				if (a.projectId !== p.id) continue;
				a.projectId = null;
				touch(a);
			}
			touch(p);
			return reply(ws, p.id);
		},
	}),
];
