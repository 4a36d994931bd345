/**
 * The JSON documents MediaGen makes itself (a 3D scene, an editor timeline, a canvas graph) stay
 * JSON parameters in every node version (#25): they are passed on without code by mapping the
 * field of the node that returned them (`{{ $json.scene }}`), and still checked field by field.
 * Through n8n-core's engine against the sandbox: Get → Save, the saved version counted up.
 */
import type { IDataObject } from 'n8n-workflow';

import { MediaGen3d } from '../../nodes/MediaGen3d/MediaGen3d.node';
import { MediaGenCanvas } from '../../nodes/MediaGenCanvas/MediaGenCanvas.node';
import { MediaGenEditor } from '../../nodes/MediaGenEditor/MediaGenEditor.node';
import { fastJobs, nodeFactory, rl, useSandbox } from '../harness/engine/setup';

const scene3d = nodeFactory(new MediaGen3d());
const canvas = nodeFactory(new MediaGenCanvas());
const editor = nodeFactory(new MediaGenEditor());
const { sb, flow } = useSandbox();
fastJobs({ polling: false });

/** Node version 2, the default of these nodes. */
const v2 = { typeVersion: 2 };

test('3D scene: Get → Save with the scene mapped from Get', async () => {
	const r = await flow([
		scene3d(
			'Create',
			{
				resource: 'scene',
				operation: 'create',
				name: 'Room',
				additionalFields: { scene: JSON.stringify({ objects: [{ id: 'box-1', kind: 'box' }] }) },
			},
			v2,
		),
		scene3d('Get', { resource: 'scene', operation: 'get', scene3dId: rl('={{ $json.id }}') }, v2),
		scene3d(
			'Save',
			{
				resource: 'scene',
				operation: 'save',
				scene3dId: rl('={{ $json.id }}'),
				scene: '={{ $json.scene }}',
				version: '={{ $json.version }}',
			},
			v2,
		),
	]);
	expect(r.error).toBeUndefined();
	const [saved] = r.json('Save');
	expect(saved).toMatchObject({ version: 2, scene: { objects: [{ id: 'box-1', kind: 'box' }] } });
});

test('editor: Edit → Get → Save Timeline with the timeline mapped from Get', async () => {
	const source = sb.control.createLargeAsset({
		size: 4096,
		mimeType: 'video/mp4',
		filename: 'beach.mp4',
	}).id;
	const r = await flow([
		editor('Create', { resource: 'edit', operation: 'create', sourceAssetId: rl(source) }, v2),
		editor('Get', { resource: 'edit', operation: 'get', editId: rl('={{ $json.id }}') }, v2),
		editor(
			'Save',
			{
				resource: 'edit',
				operation: 'saveTimeline',
				editId: rl('={{ $json.id }}'),
				timeline: '={{ $json.timeline }}',
				version: '={{ $json.version }}',
			},
			v2,
		),
	]);
	expect(r.error).toBeUndefined();
	const [got] = r.json('Get');
	const [saved] = r.json('Save');
	expect(saved.version).toBe(2);
	expect((saved.timeline as IDataObject).clips).toEqual((got.timeline as IDataObject).clips);
});

test('canvas: Workflow → Get → Update with the graph mapped from Get', async () => {
	const graph = {
		nodes: [
			{ id: 'p', type: 'prompt', position: { x: 0, y: 0 }, data: { text: 'a fox' } },
			{ id: 'a', type: 'image_gen', position: { x: 200, y: 0 }, data: {} },
		],
		edges: [{ id: 'e1', source: 'p', target: 'a', targetHandle: 'in' }],
		viewport: { x: 0, y: 0, zoom: 1 },
	};
	const r = await flow([
		canvas('Create', { resource: 'workflow', operation: 'create', name: 'Flow' }, v2),
		canvas(
			'First Save',
			{
				resource: 'workflow',
				operation: 'update',
				canvasWorkflowId: rl('={{ $json.id }}'),
				updateFields: { graph: JSON.stringify(graph), version: '={{ $json.version }}' },
			},
			v2,
		),
		canvas(
			'Get',
			{ resource: 'workflow', operation: 'get', canvasWorkflowId: rl('={{ $json.id }}') },
			v2,
		),
		canvas(
			'Save',
			{
				resource: 'workflow',
				operation: 'update',
				canvasWorkflowId: rl('={{ $json.id }}'),
				updateFields: { graph: '={{ $json.graph }}', version: '={{ $json.version }}' },
			},
			v2,
		),
	]);
	expect(r.error).toBeUndefined();
	const [saved] = r.json('Save');
	expect(saved.version).toBe(3);
	expect((saved.graph as IDataObject).edges).toEqual(graph.edges);
});
