import type { FieldMap } from '../dsl';
import {
	bool,
	endpoint,
	flag,
	startsGenerations,
	matching,
	group,
	int,
	json,
	manyOf,
	object,
	objectList,
	oneOf,
	ref,
	str,
	strList,
	uuidList,
} from '../dsl';

export const CHARACTER_TYPES = [
	'natural',
	'distinctive',
	'extreme',
	'stylized',
	'fantasy',
] as const;
const CATEGORIES = [
	'fashion',
	'lifestyle',
	'beauty',
	'comedy',
	'editorial',
	'technology',
	'cinematic',
	'fantasy',
	'fitness',
	'gaming',
	'other',
] as const;
const REFERENCE_KINDS = [
	'portrait',
	'full_body',
	'angle',
	'expression',
	'sheet',
	'upload',
] as const;
const REFERENCE_SET_KINDS = ['portrait', 'full_body', 'angle', 'expression', 'sheet'] as const;

const characterId = { id: ref('character') };
const modelId = str({ max: 80, displayName: 'Model ID' });
const projectId = ref('project', { description: 'Project the outputs are saved in' });
const voice = object(
	{
		modelId: str({ max: 80, displayName: 'Model ID', description: 'Voice model' }),
		voice: str({ max: 120, description: 'Voice name or ID' }),
		language: str({ max: 20 }),
		description: str({ max: 500 }),
	},
	{ description: 'The voice of the character' },
);
const personality = object(
	{
		traits: strList(),
		bio: str({ max: 1000, rows: 3 }),
		niche: str({ max: 120 }),
	},
	{ description: 'The personality of the character' },
);
const presetId = str({
	displayName: 'Preset ID',
	description:
		'ID of a character preset (Character Preset > Get Many); it fills the type and attributes you leave out',
});

/** Fields of the character create table, without their defaults (shared with update). */
const characterFields = (defaults: boolean): FieldMap => ({
	type: oneOf(
		CHARACTER_TYPES,
		defaults
			? { default: 'natural', description: 'When left out with a Preset ID, the preset decides' }
			: {},
	),
	attributes: json({
		...(defaults ? { default: {} } : {}),
		description:
			'Builder attributes as a JSON object, e.g. {"hair": "copper curls", "age": "25-30"}',
	}),
	customPrompt: str({ max: 1500, rows: 3, ...(defaults ? { default: '' } : {}) }),
	negativePrompt: str({ max: 1000, rows: 2, ...(defaults ? { default: '' } : {}) }),
	baseModelId: str({ displayName: 'Base Model ID' }),
	seed: int({ description: 'Seed that keeps the character consistent across generations' }),
	voice,
	personality,
	stylePublic: bool({ description: 'Whether the style of the character is public' }),
	presetId,
	description: str({ max: 500, rows: 2 }),
	category: oneOf(CATEGORIES),
});

/** The character generation body (estimate and generate). */
const generationBody: FieldMap = {
	modelId: { ...modelId, required: true },
	mode: str({ max: 40 }),
	prompt: str({ max: 5000, default: '', rows: 4, top: true }),
	params: json({ default: {}, description: 'Model settings as a JSON object' }),
	inputs: objectList(
		{
			slot: str({ required: true, max: 40 }),
			assetIds: uuidList({ required: true, displayName: 'Asset IDs' }),
		},
		{ default: [], description: 'Further input assets by slot' },
	),
	referenceAssetIds: uuidList({
		displayName: 'Reference Asset IDs',
		description: "Reference images to use instead of the character's own references",
	}),
	purpose: oneOf(['look', 'content', 'motion'], { default: 'content', top: true }),
	tool: oneOf(['influencer', 'motion', 'image', 'video'], { default: 'influencer' }),
	presetId: str({ max: 40, displayName: 'Preset ID' }),
	formatId: str({ max: 60, displayName: 'Format ID' }),
	projectId,
	title: str({ max: 200 }),
	idempotencyKey: str({ max: 120, derived: 'idempotencyKey' }),
	rightsConfirmed: bool({ description: 'Whether you confirm the rights to the input material' }),
};

const referenceSetBody: FieldMap = {
	kinds: manyOf(REFERENCE_SET_KINDS, { required: true, description: 'Reference images to make' }),
	modelId,
	projectId,
};

const formatBody: FieldMap = {
	sourceVideoAssetId: ref('asset', {
		displayName: 'Source Video Asset ID',
		description: 'The video of the format to put the character into',
	}),
	extraImageAssetIds: uuidList({ displayName: 'Extra Image Asset IDs' }),
	startFrameAssetId: ref('asset', { displayName: 'Start Frame Asset ID' }),
	prompt: str({ max: 3000, rows: 3, top: true }),
	projectId,
	idempotencyKey: str({ max: 120, derived: 'idempotencyKey' }),
	rightsConfirmed: bool({ description: 'Whether you confirm the rights to the source material' }),
};
const formatPath = { id: ref('character'), formatId: str({ displayName: 'Format ID' }) };

