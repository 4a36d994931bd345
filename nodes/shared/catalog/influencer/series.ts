import {
	endpoint,
	startsGenerations,
	group,
	int,
	manyOf,
	matching,
	oneOf,
	ref,
	str,
	strList,
} from '../dsl';

const DESTINATIONS = [
	'photoapp_reels',
	'photoapp_feed',
	'shortclip',
	'videosite_shorts',
	'adnet_ads',
] as const;

const seriesId = { id: str({ displayName: 'Series ID' }) };
const itemId = { id: str({ displayName: 'Series Item ID' }) };

/** Spec doc 2, "Content series": the series. */
export const series = group('series', 'Series', { doc: 2, section: 'Content series' }, [
	endpoint('get', 'GET /characters/series/{id}', 'content.read', {
		name: 'Get',
		action: 'Get a series',
		description: 'Get a series with its ideas and drafts',
		path: seriesId,
	}),
	endpoint('delete', 'DELETE /characters/series/{id}', 'content.delete', {
		name: 'Delete',
		action: 'Delete a series',
		description: 'Delete a series; generated files stay in the library',
		path: seriesId,
	}),
	endpoint('plan', 'POST /characters/{id}/series', 'content.create', {
		name: 'Plan',
		action: 'Plan a content series for a character',
		description: 'Plan a series: its ideas and drafts are written by an AI language model',
		path: { id: ref('character') },
		body: {
			title: str({ required: true, max: 120 }),
			theme: str({ max: 500, default: '' }),
			audience: str({ max: 300, default: '' }),
			language: str({ max: 20, default: 'en' }),
			personality: str({ max: 300, default: '' }),
			tone: str({ max: 120, default: '' }),
			categories: strList({ default: [] }),
			videoSeconds: int({ min: 3, max: 30, default: 8, description: 'Length of the videos' }),
			destinations: manyOf(DESTINATIONS, { default: [] }),
			count: int({ min: 1, max: 12, default: 6, top: true, description: 'Number of ideas' }),
		},
	}),
	endpoint('getAll', 'GET /characters/{id}/series', 'content.read', {
		name: 'Get Many',
		action: 'Get many series of a character',
		path: { id: ref('character') },
		paginate: 'string',
	}),
	endpoint('addIdeas', 'POST /characters/series/{id}/ideas', 'content.create', {
		name: 'Add Ideas',
		action: 'Add ideas to a series',
		path: seriesId,
		body: {
			count: int({ min: 1, max: 12, default: 4, top: true, description: 'Number of ideas' }),
		},
	}),
]);

/** Spec doc 2, "Content series": the ideas and drafts of a series. */
export const seriesItems = group(
	'seriesItem',
	'Series Item',
	{ doc: 2, section: 'Content series' },
	[
		endpoint('update', 'PATCH /characters/series-items/{id}', 'content.create', {
			name: 'Update',
			action: 'Update a series item',
			path: itemId,
			body: {
				title: str({ max: 200 }),
				format: oneOf(['image', 'video']),
				hook: str({ max: 500, rows: 2 }),
				scene: str({ max: 3000, rows: 3 }),
				script: str({ max: 3000, rows: 3 }),
				caption: str({ max: 2200, rows: 3 }),
				hashtags: strList(),
			},
		}),
		endpoint('delete', 'DELETE /characters/series-items/{id}', 'content.create', {
			name: 'Delete',
			action: 'Delete a series item',
			path: itemId,
		}),
		endpoint('generateDraft', 'POST /characters/series-items/{id}/generate', 'content.create', {
			name: 'Generate Draft',
			action: 'Generate the draft of a series idea',
			description: 'Generate the draft for an idea; by default waits for it',
			path: itemId,
			body: {
				modelId: str({ max: 80, displayName: 'Model ID' }),
				projectId: ref('project', { description: 'Project the draft is saved in' }),
			},
			job: startsGenerations(matching({ 'context.seriesItemId': '{id}' })),
		}),
	],
);
