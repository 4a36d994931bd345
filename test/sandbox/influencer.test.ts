/** Sandbox routes of MediaGen Influencer (spec doc 2: presets, series, characters), over HTTP. */
import { until, useSandbox } from '../harness/sandbox/helpers';

const { sb, pro, readOnly, other } = useSandbox();

const image = () =>
	sb.control.createLargeAsset({ size: 64, filename: 'face.png', mimeType: 'image/png' }).id;
const balance = () => sb.control.credits('main').balance;
const issuePaths = (body: { error: { details: { issues: Array<{ path: string }> } } }) =>
	body.error.details.issues.map((i) => i.path).sort();

async function newCharacter(body: Record<string, unknown> = {}) {
	const r = await pro('POST', '/characters', { name: 'Ava', ...body });
	expect(r.status).toBe(201);
	return r.body;
}

/** A character with an uploaded portrait as its main look. */
async function withLook() {
	const c = await newCharacter({ seed: 7 });
	const assetId = image();
	const r = await pro('POST', `/characters/${c.id}/references`, { assetId, confirmRights: true });
	expect(r.status).toBe(200);
	return { c, assetId };
}

const settled = (id: string) =>
	until(async () => {
		const g = await pro('GET', `/generations/${id}`);
		return ['completed', 'failed', 'cancelled'].includes(g.body.status) ? g.body : null;
	});

describe('character presets', () => {
	it('lists the starter presets, creates, and deletes saved ones (starters are kept)', async () => {
		const list = await pro('GET', '/characters/presets');
		expect(list.status).toBe(200);
		expect(list.body.data).toHaveLength(5);
		expect(list.body.data.every((p: { starter: boolean }) => p.starter)).toBe(true);
		const created = await pro('POST', '/characters/presets', {
			name: 'Mine',
			type: 'stylized',
			attributes: { hair: 'blue' },
		});
		expect(created.status).toBe(201);
		expect(created.body).toMatchObject({ name: 'Mine', type: 'stylized', starter: false });
		const page = await pro('GET', '/characters/presets?limit=2');
		expect(page.body.data[0].id).toBe(created.body.id);
		expect(page.body.nextCursor).toEqual(expect.any(String));
		const starter = list.body.data[0].id;
		expect((await pro('DELETE', `/characters/presets/${starter}`)).status).toBe(409);
		const del = await pro('DELETE', `/characters/presets/${created.body.id}`);
		expect(del.body).toEqual({ id: created.body.id, deleted: true });
		expect((await pro('DELETE', `/characters/presets/${created.body.id}`)).status).toBe(404);
	});

	it('validates the preset body', async () => {
		const r = await pro('POST', '/characters/presets', { name: 'x'.repeat(61), type: 'cute' });
		expect(r.status).toBe(422);
		expect(issuePaths(r.body)).toEqual(['attributes', 'name', 'type']);
	});
});

