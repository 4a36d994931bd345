import { endpoint, group, json, oneOf, ref, str } from '../dsl';
import { CHARACTER_TYPES } from './characters';

/** Spec doc 2, "Character presets". */
export const characterPresets = group(
	'characterPreset',
	'Character Preset',
	{ doc: 2, section: 'Character presets' },
	[
		endpoint('getAll', 'GET /characters/presets', 'content.read', {
			name: 'Get Many',
			action: 'Get many character presets',
			description: 'Get the starter and saved builder presets',
			paginate: 'string',
		}),
		endpoint('create', 'POST /characters/presets', 'content.create', {
			name: 'Create',
			action: 'Create a character preset',
			body: {
				name: str({ required: true, max: 60 }),
				type: oneOf(CHARACTER_TYPES, { required: true }),
				attributes: json({
					required: true,
					namedValues: true,
					description: 'Builder attributes as a JSON object, e.g. {"hair": "copper curls"}',
				}),
			},
		}),
		endpoint('delete', 'DELETE /characters/presets/{id}', 'content.create', {
			name: 'Delete',
			action: 'Delete a character preset',
			description: 'Delete a saved preset (starter presets cannot be deleted)',
			path: { id: ref('characterPreset') },
		}),
	],
);
