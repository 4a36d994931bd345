/**
 * MediaGen Editor through n8n-core's engine against the sandbox: every operation of Edit, Effect
 * and Audio Mix, the timeline round trip (create, save, stale save refused, render, download),
 * timeline validation before anything is sent, continue-on-fail, jobs (render and export inside
 * their parent record, effect runs and dubs as generations, Max Credits).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { MediaGenEditor } from '../../nodes/MediaGenEditor/MediaGenEditor.node';
import { object } from '../../nodes/shared/catalog/dsl';
import { timelineFields } from '../../nodes/shared/catalog/editor/timeline';
import { coerce } from '../../nodes/shared/fields/validation';
import { openBinary } from '../harness/engine/binaryData';
import { mediaGen } from '../harness/engine/harness';
import { fastJobs, nodeFactory, rl, useSandbox } from '../harness/engine/setup';

const { sb, flow, runner } = useSandbox({ binaryData: 'default' });
fastJobs();

const NAME = 'Editor';
const editor = nodeFactory(new MediaGenEditor());

const { run, ok } = runner(editor, NAME);

const video = () =>
	sb.control.createLargeAsset({
		size: 4096,
		mimeType: 'video/mp4',
		filename: 'beach.mp4',
		title: 'Beach',
	}).id;
const audio = () =>
	sb.control.createLargeAsset({ size: 2048, mimeType: 'audio/mpeg', filename: 'song.mp3' }).id;
const edit = (operation: string, p: INodeParameters = {}) => ({
	resource: 'edit',
	operation,
	...p,
});
const requests = (path: string, method?: string) => sb.control.requests({ path, method });

async function newEdit(source = video()) {
	const [e] = await ok(edit('create', { sourceAssetId: rl(source) }));
	return e as IDataObject & { id: string; timeline: IDataObject; version: number };
}

describe('timeline round trip', () => {
	it('create, save, stale save refused with a clear conflict, render (binary), download', async () => {
		const source = video();
		const [created] = await ok(
			edit('create', {
				sourceAssetId: rl(source),
				additionalFields: { name: 'Promo', preset: 'square' },
			}),
		);
		expect(created).toMatchObject({ name: 'Promo', preset: 'square', version: 1 });

		// The timeline comes from the previous node's output (Edit: Get), changed and saved.
		const timeline = {
			clips: [{ id: 'c1', assetId: source, kind: 'video', in: 0, out: 4, speed: 2 }],
			texts: [{ id: 't1', text: 'Summer sale', start: 0, end: 2, x: 0.5, y: 0.8 }],
			audio: [{ id: 'm1', assetId: audio(), kind: 'music', start: 0, in: 0, out: 2 }],
		};
		const [savedEdit] = await ok(
			edit('saveTimeline', {
				editId: rl(created.id),
				timeline: JSON.stringify(timeline),
				version: 1,
				additionalFields: { label: 'cut 1' },
			}),
		);
		expect(savedEdit).toMatchObject({ version: 2, label: 'cut 1' });
		expect((savedEdit.timeline as IDataObject).texts).toEqual([
			{
				id: 't1',
				text: 'Summer sale',
				start: 0,
				end: 2,
				x: 0.5,
				y: 0.8,
				size: 64,
				color: '#ffffff',
				background: null,
				bold: true,
				align: 'center',
			},
		]);

		const stale = await run(
			edit('saveTimeline', {
				editId: rl(created.id),
				timeline: JSON.stringify(timeline),
				version: 1,
			}),
		);
		expect(stale.error?.message).toContain('get it again and retry with its current version');
		expect(stale.error?.description).toContain('version_conflict');
		expect(stale.error?.description).toContain('get the edit again and retry with version 2');

		const rendered = await run(
			edit('render', {
				editId: rl(created.id),
				returnAs: 'both',
				binaryPropertyName: 'video',
				additionalFields: {
					preset: 'socialnet_reel',
					options: JSON.stringify({ resolution: '720p', fps: 30 }),
				},
			}),
		);
		expect(rendered.error).toBeUndefined();
		const [item] = rendered.items(NAME);
		expect(item.json).toMatchObject({ status: 'completed', kind: 'edit', sourceId: created.id });
		const assetId = String(item.json.assetId);
		expect(item.binary?.video).toMatchObject({ mimeType: 'video/mp4' });
		const chunks: Buffer[] = [];
		for await (const c of await openBinary(item.binary!.video)) chunks.push(c as Buffer);
		expect(Buffer.concat(chunks).subarray(4, 8).toString()).toBe('ftyp');

		// The exported asset is in the library and downloads with the MediaGen node.
		const dl = await flow([
			mediaGen('Download', {
				resource: 'asset',
				operation: 'download',
				assetId: rl(assetId),
				binaryPropertyName: 'data',
			}),
		]);
		expect(dl.error).toBeUndefined();
		expect(dl.items('Download')[0].binary?.data).toMatchObject({ mimeType: 'video/mp4' });
		expect(requests('/edits/.*/render$')).toHaveLength(1);
	});

	it('checks the timeline before sending: errors name the path, nothing is sent', async () => {
		const e = await newEdit();
		sb.control.clearRequests();
		const clip = (i: number, extra: IDataObject = {}) => ({
			id: `c${i}`,
			assetId: e.sourceAssetId,
			kind: 'video',
			in: 0,
			out: 1,
			...extra,
		});
		const cases: Array<[IDataObject, string]> = [
			[
				{ clips: [clip(0), clip(1), clip(2, { speed: 9 })] },
				'Timeline.clips[2].speed must be between 0.25 and 4, got 9',
			],
			[
				{ clips: [clip(0, { kind: 'audio' })] },
				'Timeline.clips[0].kind must be one of video, image',
			],
			[
				{ clips: [clip(0, { out: 3601 })] },
				'Timeline.clips[0].out must be between 0 and 3600, got 3601',
			],
			[
				{
					clips: [clip(0)],
					texts: [{ id: 't', text: 'x'.repeat(301), start: 0, end: 1, x: 0, y: 0 }],
				},
				'Timeline.texts[0].text must be at most 300 characters, got 301',
			],
			[
				{
					clips: [clip(0)],
					texts: [{ id: 't', text: 'x', start: 0, end: 1, x: 0, y: 0, size: 300 }],
				},
				'Timeline.texts[0].size must be between 12 and 220, got 300',
			],
			[
				{ clips: [clip(0)], captions: { language: 'x'.repeat(21) } },
				'Timeline.captions.language must be at most 20 characters, got 21',
			],
			[
				{
					clips: [clip(0)],
					overlays: [
						{ id: 'o', assetId: e.sourceAssetId, start: 0, end: 1, x: 0, y: 0, opacity: 0 },
					],
				},
				'Timeline.overlays[0].opacity must be between 0.05 and 1, got 0',
			],
			[
				{
					clips: [clip(0)],
					audio: [
						{
							id: 'a',
							assetId: e.sourceAssetId,
							kind: 'music',
							start: 0,
							in: 0,
							out: 1,
							fadeOut: 11,
						},
					],
				},
				'Timeline.audio[0].fadeOut must be between 0 and 10, got 11',
			],
			[
				{ clips: [clip(0)], audioFx: { denoise: 'extreme' } },
				'Timeline.audioFx.denoise must be one of off, light, medium, strong',
			],
			[
				{ clips: [clip(0)], videoFx: { fadeIn: 12 } },
				'Timeline.videoFx.fadeIn must be between 0 and 10, got 12',
			],
			[{ clips: [{ ...clip(0), assetId: 'nope' }] }, 'Timeline.clips[0].assetId must be a UUID'],
			[{ texts: [] }, 'Timeline.clips is required'],
		];
		for (const [timeline, message] of cases) {
			const r = await run(
				edit('saveTimeline', { editId: rl(e.id), timeline: JSON.stringify(timeline), version: 1 }),
			);
			expect(r.error?.message).toContain(message);
			expect(r.error?.description).toContain('Nothing was sent');
		}
		const bad = await run(
			edit('saveTimeline', { editId: rl(e.id), timeline: '{ clips: [', version: 1 }),
		);
		expect(bad.error?.message).toContain('Timeline must be a JSON object');
		expect(requests('/edits')).toEqual([]);
	});

	it('render: a failed export fails the item; without waiting the queued export is returned', async () => {
		const e = await newEdit();
		const started = await ok(edit('render', { editId: rl(e.id), waitForCompletion: false }));
		expect(started[0]).toMatchObject({ status: 'queued', kind: 'edit', assetId: null });
		sb.control.setConfig({ failureRate: 1 });
		const failed = await run(
			edit('render', { editId: rl(e.id), additionalFields: { still: true } }),
		);
		expect(failed.error?.message).toMatch(/^Job .+ failed: The export could not be rendered/);
		const bad = await run(
			edit('render', { editId: rl(e.id), additionalFields: { options: '{"quality":"ultra"}' } }),
		);
		expect(bad.error?.message).toBe(
			"Render Options.quality must be one of standard, high, max, got 'ultra'",
		);
	});

	it('fills the spec defaults into the timeline', () => {
		const value = coerce(
			object(timelineFields, { asJson: true }),
			{
				clips: [
					{
						id: 'c',
						assetId: '0b6e8a4c-1f0d-4d5e-9a7b-2c3d4e5f6a7b',
						kind: 'image',
						in: 0,
						out: 3,
					},
				],
			},
			'Timeline',
		);
		expect(value).toEqual({
			version: 1,
			clips: [
				{
					id: 'c',
					assetId: '0b6e8a4c-1f0d-4d5e-9a7b-2c3d4e5f6a7b',
					kind: 'image',
					in: 0,
					out: 3,
					fit: 'cover',
					volume: 1,
					muted: false,
					speed: 1,
					zoom: 1,
				},
			],
			texts: [],
			captions: {
				enabled: false,
				language: '',
				cues: [],
				style: {
					size: 58,
					color: '#ffffff',
					background: '#000000',
					position: 'bottom',
					uppercase: false,
					preset: 'classic',
					highlight: '#397BFA',
				},
			},
			overlays: [],
			audio: [],
			background: '#000000',
			audioFx: { normalize: false, denoise: 'off', fadeIn: 0, fadeOut: 0 },
			videoFx: { fadeIn: 0, fadeOut: 0 },
		});
	});

	it('continue on fail: a stale save becomes an error item, the other items go on', async () => {
		const e = await newEdit();
		const result = await run(
			edit('saveTimeline', {
				editId: rl(e.id),
				timeline: JSON.stringify(e.timeline),
				version: '={{ $json.v }}',
			}),
			{ continueOnFail: true },
			[{ v: 1 }, { v: 1 }],
		);
		expect(result.error).toBeUndefined();
		const out = result.items(NAME);
		expect(out[0].json).toMatchObject({ version: 2 });
		expect(out[1].json.error).toContain('get it again and retry');
		expect(out[1].pairedItem).toEqual({ item: 1 });
	});
});

