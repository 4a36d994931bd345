import { bool, endpoint, group, int, json, num, object, objectList, oneOf, ref, str } from '../dsl';

/** Canvas node types (spec doc 3, PATCH /canvas/{id}, graph.nodes[].type). */
export const CANVAS_NODE_TYPES = [
	'prompt',
	'text',
	'image_input',
	'video_input',
	'audio_input',
	'character',
	'model',
	'image_gen',
	'video_gen',
	'audio_gen',
	'transform',
	'upscale',
	'merge',
	'output',
	'group',
] as const;

const MAX_SAFE = 9007199254740991;
const workflowId = { id: ref('canvasWorkflow', { displayName: 'Workflow' }) };

/** The graph of a canvas workflow, typed as JSON and checked field by field. */
const graph = object(
	{
		nodes: objectList(
			{
				id: str({ required: true, max: 60 }),
				type: oneOf(CANVAS_NODE_TYPES, { required: true }),
				position: json({ required: true }),
				data: json({ default: {} }),
				parentId: str({ max: 60 }),
				style: json(),
			},
			{ required: true },
		),
		edges: objectList(
			{
				id: str({ required: true, max: 200 }),
				source: str({ required: true, max: 60 }),
				target: str({ required: true, max: 60 }),
				targetHandle: str({ required: true, max: 40 }),
				sourceHandle: str(),
			},
			{ required: true },
		),
		viewport: object({
			x: num({ required: true }),
			y: num({ required: true }),
			zoom: num({ required: true }),
		}),
	},
	{
		asJson: true,
		description:
			'The whole graph as JSON: { nodes: [{ id, type, position, data }], edges: [{ id, source, target, targetHandle }], viewport: { x, y, zoom } }. Saving it needs the current Version.',
	},
);

/** Spec doc 3, "Canvas workflows": the workflows themselves. */
export const canvasWorkflows = group(
	'workflow',
	'Workflow',
	{ doc: 3, section: 'Canvas workflows' },
	[
		endpoint('getAll', 'GET /canvas', 'content.read', {
			name: 'Get Many',
			action: 'Get many canvas workflows',
			paginate: 'string',
		}),
		endpoint('create', 'POST /canvas', 'content.create', {
			name: 'Create',
			action: 'Create a canvas workflow',
			description: 'Create a canvas workflow, blank or from a template',
			body: {
				name: str({ required: true, max: 120 }),
				description: str({ max: 1000, default: '', rows: 3 }),
				templateId: str({
					max: 60,
					displayName: 'Template ID',
					description: 'ID of a template (see Template > Get Many); blank workflow when empty',
				}),
				projectId: ref('project'),
			},
		}),
		endpoint('get', 'GET /canvas/{id}', 'content.read', {
			name: 'Get',
			action: 'Get a canvas workflow',
			description: 'Get a canvas workflow with its graph and validation',
			path: workflowId,
		}),
		endpoint('update', 'PATCH /canvas/{id}', 'content.create', {
			name: 'Update',
			action: 'Update a canvas workflow',
			description:
				'Update a canvas workflow. Saving the graph needs its current version; if refused, get it and retry.',
			toolText:
				'Update a canvas workflow; saving the graph needs its current version (a stale one is refused: reload and save again)',
			path: workflowId,
			body: {
				name: str({ max: 120 }),
				description: str({ max: 1000, rows: 3 }),
				graph,
				version: int({
					min: 1,
					max: MAX_SAFE,
					description: 'The current version of the workflow (from Get); needed to save the graph',
				}),
				visibility: oneOf(['private', 'workspace']),
				projectId: ref('project'),
			},
		}),
		endpoint('delete', 'DELETE /canvas/{id}', 'content.delete', {
			name: 'Delete',
			action: 'Delete a canvas workflow',
			path: workflowId,
		}),
		endpoint('duplicate', 'POST /canvas/{id}/duplicate', 'content.create', {
			name: 'Duplicate',
			action: 'Duplicate a canvas workflow',
			path: workflowId,
		}),
		endpoint('share', 'POST /canvas/{id}/share', 'content.create', {
			name: 'Share',
			action: 'Turn the share link of a canvas workflow on or off',
			path: workflowId,
			body: {
				on: bool({
					required: true,
					displayName: 'Share Link On',
					description: 'Whether the public share link is on (off revokes it)',
				}),
			},
		}),
		endpoint('import', 'POST /canvas/import', 'content.create', {
			name: 'Import',
			action: 'Import a shared canvas workflow',
			description: 'Import a shared canvas workflow as a copy, by its share token',
			body: { token: str({ required: true, max: 64, description: 'The share token' }) },
		}),
		endpoint('estimate', 'POST /canvas/{id}/estimate', 'content.create', {
			name: 'Estimate',
			action: 'Estimate the cost of a canvas workflow',
			description: 'Validate the graph and estimate its credits per node; nothing is charged',
			path: workflowId,
		}),
	],
);

export { MAX_SAFE, workflowId };
