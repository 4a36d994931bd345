import {
	bool,
	endpoint,
	flag,
	startsGenerations,
	matching,
	group,
	int,
	intList,
	json,
	manyOf,
	object,
	objectList,
	oneOf,
	ref,
	str,
	strList,
	uuid,
	uuidList,
} from '../dsl';

const ENTRIES = ['url', 'image', 'creative', 'script', 'template', 'influencer', 'brand'] as const;
export const COPY_KINDS = [
	'hook',
	'script',
	'primary_text',
	'headline',
	'description',
	'cta',
	'caption',
	'storyboard',
] as const;
const OBJECTIVES = ['awareness', 'traffic', 'conversions', 'app_installs', 'leads'] as const;
const PLATFORMS = ['adnet', 'shortclip', 'videosite', 'marketplace', 'web'] as const;
const ANGLES = [
	'problem_solution',
	'testimonial',
	'before_after',
	'feature_demo',
	'social_proof',
	'offer',
	'story',
	'comparison',
] as const;

const adProjectId = { id: ref('adProject') };
const copyId = (kind: string) => uuid({ required: true, description: `ID of a ${kind} copy item` });
const characterIds = (o: { required?: boolean; default?: [] } = {}) =>
	uuidList({ ...o, displayName: 'Character IDs', description: 'IDs of the presenting characters' });

/** Spec doc 2, "Ad projects": the project and its wizard, the creative matrix. */
export const adProjects = group('adProject', 'Ad Project', { doc: 2, section: 'Ad projects' }, [
	endpoint('getAll', 'GET /ads', 'content.read', {
		name: 'Get Many',
		action: 'Get many ad projects',
		paginate: 'string',
	}),
	endpoint('create', 'POST /ads', 'content.create', {
		name: 'Create',
		action: 'Create an ad project',
		body: {
			name: str({ required: true, max: 120 }),
			entry: oneOf(ENTRIES, { default: 'url', description: 'What the ad starts from' }),
			productId: ref('product'),
			brandKitId: ref('brandKit'),
			format: str({ max: 40, default: 'ugc' }),
			sourceAssetId: ref('asset', { displayName: 'Source Asset' }),
			presenter: object({ characterIds: characterIds({ default: [] }) }),
		},
	}),
	endpoint('get', 'GET /ads/{id}', 'content.read', {
		name: 'Get',
		action: 'Get an ad project',
		description: 'Get an ad project with its copy',
		path: adProjectId,
	}),
	endpoint('update', 'PATCH /ads/{id}', 'content.create', {
		name: 'Update',
		action: 'Update an ad project',
		description:
			"Save the ad wizard's steps (audience, strategy, visual and more); fields left out keep their values",
		toolText:
			'Save wizard progress: audience, strategy, presenter, visual and settings; fields not given keep their saved values',
		path: adProjectId,
		body: {
			name: str({ max: 120 }),
			productId: ref('product'),
			brandKitId: ref('brandKit'),
			format: str({ max: 40 }),
			step: int({ min: 1, max: 8, description: 'Wizard step reached' }),
			audience: object({
				description: str({ max: 1000 }),
				ageRange: str({ max: 20 }),
				gender: str({ max: 30 }),
				interests: strList(),
				painPoints: strList(),
				market: str({ max: 60 }),
				language: str({ max: 20 }),
			}),
			strategy: object({
				objective: oneOf(OBJECTIVES),
				platform: oneOf(PLATFORMS),
				angle: oneOf(ANGLES),
				tone: str({ max: 120 }),
				offer: str({ max: 300 }),
				notes: str({ max: 1000 }),
			}),
			presenter: object({ characterIds: characterIds({ required: true }) }),
			visual: object({
				styles: strList(),
				aspects: strList({ description: 'Aspect ratios, e.g. 9:16, 1:1' }),
				durations: intList({ description: 'Durations in seconds' }),
				includeLogo: bool(),
			}),
			settings: object({
				modelId: str({ max: 80, displayName: 'Model ID' }),
				params: json({ description: 'Model settings as a JSON object' }),
				languages: strList(),
			}),
			sourceAssetId: ref('asset', { displayName: 'Source Asset' }),
		},
	}),
	endpoint('delete', 'DELETE /ads/{id}', 'content.delete', {
		name: 'Delete',
		action: 'Delete an ad project',
		description: 'Delete an ad project; its files stay in the library',
		path: adProjectId,
	}),
	endpoint('previewMatrix', 'POST /ads/{id}/matrix/preview', 'content.create', {
		name: 'Preview Matrix',
		action: 'Preview the creative matrix of an ad project',
		description:
			'List every combination of the chosen options with its credit cost; nothing is charged',
		toolText:
			'Expand the creative matrix into every combination of the chosen dimensions and price each one; nothing is charged',
		path: adProjectId,
		answerList: 'combinations',
		body: {
			languages: strList({ default: [] }),
			hooks: uuidList({ default: [], description: 'IDs of hook copy items' }),
			scripts: uuidList({ default: [], description: 'IDs of script copy items' }),
			ctas: uuidList({
				default: [],
				displayName: 'CTAs',
				description: 'IDs of call-to-action copy items',
			}),
			presenters: strList({ default: [] }),
			styles: strList({ default: [] }),
			aspects: strList({ default: [] }),
			durations: intList({ default: [], description: 'Durations in seconds' }),
		},
	}),
	endpoint('runMatrix', 'POST /ads/{id}/matrix/run', 'content.create', {
		name: 'Run Matrix',
		action: 'Run combinations of the creative matrix',
		description:
			'Generate the chosen combinations (uses credits); by default waits and returns one item per variant',
		toolText:
			'Generate the selected combinations as one batch; by default waits for them and returns one item per variant job',
		path: adProjectId,
		body: {
			combos: objectList(
				{
					language: str({ required: true, max: 20 }),
					hook: copyId('hook'),
					script: copyId('script'),
					cta: copyId('cta'),
					presenter: str({ required: true, max: 40 }),
					style: str({ required: true, max: 30 }),
					aspect: str({ required: true, max: 8 }),
					duration: int({ required: true }),
				},
				{
					required: true,
					asJson: true,
					fromItems: true,
					displayName: 'Combinations',
					description:
						'JSON array of combinations, e.g. some of the combinations a Preview Matrix returned: [{"language": "en", "hook": "<copy ID>", "script": "<copy ID>", "cta": "<copy ID>", "presenter": "none", "style": "ugc", "aspect": "9:16", "duration": 15}]',
				},
			),
		},
		// every field the service records of a variant's job: its combination too
		job: startsGenerations(
			matching({ 'context.adProjectId': '{id}', 'context.combo': '{body.combos}' }, true),
		),
	}),
]);

