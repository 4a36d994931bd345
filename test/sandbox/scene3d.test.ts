import { useSandbox } from '../harness/sandbox/helpers';

const { sb, pro, other, readOnly } = useSandbox();

const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const DEFAULT_SETTINGS = { background: '#0b0f17', grid: true, shadows: true, fog: false };
const DEFAULT_ANIMATION = { duration: 5, fps: 24, keys: [] };

const asset = (filename: string, mimeType: string) =>
	sb.control.createLargeAsset({ size: 64, filename, mimeType });

describe('3D scenes', () => {
	it('create fills the scene defaults at version 1; get lists referenced files', async () => {
		const bare = await pro('POST', '/3d/scenes', { name: 'Empty' });
		expect(bare.status).toBe(201);
		expect(bare.body).toMatchObject({
			name: 'Empty',
			projectId: null,
			version: 1,
			scene: { objects: [], settings: DEFAULT_SETTINGS, animation: DEFAULT_ANIMATION },
			renders: [],
			files: [],
		});
		const tex = asset('wood.png', 'image/png');
		const r = await pro('POST', '/3d/scenes', {
			name: 'Room',
			scene: {
				objects: [{ id: 'box-1', type: 'box', material: { textureAssetId: tex.id } }],
				settings: { fog: true },
				animation: { fps: 30 },
			},
		});
		expect(r.body.scene).toEqual({
			objects: [{ id: 'box-1', type: 'box', material: { textureAssetId: tex.id } }],
			settings: { ...DEFAULT_SETTINGS, fog: true },
			animation: { duration: 5, fps: 30, keys: [] },
		});
		const got = await pro('GET', `/3d/scenes/${r.body.id}`);
		expect(got.body.files.map((f: { id: string }) => f.id)).toEqual([tex.id]);
		expect((await other('GET', `/3d/scenes/${r.body.id}`)).status).toBe(404);
		expect((await pro('GET', '/3d/scenes/nope')).status).toBe(404);
	});

	it('validates the scene object and references', async () => {
		const r = await pro('POST', '/3d/scenes', {
			name: '',
			scene: { objects: 'x', animation: { duration: 61, fps: 11 }, settings: { grid: 'yes' } },
		});
		expect(r.status).toBe(422);
		expect(r.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual([
			'scene.animation.duration',
			'scene.animation.fps',
			'scene.objects',
			'scene.settings.grid',
		]);
		expect((await pro('POST', '/3d/scenes', { name: 'x', projectId: UNKNOWN })).status).toBe(404);
		expect((await readOnly('POST', '/3d/scenes', { name: 'x' })).status).toBe(403);
	});

	it('save needs the current version: 409 version_conflict on stale saves', async () => {
		const s = (await pro('POST', '/3d/scenes', { name: 'S' })).body;
		const objects = [{ id: 'sphere-1', type: 'sphere' }];
		const saved = await pro('PUT', `/3d/scenes/${s.id}`, { scene: { objects }, version: 1 });
		expect(saved.status).toBe(200);
		expect(saved.body).toMatchObject({
			version: 2,
			scene: { objects, settings: DEFAULT_SETTINGS },
		});
		const stale = await pro('PUT', `/3d/scenes/${s.id}`, { scene: { objects: [] }, version: 1 });
		expect(stale.status).toBe(409);
		expect(stale.body.error).toMatchObject({
			code: 'version_conflict',
			details: { currentVersion: 2 },
		});
		expect((await pro('GET', `/3d/scenes/${s.id}`)).body.scene.objects).toEqual(objects);
		const missing = await pro('PUT', `/3d/scenes/${s.id}`, { version: 2 });
		expect(missing.status).toBe(422);
		expect(missing.body.error.details.issues[0].path).toBe('scene');
	});

	it('rename and move, duplicate, delete, list with cursors', async () => {
		const project = (await pro('POST', '/projects', { name: 'P' })).body;
		const s = (await pro('POST', '/3d/scenes', { name: 'S', scene: { objects: [{ a: 1 }] } })).body;
		const moved = await pro('PATCH', `/3d/scenes/${s.id}`, { name: 'T', projectId: project.id });
		expect(moved.body).toMatchObject({ name: 'T', projectId: project.id, version: 1 });
		expect((await pro('PATCH', `/3d/scenes/${s.id}`, { projectId: UNKNOWN })).status).toBe(404);
		const dup = await pro('POST', `/3d/scenes/${s.id}/duplicate`);
		expect(dup.status).toBe(201);
		expect(dup.body).toMatchObject({
			name: 'T (copy)',
			version: 1,
			projectId: project.id,
			scene: { objects: [{ a: 1 }] },
		});
		const page = await pro('GET', '/3d/scenes?limit=1');
		expect(page.body.data).toEqual([
			expect.objectContaining({ id: dup.body.id, objectCount: 1, renderCount: 0 }),
		]);
		const rest = await pro('GET', `/3d/scenes?limit=1&before=${page.body.nextCursor}`);
		expect(rest.body).toEqual({ data: [expect.objectContaining({ id: s.id })], nextCursor: null });
		expect((await readOnly('DELETE', `/3d/scenes/${s.id}`)).status).toBe(403);
		expect((await pro('DELETE', `/3d/scenes/${s.id}`)).body).toEqual({ id: s.id, deleted: true });
		expect((await pro('GET', `/3d/scenes/${s.id}`)).status).toBe(404);
	});

	it('registers renders of the matching asset kind', async () => {
		const s = (await pro('POST', '/3d/scenes', { name: 'R' })).body;
		const png = asset('still.png', 'image/png');
		const mp4 = asset('turntable.mp4', 'video/mp4');
		const glb = asset('scene.glb', 'model/gltf-binary');
		for (const [a, kind] of [
			[png, 'image'],
			[mp4, 'animation'],
			[glb, 'glb'],
		] as const) {
			const r = await pro('POST', `/3d/scenes/${s.id}/renders`, { assetId: a.id, kind });
			expect(r.status).toBe(201);
			expect(r.body).toMatchObject({ sceneId: s.id, assetId: a.id, kind });
		}
		const wrong = await pro('POST', `/3d/scenes/${s.id}/renders`, { assetId: png.id, kind: 'glb' });
		expect(wrong.status).toBe(422);
		expect(wrong.body.error.details.issues[0].path).toBe('assetId');
		expect(
			(await pro('POST', `/3d/scenes/${s.id}/renders`, { assetId: UNKNOWN, kind: 'image' })).status,
		).toBe(404);
		expect(
			(await pro('POST', `/3d/scenes/${s.id}/renders`, { assetId: png.id, kind: 'video' })).status,
		).toBe(422);
		const got = (await pro('GET', `/3d/scenes/${s.id}`)).body;
		expect(got.renders.map((r: { kind: string }) => r.kind)).toEqual(['image', 'animation', 'glb']);
		expect(got.files).toHaveLength(3);
	});

	it('AI scene turns a prompt into editable objects without saving anything', async () => {
		const r = await pro('POST', '/3d/ai/scene', {
			prompt: 'Two red cubes on a wooden floor under a lamp',
			existing: ['box-1'],
		});
		expect(r.status).toBe(200);
		const objects = r.body.objects as { id: string; type: string; color: string }[];
		expect(objects.map((o) => o.type)).toEqual(['box', 'box', 'plane', 'light']);
		expect(objects.map((o) => o.id)).toEqual(['box-2', 'box-3', 'plane-1', 'light-1']);
		expect(objects[0].color).toBe('#e53935');
		expect((await pro('GET', '/3d/scenes')).body.data).toEqual([]);
		const saved = await pro('POST', '/3d/scenes', { name: 'AI', scene: { objects } });
		expect(saved.status).toBe(201);
		expect((await pro('POST', '/3d/ai/scene', { prompt: 'x'.repeat(2001) })).status).toBe(422);
		expect(
			(await pro('POST', '/3d/ai/scene', { prompt: 'nothing known' })).body.objects,
		).toHaveLength(1);
	});
});
