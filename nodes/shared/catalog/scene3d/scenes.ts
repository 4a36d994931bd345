import type { Field } from '../dsl';
import {
	bool,
	endpoint,
	group,
	int,
	num,
	object,
	objectList,
	oneOf,
	ref,
	str,
	strList,
} from '../dsl';

const sceneId = { id: ref('scene3d') };

/** The scene object of the spec, typed as JSON (e.g. from AI Scene or Get), checked and filled. */
const sceneObject = (o: { required?: boolean } = {}): Field =>
	object(
		{
			objects: objectList(
				{},
				{ required: true, description: 'The scene objects (each a JSON object)' },
			),
			settings: object(
				{ background: str(), grid: bool(), shadows: bool(), fog: bool() },
				{ default: { background: '#0b0f17', grid: true, shadows: true, fog: false } },
			),
			animation: object(
				{
					duration: num({ min: 1, max: 60, default: 5 }),
					fps: int({ min: 12, max: 60, default: 24, displayName: 'FPS' }),
					keys: objectList({}, { default: [] }),
				},
				{ default: { duration: 5, fps: 24, keys: [] } },
			),
		},
		{
			...o,
			asJson: true,
			description:
				'JSON object {objects, settings, animation}; settings and animation default to the service defaults',
		},
	);

/** Spec doc 3, "3D scenes". */
export const scenes3d = group('scene', '3D Scene', { doc: 3, section: '3D scenes' }, [
	endpoint('aiScene', 'POST /3d/ai/scene', 'content.create', {
		name: 'AI Scene',
		action: 'Create scene objects from a prompt',
		description: 'Turn a prompt into validated, editable scene objects; nothing is saved',
		body: {
			prompt: str({ required: true, max: 2000, rows: 3 }),
			existing: strList({ description: 'IDs of objects already in the scene' }),
		},
	}),
	endpoint('getAll', 'GET /3d/scenes', 'content.read', {
		name: 'Get Many',
		action: 'Get many 3D scenes',
		paginate: 'string',
	}),
	endpoint('create', 'POST /3d/scenes', 'content.create', {
		name: 'Create',
		action: 'Create a 3D scene',
		body: {
			name: str({ required: true, max: 120 }),
			projectId: ref('project'),
			scene: sceneObject(),
		},
	}),
	endpoint('get', 'GET /3d/scenes/{id}', 'content.read', {
		name: 'Get',
		action: 'Get a 3D scene',
		description: 'Get a 3D scene with its referenced files',
		path: sceneId,
	}),
	endpoint('save', 'PUT /3d/scenes/{id}', 'content.create', {
		name: 'Save',
		action: 'Save a 3D scene',
		description:
			'Save the scene. Needs its current version: if it changed, get the scene again and retry.',
		toolText:
			'Save the scene content; needs the current version (on a version conflict, get the scene again and retry)',
		path: sceneId,
		body: {
			scene: sceneObject({ required: true }),
			version: int({
				required: true,
				min: 1,
				max: 9007199254740991,
				description: 'The current version of the scene (from Get)',
			}),
		},
	}),
	endpoint('update', 'PATCH /3d/scenes/{id}', 'content.create', {
		name: 'Update',
		action: 'Rename or move a 3D scene',
		description: 'Rename a 3D scene or move it to another project',
		path: sceneId,
		body: { name: str({ max: 120 }), projectId: ref('project') },
	}),
	endpoint('delete', 'DELETE /3d/scenes/{id}', 'content.delete', {
		name: 'Delete',
		action: 'Delete a 3D scene',
		path: sceneId,
	}),
	endpoint('duplicate', 'POST /3d/scenes/{id}/duplicate', 'content.create', {
		name: 'Duplicate',
		action: 'Duplicate a 3D scene',
		path: sceneId,
	}),
	endpoint('registerRender', 'POST /3d/scenes/{id}/renders', 'content.create', {
		name: 'Register Render',
		action: 'Register a render of a 3D scene',
		description: 'Register an uploaded render (image or animation) or GLB export of the scene',
		path: sceneId,
		body: {
			assetId: ref('asset', { required: true, displayName: 'Asset' }),
			kind: oneOf(['image', 'animation', 'glb'], { required: true }),
		},
	}),
]);
