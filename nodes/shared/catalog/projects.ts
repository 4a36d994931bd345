import { endpoint, flag, group, oneOf, ref, str, uuid, uuidList } from './dsl';

const projectId = { id: ref('project') };
const name = str({ max: 120 });
const description = str({ max: 2000, rows: 3 });
const status = ['active', 'archived'] as const;

/** Spec doc 1, "Projects". */
export const projects = group('project', 'Project', { doc: 1, section: 'Projects' }, [
	endpoint('getAll', 'GET /projects', 'content.read', {
		name: 'Get Many',
		action: 'Get many projects',
		paginate: 'string',
		query: {
			status: oneOf(status),
			q: str({ displayName: 'Search', description: 'Text to search for in project names' }),
		},
	}),
	endpoint('create', 'POST /projects', 'content.create', {
		name: 'Create',
		action: 'Create a project',
		body: { name: { ...name, required: true }, description },
	}),
	endpoint('get', 'GET /projects/{id}', 'content.read', {
		name: 'Get',
		action: 'Get a project',
		path: projectId,
	}),
	endpoint('update', 'PATCH /projects/{id}', 'content.create', {
		name: 'Update',
		action: 'Update a project',
		description: 'Update a project; set Status to archived or active to archive or unarchive it',
		path: projectId,
		body: {
			name,
			description,
			cover_asset_id: uuid({ displayName: 'Cover Asset ID' }),
			status: oneOf(status),
		},
	}),
	endpoint('delete', 'DELETE /projects/{id}', 'content.delete', {
		name: 'Delete',
		action: 'Delete a project',
		path: projectId,
		query: {
			deleteAssets: flag({
				description: 'Whether to delete the assets of the project too (otherwise they are kept)',
			}),
		},
	}),
	endpoint('duplicate', 'POST /projects/{id}/duplicate', 'content.create', {
		name: 'Duplicate',
		action: 'Duplicate a project',
		path: projectId,
	}),
	endpoint('addAssets', 'POST /projects/{id}/assets', 'content.create', {
		name: 'Add Assets',
		action: 'Add assets to a project',
		path: projectId,
		body: { assetIds: uuidList({ required: true }) },
	}),
	endpoint('removeAssets', 'POST /projects/{id}/assets/remove', 'content.create', {
		name: 'Remove Assets',
		action: 'Remove assets from a project',
		path: projectId,
		body: { assetIds: uuidList({ required: true }) },
	}),
]);
