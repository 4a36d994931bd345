import { endpoint, group, int, oneOf, ref, str, uuid } from './dsl';

/** Spec doc 1, "Voices". */
export const voices = group('voice', 'Voice', { doc: 1, section: 'Voices' }, [
	endpoint('getAll', 'GET /voices/voiceprovider', 'content.create', {
		name: 'Get Many',
		action: 'Get many voices',
		description:
			'Get the voices (premade, cloned, designed) of the connected voice-provider account',
	}),
]);

/** Spec doc 1, "Prompt assist". */
export const prompts = group('prompt', 'Prompt', { doc: 1, section: 'Prompt assist' }, [
	endpoint('assist', 'POST /prompt/assist', 'content.create', {
		name: 'Assist',
		action: 'Improve, shorten, translate or vary a prompt',
		body: {
			action: oneOf(['improve', 'shorten', 'translate', 'variations', 'describe'], {
				required: true,
			}),
			prompt: str({ max: 8000, rows: 4, top: true }),
			tool: str({ max: 20 }),
			mode: str({ max: 40 }),
			modelId: str({ max: 80, displayName: 'Model ID' }),
			assetId: uuid({ displayName: 'Asset ID', description: 'The image to describe' }),
			count: int({ min: 2, max: 6, description: 'Number of variations' }),
		},
	}),
]);

const channel = oneOf(['photoapp', 'shortclip']);

/** Spec doc 1, "Analytics". */
export const analytics = group('analytics', 'Analytics', { doc: 1, section: 'Analytics' }, [
	endpoint('overview', 'GET /analytics/overview', 'content.read', {
		name: 'Overview',
		action: 'Get an analytics overview',
		description: 'Assets, generations, posts, engagement, ads and data freshness for a period',
		query: { days: int({ description: 'Length of the period in days' }), channel },
	}),
	endpoint('compare', 'GET /analytics/compare', 'content.read', {
		name: 'Compare',
		action: 'Compare post performance',
		query: {
			days: int({ description: 'Length of the period in days' }),
			channel,
			dimension: oneOf(['hook', 'format', 'character', 'style', 'channel'], { required: true }),
		},
	}),
	endpoint('creative', 'GET /analytics/creatives/{id}', 'content.read', {
		name: 'Creative Report',
		action: 'Get the report of a creative',
		description: 'Origin, edited variants, destinations and results of a creative',
		path: { id: ref('asset') },
	}),
]);
