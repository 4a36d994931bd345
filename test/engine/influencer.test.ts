/**
 * MediaGen Influencer through n8n-core's engine against the sandbox: every operation of
 * characters, presets, series and series items, a full influencer flow (character, reference,
 * looks, series plan, draft generate), input refused before sending, continue-on-fail.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { MediaGenInfluencer } from '../../nodes/MediaGenInfluencer/MediaGenInfluencer.node';
import { listSearch } from '../../nodes/shared/fields/listSearch';
import type { TestNode } from '../harness/engine/harness';
import { fastJobs, loadOptionsContext, nodeFactory, rl, useSandbox } from '../harness/engine/setup';

const node = nodeFactory(new MediaGenInfluencer());
const { sb, flow, runOne } = useSandbox();
fastJobs();

/** One influencer node; `out` is its output JSON. */
const run = (
	parameters: INodeParameters,
	items: IDataObject[] = [{}],
	extra: Partial<TestNode> = {},
) => runOne(node('Influencer', parameters, extra), items);

const balance = () => sb.control.credits('main').balance;
const image = () =>
	sb.control.createLargeAsset({ size: 64, filename: 'face.png', mimeType: 'image/png' }).id;

async function character(extra: INodeParameters = {}) {
	const { out, error } = await run({
		resource: 'character',
		operation: 'create',
		name: 'Ava',
		...extra,
	});
	expect(error).toBeUndefined();
	return out[0];
}

async function withReference() {
	const c = await character({ additionalFields: { seed: 11 } });
	const assetId = image();
	const { error } = await run({
		resource: 'character',
		operation: 'addReference',
		characterId: rl(c.id),
		assetId: rl(assetId),
		confirmRights: true,
	});
	expect(error).toBeUndefined();
	return { c, assetId };
}

