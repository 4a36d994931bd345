/** Collections (doc 1). */
import { json } from '../http';
import { route } from '../route';
import { recBase, touch } from '../state';
import { pageQuery, str, uuid, z } from '../validation';
import { paginate } from '../pagination';
import { collectionView } from '../views';

export const collectionRoutes = [
	route({
		method: 'GET',
		path: '/collections',
		scope: 'content.read',
		query: z.object(pageQuery),
		handler: ({ ws, query }) => json(paginate(ws.collections.all(), query, collectionView)),
	}),
	route({
		method: 'POST',
		path: '/collections',
		scope: 'content.create',
		body: z.object({ name: str(80) }),
		handler: ({ ws, body }) =>
			json(
				collectionView(ws.collections.put({ ...recBase(), name: body.name, assetIds: [] })),
				201,
			),
	}),
	route({
		method: 'DELETE',
		path: '/collections/{id}',
		scope: 'content.delete',
		handler: ({ ws, params }) => {
			ws.collections.get(params.id);
			ws.collections.delete(params.id);
			return json({ id: params.id, deleted: true });
		},
	}),
	route({
		method: 'POST',
		path: '/collections/{id}/items',
		scope: 'content.create',
		body: z.object({ add: z.array(uuid()).optional(), remove: z.array(uuid()).optional() }),
		handler: ({ ws, params, body }) => {
			const c = ws.collections.get(params.id);
			ws.assets.requireAll([...(body.add ?? []), ...(body.remove ?? [])]);
			const set = new Set(c.assetIds);
			for (const id of body.add ?? []) set.add(id);
			for (const id of body.remove ?? []) set.delete(id);
			c.assetIds = [...set];
			touch(c);
			return json(collectionView(c));
		},
	}),
];