/** Spec doc 2, "Ad projects": copy items of a project. */
export const adCopy = group('adCopy', 'Ad Copy', { doc: 2, section: 'Ad projects' }, [
	endpoint('generate', 'POST /ads/{id}/copy/generate', 'content.create', {
		name: 'Generate',
		action: 'Generate ad copy',
		description: 'Write copy items for an ad project with an AI language model',
		path: adProjectId,
		body: {
			kinds: manyOf(COPY_KINDS, { required: true }),
			count: int({ min: 1, max: 8, default: 4, description: 'Items per kind' }),
			language: str({ max: 20, default: 'en' }),
			replace: bool({
				description: 'Whether to replace the existing copy of these kinds in this language',
			}),
		},
	}),
	endpoint('create', 'POST /ads/{id}/copy', 'content.create', {
		name: 'Create',
		action: 'Create an ad copy item',
		path: adProjectId,
		body: {
			kind: oneOf(COPY_KINDS, { required: true }),
			content: str({ required: true, max: 5000, rows: 3 }),
			language: str({ max: 20, default: 'en' }),
			data: json({ description: 'Extra data as a JSON object' }),
		},
	}),
	endpoint('update', 'PATCH /ads/copy/{id}', 'content.create', {
		name: 'Update',
		action: 'Update an ad copy item',
		path: { id: str({ displayName: 'Copy ID' }) },
		body: {
			content: str({ max: 5000, rows: 3 }),
			selected: bool({ description: 'Whether the item is selected for the matrix' }),
			data: json({ description: 'Extra data as a JSON object' }),
		},
	}),
	endpoint('delete', 'DELETE /ads/copy/{id}', 'content.create', {
		name: 'Delete',
		action: 'Delete an ad copy item',
		path: { id: str({ displayName: 'Copy ID' }) },
	}),
]);

/** Spec doc 2, "Ad projects": the review board of variants and the export. */
export const adVariants = group('adVariant', 'Ad Variant', { doc: 2, section: 'Ad projects' }, [
	endpoint('getAll', 'GET /ads/{id}/variants', 'content.read', {
		name: 'Get Many',
		action: 'Get many ad variants',
		description: 'Get the review board of an ad project: variants with dimensions and result',
		path: adProjectId,
		paginate: 'string',
		query: {
			winners: flag({ description: 'Whether to return only winners (true) or only the others' }),
		},
	}),
	endpoint('markWinner', 'POST /ads/variants/{id}/winner', 'content.create', {
		name: 'Mark Winner',
		action: 'Mark an ad variant as winner',
		description: 'Mark a variant as a winner, or unmark it',
		path: { id: str({ displayName: 'Variant ID' }) },
		body: {
			winner: bool({ required: true, description: 'Whether the variant is a winner' }),
		},
	}),
	endpoint('export', 'POST /ads/{id}/export', 'content.read', {
		name: 'Export',
		action: 'Export ad variants as a ZIP',
		description:
			'Make a ZIP of the selected creatives with a copy sheet; returns its asset and, by default, the file',
		path: adProjectId,
		body: { variantIds: uuidList({ required: true, displayName: 'Variant IDs' }) },
		binary: 'resultAsset',
	}),
]);
