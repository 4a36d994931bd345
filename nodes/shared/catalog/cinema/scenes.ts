import { endpoint, group, str, strList, uuidList } from '../dsl';
import { cinemaProjectId, sceneId } from './shared';

/** Spec doc 3, "Cinema projects": scenes of a project. */
export const cinemaScenes = group('scene', 'Scene', { doc: 3, section: 'Cinema projects' }, [
	endpoint('add', 'POST /cinema/{id}/scenes', 'content.create', {
		name: 'Add',
		action: 'Add a scene to a cinema project',
		path: cinemaProjectId,
		body: {
			title: str({ required: true, max: 120 }),
			locationId: str({ displayName: 'Location ID', description: 'ID of a continuity location' }),
			description: str({ max: 2000, default: '', rows: 3 }),
			mood: str({ max: 200, default: '' }),
			lighting: str({ max: 40, default: 'natural' }),
			characters: uuidList({ default: [], description: 'Character IDs' }),
			props: strList({ default: [], description: 'Prop IDs of the continuity' }),
		},
	}),
	endpoint('update', 'PATCH /cinema/scenes/{id}', 'content.create', {
		name: 'Update',
		action: 'Update a scene',
		path: sceneId,
		body: {
			title: str({ max: 120 }),
			locationId: str({ displayName: 'Location ID', description: 'ID of a continuity location' }),
			description: str({ max: 2000, rows: 3 }),
			mood: str({ max: 200 }),
			lighting: str({ max: 40 }),
			characters: uuidList({ description: 'Character IDs' }),
			props: strList({ description: 'Prop IDs of the continuity' }),
		},
	}),
	endpoint('delete', 'DELETE /cinema/scenes/{id}', 'content.create', {
		name: 'Delete',
		action: 'Delete a scene',
		description: 'Delete a scene and its shots',
		path: sceneId,
	}),
]);