describe('edit operations', () => {
	it('get many, get, duplicate, versions, restore, delete', async () => {
		const source = video();
		const e = await newEdit(source);
		await newEdit();
		const list = await ok(
			edit('getAll', { returnAll: true, filters: { sourceAssetId: rl(source) } }),
		);
		expect(list.map((x) => x.id)).toEqual([e.id]);
		expect((await ok(edit('get', { editId: rl(e.id) })))[0]).toMatchObject({
			id: e.id,
			exports: [],
		});
		await ok(
			edit('saveTimeline', {
				editId: rl(e.id),
				timeline: JSON.stringify(e.timeline),
				version: 1,
				additionalFields: { name: 'Two' },
			}),
		);
		const [dup] = await ok(
			edit('duplicate', { editId: rl(e.id), additionalFields: { label: 'B side' } }),
		);
		expect(dup).toMatchObject({ parentId: e.id, label: 'B side', name: 'Two' });
		const versions = await ok(edit('getVersions', { editId: rl(e.id) }));
		expect(versions.map((v) => v.version)).toEqual([2, 1]);
		const [restored] = await ok(
			edit('restoreVersion', { editId: rl(e.id), number: '1', baseVersion: 2 }),
		);
		expect(restored).toMatchObject({ version: 3, name: 'Beach' });
		const [deleted] = await ok(edit('delete', { editId: rl(dup.id) }));
		expect(deleted).toEqual({ id: dup.id, deleted: true });
	});

	it('thumbnail (asset and file), smart crop, analyze, get analysis', async () => {
		const e = await newEdit();
		const thumb = await run(edit('thumbnail', { editId: rl(e.id), time: 1.5 }));
		expect(thumb.error).toBeUndefined();
		const [t] = thumb.items(NAME);
		expect(t.json).toMatchObject({ kind: 'image', mimeType: 'image/png' });
		expect(t.binary?.data).toMatchObject({ mimeType: 'image/png' });
		const bad = await run(edit('thumbnail', { editId: rl(e.id), time: 4000 }));
		expect(bad.error?.message).toBe('Time must be between 0 and 3600, got 4000');
		const [crop] = await ok(edit('smartCrop', { editId: rl(e.id), preset: 'socialnet_feed' }));
		expect(crop).toMatchObject({ aspectRatio: '4:5', crops: [{ clipId: 'clip-1' }] });
		const [analysis] = await ok(
			edit('analyze', { editId: rl(e.id), additionalFields: { transcribe: true } }),
		);
		expect(analysis.transcript).toBeTruthy();
		expect((await ok(edit('getAnalysis', { editId: rl(e.id) })))[0].id).toBe(analysis.id);
	});

	it('captions (estimate, create, translate), cleanup, highlights', async () => {
		const e = await newEdit();
		expect((await ok(edit('estimateCaptions', { editId: rl(e.id) })))[0]).toMatchObject({
			credits: 2,
		});
		const [c] = await ok(
			edit('createCaptions', { editId: rl(e.id), additionalFields: { language: 'en' } }),
		);
		expect(c.timeline).toMatchObject({ captions: { enabled: true, language: 'en' } });
		const [tr] = await ok(edit('translateCaptions', { editId: rl(e.id), language: 'de' }));
		expect(tr.timeline).toMatchObject({ captions: { language: 'de' } });
		const [clean] = await ok(edit('cleanup', { editId: rl(e.id) }));
		expect(clean.timeline).toMatchObject({ audioFx: { normalize: true, denoise: 'medium' } });
		const highlights = await ok(
			edit('highlights', { editId: rl(e.id), additionalFields: { count: 2 } }),
		);
		expect(highlights).toHaveLength(2);
		expect(highlights[0]).toMatchObject({ parentId: e.id });
		const bad = await run(edit('highlights', { editId: rl(e.id), additionalFields: { count: 6 } }));
		expect(bad.error?.message).toBe('Count must be between 1 and 5, got 6');
	});

	it('AI edit: estimate, instruct with base version, conversation', async () => {
		const e = await newEdit();
		expect((await ok(edit('estimateAiEdit', { editId: rl(e.id) })))[0]).toMatchObject({
			credits: 4,
		});
		const [ai] = await ok(
			edit('aiEdit', { editId: rl(e.id), instruction: 'Add a title', baseVersion: 1 }),
		);
		expect(ai).toMatchObject({ version: 2 });
		const stale = await run(
			edit('aiEdit', { editId: rl(e.id), instruction: 'Again', baseVersion: 1 }),
		);
		expect(stale.error?.message).toContain('retry with its current version');
		const conversation = await ok(edit('getAiConversation', { editId: rl(e.id) }));
		expect(conversation.map((m) => m.role)).toEqual(['user', 'assistant']);
	});

	it('dub: waits for the charged generation (tool editor)', async () => {
		const e = await newEdit();
		const [g] = await ok(
			edit('dub', { editId: rl(e.id), language: 'es', additionalFields: { watermark: true } }),
		);
		expect(g).toMatchObject({ tool: 'editor', status: 'completed' });
		expect(Number(g.credits_charged)).toBeGreaterThan(0);
		const variation = await ok(
			edit('get', { editId: rl((g.context as IDataObject).variationEditId) }),
		);
		expect(variation[0]).toMatchObject({ parentId: e.id, label: 'Dub es' });
	});
});

