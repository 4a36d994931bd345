/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { until, useSandbox } from '../harness/sandbox/helpers';

const { sb, pro, other, readOnly } = useSandbox({ timeScale: 0.01, allowHttpWebhooks: true });
let server: Server;
let hookUrl = '';
const received: Array<{ type: string; data: Record<string, unknown> }> = [];

beforeAll(async () => {
	server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
			res.end('ok');
		});
	});
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
	hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
	server.closeAllConnections();
	await new Promise((r) => server.close(r));
});
beforeEach(() => {
	received.length = 0;
});

const video = (title = 'clip.mp4') =>
	sb.control.createLargeAsset({ size: 2048, mimeType: 'video/mp4', filename: title, title }).id;
const audio = () =>
	sb.control.createLargeAsset({ size: 1024, mimeType: 'audio/mpeg', filename: 'a.mp3' }).id;

async function newEdit(extra: Record<string, unknown> = {}) {
	const r = await pro('POST', '/edits', { sourceAssetId: video(), ...extra });
	expect(r.status).toBe(201);
	return r.body;
}

const issues = (r: { body: { error?: { details?: { issues?: Array<{ path: string }> } } } }) =>
	(r.body.error?.details?.issues ?? []).map((i) => i.path).sort();

describe('edits', () => {
	it('create, get, list by source, scopes, other workspaces, delete', async () => {
		const source = video('Beach');
		const c = await pro('POST', '/edits', { sourceAssetId: source, preset: 'square' });
		expect(c.status).toBe(201);
		expect(c.body).toMatchObject({
			name: 'Beach',
			preset: 'square',
			version: 1,
			sourceAssetId: source,
			exports: [],
			aiTasks: [],
		});
		expect(c.body.timeline).toMatchObject({
			version: 1,
			clips: [
				{ id: 'clip-1', assetId: source, kind: 'video', in: 0, out: 10, speed: 1, fit: 'cover' },
			],
			texts: [],
			captions: { enabled: false, language: '', cues: [], style: { size: 58, preset: 'classic' } },
			audioFx: { normalize: false, denoise: 'off', fadeIn: 0, fadeOut: 0 },
			videoFx: { fadeIn: 0, fadeOut: 0 },
			background: '#000000',
			thumbnailTime: null,
		});
		expect(c.body.assets.map((a: { id: string }) => a.id)).toEqual([source]);
		await newEdit();
		const list = await pro('GET', `/edits?sourceAssetId=${source}`);
		expect(list.body.data.map((e: { id: string }) => e.id)).toEqual([c.body.id]);
		expect((await pro('GET', '/edits?limit=1')).body.nextCursor).toEqual(expect.any(String));
		expect((await pro('GET', `/edits/${c.body.id}`)).body.id).toBe(c.body.id);
		expect((await other('GET', `/edits/${c.body.id}`)).status).toBe(404);
		expect((await readOnly('POST', '/edits', { sourceAssetId: source })).status).toBe(403);
		expect((await readOnly('DELETE', `/edits/${c.body.id}`)).status).toBe(403);
		expect((await pro('DELETE', `/edits/${c.body.id}`)).body).toEqual({
			id: c.body.id,
			deleted: true,
		});
		expect((await pro('GET', `/edits/${c.body.id}`)).status).toBe(404);
		expect((await pro('GET', `/assets/${source}`)).status).toBe(200);
	});

	it('refuses bad bodies with every issue, unknown assets with 404, audio sources with 422', async () => {
		const r = await pro('POST', '/edits', {
			sourceAssetId: 'x',
			name: 'n'.repeat(121),
			preset: 'x',
		});
		expect(r.status).toBe(422);
		expect(issues(r)).toEqual(['name', 'preset', 'sourceAssetId']);
		expect(
			(await pro('POST', '/edits', { sourceAssetId: '0b6e8a4c-1f0d-4d5e-9a7b-2c3d4e5f6a7b' }))
				.status,
		).toBe(404);
		const a = await pro('POST', '/edits', { sourceAssetId: audio() });
		expect(a.status).toBe(422);
		expect(issues(a)).toEqual(['sourceAssetId']);
	});

	it('saves timelines with optimistic versions: stale saves are 409 version_conflict', async () => {
		const e = await newEdit();
		const clip = e.timeline.clips[0];
		const timeline = {
			clips: [{ ...clip, speed: 2 }],
			texts: [{ id: 't1', text: 'Hello', start: 0, end: 2, x: 0.5, y: 0.5 }],
			audio: [{ id: 'a1', assetId: audio(), kind: 'music', start: 0, in: 0, out: 5 }],
		};
		const s = await pro('PUT', `/edits/${e.id}`, { timeline, version: 1, label: 'v2' });
		expect(s.status).toBe(200);
		expect(s.body.version).toBe(2);
		expect(s.body.label).toBe('v2');
		expect(s.body.timeline.texts[0]).toMatchObject({
			size: 64,
			color: '#ffffff',
			bold: true,
			align: 'center',
		});
		expect(s.body.timeline.audio[0]).toMatchObject({ volume: 1, fadeIn: 0, fadeOut: 0 });
		const stale = await pro('PUT', `/edits/${e.id}`, { name: 'late', version: 1 });
		expect(stale.status).toBe(409);
		expect(stale.body.error).toMatchObject({
			code: 'version_conflict',
			details: { currentVersion: 2 },
		});
		expect(stale.body.error.message).toContain('retry with version 2');
		expect((await pro('GET', `/edits/${e.id}`)).body.name).not.toBe('late');
	});

	it('validates every timeline rule with paths', async () => {
		const e = await newEdit();
		const asset = e.sourceAssetId;
		const r = await pro('PUT', `/edits/${e.id}`, {
			version: 1,
			timeline: {
				clips: [
					{
						id: 'c',
						assetId: asset,
						kind: 'audio',
						in: -1,
						out: 4000,
						speed: 9,
						zoom: 3,
						volume: 3,
					},
				],
				texts: [{ id: 't', text: 'x'.repeat(301), start: 0, end: 1, x: 2, y: 0, size: 8 }],
				overlays: [
					{ id: 'o', assetId: asset, start: 0, end: 1, x: 0, y: 0, width: 0.01, opacity: 0 },
				],
				audio: [{ id: 'a', assetId: asset, kind: 'sfx', start: 0, in: 0, out: 1, fadeIn: 11 }],
				captions: { language: 'l'.repeat(21) },
				audioFx: { denoise: 'max', fadeOut: 12 },
				videoFx: { fadeIn: -1 },
			},
		});
		expect(r.status).toBe(422);
		expect(issues(r)).toEqual(
			[
				'timeline.clips.0.kind',
				'timeline.clips.0.in',
				'timeline.clips.0.out',
				'timeline.clips.0.speed',
				'timeline.clips.0.zoom',
				'timeline.clips.0.volume',
				'timeline.texts.0.text',
				'timeline.texts.0.x',
				'timeline.texts.0.size',
				'timeline.overlays.0.width',
				'timeline.overlays.0.opacity',
				'timeline.audio.0.kind',
				'timeline.audio.0.fadeIn',
				'timeline.captions.language',
				'timeline.audioFx.denoise',
				'timeline.audioFx.fadeOut',
				'timeline.videoFx.fadeIn',
			].sort(),
		);
		const missing = await pro('PUT', `/edits/${e.id}`, {
			version: 1,
			timeline: {
				clips: [{ ...e.timeline.clips[0], assetId: '0b6e8a4c-1f0d-4d5e-9a7b-2c3d4e5f6a7b' }],
			},
		});
		expect(missing.status).toBe(404);
		expect(missing.body.error.details.ids).toEqual(['0b6e8a4c-1f0d-4d5e-9a7b-2c3d4e5f6a7b']);
	});

	it('duplicates, keeps versions and restores one', async () => {
		const e = await newEdit();
		await pro('PUT', `/edits/${e.id}`, { version: 1, name: 'second' });
		const d = await pro('POST', `/edits/${e.id}/duplicate`, { label: 'B' });
		expect(d.status).toBe(201);
		expect(d.body).toMatchObject({ parentId: e.id, label: 'B', name: 'second', version: 1 });
		const versions = await pro('GET', `/edits/${e.id}/versions`);
		expect(versions.body.data.map((v: { version: number }) => v.version)).toEqual([2, 1]);
		expect(versions.body.data[0].current).toBe(true);
		expect(
			(await pro('POST', `/edits/${e.id}/versions/1/restore`, { baseVersion: 1 })).body.error.code,
		).toBe('version_conflict');
		expect(
			(await pro('POST', `/edits/${e.id}/versions/9/restore`, { baseVersion: 2 })).status,
		).toBe(404);
		const r = await pro('POST', `/edits/${e.id}/versions/1/restore`, { baseVersion: 2 });
		expect(r.body).toMatchObject({ version: 3, name: e.name });
	});

	it('renders: 202 export record, completion as a new asset and export.completed', async () => {
		await pro('POST', '/webhooks', { url: hookUrl, events: ['export.completed', 'export.failed'] });
		const e = await newEdit();
		const bad = await pro('POST', `/edits/${e.id}/render`, { options: { fps: 23, quality: 'x' } });
		expect(issues(bad)).toEqual(['options.fps', 'options.quality']);
		const r = await pro('POST', `/edits/${e.id}/render`, {
			preset: 'socialnet_reel',
			options: { resolution: '720p', fps: 30 },
		});
		expect(r.status).toBe(202);
		expect(r.body).toMatchObject({ status: 'queued', kind: 'edit', sourceId: e.id, assetId: null });
		const done = await until(async () => {
			const x = (await pro('GET', `/edits/${e.id}`)).body.exports[0];
			return x.status === 'completed' ? x : undefined;
		});
		const asset = await pro('GET', `/assets/${done.assetId}`);
		expect(asset.body).toMatchObject({ kind: 'video', mimeType: 'video/mp4', source: 'export' });
		const dl = await pro('GET', `/assets/${done.assetId}/download`);
		const bytes = Buffer.from(await (await fetch(dl.body.url)).arrayBuffer());
		expect(bytes.subarray(4, 8).toString()).toBe('ftyp');
		await until(() => received.length > 0);
		expect(received[0]).toMatchObject({
			type: 'export.completed',
			data: {
				id: r.body.id,
				assetId: done.assetId,
				outputs: [{ asset_id: done.assetId, kind: 'video' }],
			},
		});

		sb.control.setConfig({ failureRate: 1 });
		const f = await pro('POST', `/edits/${e.id}/render`, { still: true });
		await until(() => received.some((x) => x.type === 'export.failed'));
		const failed = (await pro('GET', `/edits/${e.id}`)).body.exports.find(
			(x: { id: string }) => x.id === f.body.id,
		);
		expect(failed).toMatchObject({
			status: 'failed',
			assetId: null,
			error: { code: 'export_failed' },
		});
	});

	it('thumbnail, smart crop, analysis', async () => {
		const e = await newEdit();
		const t = await pro('POST', `/edits/${e.id}/thumbnail`, { time: 2.5 });
		expect(t.status).toBe(201);
		expect(t.body).toMatchObject({ kind: 'image', mimeType: 'image/png' });
		expect((await pro('GET', `/edits/${e.id}`)).body).toMatchObject({
			thumbnailAssetId: t.body.id,
			timeline: { thumbnailTime: 2.5 },
		});
		expect(issues(await pro('POST', `/edits/${e.id}/thumbnail`, { time: 3601 }))).toEqual(['time']);
		const c = await pro('POST', `/edits/${e.id}/smart-crop`, { preset: 'square' });
		expect(c.body).toMatchObject({ aspectRatio: '1:1', crops: [{ clipId: 'clip-1', height: 1 }] });
		expect(issues(await pro('POST', `/edits/${e.id}/smart-crop`, {}))).toEqual(['preset']);
		expect((await pro('GET', `/edits/${e.id}/analysis`)).status).toBe(404);
		const a = await pro('POST', `/edits/${e.id}/analyze`, {});
		expect(a.body).toMatchObject({ editId: e.id, transcript: null, metadata: { duration: 10 } });
		expect((await pro('GET', `/edits/${e.id}/analysis`)).body.id).toBe(a.body.id);
	});

	it('captions: estimate, create (charged), translate keeping timing', async () => {
		const e = await newEdit();
		expect(
			(await pro('POST', `/edits/${e.id}/captions/translate`, { language: 'fr' })).status,
		).toBe(409);
		const est = await pro('POST', `/edits/${e.id}/captions/estimate`, {});
		expect(est.body.credits).toBe(2);
		const c = await pro('POST', `/edits/${e.id}/captions`, { language: 'en' });
		expect(c.body.timeline.captions).toMatchObject({ enabled: true, language: 'en' });
		expect(c.body.version).toBe(2);
		expect(sb.control.credits('main').balance).toBe(998);
		const tr = await pro('POST', `/edits/${e.id}/captions/translate`, { language: 'fr' });
		expect(tr.body.timeline.captions.language).toBe('fr');
		expect(tr.body.timeline.captions.cues.map((q: { start: number }) => q.start)).toEqual(
			c.body.timeline.captions.cues.map((q: { start: number }) => q.start),
		);
		expect(
			issues(await pro('POST', `/edits/${e.id}/captions`, { language: 'x'.repeat(11) })),
		).toEqual(['language']);
		sb.control.setCredits('main', 0);
		expect((await pro('POST', `/edits/${e.id}/captions`, {})).status).toBe(402);
	});

	it('cleanup and highlights', async () => {
		const e = await newEdit();
		const c = await pro('POST', `/edits/${e.id}/cleanup`);
		expect(c.body.timeline.audioFx).toMatchObject({ normalize: true, denoise: 'medium' });
		const h = await pro('POST', `/edits/${e.id}/highlights`, { count: 2, maxSeconds: 5 });
		expect(h.status).toBe(201);
		expect(h.body.data).toHaveLength(2);
		expect(h.body.data[0]).toMatchObject({
			parentId: e.id,
			timeline: { clips: [{ in: 0, out: 5 }] },
		});
		expect(
			issues(await pro('POST', `/edits/${e.id}/highlights`, { count: 6, maxSeconds: 4 })),
		).toEqual(['count', 'maxSeconds']);
	});

	it('AI edits: estimate (transcription once), instruct with baseVersion, conversation', async () => {
		const e = await newEdit();
		expect((await pro('POST', `/edits/${e.id}/ai/estimate`, {})).body.credits).toBe(4);
		expect(
			(await pro('POST', `/edits/${e.id}/ai`, { instruction: 'make it pop', baseVersion: 5 })).body
				.error.code,
		).toBe('version_conflict');
		const r = await pro('POST', `/edits/${e.id}/ai`, {
			instruction: 'make it pop',
			baseVersion: 1,
		});
		expect(r.body.version).toBe(2);
		expect(r.body.timeline.texts[0].text).toBe('make it pop');
		expect((await pro('POST', `/edits/${e.id}/ai/estimate`, {})).body.credits).toBe(2);
		const conv = await pro('GET', `/edits/${e.id}/ai`);
		expect(conv.body.data.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
	});

	it('dub: a charged generation (tool editor) and a new variation', async () => {
		const e = await newEdit();
		const d = await pro('POST', `/edits/${e.id}/dub`, { language: 'es' });
		expect(d.status).toBe(201);
		expect(d.body).toMatchObject({ tool: 'editor', status: 'queued' });
		const g = await until(async () => {
			const x = (await pro('GET', `/generations/${d.body.id}`)).body;
			return x.status === 'completed' ? x : undefined;
		});
		expect(g.credits_charged).toBeGreaterThan(0);
		const v = (await pro('GET', `/edits/${d.body.context.variationEditId}`)).body;
		expect(v).toMatchObject({ parentId: e.id, label: 'Dub es' });
		expect(v.timeline.clips[0].assetId).toBe(g.outputs[0].asset_id);
		expect(issues(await pro('POST', `/edits/${e.id}/dub`, {}))).toEqual(['language']);
	});
});

describe('effects', () => {
	it('collections: create, list, toggle items, delete (content.create)', async () => {
		const c = await pro('POST', '/effects/collections', { name: 'Favs' });
		expect(c.status).toBe(201);
		expect(issues(await pro('POST', '/effects/collections', { name: 'x'.repeat(61) }))).toEqual([
			'name',
		]);
		const on = await pro('POST', `/effects/collections/${c.body.id}/items`, {
			effectId: 'glitch',
			on: true,
		});
		expect(on.body.items).toEqual([{ effectId: 'glitch', on: true }]);
		const off = await pro('POST', `/effects/collections/${c.body.id}/items`, {
			effectId: 'glitch',
			on: false,
		});
		expect(off.body.items).toEqual([]);
		expect((await pro('GET', '/effects/collections')).body.data).toHaveLength(1);
		expect((await other('DELETE', `/effects/collections/${c.body.id}`)).status).toBe(404);
		expect((await pro('DELETE', `/effects/collections/${c.body.id}`)).body.deleted).toBe(true);
	});

	it('estimate and run (idempotent generation, tool effects)', async () => {
		const input = video();
		const body = { inputs: { image: input }, params: { sandbox: { durationMs: 100 } } };
		expect((await pro('POST', '/effects/glitch/estimate', body)).body.credits).toBe(4);
		const r1 = await pro('POST', '/effects/glitch/run', body, { 'Idempotency-Key': 'k1' });
		const r2 = await pro('POST', '/effects/glitch/run', body, { 'Idempotency-Key': 'k1' });
		expect(r1.status).toBe(201);
		expect(r1.body).toMatchObject({
			tool: 'effects',
			inputs: [{ slot: 'image', assetIds: [input] }],
		});
		expect(r2.headers.get('idempotent-replayed')).toBe('true');
		expect(r2.body.id).toBe(r1.body.id);
		expect(
			(
				await pro('POST', '/effects/glitch/run', {
					inputs: { image: '0b6e8a4c-1f0d-4d5e-9a7b-2c3d4e5f6a7b' },
				})
			).status,
		).toBe(404);
	});
});

describe('audio mixes', () => {
	it('create, save with versions, export as wav', async () => {
		await pro('POST', '/webhooks', { url: hookUrl, events: ['export.completed'] });
		const a = audio();
		const m = await pro('POST', '/audio/mixes', { name: 'Mix', assetIds: [a] });
		expect(m.status).toBe(201);
		expect(m.body).toMatchObject({ version: 1, tracks: [{ assetId: a, volume: 1, muted: false }] });
		const s = await pro('PUT', `/audio/mixes/${m.body.id}`, {
			version: 1,
			tracks: [{ id: 't', assetId: a, start: 0, in: 0, out: 4, fadeIn: 30 }],
		});
		expect(s.body).toMatchObject({ version: 2, tracks: [{ fadeIn: 30, fadeOut: 0, volume: 1 }] });
		expect((await pro('PUT', `/audio/mixes/${m.body.id}`, { version: 1 })).body.error.code).toBe(
			'version_conflict',
		);
		expect(
			issues(
				await pro('PUT', `/audio/mixes/${m.body.id}`, {
					tracks: [{ id: 't', assetId: a, start: 0, in: 0, out: 4, fadeIn: 31 }],
				}),
			),
		).toEqual(['tracks.0.fadeIn', 'version']);
		const x = await pro('POST', `/audio/mixes/${m.body.id}/export`, { format: 'wav' });
		expect(x.status).toBe(202);
		expect(x.body).toMatchObject({ kind: 'audio', format: 'wav' });
		const done = await until(async () => {
			const e = (await pro('GET', `/audio/mixes/${m.body.id}`)).body.exports[0];
			return e.status === 'completed' ? e : undefined;
		});
		expect((await pro('GET', `/assets/${done.assetId}`)).body.mimeType).toBe('audio/wav');
		await until(() => received.length > 0);
		expect(received[0].type).toBe('export.completed');
		expect((await pro('GET', '/audio/mixes')).body.data).toHaveLength(1);
		expect((await readOnly('DELETE', `/audio/mixes/${m.body.id}`)).status).toBe(403);
		expect((await pro('DELETE', `/audio/mixes/${m.body.id}`)).body.deleted).toBe(true);
	});
});