describe('character', () => {
	test('create with every kind of field: type, attributes JSON, prompts, voice and personality collections', async () => {
		const c = await character({
			additionalFields: {
				type: 'stylized',
				attributes: '{"hair": "copper curls"}',
				customPrompt: 'soft film grain',
				negativePrompt: 'blurry',
				baseModelId: 'flux-pro',
				seed: 42,
				voice: { modelId: 'voice-1', language: 'en', voice: 'warm' },
				personality: { traits: 'witty, kind', niche: 'travel', bio: 'Explorer' },
				stylePublic: true,
				description: 'A travel creator',
				category: 'lifestyle',
				studioDraft: true,
			},
		});
		expect(c).toMatchObject({
			name: 'Ava',
			type: 'stylized',
			attributes: { hair: 'copper curls' },
			customPrompt: 'soft film grain',
			negativePrompt: 'blurry',
			baseModelId: 'flux-pro',
			seed: 42,
			voice: { modelId: 'voice-1', language: 'en', voice: 'warm' },
			personality: { traits: ['witty', 'kind'], niche: 'travel', bio: 'Explorer' },
			stylePublic: true,
			category: 'lifestyle',
			studioDraft: true,
		});
		const sent = sb.control.requests({ method: 'POST', path: '/characters$' });
		expect(sent).toHaveLength(1);
	});

	test('get, get many (favorite, q, Return All), update, duplicate, delete', async () => {
		const ava = await character();
		await character({ name: 'Leo', additionalFields: { description: 'gamer' } });
		const updated = await run({
			resource: 'character',
			operation: 'update',
			characterId: rl(ava.id),
			updateFields: {
				name: 'Ava Stone',
				favorite: true,
				save: true,
				coverAssetId: rl(image()),
				personality: { niche: 'food' },
			},
		});
		expect(updated.out[0]).toMatchObject({ name: 'Ava Stone', favorite: true, studioDraft: false });
		expect(updated.out[0].identityPrompt).toContain('Niche: food');

		const got = await run({ resource: 'character', operation: 'get', characterId: rl(ava.id) });
		expect(got.out[0]).toMatchObject({ id: ava.id, references: [], projects: [] });

		const favorites = await run({
			resource: 'character',
			operation: 'getAll',
			returnAll: true,
			filters: { favorite: true },
		});
		expect(favorites.out.map((c) => c.name)).toEqual(['Ava Stone']);
		const search = await run({
			resource: 'character',
			operation: 'getAll',
			limit: 1,
			filters: { q: 'gamer' },
		});
		expect(search.out.map((c) => c.name)).toEqual(['Leo']);

		const dup = await run({
			resource: 'character',
			operation: 'duplicate',
			characterId: rl(ava.id),
		});
		expect(dup.out[0]).toMatchObject({ name: 'Ava Stone (copy)', duplicatedFrom: ava.id });
		const del = await run({
			resource: 'character',
			operation: 'delete',
			characterId: rl(dup.out[0].id),
		});
		expect(del.out[0]).toEqual({ id: dup.out[0].id, deleted: true });
		const all = await run({ resource: 'character', operation: 'getAll', returnAll: true });
		expect(all.out).toHaveLength(2);
	});

	test('every limit is checked before anything is sent', async () => {
		const cases: Array<[INodeParameters, RegExp]> = [
			[{ name: 'x'.repeat(61) }, /Name must be at most 60 characters, got 61/],
			[
				{ name: 'Ava', additionalFields: { customPrompt: 'x'.repeat(1501) } },
				/Custom Prompt must be at most 1500 characters, got 1501/,
			],
			[{ name: 'Ava', additionalFields: { seed: 1.5 } }, /Seed must be a whole number, got 1.5/],
			[
				{ name: 'Ava', additionalFields: { voice: { modelId: 'x'.repeat(81) } } },
				/Voice.modelId must be at most 80 characters, got 81/,
			],
			[
				{ name: 'Ava', additionalFields: { attributes: '[1]' } },
				/Attributes must be a JSON object/,
			],
		];
		for (const [params, message] of cases) {
			const { error } = await run({ resource: 'character', operation: 'create', ...params });
			expect(error?.message).toMatch(message);
		}
		const jobs: Array<[INodeParameters, RegExp]> = [
			[
				{ operation: 'generateLooks', additionalFields: { count: 5 } },
				/Count must be between 1 and 4, got 5/,
			],
			[
				{ operation: 'generate', modelId: 'm', prompt: 'x'.repeat(5001) },
				/Prompt must be at most 5000 characters, got 5001/,
			],
			[
				{ operation: 'generateReferenceSet', kinds: '={{ ["face"] }}' },
				/Kinds\[0\] must be one of portrait, .*got 'face'/,
			],
			[
				{ operation: 'runFormat', formatId: 'dance', prompt: 'x'.repeat(3001) },
				/Prompt must be at most 3000 characters, got 3001/,
			],
			[
				{ operation: 'generate', modelId: 'm', options: { idempotencyKey: 'k'.repeat(121) } },
				/Idempotency Key must be at most 120 characters, got 121/,
			],
		];
		const id = '0b6e8a4c-1f0d-4d5e-9a7b-2c3d4e5f6a7b';
		for (const [params, message] of jobs) {
			const { error } = await run({ resource: 'character', characterId: rl(id), ...params });
			expect(error?.message).toMatch(message);
		}
		const { error } = await run({
			resource: 'series',
			operation: 'plan',
			characterId: rl(id),
			title: 'S',
			additionalFields: { videoSeconds: 31 },
		});
		expect(error?.message).toMatch(/Video Seconds must be between 3 and 30, got 31/);
		const bad = await run({
			resource: 'character',
			operation: 'get',
			characterId: rl('={{ "nope" }}'),
		});
		expect(bad.error?.message).toMatch(/must be a UUID/);
		expect(sb.control.requests()).toHaveLength(0);
	});

	test('references: uploads need Confirm Rights; add and remove', async () => {
		const c = await character();
		const assetId = image();
		const refused = await run({
			resource: 'character',
			operation: 'addReference',
			characterId: rl(c.id),
			assetId: rl(assetId),
			confirmRights: false,
		});
		expect(refused.error?.message).toBe('MediaGen rejected the values sent');
		expect(refused.error?.description).toMatch(/confirmRights: Uploaded images need confirmRights/);
		const added = await run({
			resource: 'character',
			operation: 'addReference',
			characterId: rl(c.id),
			assetId: rl(assetId),
			confirmRights: true,
			additionalFields: { kind: 'portrait', label: 'front', primary: true },
		});
		expect(added.out[0].references).toEqual([
			expect.objectContaining({ assetId, kind: 'portrait', label: 'front', primary: true }),
		]);
		const removed = await run({
			resource: 'character',
			operation: 'removeReference',
			characterId: rl(c.id),
			assetId: rl(assetId),
		});
		expect(removed.out[0].references).toEqual([]);
	});

	test('generate: waits, charges, sends an Idempotency-Key; Max Credits refuses without starting', async () => {
		const { c, assetId } = await withReference();
		const before = balance();
		const est = await run({
			resource: 'character',
			operation: 'estimate',
			characterId: rl(c.id),
			modelId: 'flux-pro',
			prompt: 'at the beach',
		});
		expect(est.out[0]).toMatchObject({
			credits: 4,
			conditioning: { referenceAssetIds: [assetId], seed: 11 },
		});
		const gen = await run({
			resource: 'character',
			operation: 'generate',
			characterId: rl(c.id),
			modelId: 'flux-pro',
			prompt: 'at the beach',
			purpose: 'content',
			additionalFields: {
				params: '{"count": 2}',
				inputs: { values: [{ slot: 'style', assetIds: image() }] },
				title: 'Beach day',
			},
			returnAs: 'both',
		});
		expect(gen.error).toBeUndefined();
		expect(gen.out[0]).toMatchObject({
			status: 'completed',
			credits_charged: 8,
			title: 'Beach day',
		});
		expect((gen.out[0].files as IDataObject[]).length).toBe(2);
		expect(Object.keys(gen.items('Influencer')[0].binary ?? {})).toEqual(['data', 'data_1']);
		expect(balance()).toBe(before - 8);
		const sent = sb.control.requests({ method: 'POST', path: '/generate$' });
		expect(sent[0].idempotencyKey).toMatch(/^n8n-[0-9a-f]{48}$/);

		const refused = await run({
			resource: 'character',
			operation: 'generate',
			characterId: rl(c.id),
			modelId: 'flux-pro',
			options: { maxCredits: 3 },
		});
		expect(refused.error?.message).toMatch(/Estimated cost is 4 credits, above Max Credits \(3\)/);
		expect(sb.control.requests({ method: 'POST', path: '/generate$' })).toHaveLength(1);
	});

	test('looks, reference set (Max Credits passes), format estimate and run, generations by purpose', async () => {
		const { c } = await withReference();
		const looks = await run({
			resource: 'character',
			operation: 'generateLooks',
			characterId: rl(c.id),
			additionalFields: { count: 2 },
		});
		expect(looks.out.map((g) => g.status)).toEqual(['completed', 'completed']);
		expect(looks.out[0].batch_id).toBe(looks.out[1].batch_id);

		const estSet = await run({
			resource: 'character',
			operation: 'estimateReferenceSet',
			characterId: rl(c.id),
			kinds: ['full_body', 'expression'],
		});
		expect(estSet.out[0].credits).toBe(8);
		const set = await run({
			resource: 'character',
			operation: 'generateReferenceSet',
			characterId: rl(c.id),
			kinds: ['full_body', 'expression'],
			options: { maxCredits: 8 },
		});
		expect(set.out).toHaveLength(2);
		expect(set.out.every((g) => g.status === 'completed')).toBe(true);

		const estFormat = await run({
			resource: 'character',
			operation: 'estimateFormat',
			characterId: rl(c.id),
			formatId: 'mirror-dance',
			prompt: 'neon street',
		});
		expect(estFormat.out[0].credits).toBe(40);
		const format = await run({
			resource: 'character',
			operation: 'runFormat',
			characterId: rl(c.id),
			formatId: 'mirror-dance',
			prompt: 'neon street',
			options: { idempotencyKey: 'format-run-1', maxCredits: 40 },
		});
		expect(format.out[0]).toMatchObject({
			status: 'completed',
			tool: 'motion',
			idempotency_key: 'format-run-1',
		});
		expect((format.out[0].outputs as IDataObject[])[0].kind).toBe('video');

		const refs = await run({
			resource: 'character',
			operation: 'getGenerations',
			characterId: rl(c.id),
			returnAll: true,
			filters: { purpose: 'reference' },
		});
		expect(refs.out).toHaveLength(2);
		const all = await run({
			resource: 'character',
			operation: 'getGenerations',
			characterId: rl(c.id),
			returnAll: true,
		});
		expect(all.out).toHaveLength(5);
		const got = await run({ resource: 'character', operation: 'get', characterId: rl(c.id) });
		expect((got.out[0].references as IDataObject[]).map((r) => r.kind).sort()).toEqual([
			'expression',
			'full_body',
			'upload',
		]);
	});

	test('continue on fail: an unknown character fails its item, the other goes on', async () => {
		const c = await character();
		const unknown = '0b6e8a4c-1f0d-4d5e-9a7b-2c3d4e5f6a7b';
		const { out, error } = await run(
			{ resource: 'character', operation: 'get', characterId: rl('={{ $json.id }}') },
			[{ id: c.id }, { id: unknown }],
			{ continueOnFail: true },
		);
		expect(error).toBeUndefined();
		expect(out[0].id).toBe(c.id);
		expect(out[1].error).toMatch(/Not found/);
	});
});

