import { until, useSandbox } from '../harness/sandbox/helpers';

const { sb, pro, other, readOnly } = useSandbox({ timeScale: 0.01 });

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

async function project(name = 'Night Train', extra: Record<string, unknown> = {}) {
	const r = await pro('POST', '/cinema', { name, ...extra });
	expect(r.status).toBe(201);
	return r.body;
}
async function scene(projectId: string, title = 'Platform') {
	const r = await pro('POST', `/cinema/${projectId}/scenes`, { title });
	expect(r.status).toBe(201);
	return r.body;
}
async function shot(sceneId: string, body: Record<string, unknown> = {}) {
	const r = await pro('POST', `/cinema/scenes/${sceneId}/shots`, body);
	expect(r.status).toBe(201);
	return r.body;
}
const image = () =>
	sb.control.createLargeAsset({ size: 100, filename: 'frame.png', mimeType: 'image/png' });

describe('cinema projects', () => {
	it('create fills the spec defaults; get holds scenes, shots and continuity', async () => {
		const p = await project();
		expect(p).toMatchObject({
			name: 'Night Train',
			logline: '',
			style: '',
			aspectRatio: '16:9',
			storyboardModelId: null,
			videoModelId: null,
			continuity: { characters: [], locations: [], props: [], styleRefs: [], wardrobe: '' },
			scenes: [],
			proposal: null,
		});
		const s = await scene(p.id);
		expect(s).toMatchObject({
			projectId: p.id,
			position: 0,
			description: '',
			mood: '',
			lighting: 'natural',
			characters: [],
			props: [],
			locationId: null,
			shots: [],
		});
		const t = await shot(s.id);
		expect(t).toMatchObject({
			sceneId: s.id,
			projectId: p.id,
			position: 0,
			title: '',
			action: '',
			dialogue: '',
			camera: {},
			duration: 5,
			characters: [],
			props: [],
			lighting: null,
			frameAssetId: null,
			videoAssetId: null,
		});
		const got = await pro('GET', `/cinema/${p.id}`);
		expect(got.body).toMatchObject({ sceneCount: 1, shotCount: 1, totalSeconds: 5 });
		expect(got.body.scenes[0].shots[0].id).toBe(t.id);
	});

	it('validates bodies per spec with every issue listed', async () => {
		const r = await pro('POST', '/cinema', { name: 'x'.repeat(121), aspectRatio: '2:1' });
		expect(r.status).toBe(422);
		expect(r.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual([
			'aspectRatio',
			'name',
		]);
		const p = await project();
		const s = await scene(p.id);
		const bad = await pro('POST', `/cinema/scenes/${s.id}/shots`, {
			duration: 21,
			camera: { focalLength: 7, aperture: 'x'.repeat(11) },
		});
		expect(bad.status).toBe(422);
		expect(bad.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual([
			'camera.aperture',
			'camera.focalLength',
			'duration',
		]);
		const move = await pro('POST', `/cinema/shots/${UNKNOWN}/move`, { sceneId: 'nope' });
		expect(move.status).toBe(422);
	});

	it('lists newest first with cursors; other workspaces get 404; scopes apply', async () => {
		const a = await project('A');
		const b = await project('B');
		const page = await pro('GET', '/cinema?limit=1');
		expect(page.body.data.map((p: { id: string }) => p.id)).toEqual([b.id]);
		expect(page.body.data[0]).toMatchObject({ sceneCount: 0, shotCount: 0 });
		const next = await pro('GET', `/cinema?limit=1&before=${page.body.nextCursor}`);
		expect(next.body).toEqual({ data: [expect.objectContaining({ id: a.id })], nextCursor: null });
		expect((await other('GET', `/cinema/${a.id}`)).status).toBe(404);
		expect((await other('GET', '/cinema')).body.data).toEqual([]);
		expect((await readOnly('GET', `/cinema/${a.id}`)).status).toBe(200);
		expect((await readOnly('POST', '/cinema', { name: 'x' })).status).toBe(403);
		expect((await pro('GET', '/cinema/not-a-uuid')).status).toBe(404);
	});

	it('update sets fields and the whole continuity (asset references checked, defaults filled)', async () => {
		const p = await project();
		const ref = image();
		const missing = await pro('PATCH', `/cinema/${p.id}`, {
			continuity: {
				characters: [],
				locations: [],
				props: [],
				styleRefs: [UNKNOWN],
				wardrobe: '',
			},
		});
		expect(missing.status).toBe(404);
		expect(missing.body.error.details.ids).toEqual([UNKNOWN]);
		const r = await pro('PATCH', `/cinema/${p.id}`, {
			name: 'Night Train II',
			aspectRatio: '21:9',
			videoModelId: 'vid-2',
			continuity: {
				characters: [UNKNOWN],
				locations: [{ id: 'station', name: 'Station', assetIds: [ref.id] }],
				props: [{ id: 'lamp', name: 'Lamp', description: 'brass' }],
				styleRefs: [ref.id],
				wardrobe: 'long coats',
			},
		});
		expect(r.status).toBe(200);
		expect(r.body).toMatchObject({
			name: 'Night Train II',
			aspectRatio: '21:9',
			videoModelId: 'vid-2',
			logline: '',
			continuity: {
				locations: [{ id: 'station', name: 'Station', description: '', assetIds: [ref.id] }],
				props: [{ id: 'lamp', name: 'Lamp', description: 'brass', assetIds: [] }],
				wardrobe: 'long coats',
			},
		});
		const bad = await pro('PATCH', `/cinema/${p.id}`, { continuity: { characters: [] } });
		expect(bad.status).toBe(422);
		expect(bad.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual([
			'continuity.locations',
			'continuity.props',
			'continuity.styleRefs',
			'continuity.wardrobe',
		]);
	});

	it('scenes and shots: update, move, set frame, delete', async () => {
		const p = await project();
		const s1 = await scene(p.id, 'One');
		const s2 = await scene(p.id, 'Two');
		const a = await shot(s1.id, { title: 'a' });
		const b = await shot(s1.id, { title: 'b', camera: { shotSize: 'wide', focalLength: 24 } });
		const c = await shot(s2.id, { title: 'c' });

		const up = await pro('PATCH', `/cinema/scenes/${s1.id}`, { mood: 'tense', lighting: 'noir' });
		expect(up.body).toMatchObject({ title: 'One', mood: 'tense', lighting: 'noir' });
		const edited = await pro('PATCH', `/cinema/shots/${b.id}`, {
			duration: 8,
			camera: { angle: 'low' },
		});
		expect(edited.body).toMatchObject({ title: 'b', duration: 8, camera: { angle: 'low' } });

		const moved = await pro('POST', `/cinema/shots/${a.id}/move`, { sceneId: s2.id, position: 0 });
		expect(moved.body).toMatchObject({ sceneId: s2.id, position: 0 });
		const end = await pro('POST', `/cinema/shots/${b.id}/move`, { sceneId: s2.id, position: 99 });
		expect(end.body.position).toBe(2);
		const order = (await pro('GET', `/cinema/${p.id}`)).body.scenes.map(
			(s: { shots: { title: string }[] }) => s.shots.map((x) => x.title),
		);
		expect(order).toEqual([[], ['a', 'c', 'b']]);

		const other = await project('Other');
		const os = await scene(other.id);
		expect(
			(await pro('POST', `/cinema/shots/${c.id}/move`, { sceneId: os.id, position: 0 })).status,
		).toBe(409);

		const frame = image();
		const set = await pro('POST', `/cinema/shots/${c.id}/frame`, { assetId: frame.id });
		expect(set.body.frameAssetId).toBe(frame.id);
		const video = sb.control.createLargeAsset({
			size: 100,
			filename: 'c.mp4',
			mimeType: 'video/mp4',
		});
		const notImage = await pro('POST', `/cinema/shots/${c.id}/frame`, { assetId: video.id });
		expect(notImage.status).toBe(422);
		expect((await pro('POST', `/cinema/shots/${c.id}/frame`, { assetId: UNKNOWN })).status).toBe(
			404,
		);

		expect((await pro('DELETE', `/cinema/shots/${c.id}`)).body).toEqual({
			id: c.id,
			deleted: true,
		});
		expect((await pro('DELETE', `/cinema/scenes/${s2.id}`)).body).toEqual({
			id: s2.id,
			deleted: true,
			shotsDeleted: 2,
		});
		expect((await pro('PATCH', `/cinema/shots/${a.id}`, { title: 'x' })).status).toBe(404);
		expect((await readOnly('DELETE', `/cinema/${p.id}`)).status).toBe(403);
		expect((await pro('DELETE', `/cinema/${p.id}`)).body).toEqual({ id: p.id, deleted: true });
		expect((await pro('PATCH', `/cinema/scenes/${s1.id}`, { title: 'x' })).status).toBe(404);
	});
});

describe('estimate and generate', () => {
	async function twoShots() {
		const p = await project('Gen', { aspectRatio: '9:16' });
		const s = await scene(p.id);
		const a = await shot(s.id, { title: 'a', duration: 4 });
		const b = await shot(s.id, { title: 'b', duration: 10 });
		return { p, s, a, b };
	}

	it('estimates per shot: storyboard 4 each, video 20 + 4 per second; charges nothing', async () => {
		const { p, a } = await twoShots();
		const sb1 = await pro('POST', `/cinema/${p.id}/estimate`, { kind: 'storyboard' });
		expect(sb1.body).toEqual({
			credits: 8,
			breakdown: [
				{ item: 'a: storyboard frame', credits: 4 },
				{ item: 'b: storyboard frame', credits: 4 },
			],
		});
		const v = await pro('POST', `/cinema/${p.id}/estimate`, { kind: 'video', shotIds: [a.id] });
		expect(v.body.credits).toBe(36);
		const bad = await pro('POST', `/cinema/${p.id}/estimate`, {
			kind: 'video',
			shotIds: [UNKNOWN],
		});
		expect(bad.status).toBe(404);
		expect(bad.body.error.details.ids).toEqual([UNKNOWN]);
		expect((await pro('POST', `/cinema/${p.id}/estimate`, { kind: 'film' })).status).toBe(422);
		expect(sb.control.credits('main').balance).toBe(1000);
	});

	it('generates one job per shot in a batch; shots get their frames and clips', async () => {
		const { p, a, b } = await twoShots();
		sb.control.holdJobs(); // reserved, not yet charged, when the balance is read
		const r = await pro('POST', `/cinema/${p.id}/generate`, { kind: 'storyboard' });
		expect(r.status).toBe(201);
		expect(r.body.nextCursor).toBeNull();
		expect(r.body.data).toHaveLength(2);
		for (const g of r.body.data) {
			expect(g).toMatchObject({
				status: 'queued',
				tool: 'cinema',
				batch_id: r.body.batchId,
				credits_reserved: 4,
			});
		}
		expect(r.body.data[0].context).toMatchObject({ shotId: a.id, kind: 'storyboard' });
		expect(sb.control.credits('main')).toMatchObject({ balance: 992, reserved: 8 });
		sb.control.releaseJobs();
		for (const g of r.body.data) {
			await until(
				async () => (await pro('GET', `/generations/${g.id}`)).body.status === 'completed',
			);
		}
		const got = (await pro('GET', `/cinema/${p.id}`)).body.scenes[0].shots;
		expect(got[0].frameGenerationId).toBe(r.body.data[0].id);
		expect(got[0].frameStatus).toBe('ready');
		const asset = await pro('GET', `/assets/${got[0].frameAssetId}`);
		expect(asset.body.kind).toBe('image');

		const v = await pro('POST', `/cinema/${p.id}/generate`, { kind: 'video', shotIds: [b.id] });
		expect(v.body.data).toHaveLength(1);
		expect(v.body.data[0].inputs).toEqual([
			{ slot: 'startFrame', assetIds: [got[1].frameAssetId] },
		]);
		expect(v.body.data[0].credits_reserved).toBe(60);
		await until(
			async () =>
				(await pro('GET', `/generations/${v.body.data[0].id}`)).body.status === 'completed',
		);
		const shotB = (await pro('GET', `/cinema/${p.id}`)).body.scenes[0].shots[1];
		expect((await pro('GET', `/assets/${shotB.videoAssetId}`)).body.kind).toBe('video');
		expect(sb.control.credits('main')).toMatchObject({ balance: 1000 - 8 - 60, reserved: 0 });
	});

	it('402 when the whole batch does not fit; nothing is started', async () => {
		const { p } = await twoShots();
		sb.control.setCredits('main', 50);
		const r = await pro('POST', `/cinema/${p.id}/generate`, { kind: 'video' });
		expect(r.status).toBe(402);
		expect(r.body.error.details).toEqual({ balance: 50, required: 96 });
		expect((await pro('GET', '/generations')).body.data).toEqual([]);
	});

	it('a failed shot job returns its credits; an empty project is 409', async () => {
		const p = await project('Fail');
		const s = await scene(p.id);
		await shot(s.id, { action: 'crash [sandbox:fail]' });
		const r = await pro('POST', `/cinema/${p.id}/generate`, { kind: 'storyboard' });
		await until(
			async () => (await pro('GET', `/generations/${r.body.data[0].id}`)).body.status === 'failed',
		);
		expect(sb.control.credits('main')).toMatchObject({ balance: 1000, reserved: 0 });
		const empty = await project('Empty');
		expect((await pro('POST', `/cinema/${empty.id}/generate`, { kind: 'video' })).status).toBe(409);
	});
});

describe('AI director', () => {
	it('proposes without generating; discard; apply appends or replaces', async () => {
		const p = await project();
		const own = await scene(p.id, 'Mine');
		await shot(own.id);
		const none = await pro('POST', `/cinema/${p.id}/director/apply`, {});
		expect(none.status).toBe(409);
		const bad = await pro('POST', `/cinema/${p.id}/director`, { brief: 'x', scenes: 9 });
		expect(bad.status).toBe(422);

		const prop = await pro('POST', `/cinema/${p.id}/director`, {
			brief: 'A train leaves at night. Two strangers meet.',
			scenes: 2,
			shotsPerScene: 3,
			totalSeconds: 36,
		});
		expect(prop.status).toBe(200);
		expect(prop.body.scenes).toHaveLength(2);
		expect(prop.body.scenes[0].shots).toHaveLength(3);
		expect(prop.body.scenes[0].shots[0].duration).toBe(6);
		expect(prop.body).toMatchObject({ status: 'proposed', projectId: p.id, totalSeconds: 36 });
		expect((await pro('GET', `/cinema/${p.id}`)).body.proposal.id).toBe(prop.body.id);
		expect((await pro('GET', '/generations')).body.data).toEqual([]);

		expect((await pro('DELETE', `/cinema/${p.id}/director`)).body).toEqual({
			id: prop.body.id,
			deleted: true,
		});
		expect((await pro('DELETE', `/cinema/${p.id}/director`)).status).toBe(404);

		await pro('POST', `/cinema/${p.id}/director`, { brief: 'Dawn. Arrival.' });
		const appended = await pro('POST', `/cinema/${p.id}/director/apply`, {});
		expect(appended.body.scenes.map((s: { title: string }) => s.title)).toEqual([
			'Mine',
			'Scene 1: Dawn',
			'Scene 2: Arrival',
			'Scene 3: Dawn',
		]);
		expect(appended.body).toMatchObject({ shotCount: 10, proposal: null });
		expect(appended.body.storyboardModelId).toBeTruthy();

		await pro('POST', `/cinema/${p.id}/director`, {
			brief: 'Only this',
			scenes: 1,
			shotsPerScene: 2,
		});
		const replaced = await pro('POST', `/cinema/${p.id}/director/apply`, { mode: 'replace' });
		expect(replaced.body.scenes.map((s: { title: string }) => s.title)).toEqual([
			'Scene 1: Only this',
		]);
		expect(replaced.body.shotCount).toBe(2);
		expect((await pro('POST', `/cinema/${p.id}/director/apply`, { mode: 'merge' })).status).toBe(
			422,
		);
	});
});

describe('exports', () => {
	it('storyboard is a real PNG asset; metadata is JSON; sequence is a new edit', async () => {
		const p = await project('Export Me');
		expect((await pro('POST', `/cinema/${p.id}/export/storyboard`)).status).toBe(409);
		expect((await pro('POST', `/cinema/${p.id}/export/sequence`)).status).toBe(409);
		const s = await scene(p.id);
		const a = await shot(s.id, { duration: 3 });
		await shot(s.id, { duration: 4 });
		const frame = image();
		await pro('POST', `/cinema/shots/${a.id}/frame`, { assetId: frame.id });

		const sheet = await pro('POST', `/cinema/${p.id}/export/storyboard`);
		expect(sheet.status).toBe(201);
		expect(sheet.body).toMatchObject({
			kind: 'image',
			mimeType: 'image/png',
			source: 'export',
			filename: 'export-me-storyboard.png',
		});
		const dl = await pro('GET', `/assets/${sheet.body.id}/download`);
		const bytes = Buffer.from(await (await fetch(dl.body.url)).arrayBuffer());
		expect(bytes.subarray(1, 4).toString('ascii')).toBe('PNG');
		expect(bytes.length).toBe(sheet.body.size);

		const seq = await pro('POST', `/cinema/${p.id}/export/sequence`);
		expect(seq.status).toBe(201);
		expect(seq.body).toMatchObject({
			name: 'Export Me (sequence)',
			sourceAssetId: frame.id,
			version: 1,
			timeline: {
				version: 1,
				clips: [{ assetId: frame.id, kind: 'image', in: 0, out: 3, speed: 1 }],
				texts: [],
				background: '#000000',
			},
		});

		// The sequence is a real editor project: the editor's endpoints find it.
		const edit = await pro('GET', `/edits/${seq.body.id}`);
		expect(edit.status).toBe(200);
		expect(edit.body.timeline.clips).toHaveLength(1);

		const meta = await pro('GET', `/cinema/${p.id}/export/metadata`);
		expect(meta.body).toMatchObject({ id: p.id, name: 'Export Me', shotCount: 2, totalSeconds: 7 });
		expect(meta.body.proposal).toBeUndefined();
		expect(typeof meta.body.exported_at).toBe('string');
		expect((await readOnly('POST', `/cinema/${p.id}/export/storyboard`)).status).toBe(403);
	});
});