describe('characters', () => {
	it('creates with the spec defaults and a compiled identity prompt; get, list, update', async () => {
		const c = await newCharacter({
			voice: { modelId: 'voice-1', language: 'en' },
			personality: { traits: ['witty'], niche: 'travel' },
			category: 'lifestyle',
			studioDraft: true,
		});
		expect(c).toMatchObject({
			name: 'Ava',
			type: 'natural',
			attributes: {},
			customPrompt: '',
			negativePrompt: '',
			favorite: false,
			studioDraft: true,
			references: [],
			projects: [],
		});
		expect(c.identityPrompt).toContain('Ava, a natural lifestyle character');
		expect(c.identityPrompt).toContain('travel');
		expect((await pro('GET', `/characters/${c.id}`)).body.id).toBe(c.id);

		const u = await pro('PATCH', `/characters/${c.id}`, {
			name: 'Ava Stone',
			favorite: true,
			save: true,
			voice: { voice: 'warm' },
			studioDraft: true,
		});
		expect(u.status).toBe(200);
		expect(u.body).toMatchObject({ name: 'Ava Stone', favorite: true, studioDraft: false });
		expect(u.body.voice).toEqual({ modelId: 'voice-1', language: 'en', voice: 'warm' });
		expect(u.body.identityPrompt).toContain('Ava Stone');

		await newCharacter({ name: 'Leo', description: 'gamer' });
		expect((await pro('GET', '/characters?favorite=true')).body.data).toHaveLength(1);
		expect((await pro('GET', '/characters?q=GAMER')).body.data[0].name).toBe('Leo');
		expect((await pro('GET', '/characters')).body.data).toHaveLength(2);
	});

	it('a preset fills type and attributes the body leaves out', async () => {
		const presets = (await pro('GET', '/characters/presets')).body.data;
		const fantasy = presets.find((p: { type: string }) => p.type === 'fantasy');
		const c = await newCharacter({ presetId: fantasy.id, attributes: { ears: 'round' } });
		expect(c.type).toBe('fantasy');
		expect(c.attributes).toMatchObject({ ears: 'round', skin: 'luminous' });
		expect((await pro('POST', '/characters', { name: 'x', presetId: 'nope' })).status).toBe(404);
	});

	it('lists every issue of a bad create body', async () => {
		const r = await pro('POST', '/characters', {
			type: 'weird',
			customPrompt: 'x'.repeat(1501),
			seed: 1.5,
			voice: { modelId: 'x'.repeat(81) },
			personality: { traits: 'one' },
			category: 'sports',
		});
		expect(r.status).toBe(422);
		expect(issuePaths(r.body)).toEqual([
			'category',
			'customPrompt',
			'name',
			'personality.traits',
			'seed',
			'type',
			'voice.modelId',
		]);
	});

	it('scopes and workspaces: read-only key cannot create, another workspace sees 404', async () => {
		expect((await readOnly('POST', '/characters', { name: 'x' })).status).toBe(403);
		const c = await newCharacter();
		expect((await readOnly('GET', `/characters/${c.id}`)).status).toBe(200);
		expect((await readOnly('DELETE', `/characters/${c.id}`)).status).toBe(403);
		expect((await other('GET', `/characters/${c.id}`)).status).toBe(404);
		expect((await other('POST', `/characters/${c.id}/looks`, {})).status).toBe(404);
		expect((await other('GET', '/characters')).body.data).toEqual([]);
		expect((await pro('GET', '/characters/not-a-uuid')).status).toBe(404);
	});

	it('duplicates and deletes (files stay, series go)', async () => {
		const { c, assetId } = await withLook();
		const dup = await pro('POST', `/characters/${c.id}/duplicate`);
		expect(dup.status).toBe(201);
		expect(dup.body).toMatchObject({ name: 'Ava (copy)', duplicatedFrom: c.id });
		expect(dup.body.references[0].assetId).toBe(assetId);
		const s = await pro('POST', `/characters/${c.id}/series`, { title: 'S' });
		const del = await pro('DELETE', `/characters/${c.id}`);
		expect(del.body).toEqual({ id: c.id, deleted: true });
		expect((await pro('GET', `/characters/series/${s.body.id}`)).status).toBe(404);
		expect((await pro('GET', `/assets/${assetId}`)).status).toBe(200);
	});
});

describe('references', () => {
	it('uploads need confirmRights; primary moves; removal', async () => {
		const c = await newCharacter();
		const a = image();
		const refused = await pro('POST', `/characters/${c.id}/references`, { assetId: a });
		expect(refused.status).toBe(422);
		expect(issuePaths(refused.body)).toEqual(['confirmRights']);
		const ok = await pro('POST', `/characters/${c.id}/references`, {
			assetId: a,
			confirmRights: true,
			label: 'front',
		});
		expect(ok.body.references).toEqual([
			expect.objectContaining({ assetId: a, kind: 'upload', primary: true, label: 'front' }),
		]);
		const b = image();
		const second = await pro('POST', `/characters/${c.id}/references`, {
			assetId: b,
			kind: 'angle',
			primary: true,
			confirmRights: true,
		});
		expect(second.body.references.map((r: { primary: boolean }) => r.primary)).toEqual([
			false,
			true,
		]);
		expect(
			(await pro('POST', `/characters/${c.id}/references`, { assetId: c.id, confirmRights: true }))
				.status,
		).toBe(404);
		const removed = await pro('DELETE', `/characters/${c.id}/references/${b}`);
		expect(removed.body.references).toEqual([
			expect.objectContaining({ assetId: a, primary: true }),
		]);
		expect((await pro('DELETE', `/characters/${c.id}/references/${b}`)).status).toBe(404);
	});
});

