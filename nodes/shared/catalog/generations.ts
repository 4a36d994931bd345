import type { FieldMap } from './dsl';
import {
	bool,
	endpoint,
	GENERATION_POLL,
	startsGenerations,
	int,
	group,
	json,
	objectList,
	oneOf,
	ref,
	str,
	uuid,
	uuidList,
} from './dsl';

/** Generation tool values (spec doc 1, "Resources and their fields"). */
export const TOOLS = [
	'image',
	'video',
	'influencer',
	'motion',
	'lipsync',
	'swap',
	'ads',
	'marketing',
	'cinema',
	'audio',
	'effects',
	'canvas',
	'agent',
	'editor',
	'3d',
	'api',
] as const;

/** The generation request body (used by POST /generations/estimate and POST /generations). */
const generationBody: FieldMap = {
	modelId: str({ required: true, max: 80, displayName: 'Model ID' }),
	mode: str({ max: 40 }),
	tool: oneOf(TOOLS, { default: 'image', top: true }),
	prompt: str({ max: 50000, rows: 4, top: true }),
	negativePrompt: str({ max: 5000, rows: 2 }),
	params: json({ default: {}, description: 'Model settings as a JSON object' }),
	inputs: objectList(
		{
			slot: str({ required: true, max: 40 }),
			assetIds: uuidList({ default: [], displayName: 'Asset IDs' }),
		},
		{ default: [], description: 'Input assets by slot' },
	),
	projectId: ref('project'),
	title: str({ max: 200 }),
	idempotencyKey: str({ max: 120, derived: 'idempotencyKey' }),
	context: json({ default: {}, description: 'Context as a JSON object' }),
	rightsConfirmed: bool({ description: 'Whether you confirm the rights to the input material' }),
};

const generationId = { id: ref('generation') };
const job = startsGenerations({ by: 'provenance' }, '/generations/estimate');

/** Spec doc 1, "Generations". */
export const generations = group('generation', 'Generation', { doc: 1, section: 'Generations' }, [
	endpoint('estimate', 'POST /generations/estimate', 'content.create', {
		name: 'Estimate',
		action: 'Estimate the cost of a generation',
		description: 'Validate a generation request and return its credit cost; nothing is charged',
		body: generationBody,
	}),
	endpoint('create', 'POST /generations', 'content.create', {
		name: 'Create',
		action: 'Create a generation',
		description:
			'Start a generation and, by default, wait for its outputs. Credits are charged only on success.',
		toolText:
			'Start a generation; by default waits for it and returns its outputs. Credits are charged only on success.',
		body: generationBody,
		idempotent: true,
		job,
	}),
	endpoint('getAll', 'GET /generations', 'content.read', {
		name: 'Get Many',
		action: 'Get many generations',
		description: 'Get the history and queue of generations',
		paginate: 'string',
		query: {
			status: oneOf(['active', 'completed', 'failed', 'all']),
			tool: str(),
			projectId: ref('project'),
			batchId: uuid({ displayName: 'Batch ID' }),
		},
	}),
	endpoint('get', 'GET /generations/{id}', 'content.read', {
		name: 'Get',
		action: 'Get a generation',
		path: generationId,
	}),
	endpoint('cancel', 'POST /generations/{id}/cancel', 'content.create', {
		name: 'Cancel',
		action: 'Cancel a generation',
		description: 'Cancel a generation; its reserved credits are returned',
		path: generationId,
	}),
	endpoint('retry', 'POST /generations/{id}/retry', 'content.create', {
		name: 'Retry',
		action: 'Retry a failed generation',
		path: generationId,
		reserves: { cancel: '/generations/{jobId}/cancel' },
	}),
	endpoint('wait', 'GET /generations/{id}', 'content.read', {
		name: 'Wait',
		action: 'Wait for a generation to finish',
		description:
			'Wait for a generation started earlier (e.g. with Wait for Completion off) and return its outputs',
		toolText:
			'Wait for a generation started earlier (e.g. by Create with Wait for Completion off) and return its outputs, as Create does',
		path: {
			id: ref('generation', {
				description:
					'The generation to wait for. Any job whose record is a generation works (character jobs, matrix variants, cinema shots, effects, …); map it from the node that started it, e.g. {{ $json.id }}.',
			}),
		},
		job: { ...GENERATION_POLL, waitsOnly: true },
		nodeOperation: { kind: 'wait', jobId: 'id', since: 2 },
	}),
	endpoint('collect', 'GET /generations', 'content.read', {
		name: 'Collect From Execution',
		action: 'Collect the generations an n8n execution started',
		description:
			'Finish an n8n execution that was lost: find the generations it started and wait for their outputs',
		toolText:
			'Find the generations a MediaGen node started in an n8n execution (by the provenance in their context), wait for them and return them as Create does: finishes a run n8n lost',
		query: {
			executionId: str({
				top: true,
				displayName: 'Execution ID',
				description:
					"The ID of the n8n execution that started the generations, as n8n's Executions list shows it",
			}),
			workflowId: str({
				top: true,
				displayName: 'Workflow ID',
				description:
					'Only generations started by this workflow (the ID in its URL); without an Execution ID, every execution of it',
			}),
			node: str({
				displayName: 'Node',
				description: 'Only generations started by the MediaGen node of this name (or node ID)',
			}),
			hours: int({
				min: 1,
				max: 720,
				default: 24,
				displayName: 'Search Back (Hours)',
				description: 'How far back to look for the generations',
			}),
		},
		job: { ...GENERATION_POLL, waitsOnly: true },
		nodeOperation: { kind: 'collect', since: 2 },
	}),
	endpoint('getSubtitles', 'GET /generations/{id}/subtitles', 'content.read', {
		name: 'Get Subtitles',
		action: 'Get the subtitles of a generation',
		description: 'Get SRT or VTT subtitles from a transcription, as text and as a file',
		path: generationId,
		query: { format: oneOf(['srt', 'vtt'], { top: true }) },
		binary: 'text',
	}),
]);