describe('character preset', () => {
	test('get many, create, delete; a starter cannot be deleted', async () => {
		const created = await run({
			resource: 'characterPreset',
			operation: 'create',
			name: 'Neon',
			type: 'fantasy',
			attributes: '{"glow": true}',
		});
		expect(created.out[0]).toMatchObject({ name: 'Neon', type: 'fantasy', starter: false });
		const all = await run({ resource: 'characterPreset', operation: 'getAll', returnAll: true });
		expect(all.out).toHaveLength(6);
		const starter = all.out.find((p) => p.starter)!;
		const del = await run(
			{
				resource: 'characterPreset',
				operation: 'delete',
				characterPresetId: rl('={{ $json.id }}'),
			},
			[{ id: created.out[0].id }, { id: starter.id }],
			{ continueOnFail: true },
		);
		expect(del.out[0]).toEqual({ id: created.out[0].id, deleted: true });
		expect(del.out[1].error).toMatch(/^Conflict/);
		const missing = await run({
			resource: 'characterPreset',
			operation: 'create',
			name: 'x',
			type: 'natural',
			attributes: '',
		});
		expect(missing.error?.message).toBe('Attributes is required');
		const elf = all.out.find((p) => p.starter && p.type === 'fantasy')!;
		const fromPreset = await character({ additionalFields: { presetId: String(elf.id) } });
		expect(fromPreset).toMatchObject({ type: 'fantasy', attributes: { ears: 'pointed' } });
	});

	test('version 3: the attributes as name/value pairs on the form (the default), or as JSON', async () => {
		const v3 = (parameters: INodeParameters, items?: IDataObject[]) =>
			run(
				{
					resource: 'characterPreset',
					operation: 'create',
					name: 'Ember',
					type: 'natural',
					...parameters,
				},
				items,
				{
					typeVersion: 3,
				},
			);
		const pairs = (values: Array<{ name: string; value: string }>): INodeParameters => ({
			attributesFields: { values },
		});
		const made = await v3(
			pairs([
				{ name: 'hair', value: 'copper curls' },
				{ name: ' eyes ', value: '={{ $json.eyes }}' },
				{ name: 'freckles', value: '={{ true }}' },
			]),
			[{ eyes: 'green' }],
		);
		expect(made.error).toBeUndefined();
		expect(made.out[0].attributes).toEqual({ hair: 'copper curls', eyes: 'green', freckles: true });
		const [saved] = (
			await run({ resource: 'characterPreset', operation: 'getAll', returnAll: true })
		).out.filter((p) => p.name === 'Ember');
		expect(saved.attributes).toEqual({ hair: 'copper curls', eyes: 'green', freckles: true });

		// refused before sending, by position or name
		const before = sb.control.requests({ method: 'POST', path: '/characters/presets$' }).length;
		const twice = await v3(
			pairs([
				{ name: 'hair', value: 'a' },
				{ name: 'hair', value: 'b' },
			]),
		);
		expect(twice.error?.message).toBe("Attributes: the name 'hair' is given twice");
		expect(twice.error?.description).toMatch(/^Item 1 of 1\. Nothing was sent to MediaGen/);
		const nameless = await v3(
			pairs([
				{ name: 'hair', value: 'a' },
				{ name: '', value: 'b' },
			]),
		);
		expect(nameless.error?.message).toBe('Attributes: entry 2 has no name');
		expect(sb.control.requests({ method: 'POST', path: '/characters/presets$' })).toHaveLength(
			before,
		);

		// no pairs: an empty object, as the JSON field's default {} sends
		const empty = await v3({});
		expect(empty.out[0].attributes).toEqual({});
		// Using JSON: the field as in version 2
		const json = await v3({ attributesSource: 'json', attributes: '{"glow": true}' });
		expect(json.out[0].attributes).toEqual({ glow: true });
		// version 2 ignores the pairs: its attributes are the JSON field
		const v2 = await run(
			{
				resource: 'characterPreset',
				operation: 'create',
				name: 'Old',
				type: 'natural',
				attributes: '{"a": 1}',
				...pairs([{ name: 'b', value: '2' }]),
			},
			[{}],
			{ typeVersion: 2 },
		);
		expect(v2.out[0].attributes).toEqual({ a: 1 });
	});
});

