import {
	endpoint,
	startsGenerations,
	matching,
	group,
	int,
	object,
	objectList,
	oneOf,
	str,
	uuidList,
} from '../dsl';
import { ASPECT_RATIOS, cinemaProjectId, generateFields } from './shared';

const continuityItem = (descriptionMax: number) => ({
	id: str({ required: true, max: 40, displayName: 'ID' }),
	name: str({ required: true, max: 80 }),
	description: str({ max: descriptionMax, default: '' }),
	assetIds: uuidList({ default: [], displayName: 'Asset IDs' }),
});

/** The continuity of a project: replaced as a whole by Update. */
const continuity = object(
	{
		characters: uuidList({ required: true, description: 'Character IDs' }),
		locations: objectList(continuityItem(1000), { required: true }),
		props: objectList(continuityItem(500), { required: true }),
		styleRefs: uuidList({
			required: true,
			displayName: 'Style References',
			description: 'Asset IDs of style reference images',
		}),
		wardrobe: str({ required: true, max: 1000, rows: 2 }),
	},
	{ description: 'Characters, locations, props, style references and wardrobe kept consistent' },
);

/** Spec doc 3, "Cinema projects": the project, its AI Director, generation and exports. */
export const cinemaProjects = group(
	'cinemaProject',
	'Cinema Project',
	{ doc: 3, section: 'Cinema projects' },
	[
		endpoint('getAll', 'GET /cinema', 'content.read', {
			name: 'Get Many',
			action: 'Get many cinema projects',
			paginate: 'string',
		}),
		endpoint('create', 'POST /cinema', 'content.create', {
			name: 'Create',
			action: 'Create a cinema project',
			body: {
				name: str({ required: true, max: 120 }),
				logline: str({ max: 1000, default: '', rows: 2 }),
				style: str({ max: 500, default: '' }),
				aspectRatio: oneOf(ASPECT_RATIOS, { default: '16:9' }),
			},
		}),
		endpoint('get', 'GET /cinema/{id}', 'content.read', {
			name: 'Get',
			action: 'Get a cinema project',
			description: 'Get a cinema project with its scenes, shots and continuity',
			path: cinemaProjectId,
		}),
		endpoint('update', 'PATCH /cinema/{id}', 'content.create', {
			name: 'Update',
			action: 'Update a cinema project',
			path: cinemaProjectId,
			body: {
				name: str({ max: 120 }),
				logline: str({ max: 1000, rows: 2 }),
				style: str({ max: 500 }),
				aspectRatio: oneOf(ASPECT_RATIOS),
				storyboardModelId: str({ displayName: 'Storyboard Model ID' }),
				videoModelId: str({ displayName: 'Video Model ID' }),
				continuity,
			},
		}),
		endpoint('delete', 'DELETE /cinema/{id}', 'content.delete', {
			name: 'Delete',
			action: 'Delete a cinema project',
			path: cinemaProjectId,
		}),
		endpoint('estimate', 'POST /cinema/{id}/estimate', 'content.create', {
			name: 'Estimate',
			action: 'Estimate the cost of storyboard frames or shot videos',
			description: 'Credits for storyboard frames or shot videos; nothing is charged',
			path: cinemaProjectId,
			body: generateFields,
		}),
		endpoint('generate', 'POST /cinema/{id}/generate', 'content.create', {
			name: 'Generate',
			action: 'Generate storyboard frames or shot videos',
			description:
				'Generate storyboard frames or shot videos, one job per shot. Credits are charged only on success.',
			toolText:
				'Generate storyboard frames or shot videos, one job per shot; by default waits for all of them. Credits are charged only on success.',
			path: cinemaProjectId,
			body: generateFields,
			job: startsGenerations(
				// every field the service records of a shot's job: the shot too (`shotIds`)
				matching(
					{
						'context.cinemaProjectId': '{id}',
						'context.kind': '{body.kind}',
						'context.shotId': '{body.shotIds}',
					},
					true,
				),
				'/cinema/{id}/estimate',
			),
		}),
		endpoint('propose', 'POST /cinema/{id}/director', 'content.create', {
			name: 'AI Director Propose',
			action: 'Propose scenes and shots with the AI director',
			description:
				'The AI Director proposes scenes, shots, camera, lighting and models; nothing is generated',
			path: cinemaProjectId,
			body: {
				brief: str({ required: true, max: 4000, rows: 4 }),
				scenes: int({ min: 1, max: 8 }),
				shotsPerScene: int({ min: 1, max: 8 }),
				totalSeconds: int({ min: 5, max: 600 }),
			},
		}),
		endpoint('discardProposal', 'DELETE /cinema/{id}/director', 'content.create', {
			name: 'AI Director Discard',
			action: 'Discard the AI director proposal',
			path: cinemaProjectId,
		}),
		endpoint('applyProposal', 'POST /cinema/{id}/director/apply', 'content.create', {
			name: 'AI Director Apply',
			action: 'Apply the AI director proposal',
			description: 'Apply the approved proposal: append its scenes, or replace the existing ones',
			path: cinemaProjectId,
			body: { mode: oneOf(['replace', 'append'], { default: 'append', top: true }) },
		}),
		endpoint('exportSequence', 'POST /cinema/{id}/export/sequence', 'content.create', {
			name: 'Export Sequence',
			action: 'Export the shots as an editor project',
			description: 'Combine the shot clips into a new editor project (edit)',
			path: cinemaProjectId,
		}),
		endpoint('exportStoryboard', 'POST /cinema/{id}/export/storyboard', 'content.create', {
			name: 'Export Storyboard',
			action: 'Export the storyboard as a PNG contact sheet',
			description: 'Create the storyboard contact sheet (PNG asset) and download it',
			path: cinemaProjectId,
			binary: 'resultAsset',
		}),
		endpoint('getMetadata', 'GET /cinema/{id}/export/metadata', 'content.read', {
			name: 'Get Metadata',
			action: 'Get the metadata of a cinema project',
			description: 'Export the project metadata as JSON',
			path: cinemaProjectId,
		}),
	],
);