describe('effects', () => {
	it('collections: create, get many, toggle item, delete', async () => {
		const effect = (operation: string, p: INodeParameters = {}) => ({
			resource: 'effect',
			operation,
			...p,
		});
		const [c] = await ok(effect('createCollection', { name: 'Favourites' }));
		const [on] = await ok(
			effect('toggleItem', { effectCollectionId: rl(c.id), effectId: 'glitch', on: true }),
		);
		expect(on.items).toEqual([{ effectId: 'glitch', on: true }]);
		expect((await ok(effect('getCollections', { returnAll: true }))).map((x) => x.id)).toEqual([
			c.id,
		]);
		expect((await ok(effect('deleteCollection', { effectCollectionId: rl(c.id) })))[0]).toEqual({
			id: c.id,
			deleted: true,
		});
		const long = await run(effect('createCollection', { name: 'x'.repeat(61) }));
		expect(long.error?.message).toBe('Name must be at most 60 characters, got 61');
	});

	it('estimate; run with Idempotency-Key, wait and Return As; Max Credits refuses first', async () => {
		const input = video();
		const body = {
			inputs: JSON.stringify({ image: input }),
			params: JSON.stringify({ sandbox: { durationMs: 500 } }),
		};
		const [est] = await ok({
			resource: 'effect',
			operation: 'estimate',
			id: 'glitch',
			additionalFields: body,
		});
		expect(est).toMatchObject({ credits: 4 });

		const r = await run({
			resource: 'effect',
			operation: 'run',
			id: 'glitch',
			additionalFields: body,
			returnAs: 'binary',
		});
		expect(r.error).toBeUndefined();
		const [item] = r.items(NAME);
		expect(item.json).toMatchObject({ status: 'completed', credits_charged: 4 });
		expect(item.binary?.data).toMatchObject({ mimeType: 'image/png' });
		const runs = requests('/effects/glitch/run$', 'POST');
		expect(runs).toHaveLength(1);
		expect(runs[0].idempotencyKey).toEqual(expect.any(String));

		sb.control.clearRequests();
		const capped = await run({
			resource: 'effect',
			operation: 'run',
			id: 'glitch',
			additionalFields: body,
			options: { maxCredits: 2 },
		});
		expect(capped.error?.message).toBe('Estimated cost is 4 credits, above Max Credits (2)');
		expect(requests('/effects/glitch/estimate$')).toHaveLength(1);
		expect(requests('/effects/glitch/run$')).toHaveLength(0);
	});
});