describe('full influencer flow', () => {
	test('character → reference → looks → pick a look → series plan → ideas → edit → draft', async () => {
		const upload = image();
		const id = "={{ $('Character').first().json.id }}";
		const result = await flow(
			[
				node('Character', {
					resource: 'character',
					operation: 'create',
					name: 'Mia',
					additionalFields: { category: 'fitness', seed: 3 },
				}),
				node('Reference', {
					resource: 'character',
					operation: 'addReference',
					characterId: rl(id),
					assetId: rl(upload),
					confirmRights: true,
				}),
				node('Looks', {
					resource: 'character',
					operation: 'generateLooks',
					characterId: rl(id),
					additionalFields: { count: 1 },
				}),
				node('Pick Look', {
					resource: 'character',
					operation: 'addReference',
					characterId: rl(id),
					assetId: rl('={{ $json.outputs[0].asset_id }}'),
					additionalFields: { kind: 'portrait', primary: true },
				}),
				node('Plan', {
					resource: 'series',
					operation: 'plan',
					characterId: rl(id),
					title: 'Morning routines',
					count: 2,
					additionalFields: {
						destinations: ['shortclip'],
						videoSeconds: 4,
						categories: 'fitness, wellness',
					},
				}),
				node('Ideas', {
					resource: 'series',
					operation: 'addIdeas',
					id: "={{ $('Plan').first().json.id }}",
					count: 1,
				}),
				node('Edit', {
					resource: 'seriesItem',
					operation: 'update',
					id: '={{ $json.id }}',
					updateFields: { hook: 'Wake up with Mia', hashtags: '#morning, #fit' },
				}),
				node('Draft', {
					resource: 'seriesItem',
					operation: 'generateDraft',
					id: '={{ $json.id }}',
					returnAs: 'binary',
				}),
				node('Series', {
					resource: 'series',
					operation: 'get',
					id: "={{ $('Plan').first().json.id }}",
				}),
			],
			[{}],
		);
		expect(result.error).toBeUndefined();
		const mia = result.json('Character')[0];
		const look = result.json('Looks');
		expect(look).toHaveLength(1);
		const refs = result.json('Pick Look')[0].references as IDataObject[];
		expect(refs.map((r) => r.assetId)).toEqual([
			upload,
			(look[0].outputs as IDataObject[])[0].asset_id,
		]);
		expect(refs.filter((r) => r.primary)).toEqual([expect.objectContaining({ kind: 'portrait' })]);
		expect(result.json('Plan')[0]).toMatchObject({ itemCount: 2, videoSeconds: 4, language: 'en' });
		const idea = result.json('Ideas')[0];
		expect(idea).toMatchObject({ number: 3, format: 'video', status: 'idea' });
		expect(result.json('Edit')[0]).toMatchObject({
			hook: 'Wake up with Mia',
			hashtags: ['#morning', '#fit'],
		});
		const draft = result.items('Draft')[0];
		expect(draft.json).toMatchObject({ status: 'completed', credits_charged: 36 });
		expect(draft.binary?.data?.mimeType).toBe('video/mp4');
		const series = result.json('Series')[0];
		expect(series.itemCount).toBe(3);
		const generated = (series.items as IDataObject[]).find((i) => i.id === idea.id);
		expect(generated).toMatchObject({ status: 'generated', hook: 'Wake up with Mia' });

		const list = await run({
			resource: 'series',
			operation: 'getAll',
			characterId: rl(mia.id),
			returnAll: true,
		});
		expect(list.out.map((s) => s.id)).toEqual([series.id]);
		const contents = await run({
			resource: 'character',
			operation: 'getGenerations',
			characterId: rl(mia.id),
			limit: 10,
			filters: { purpose: 'look' },
		});
		expect(contents.out).toHaveLength(1);
	});

	test('series and series item deletes', async () => {
		const c = await character();
		const plan = await run({
			resource: 'series',
			operation: 'plan',
			characterId: rl(c.id),
			title: 'Tips',
			count: 2,
		});
		const s = plan.out[0];
		const [first] = s.items as IDataObject[];
		const delItem = await run({
			resource: 'seriesItem',
			operation: 'delete',
			id: first.id as string,
		});
		expect(delItem.out[0]).toEqual({ id: first.id, deleted: true });
		const got = await run({ resource: 'series', operation: 'get', id: s.id as string });
		expect(got.out[0].itemCount).toBe(1);
		const del = await run({ resource: 'series', operation: 'delete', id: s.id as string });
		expect(del.out[0]).toEqual({ id: s.id, deleted: true });
		const gone = await run({ resource: 'series', operation: 'get', id: s.id as string });
		expect(gone.error?.message).toMatch(/^Not found/);
	});
});

describe('searchable lists (resource locators)', () => {
	const loadOptions = () => loadOptionsContext(sb.baseUrl, sb.keys.pro);

	test('characters are searched by name; presets list starters and saved ones', async () => {
		await character({ name: 'Ava' });
		await character({ name: 'Leo' });
		const ctx = loadOptions();
		const found = await listSearch.searchCharacters.call(ctx, 'le');
		expect(found.results.map((r) => r.name)).toEqual(['Leo']);
		const all = await listSearch.searchCharacters.call(ctx);
		expect(all.results.map((r) => r.name)).toEqual(['Leo', 'Ava']);
		const presets = await listSearch.searchCharacterPresets.call(ctx, 'elf');
		expect(presets.results).toEqual([
			{ name: 'Fantasy elf', value: 'c0ffee00-0000-4000-8000-000000000005' },
		]);
	});
});
