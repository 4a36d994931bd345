import { endpoint, group } from '../dsl';

/** Spec doc 3, "Canvas workflows": templates to start a workflow from. */
export const canvasTemplates = group(
	'template',
	'Template',
	{ doc: 3, section: 'Canvas workflows' },
	[
		endpoint('getAll', 'GET /canvas/templates', 'content.read', {
			name: 'Get Many',
			action: 'Get many canvas templates',
			paginate: 'string',
		}),
	],
);