describe('character jobs', () => {
	it('looks: a batch of candidates, charged on success, outputs linked to the character', async () => {
		const c = await newCharacter();
		const before = balance();
		const r = await pro('POST', `/characters/${c.id}/looks`, { count: 2 });
		expect(r.status).toBe(201);
		expect(r.body.data).toHaveLength(2);
		expect(r.body.data[0]).toMatchObject({
			status: 'queued',
			tool: 'influencer',
			batch_id: r.body.batchId,
			credits_reserved: 4,
		});
		const done = await Promise.all(r.body.data.map((g: { id: string }) => settled(g.id)));
		expect(done.map((g) => g.status)).toEqual(['completed', 'completed']);
		expect(balance()).toBe(before - 8);
		const assets = await until(async () => {
			const l = await pro('GET', `/assets?characterId=${c.id}`);
			return l.body.data.length === 2 ? l.body.data : null;
		});
		expect(assets[0].kind).toBe('image');
		const looks = await pro('GET', `/characters/${c.id}/generations?purpose=look`);
		expect(looks.body.data).toHaveLength(2);
		expect((await pro('GET', `/characters/${c.id}/generations?purpose=content`)).body.data).toEqual(
			[],
		);
		const bad = await pro('POST', `/characters/${c.id}/looks`, { count: 5 });
		expect(issuePaths(bad.body)).toEqual(['count']);
	});

	it('looks answer 402 for the whole batch when short, starting nothing', async () => {
		const c = await newCharacter();
		sb.control.setCredits('main', 10);
		const r = await pro('POST', `/characters/${c.id}/looks`, { count: 3 });
		expect(r.status).toBe(402);
		expect(r.body.error.details).toMatchObject({ balance: 10, required: 12 });
		expect((await pro('GET', `/characters/${c.id}/generations`)).body.data).toEqual([]);
	});

	it('reference set needs a main look; estimate and run; outputs become references', async () => {
		const bare = await newCharacter();
		const none = await pro('POST', `/characters/${bare.id}/reference-set`, { kinds: ['sheet'] });
		expect(none.status).toBe(409);
		const { c, assetId } = await withLook();
		const est = await pro('POST', `/characters/${c.id}/reference-set/estimate`, {
			kinds: ['full_body', 'sheet'],
		});
		expect(est.body.credits).toBe(8);
		expect(est.body.breakdown).toHaveLength(2);
		const empty = await pro('POST', `/characters/${c.id}/reference-set`, { kinds: [] });
		expect(issuePaths(empty.body)).toEqual(['kinds']);
		const r = await pro('POST', `/characters/${c.id}/reference-set`, {
			kinds: ['full_body', 'sheet'],
		});
		expect(r.status).toBe(201);
		expect(r.body.data[0].inputs).toEqual([{ slot: 'look', assetIds: [assetId] }]);
		await Promise.all(r.body.data.map((g: { id: string }) => settled(g.id)));
		const got = await pro('GET', `/characters/${c.id}`);
		expect(got.body.references.map((x: { kind: string }) => x.kind).sort()).toEqual([
			'full_body',
			'sheet',
			'upload',
		]);
		expect(
			(await pro('GET', `/characters/${c.id}/generations?purpose=reference`)).body.data,
		).toHaveLength(2);
	});

	it('estimate shows the conditioning; generate attaches references and honours Idempotency-Key', async () => {
		const { c, assetId } = await withLook();
		const body = { modelId: 'flux-pro', prompt: 'at the beach', params: { count: 2 } };
		const est = await pro('POST', `/characters/${c.id}/estimate`, body);
		expect(est.body).toMatchObject({
			credits: 8,
			conditioning: { referenceAssetIds: [assetId], seed: 7, purpose: 'content' },
		});
		const before = balance();
		const headers = { 'idempotency-key': 'char-gen-1' };
		const r = await pro('POST', `/characters/${c.id}/generate`, body, headers);
		expect(r.status).toBe(201);
		expect(r.body).toMatchObject({
			tool: 'influencer',
			model_id: 'flux-pro',
			idempotency_key: 'char-gen-1',
			context: { characterId: c.id, purpose: 'content' },
		});
		expect(r.body.prompt).toContain('Ava, a natural character');
		expect(r.body.prompt).toContain('at the beach');
		expect(r.body.inputs).toEqual([{ slot: 'reference', assetIds: [assetId] }]);
		const again = await pro('POST', `/characters/${c.id}/generate`, body, headers);
		expect(again.status).toBe(201);
		expect(again.headers.get('idempotent-replayed')).toBe('true');
		expect(again.body.id).toBe(r.body.id);
		const other = await pro(
			'POST',
			`/characters/${c.id}/generate`,
			{ ...body, prompt: 'x' },
			headers,
		);
		expect(other.status).toBe(409);
		await settled(r.body.id);
		expect(balance()).toBe(before - 8);
	});

	it('a failed or cancelled character job returns its reservation', async () => {
		const c = await newCharacter();
		const before = balance();
		sb.control.holdJobs(); // reserved and not yet failed when the balance is read
		const failing = await pro('POST', `/characters/${c.id}/generate`, {
			modelId: 'm',
			params: { sandbox: { fail: 'boom' } },
		});
		expect(failing.status).toBe(201);
		expect(balance()).toBe(before - 4);
		sb.control.releaseJobs();
		const failed = await settled(failing.body.id);
		expect(failed).toMatchObject({ status: 'failed', error: { message: 'boom' } });
		sb.control.holdJobs(); // still queued when the cancel arrives
		const slow = await pro('POST', `/characters/${c.id}/generate`, { modelId: 'm' });
		const cancelled = await pro('POST', `/generations/${slow.body.id}/cancel`);
		expect(cancelled.body.status).toBe('cancelled');
		expect(balance()).toBe(before);
		expect((await pro('GET', `/characters/${c.id}`)).body.projects).toEqual([]);
	});

	it('series, items and presets of one workspace are 404 in another', async () => {
		const c = await newCharacter();
		const s = await pro('POST', `/characters/${c.id}/series`, { title: 'S', count: 1 });
		const item = s.body.items[0];
		const p = await pro('POST', '/characters/presets', {
			name: 'P',
			type: 'natural',
			attributes: {},
		});
		expect((await other('GET', `/characters/series/${s.body.id}`)).status).toBe(404);
		expect((await other('POST', `/characters/series/${s.body.id}/ideas`, {})).status).toBe(404);
		expect((await other('PATCH', `/characters/series-items/${item.id}`, {})).status).toBe(404);
		expect((await other('POST', `/characters/series-items/${item.id}/generate`, {})).status).toBe(
			404,
		);
		expect((await other('DELETE', `/characters/presets/${p.body.id}`)).status).toBe(404);
		expect((await other('GET', '/characters/presets')).body.data).toHaveLength(5);
	});

	it('generate validates the whole body', async () => {
		const c = await newCharacter();
		const r = await pro('POST', `/characters/${c.id}/generate`, {
			prompt: 'x'.repeat(5001),
			purpose: 'ads',
			tool: 'audio',
			inputs: [{ slot: 'a' }],
			referenceAssetIds: ['nope'],
			formatId: 'f'.repeat(61),
		});
		expect(r.status).toBe(422);
		expect(issuePaths(r.body)).toEqual([
			'formatId',
			'inputs.0.assetIds',
			'modelId',
			'prompt',
			'purpose',
			'referenceAssetIds.0',
			'tool',
		]);
	});

	it('format: estimate and run (idempotent by body key), video through the generation lifecycle', async () => {
		const { c } = await withLook();
		const est = await pro('POST', `/characters/${c.id}/formats/dance-trend/estimate`, {
			prompt: 'on a rooftop',
		});
		expect(est.status).toBe(200);
		expect(est.body.credits).toBe(40);
		const body = { prompt: 'on a rooftop', idempotencyKey: 'fmt-1' };
		const r = await pro('POST', `/characters/${c.id}/formats/dance-trend`, body);
		expect(r.status).toBe(201);
		expect(r.body).toMatchObject({ tool: 'motion', context: { formatId: 'dance-trend' } });
		const again = await pro('POST', `/characters/${c.id}/formats/dance-trend`, body);
		expect(again.body.id).toBe(r.body.id);
		const done = await settled(r.body.id);
		expect(done.outputs[0].kind).toBe('video');
		const missing = await pro('POST', `/characters/${c.id}/formats/x/estimate`, {
			sourceVideoAssetId: c.id,
		});
		expect(missing.status).toBe(404);
	});
});