/** Spec doc 2, "Characters". */
export const characters = group('character', 'Character', { doc: 2, section: 'Characters' }, [
	endpoint('create', 'POST /characters', 'content.create', {
		name: 'Create',
		action: 'Create a character',
		description:
			'Create an AI influencer character; its identity prompt is compiled from the fields',
		body: {
			name: str({ required: true, max: 60 }),
			...characterFields(true),
			studioDraft: bool({ description: 'Whether to keep the character as a studio draft' }),
		},
	}),
	endpoint('getAll', 'GET /characters', 'content.read', {
		name: 'Get Many',
		action: 'Get many characters',
		paginate: 'string',
		query: {
			favorite: flag({ description: 'Whether to return only favorites (true) or only the others' }),
			q: str({ displayName: 'Search', description: 'Text to search for' }),
		},
	}),
	endpoint('get', 'GET /characters/{id}', 'content.read', {
		name: 'Get',
		action: 'Get a character',
		description: 'Get a character with its references and projects',
		path: characterId,
	}),
	endpoint('update', 'PATCH /characters/{id}', 'content.create', {
		name: 'Update',
		action: 'Update a character',
		description: 'Update a character; its identity prompt is compiled again',
		path: characterId,
		body: {
			name: str({ max: 60 }),
			...characterFields(false),
			favorite: bool(),
			coverAssetId: ref('asset', { displayName: 'Cover Asset ID' }),
			save: bool({ description: 'Whether to save the character (true) or keep it as a draft' }),
		},
	}),
	endpoint('delete', 'DELETE /characters/{id}', 'content.delete', {
		name: 'Delete',
		action: 'Delete a character',
		description: 'Delete a character; its files stay in the library',
		path: characterId,
	}),
	endpoint('duplicate', 'POST /characters/{id}/duplicate', 'content.create', {
		name: 'Duplicate',
		action: 'Duplicate a character',
		path: characterId,
	}),
	endpoint('addReference', 'POST /characters/{id}/references', 'content.create', {
		name: 'Add Reference',
		action: 'Add a reference image to a character',
		description:
			'Add a reference image; uploaded images need Confirm Rights (you hold the likeness rights)',
		path: characterId,
		body: {
			assetId: ref('asset', { required: true, displayName: 'Asset ID' }),
			kind: oneOf(REFERENCE_KINDS),
			label: str({ max: 60 }),
			primary: bool({ description: 'Whether this is the main look of the character' }),
			confirmRights: bool({
				top: true,
				description:
					'Whether you confirm you hold the likeness rights of the person shown (needed for uploads)',
			}),
		},
	}),
	endpoint('removeReference', 'DELETE /characters/{id}/references/{assetId}', 'content.create', {
		name: 'Remove Reference',
		action: 'Remove a reference image from a character',
		path: { id: ref('character'), assetId: ref('asset', { displayName: 'Asset ID' }) },
	}),
	endpoint('generateLooks', 'POST /characters/{id}/looks', 'content.create', {
		name: 'Generate Looks',
		action: 'Generate candidate looks for a character',
		description: 'Generate candidate looks (one job each); by default waits for them',
		path: characterId,
		body: {
			modelId,
			count: int({ min: 1, max: 4, description: 'Number of candidate looks' }),
			projectId,
		},
		job: startsGenerations(
			matching({ 'context.characterId': '{id}', 'context.purpose': 'look' }, true),
		),
	}),
	endpoint(
		'estimateReferenceSet',
		'POST /characters/{id}/reference-set/estimate',
		'content.create',
		{
			name: 'Estimate Reference Set',
			action: 'Estimate the cost of a reference set',
			path: characterId,
			body: referenceSetBody,
		},
	),
	endpoint('generateReferenceSet', 'POST /characters/{id}/reference-set', 'content.create', {
		name: 'Generate Reference Set',
		action: 'Generate a reference set for a character',
		description:
			'Generate full body, turnaround, expressions and sheet from the main look (one job per kind)',
		path: characterId,
		body: referenceSetBody,
		job: startsGenerations(
			matching({ 'context.characterId': '{id}', 'context.purpose': 'reference' }, true),
			'/characters/{id}/reference-set/estimate',
		),
	}),
	endpoint('estimate', 'POST /characters/{id}/estimate', 'content.create', {
		name: 'Estimate',
		action: 'Estimate a generation with a character',
		description: 'Cost and conditioning of a generation with this character; nothing is charged',
		path: characterId,
		body: generationBody,
	}),
	endpoint('generate', 'POST /characters/{id}/generate', 'content.create', {
		name: 'Generate',
		action: 'Generate with a character',
		description:
			'Generate with this character (its references are attached); by default waits for the outputs',
		path: characterId,
		body: generationBody,
		idempotent: true,
		// the prompt too: MediaGen records the character's identity prompt, then the request's
		job: startsGenerations(
			matching({
				'context.characterId': '{id}',
				'context.purpose': '{body.purpose}',
				prompt: '*{body.prompt}',
			}),
			'/characters/{id}/estimate',
		),
	}),
	endpoint(
		'estimateFormat',
		'POST /characters/{id}/formats/{formatId}/estimate',
		'content.create',
		{
			name: 'Estimate Format',
			action: 'Estimate putting a character into a format',
			description: 'Cost of putting the character into a viral format; nothing is charged',
			path: formatPath,
			body: formatBody,
		},
	),
	endpoint('runFormat', 'POST /characters/{id}/formats/{formatId}', 'content.create', {
		name: 'Run Format',
		action: 'Put a character into a format',
		description: 'Put the character into a viral format; by default waits for the output',
		path: formatPath,
		body: formatBody,
		idempotent: true,
		job: startsGenerations(
			matching({ 'context.characterId': '{id}', 'context.formatId': '{formatId}' }),
			'/characters/{id}/formats/{formatId}/estimate',
		),
	}),
	endpoint('getGenerations', 'GET /characters/{id}/generations', 'content.read', {
		name: 'Get Generations',
		action: 'Get the generations of a character',
		path: characterId,
		paginate: 'string',
		query: { purpose: oneOf(['look', 'content', 'motion', 'reference']) },
	}),
]);
