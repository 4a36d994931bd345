import type { FieldMap } from '../dsl';
import { int, object, oneOf, ref, str, strList, uuidList } from '../dsl';

/** Aspect ratio values (spec doc 3, "Cinema projects"). */
export const ASPECT_RATIOS = ['16:9', '9:16', '1:1', '4:3', '21:9'] as const;

export const cinemaProjectId = { id: ref('cinemaProject') };
/** Scenes and shots have no list endpoint: plain IDs (from the project's Get or an earlier step). */
export const sceneId = {
	id: str({
		displayName: 'Scene ID',
		description: 'ID of the scene (from Get of its cinema project)',
	}),
};
export const shotId = {
	id: str({
		displayName: 'Shot ID',
		description: 'ID of the shot (from Get of its cinema project)',
	}),
};

const camera = {
	shotSize: str({ max: 30 }),
	angle: str({ max: 30 }),
	focalLength: int({ min: 8, max: 400 }),
	lens: str({ max: 30 }),
	dof: str({ max: 30, displayName: 'Depth of Field' }),
	aperture: str({ max: 10 }),
	movement: str({ max: 30 }),
	intensity: str({ max: 20 }),
	focusTarget: str({ max: 120 }),
};

/** Shot fields when adding a shot: the spec's defaults apply. */
export const shotAddFields: FieldMap = {
	title: str({ max: 120, default: '' }),
	action: str({ max: 2000, default: '', rows: 3 }),
	dialogue: str({ max: 1000, default: '', rows: 2 }),
	camera: object(camera, { default: {} }),
	lighting: str(),
	duration: int({ min: 2, max: 20, default: 5, description: 'Seconds' }),
	characters: uuidList({ default: [], description: 'Character IDs' }),
	props: strList({ default: [], description: 'Prop IDs of the continuity' }),
	promptOverride: str({ rows: 3 }),
	videoModelId: str({ displayName: 'Video Model ID' }),
};

/** Shot fields when editing a shot: all optional, no defaults. */
export const shotEditFields: FieldMap = {
	title: str({ max: 120 }),
	action: str({ max: 2000, rows: 3 }),
	dialogue: str({ max: 1000, rows: 2 }),
	camera: object(camera, {
		description: 'Replaces the camera settings of the shot',
	}),
	lighting: str(),
	duration: int({ min: 2, max: 20, description: 'Seconds' }),
	characters: uuidList({ description: 'Character IDs' }),
	props: strList({ description: 'Prop IDs of the continuity' }),
	promptOverride: str({ rows: 3 }),
	videoModelId: str({ displayName: 'Video Model ID' }),
};

/** Body of estimate and generate. */
export const generateFields: FieldMap = {
	kind: oneOf(['storyboard', 'video'], {
		required: true,
		description: 'Storyboard frames (images) or shot videos',
	}),
	shotIds: uuidList({
		displayName: 'Shot IDs',
		description: 'Shots to generate; all shots of the project when empty',
	}),
};