describe('content series', () => {
	it('plans with the spec defaults; get, list, add ideas, edit, delete', async () => {
		const c = await newCharacter({ category: 'fitness' });
		const r = await pro('POST', `/characters/${c.id}/series`, { title: 'Morning routines' });
		expect(r.status).toBe(201);
		expect(r.body).toMatchObject({
			characterId: c.id,
			title: 'Morning routines',
			theme: '',
			audience: '',
			language: 'en',
			personality: '',
			tone: '',
			categories: [],
			videoSeconds: 8,
			destinations: [],
			itemCount: 6,
		});
		expect(r.body.items[0]).toMatchObject({ number: 1, status: 'idea', generationId: null });
		const more = await pro('POST', `/characters/series/${r.body.id}/ideas`, {});
		expect(more.status).toBe(201);
		expect(more.body.data.map((i: { number: number }) => i.number)).toEqual([7, 8, 9, 10]);
		const list = await pro('GET', `/characters/${c.id}/series`);
		expect(list.body.data[0].itemCount).toBe(10);

		const item = r.body.items[0];
		const u = await pro('PATCH', `/characters/series-items/${item.id}`, {
			hook: 'New hook',
			hashtags: ['#a'],
		});
		expect(u.body).toMatchObject({ hook: 'New hook', hashtags: ['#a'], title: item.title });
		const bad = await pro('PATCH', `/characters/series-items/${item.id}`, {
			caption: 'x'.repeat(2201),
			format: 'gif',
		});
		expect(issuePaths(bad.body)).toEqual(['caption', 'format']);
		expect((await pro('DELETE', `/characters/series-items/${item.id}`)).body.deleted).toBe(true);
		expect((await pro('GET', `/characters/series/${r.body.id}`)).body.itemCount).toBe(9);
		expect((await readOnly('DELETE', `/characters/series/${r.body.id}`)).status).toBe(403);
		expect((await pro('DELETE', `/characters/series/${r.body.id}`)).body.deleted).toBe(true);
		expect((await pro('GET', `/characters/series/${r.body.id}`)).status).toBe(404);
	});

	it('validates the plan body', async () => {
		const c = await newCharacter();
		const r = await pro('POST', `/characters/${c.id}/series`, {
			videoSeconds: 31,
			count: 0,
			destinations: ['tv'],
			language: 'x'.repeat(21),
		});
		expect(issuePaths(r.body)).toEqual([
			'count',
			'destinations.0',
			'language',
			'title',
			'videoSeconds',
		]);
	});

	it('generates a draft for an idea; a second generate while it runs is 409', async () => {
		const { c } = await withLook();
		const s = await pro('POST', `/characters/${c.id}/series`, {
			title: 'Reels',
			destinations: ['shortclip'],
			videoSeconds: 3,
			count: 1,
		});
		const item = s.body.items[0];
		expect(item.format).toBe('video');
		sb.control.holdJobs(); // the draft is still running when the second generate arrives
		const g = await pro('POST', `/characters/series-items/${item.id}/generate`, {});
		expect(g.status).toBe(201);
		expect(g.body).toMatchObject({ tool: 'motion', params: { duration: 3 }, credits_reserved: 32 });
		sb.control.stepJobs();
		expect((await pro('GET', `/generations/${g.body.id}`)).body.status).toBe('running');
		expect((await pro('POST', `/characters/series-items/${item.id}/generate`, {})).status).toBe(
			409,
		);
		sb.control.releaseJobs();
		await settled(g.body.id);
		const after = await pro('GET', `/characters/series/${s.body.id}`);
		expect(after.body.items[0]).toMatchObject({ status: 'generated', generationId: g.body.id });
		expect(after.body.items[0].assetIds).toHaveLength(1);
	});
});
