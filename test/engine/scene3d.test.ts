/**
 * MediaGen 3D through n8n-core's engine against the sandbox: every operation of 3D Scene (AI
 * Scene, Get Many, Create, Get, Save with versions, Update, Delete, Duplicate, Register Render),
 * the scene object checked field by field with the spec's defaults filled in, a stale save
 * refused with 409, bad input refused before any request, continue-on-fail.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { MediaGen3d } from '../../nodes/MediaGen3d/MediaGen3d.node';
import { fastJobs, nodeFactory, rl, useSandbox } from '../harness/engine/setup';

const node = nodeFactory(new MediaGen3d());
const { sb, flow, runner } = useSandbox();
fastJobs({ polling: false });

const NAME = '3D';
const { run, ok } = runner(node, NAME);

const scene = (operation: string, p: INodeParameters = {}) => ({
	resource: 'scene',
	operation,
	...p,
});
const DEFAULT_SETTINGS = { background: '#0b0f17', grid: true, shadows: true, fog: false };
const asset = (filename: string, mimeType: string) =>
	sb.control.createLargeAsset({ size: 64, filename, mimeType }).id;

describe('3D scene', () => {
	test('create fills the defaults; get many, get, update (rename and move), duplicate, delete', async () => {
		const [bare] = await ok(scene('create', { name: 'Bare' }));
		expect(bare).toMatchObject({
			version: 1,
			scene: { objects: [], settings: DEFAULT_SETTINGS, animation: { duration: 5, fps: 24 } },
		});
		const [room] = await ok(
			scene('create', {
				name: 'Room',
				additionalFields: {
					scene: JSON.stringify({
						objects: [{ id: 'box-1' }],
						settings: { fog: true, background: '#101010' },
					}),
				},
			}),
		);
		expect(room.scene).toMatchObject({
			settings: { ...DEFAULT_SETTINGS, fog: true, background: '#101010' },
			animation: { duration: 5, fps: 24, keys: [] },
		});

		const many = await ok(scene('getAll', { returnAll: true }));
		expect(many.map((s) => s.name)).toEqual(['Room', 'Bare']);
		const [got] = await ok(scene('get', { scene3dId: rl(room.id) }));
		expect(got).toMatchObject({ id: room.id, files: [], renders: [] });

		const [p] = (
			await flow([
				{
					name: 'Project',
					type: 'n8n-nodes-mediagen.mediaGen',
					parameters: { resource: 'project', operation: 'create', name: 'Sets' },
				},
			])
		).json('Project');
		const [moved] = await ok(
			scene('update', {
				scene3dId: rl(room.id),
				updateFields: { name: 'Living Room', projectId: rl(p.id) },
			}),
		);
		expect(moved).toMatchObject({ name: 'Living Room', projectId: p.id, version: 1 });

		const [copy] = await ok(scene('duplicate', { scene3dId: rl(room.id) }));
		expect(copy).toMatchObject({ name: 'Living Room (copy)', version: 1, projectId: p.id });

		const [deleted] = await ok(scene('delete', { scene3dId: rl(bare.id) }));
		expect(deleted).toEqual({ id: bare.id, deleted: true });
	});

	test('save needs the current version: a stale save is a 409 conflict', async () => {
		const [s] = await ok(scene('create', { name: 'S' }));
		const [saved1] = await ok(
			scene('save', {
				scene3dId: rl(s.id),
				scene: JSON.stringify({ objects: [{ id: 'box-1' }], animation: { duration: 12 } }),
				version: 1,
			}),
		);
		expect(saved1).toMatchObject({
			version: 2,
			scene: { settings: DEFAULT_SETTINGS, animation: { duration: 12, fps: 24, keys: [] } },
		});
		const stale = await run(
			scene('save', { scene3dId: rl(s.id), scene: '{"objects": [{}]}', version: 1 }),
		);
		expect(stale.error?.message).toMatch(/409|conflict|version/i);
		const soft = await run(
			scene('save', { scene3dId: rl(s.id), scene: '{"objects": [{}]}', version: 1 }),
			{ continueOnFail: true },
		);
		expect(soft.error).toBeUndefined();
		expect(soft.out[0].error).toBeDefined();
		expect(soft.out[0].httpCode).toBe('409');
	});

	test('AI scene, then register renders of the scene', async () => {
		const [ai] = await ok(
			scene('aiScene', {
				prompt: 'three blue spheres and a lamp',
				additionalFields: { existing: 'sphere-1' },
			}),
		);
		expect((ai.objects as IDataObject[]).map((o) => o.id)).toEqual([
			'sphere-2',
			'sphere-3',
			'sphere-4',
			'light-1',
		]);
		expect(sb.control.requests({ method: 'POST', path: '/3d/scenes$' })).toHaveLength(0);

		const [s] = await ok(scene('create', { name: 'Renders' }));
		const png = asset('still.png', 'image/png');
		const glb = asset('scene.glb', 'model/gltf-binary');
		const [r1] = await ok(
			scene('registerRender', { scene3dId: rl(s.id), assetId: rl(png), kind: 'image' }),
		);
		expect(r1).toMatchObject({ sceneId: s.id, assetId: png, kind: 'image' });
		const [r2] = await ok(
			scene('registerRender', { scene3dId: rl(s.id), assetId: rl(glb), kind: 'glb' }),
		);
		expect(r2.kind).toBe('glb');
		const [got] = await ok(scene('get', { scene3dId: rl(s.id) }));
		expect((got.files as IDataObject[]).map((f) => f.id).sort()).toEqual([png, glb].sort());
	});

	test('bad input is refused before any request, with the field path named', async () => {
		sb.control.clearRequests();
		const id = rl('5d0c1f7e-8a3b-4c2d-9e1f-0a1b2c3d4e5f');
		const fps = await run(
			scene('save', {
				scene3dId: id,
				scene: JSON.stringify({ objects: [{}], animation: { fps: 100 } }),
				version: 3,
			}),
		);
		expect(fps.error?.message).toBe('Scene.animation.fps must be between 12 and 60, got 100');
		const noObjects = await run(scene('save', { scene3dId: id, scene: '{}', version: 3 }));
		expect(noObjects.error?.message).toBe('Scene.objects is required');
		const version = await run(
			scene('save', { scene3dId: id, scene: '{"objects":[{}]}', version: 0 }),
		);
		expect(version.error?.message).toBe('Version must be between 1 and 9007199254740991, got 0');
		const grid = await run(
			scene('create', {
				name: 'x',
				additionalFields: { scene: JSON.stringify({ objects: [{}], settings: { grid: 'yes' } }) },
			}),
		);
		expect(grid.error?.message).toBe("Scene.settings.grid must be true or false, got 'yes'");
		const prompt = await run(scene('aiScene', { prompt: 'x'.repeat(2001) }));
		expect(prompt.error?.message).toBe('Prompt must be at most 2000 characters, got 2001');
		expect(sb.control.requests()).toHaveLength(0);
	});

	// Known gaps in nodes/shared/fields/validation.ts. An `obj[]` whose inner fields the spec leaves open
	// (scene.objects, animation.keys) is declared objectList({}); validation.ts keeps only the declared
	// keys of each entry, so every object arrives as {}. And a required list must have at least one
	// entry, while the spec's `objects: obj[]*` allows an empty scene. These tests pass once
	// validation.ts keeps such entries whole and accepts empty required lists; until then they fail.
	test('save keeps the content of the scene objects', async () => {
		const [s] = await ok(scene('create', { name: 'Objects' }));
		const objects = [{ id: 'box-1', type: 'box', position: [0, 1, 0] }];
		const [saved] = await ok(
			scene('save', { scene3dId: rl(s.id), scene: JSON.stringify({ objects }), version: 1 }),
		);
		expect((saved.scene as IDataObject).objects).toEqual(objects);
	});

	test('save accepts an empty scene', async () => {
		const [s] = await ok(scene('create', { name: 'Empty' }));
		const [saved] = await ok(
			scene('save', { scene3dId: rl(s.id), scene: '{"objects": []}', version: 1 }),
		);
		expect(saved.version).toBe(2);
	});
});
