import { endpoint, group, ref, str, uuidList } from './dsl';

const collectionId = { id: ref('collection') };

/** Spec doc 1, "Collections". */
export const collections = group('collection', 'Collection', { doc: 1, section: 'Collections' }, [
	endpoint('getAll', 'GET /collections', 'content.read', {
		name: 'Get Many',
		action: 'Get many collections',
		paginate: 'string',
	}),
	endpoint('create', 'POST /collections', 'content.create', {
		name: 'Create',
		action: 'Create a collection',
		body: { name: str({ required: true, max: 80 }) },
	}),
	endpoint('delete', 'DELETE /collections/{id}', 'content.delete', {
		name: 'Delete',
		action: 'Delete a collection',
		description: 'Delete a collection; its assets are kept',
		path: collectionId,
	}),
	endpoint('updateItems', 'POST /collections/{id}/items', 'content.create', {
		name: 'Add or Remove Assets',
		action: 'Add or remove assets in a collection',
		path: collectionId,
		body: {
			add: uuidList({ displayName: 'Asset IDs to Add' }),
			remove: uuidList({ displayName: 'Asset IDs to Remove' }),
		},
	}),
]);
