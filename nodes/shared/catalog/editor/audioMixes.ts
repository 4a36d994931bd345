import {
	exportWait,
	bool,
	endpoint,
	group,
	int,
	num,
	objectList,
	oneOf,
	ref,
	str,
	uuid,
	uuidList,
} from '../dsl';

const mixId = { id: ref('audioMix') };
const seconds = () => num({ required: true, min: 0, max: 3600 });
const fade = () => num({ min: 0, max: 30, default: 0 });

/** Spec doc 3, "Audio mixes". */
export const audioMixes = group('audioMix', 'Audio Mix', { doc: 3, section: 'Audio mixes' }, [
	endpoint('getAll', 'GET /audio/mixes', 'content.read', {
		name: 'Get Many',
		action: 'Get many audio mixes',
		paginate: 'string',
	}),
	endpoint('create', 'POST /audio/mixes', 'content.create', {
		name: 'Create',
		action: 'Create an audio mix',
		body: {
			name: str({ required: true, max: 120 }),
			assetIds: uuidList({ displayName: 'Asset IDs' }),
		},
	}),
	endpoint('get', 'GET /audio/mixes/{id}', 'content.read', {
		name: 'Get',
		action: 'Get an audio mix',
		path: mixId,
	}),
	endpoint('save', 'PUT /audio/mixes/{id}', 'content.create', {
		name: 'Save',
		action: 'Save an audio mix',
		description:
			"Save the mix's tracks. Needs its current version: if it changed, get the mix again and retry.",
		toolText:
			'Save the tracks with optimistic concurrency: Version must be the current version, else the save is refused as a conflict (get the mix and retry)',
		path: mixId,
		body: {
			name: str({ max: 120 }),
			tracks: objectList(
				{
					id: str({ required: true, max: 40, displayName: 'ID' }),
					assetId: uuid({ required: true, displayName: 'Asset ID' }),
					start: seconds(),
					in: seconds(),
					out: seconds(),
					volume: num({ min: 0, max: 2, default: 1 }),
					fadeIn: fade(),
					fadeOut: fade(),
					muted: bool({ default: false }),
				},
				{
					asJson: true,
					description:
						'The tracks as a JSON array of {id, assetId, start, in, out, volume, fadeIn, fadeOut, muted} (spec defaults are filled in)',
				},
			),
			version: int({
				required: true,
				min: 1,
				max: 9007199254740991,
				description: 'The current version of the mix (from Audio Mix: Get); the save makes it +1',
			}),
		},
	}),
	endpoint('delete', 'DELETE /audio/mixes/{id}', 'content.delete', {
		name: 'Delete',
		action: 'Delete an audio mix',
		path: mixId,
	}),
	endpoint('export', 'POST /audio/mixes/{id}/export', 'content.create', {
		name: 'Export',
		action: 'Export an audio mix',
		description:
			'Render the mix as a new audio file; by default waits and returns it (the file as binary if asked)',
		toolText:
			'Render the mix as a new audio file; by default waits for the export and returns it, with the file as binary if asked',
		path: mixId,
		body: { format: oneOf(['mp3', 'wav', 'm4a'], { default: 'mp3', top: true }) },
		job: {
			poll: '/audio/mixes/{id}',
			within: 'exports',
			recover: { by: 'record', path: '/audio/mixes/{id}', within: 'exports' },
		},
	}),
	exportWait('GET /audio/mixes/{id}', 'audio mix', mixId),
]);
