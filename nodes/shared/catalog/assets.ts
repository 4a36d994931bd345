import {
	bool,
	endpoint,
	flag,
	group,
	int,
	objectList,
	oneOf,
	ref,
	str,
	strList,
	uuid,
	uuidList,
} from './dsl';

const assetId = { id: ref('asset') };
const kinds = ['image', 'video', 'audio', 'model3d', 'document', 'other'] as const;
const visibility = ['private', 'unlisted', 'public'] as const;

/** Spec doc 1, "Assets" and "Uploads". */
export const assets = group('asset', 'Asset', { doc: 1, section: ['Assets', 'Uploads'] }, [
	endpoint('getAll', 'GET /assets', 'content.read', {
		name: 'Get Many',
		action: 'Get many assets',
		description: 'List and search assets',
		paginate: 'string',
		query: {
			kind: oneOf(kinds),
			source: str(),
			projectId: ref('project'),
			collectionId: ref('collection'),
			favorite: flag({ description: 'Whether to return only favorites (true) or only the others' }),
			q: str({ displayName: 'Search', description: 'Text to search for' }),
			tag: str(),
			ids: str({ displayName: 'IDs', description: 'Comma-separated asset IDs' }),
			characterId: uuid({ displayName: 'Character ID' }),
		},
	}),
	endpoint('get', 'GET /assets/{id}', 'content.read', {
		name: 'Get',
		action: 'Get an asset',
		path: assetId,
	}),
	endpoint('update', 'PATCH /assets/{id}', 'content.create', {
		name: 'Update',
		action: 'Update an asset',
		path: assetId,
		body: {
			title: str({ max: 200 }),
			tags: strList(),
			favorite: bool(),
			projectId: ref('project'),
			visibility: oneOf(visibility),
		},
	}),
	endpoint('delete', 'POST /assets/delete', 'content.delete', {
		name: 'Delete',
		action: 'Delete assets',
		description: 'Delete one or more assets',
		body: { ids: uuidList({ required: true, displayName: 'Asset IDs' }) },
	}),
	endpoint('duplicate', 'POST /assets/{id}/duplicate', 'content.create', {
		name: 'Duplicate',
		action: 'Duplicate an asset',
		path: assetId,
	}),
	endpoint('download', 'GET /assets/{id}/download', 'content.read', {
		name: 'Download',
		action: 'Download an asset',
		description: 'Download the file of an asset into a binary property (streamed)',
		path: assetId,
		binary: 'download',
	}),
	endpoint('getVersions', 'GET /assets/{id}/versions', 'content.read', {
		name: 'Get Versions',
		action: 'Get the versions of an asset',
		description: 'Get the original and derived versions of an asset',
		path: assetId,
	}),
	endpoint('upload', 'POST /uploads', 'content.create', {
		name: 'Upload',
		action: 'Upload a file as an asset',
		description:
			'Upload a file from the input item as a new asset; every step of the upload is done for you',
		toolText:
			'Upload a binary file as a new asset: starts the upload, sends the parts to their signed URLs and completes it',
		binary: 'upload',
		body: {
			filename: str({
				required: true,
				max: 255,
				derived: 'fileName',
				displayName: 'File Name',
				description: "Defaults to the binary file's name",
			}),
			mimeType: str({
				required: true,
				max: 100,
				derived: 'mimeType',
				displayName: 'MIME Type',
				description: "Defaults to the binary file's MIME type",
			}),
			size: int({ required: true, max: 9007199254740991, derived: 'fileSize' }),
			projectId: ref('project'),
			title: str({ max: 200 }),
			tags: strList(),
		},
	}),
	endpoint('completeUpload', 'POST /uploads/{id}/complete', 'content.create', {
		name: 'Complete Upload',
		action: 'Complete an upload',
		description:
			'Finish an upload started outside this node (the Upload operation does this step for you)',
		toolText:
			'Finish an upload started elsewhere, from its part numbers and entity tags (the Upload operation does this for you)',
		path: { id: str({ displayName: 'Upload ID' }) },
		body: {
			parts: objectList(
				{
					partNumber: int({ required: true, min: 1, max: 10000 }),
					etag: str({ required: true, max: 200, displayName: 'ETag' }),
				},
				{ description: 'Every part of the upload, with the ETag its PUT answered' },
			),
		},
	}),
]);
