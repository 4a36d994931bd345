import type { ChargedRule } from '../dsl';
import {
	exportWait,
	bool,
	endpoint,
	startsGenerations,
	matching,
	group,
	int,
	json,
	num,
	object,
	oneOf,
	ref,
	str,
} from '../dsl';
import { PRESETS, timeline } from './timeline';

const editId = { id: ref('edit') };

/**
 * A charged edit call that answers with the edit (or `answer`): its work is the edit's AI task of
 * `type` (docs/api-assumptions.md, Edit record), found again after a lost answer or a crash.
 */
const editTask = (
	type: string,
	answer: ChargedRule['answer'] = { path: '/edits/{id}' },
	estimate?: string,
): ChargedRule => ({
	evidence: { path: '/edits/{id}', within: 'aiTasks', match: { type } },
	answer,
	...(estimate ? { estimate } : {}),
});
const preset = (o: { required?: boolean; top?: boolean } = {}) => oneOf(PRESETS, o);
const name = str({ max: 120 });
const label = str({ max: 40 });
const version = (description: string) =>
	int({ required: true, min: 1, max: 9007199254740991, description });

/** Spec doc 3, "Edit projects". */
export const edits = group('edit', 'Edit', { doc: 3, section: 'Edit projects' }, [
	endpoint('getAll', 'GET /edits', 'content.read', {
		name: 'Get Many',
		action: 'Get many edits',
		paginate: 'string',
		query: { sourceAssetId: ref('asset', { displayName: 'Source Asset' }) },
	}),
	endpoint('create', 'POST /edits', 'content.create', {
		name: 'Create',
		action: 'Create an edit',
		description: 'Open an image or video in the editor; the original is never modified',
		body: {
			sourceAssetId: ref('asset', { required: true, displayName: 'Source Asset' }),
			name,
			preset: preset(),
			projectId: ref('project'),
		},
	}),
	endpoint('get', 'GET /edits/{id}', 'content.read', {
		name: 'Get',
		action: 'Get an edit',
		description: 'Get an edit with its timeline, assets, exports and AI tasks',
		path: editId,
	}),
	endpoint('saveTimeline', 'PUT /edits/{id}', 'content.create', {
		name: 'Save Timeline',
		action: 'Save the timeline of an edit',
		description:
			"Save the edit's timeline. Needs its current version: if it changed, get the edit again and retry.",
		toolText:
			'Save the timeline with optimistic concurrency: Version must be the current version, else the save is refused as a conflict (get the edit and retry)',
		path: editId,
		body: {
			timeline: timeline('The timeline to save', true),
			name,
			label,
			preset: preset(),
			version: version('The current version of the edit (from Edit: Get); the save makes it +1'),
		},
	}),
	endpoint('delete', 'DELETE /edits/{id}', 'content.delete', {
		name: 'Delete',
		action: 'Delete an edit',
		description: 'Delete an edit; its exports stay in the library',
		path: editId,
	}),
	endpoint('duplicate', 'POST /edits/{id}/duplicate', 'content.create', {
		name: 'Duplicate',
		action: 'Duplicate an edit',
		description: 'Create a variation of an edit, optionally with another timeline',
		path: editId,
		body: {
			label,
			name,
			timeline: timeline('Timeline of the variation (default: the current one)'),
		},
	}),
	endpoint('render', 'POST /edits/{id}/render', 'content.create', {
		name: 'Render',
		action: 'Render an edit',
		description:
			'Export the edit with a preset; by default waits and returns it (the file as binary if asked)',
		toolText:
			'Export the edit with a preset; by default waits for the export and returns it, with the exported file as binary if asked',
		path: editId,
		body: {
			preset: preset(),
			still: bool({ description: 'Whether to export a still image instead of a video' }),
			options: object(
				{
					resolution: oneOf(['720p', '1080p', '1440p', '2160p']),
					fps: num({
						displayName: 'FPS',
						description: 'Frame rate; the service accepts four values',
					}),
					quality: oneOf(['standard', 'high', 'max']),
					burnCaptions: bool(),
				},
				{
					asJson: true,
					displayName: 'Render Options',
					description:
						'JSON object: resolution (720p|1080p|1440p|2160p), fps, quality (standard|high|max), burnCaptions',
				},
			),
		},
		job: {
			poll: '/edits/{id}',
			within: 'exports',
			recover: { by: 'record', path: '/edits/{id}', within: 'exports' },
		},
	}),
	exportWait('GET /edits/{id}', 'edit', editId),
	endpoint('thumbnail', 'POST /edits/{id}/thumbnail', 'content.create', {
		name: 'Thumbnail',
		action: 'Save a thumbnail of an edit',
		description: 'Save the frame at a time as the thumbnail; returns the image asset',
		path: editId,
		body: { time: num({ required: true, min: 0, max: 3600, description: 'Time in seconds' }) },
		binary: 'resultAsset',
	}),
	endpoint('smartCrop', 'POST /edits/{id}/smart-crop', 'content.create', {
		name: 'Smart Crop',
		action: 'Smart crop an edit',
		description: 'Get saliency-based crop rectangles for a preset',
		path: editId,
		body: { preset: preset({ required: true }) },
	}),
	endpoint('estimateCaptions', 'POST /edits/{id}/captions/estimate', 'content.create', {
		name: 'Estimate Captions',
		action: 'Estimate the cost of captions',
		path: editId,
		body: { modelId: str({ max: 80, displayName: 'Model ID' }) },
	}),
	endpoint('createCaptions', 'POST /edits/{id}/captions', 'content.create', {
		name: 'Create Captions',
		action: 'Create captions for an edit',
		description: 'Auto captions: transcribe the audio with timestamps',
		path: editId,
		charged: editTask('captions', undefined, '/edits/{id}/captions/estimate'),
		body: { modelId: str({ max: 80, displayName: 'Model ID' }), language: str({ max: 10 }) },
	}),
	endpoint('translateCaptions', 'POST /edits/{id}/captions/translate', 'content.create', {
		name: 'Translate Captions',
		action: 'Translate the captions of an edit',
		description: 'Translate the captions; timing is kept',
		path: editId,
		charged: editTask('translate'),
		body: { language: str({ required: true, max: 20 }) },
	}),
	endpoint('cleanup', 'POST /edits/{id}/cleanup', 'content.create', {
		name: 'Cleanup',
		action: 'Clean up the audio of an edit',
		description: 'Audio noise removal and speech leveling',
		path: editId,
		charged: editTask('cleanup'),
	}),
	endpoint('highlights', 'POST /edits/{id}/highlights', 'content.create', {
		name: 'Highlights',
		action: 'Extract highlights from an edit',
		description: 'Extract highlight clips from the transcript as new variations',
		path: editId,
		charged: editTask('highlights', { path: '/edits/{jobId}', each: 'result.editIds' }),
		body: {
			count: int({ min: 1, max: 5, default: 3 }),
			maxSeconds: int({ min: 5, max: 90, default: 30 }),
		},
	}),
	endpoint('analyze', 'POST /edits/{id}/analyze', 'content.create', {
		name: 'Analyze',
		action: 'Analyze an edit',
		description: 'Metadata, silences, scenes, waveform and frames',
		path: editId,
		charged: editTask('analyze', { path: '/edits/{id}/analysis' }),
		body: { transcribe: bool({ default: false }) },
	}),
	endpoint('getAnalysis', 'GET /edits/{id}/analysis', 'content.read', {
		name: 'Get Analysis',
		action: 'Get the analysis of an edit',
		description: 'Get the latest analysis of an edit',
		path: editId,
	}),
	endpoint('estimateAiEdit', 'POST /edits/{id}/ai/estimate', 'content.create', {
		name: 'Estimate AI Edit',
		action: 'Estimate the cost of an AI edit',
		description:
			'Credits for the next AI edit instruction (planning, plus transcription the first time)',
		path: editId,
		body: {
			// The spec gives this body only as "obj" (its contents are not shown): the JSON is the body.
			$any: json({
				displayName: 'Body',
				spread: true,
				description: 'The request body as a JSON object',
			}),
		},
	}),
	endpoint('aiEdit', 'POST /edits/{id}/ai', 'content.create', {
		name: 'AI Edit',
		action: 'Edit with an AI instruction',
		description: 'Natural-language edit of the version given as Base Version',
		path: editId,
		charged: editTask('ai', undefined, '/edits/{id}/ai/estimate'),
		body: {
			instruction: str({ required: true, max: 2000, rows: 3 }),
			baseVersion: version('The current version of the edit the instruction applies to'),
		},
	}),
	endpoint('getAiConversation', 'GET /edits/{id}/ai', 'content.read', {
		name: 'Get AI Conversation',
		action: 'Get the AI conversation of an edit',
		description: 'Get the conversation with the AI editor',
		path: editId,
	}),
	endpoint('getVersions', 'GET /edits/{id}/versions', 'content.read', {
		name: 'Get Versions',
		action: 'Get the versions of an edit',
		description: 'Get the saved versions of an edit',
		path: editId,
	}),
	endpoint('restoreVersion', 'POST /edits/{id}/versions/{number}/restore', 'content.create', {
		name: 'Restore Version',
		action: 'Restore a version of an edit',
		description: 'Make a saved version current',
		path: { id: ref('edit'), number: str({ displayName: 'Version Number' }) },
		body: { baseVersion: version('The current version of the edit') },
	}),
	endpoint('dub', 'POST /edits/{id}/dub', 'content.create', {
		name: 'Dub',
		action: 'Dub an edit',
		description:
			'Dub into another language with the voice provider (charged); the result is a new variation',
		path: editId,
		body: { language: str({ required: true }), watermark: bool() },
		// every field the service records of a dub: the language and the watermark too
		job: startsGenerations(
			matching({
				'context.editId': '{id}',
				mode: 'dub',
				'context.language': '{body.language}',
				'params.watermark': '{body.watermark}',
			}),
		),
	}),
]);