describe('audio mixes', () => {
	it('create, get many, get, save (version), stale save, export as wav (binary), delete', async () => {
		const a = audio();
		const mix = (operation: string, p: INodeParameters = {}) => ({
			resource: 'audioMix',
			operation,
			...p,
		});
		const [m] = await ok(mix('create', { name: 'Podcast', additionalFields: { assetIds: a } }));
		expect(m).toMatchObject({ version: 1, tracks: [{ assetId: a }] });
		expect((await ok(mix('getAll', { returnAll: true }))).map((x) => x.id)).toEqual([m.id]);
		expect((await ok(mix('get', { audioMixId: rl(m.id) })))[0].id).toBe(m.id);
		const tracks = [{ id: 'voice', assetId: a, start: 0, in: 0, out: 3, fadeIn: 2 }];
		const [s] = await ok(
			mix('save', {
				audioMixId: rl(m.id),
				version: 1,
				additionalFields: { tracks: JSON.stringify(tracks) },
			}),
		);
		expect(s).toMatchObject({
			version: 2,
			tracks: [{ id: 'voice', fadeIn: 2, fadeOut: 0, volume: 1, muted: false }],
		});
		const stale = await run(mix('save', { audioMixId: rl(m.id), version: 1 }));
		expect(stale.error?.message).toContain('retry with its current version');
		sb.control.clearRequests();
		const badTracks = await run(
			mix('save', {
				audioMixId: rl(m.id),
				version: 2,
				additionalFields: { tracks: JSON.stringify([{ ...tracks[0], fadeOut: 31 }]) },
			}),
		);
		expect(badTracks.error?.message).toBe('Tracks[0].fadeOut must be between 0 and 30, got 31');
		expect(requests('/audio/mixes')).toEqual([]);

		const exported = await run(
			mix('export', { audioMixId: rl(m.id), format: 'wav', returnAs: 'both' }),
		);
		expect(exported.error).toBeUndefined();
		const [x] = exported.items(NAME);
		expect(x.json).toMatchObject({ status: 'completed', kind: 'audio', format: 'wav' });
		expect(x.binary?.data).toMatchObject({ mimeType: 'audio/wav' });
		expect((await ok(mix('delete', { audioMixId: rl(m.id) })))[0]).toEqual({
			id: m.id,
			deleted: true,
		});
	});
});
