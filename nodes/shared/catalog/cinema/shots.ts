import { endpoint, group, int, ref, uuid } from '../dsl';
import { sceneId, shotAddFields, shotEditFields, shotId } from './shared';

/** Spec doc 3, "Cinema projects": shots of a scene. */
export const cinemaShots = group('shot', 'Shot', { doc: 3, section: 'Cinema projects' }, [
	endpoint('add', 'POST /cinema/scenes/{id}/shots', 'content.create', {
		name: 'Add',
		action: 'Add a shot to a scene',
		path: sceneId,
		body: shotAddFields,
	}),
	endpoint('update', 'PATCH /cinema/shots/{id}', 'content.create', {
		name: 'Update',
		action: 'Update a shot',
		path: shotId,
		body: shotEditFields,
	}),
	endpoint('delete', 'DELETE /cinema/shots/{id}', 'content.create', {
		name: 'Delete',
		action: 'Delete a shot',
		path: shotId,
	}),
	endpoint('move', 'POST /cinema/shots/{id}/move', 'content.create', {
		name: 'Move',
		action: 'Move a shot',
		description: 'Move a shot to a position in a scene of the same project',
		path: shotId,
		body: {
			sceneId: uuid({ required: true, displayName: 'Target Scene ID' }),
			position: int({
				required: true,
				min: 0,
				max: 9007199254740991,
				description: 'Position in the scene, starting at 0',
			}),
		},
	}),
	endpoint('setFrame', 'POST /cinema/shots/{id}/frame', 'content.create', {
		name: 'Set Frame',
		action: 'Set the storyboard frame of a shot',
		description: 'Use an image asset as the storyboard frame of a shot',
		path: shotId,
		body: { assetId: ref('asset', { required: true, displayName: 'Image Asset' }) },
	}),
]);
