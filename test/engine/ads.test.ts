/**
 * MediaGen Ads through n8n-core's engine against the sandbox: every operation of the node (brand
 * kits, products, ad projects, ad copy, the creative matrix, variants, export, marketing
 * templates), the full ad flow as one workflow, bad input refused before anything is sent, and
 * continue-on-fail.
 */
import type { IBinaryData, IDataObject, INodeParameters, IWorkflowBase } from 'n8n-workflow';

import { MediaGenAds } from '../../nodes/MediaGenAds/MediaGenAds.node';
import { readZip } from '../../sandbox/ads/zip';
import { openBinary } from '../harness/engine/binaryData';
import type { TestNode } from '../harness/engine/harness';
import { chain, runWorkflow } from '../harness/engine/harness';
import { fastJobs, nodeFactory, rl, useSandbox } from '../harness/engine/setup';

const ads = nodeFactory(new MediaGenAds());
const { sb, creds, runOne } = useSandbox({ binaryData: 'default' });
fastJobs();
const balance = () => sb.control.credits('main').balance;

const run = (
	parameters: INodeParameters,
	items: IDataObject[] = [{}],
	node: Partial<TestNode> = {},
) => runOne(ads('Ads', parameters, node), items);

/** Runs one operation that must succeed; returns its output items. */
async function ok(parameters: INodeParameters): Promise<IDataObject[]> {
	const { out, error } = await run(parameters);
	expect(error).toBeUndefined();
	return out;
}

/** A character, made through the sandbox's own API (characters belong to the Influencer node). */
async function newCharacter(name: string): Promise<string> {
	const res = await fetch(`${sb.baseUrl}/characters`, {
		method: 'POST',
		headers: { authorization: `Bearer ${sb.keys.pro}`, 'content-type': 'application/json' },
		body: JSON.stringify({ name }),
	});
	const body = (await res.json()) as { id: string };
	sb.control.clearRequests();
	return body.id;
}

/** A chain whose named nodes run once for all their input items (n8n's Execute Once). */
function once(workflow: IWorkflowBase, names: string[]): IWorkflowBase {
	for (const n of workflow.nodes) if (names.includes(n.name)) n.executeOnce = true;
	return workflow;
}

describe('brand kit', () => {
	test('create (colors and fonts as fixed collections), get, get many, update, assets, delete', async () => {
		const [kit] = await ok({
			resource: 'brandKit',
			operation: 'create',
			name: 'Acme',
			additionalFields: {
				tone: 'Warm and direct',
				colors: { values: [{ name: 'Ink', hex: '#1A2B3C' }, { hex: 'fff' }] },
				fonts: {
					values: [
						{ name: 'Inter', role: 'heading' },
						{ name: 'Lora', role: 'body' },
					],
				},
			},
		});
		expect(kit).toMatchObject({
			name: 'Acme',
			tone: 'Warm and direct',
			colors: [
				{ name: 'Ink', hex: '#1a2b3c' },
				{ name: '', hex: '#ffffff' },
			],
			fonts: [
				{ name: 'Inter', role: 'heading' },
				{ name: 'Lora', role: 'body' },
			],
		});
		const [sent] = sb.control.requests({ method: 'POST', path: '/brands$' });
		expect(sent.status).toBe(201);

		const [got] = await ok({ resource: 'brandKit', operation: 'get', brandKitId: rl(kit.id) });
		expect(got.id).toBe(kit.id);
		await ok({ resource: 'brandKit', operation: 'create', name: 'Beta' });
		const list = await ok({ resource: 'brandKit', operation: 'getAll', returnAll: true });
		expect(list.map((k) => k.name)).toEqual(['Beta', 'Acme']);
		const limited = await ok({ resource: 'brandKit', operation: 'getAll', limit: 1 });
		expect(limited).toHaveLength(1);

		const [updated] = await ok({
			resource: 'brandKit',
			operation: 'update',
			brandKitId: rl(kit.id),
			updateFields: { website: 'https://acme.example', colors: { values: [{ hex: '#000' }] } },
		});
		expect(updated).toMatchObject({
			website: 'https://acme.example',
			colors: [{ hex: '#000000' }],
		});

		const logo = sb.control.createLargeAsset({
			size: 64,
			mimeType: 'image/png',
			filename: 'logo.png',
		});
		const [withLogo] = await ok({
			resource: 'brandKit',
			operation: 'setAsset',
			brandKitId: rl(kit.id),
			assetId: rl(logo.id),
			role: 'logo',
		});
		expect(withLogo.assets).toEqual([{ assetId: logo.id, role: 'logo' }]);
		const [without] = await ok({
			resource: 'brandKit',
			operation: 'setAsset',
			brandKitId: rl(kit.id),
			assetId: rl(logo.id),
			role: 'logo',
			additionalFields: { remove: true },
		});
		expect(without.assets).toEqual([]);

		const [deleted] = await ok({
			resource: 'brandKit',
			operation: 'delete',
			brandKitId: rl(kit.id),
		});
		expect(deleted).toEqual({ id: kit.id, deleted: true });
	});

	test('limits checked before sending; a bad hex is the service’s 422, naming the field', async () => {
		const long = await run({ resource: 'brandKit', operation: 'create', name: 'x'.repeat(81) });
		expect(long.error?.message).toBe('Name must be at most 80 characters, got 81');
		const font = await run({
			resource: 'brandKit',
			operation: 'create',
			name: 'Acme',
			additionalFields: { fonts: { values: [{ name: 'f'.repeat(61) }] } },
		});
		expect(font.error?.message).toBe('Fonts[0].name must be at most 60 characters, got 61');
		expect(sb.control.requests()).toHaveLength(0);

		// the hex is checked before sending too
		const hex = await run({
			resource: 'brandKit',
			operation: 'create',
			name: 'Acme',
			additionalFields: { colors: { values: [{ hex: 'red' }] } },
		});
		expect(hex.error?.message).toBe("Colors[0].hex must look like #1A2B3C, got 'red'");
		expect(sb.control.requests()).toHaveLength(0);
	});
});

describe('product', () => {
	test('import from URL, describe from photo, create, get many by brand kit, get, update, delete', async () => {
		const [draft] = await ok({
			resource: 'product',
			operation: 'import',
			url: 'https://shop.example.com/p/glass-water-bottle',
		});
		expect(draft).toMatchObject({ name: 'Glass Water Bottle', source: 'url' });
		const photo = sb.control.createLargeAsset({
			size: 64,
			mimeType: 'image/png',
			filename: 'steel-mug.png',
		});
		const [described] = await ok({
			resource: 'product',
			operation: 'describe',
			assetId: rl(photo.id),
		});
		expect(described).toMatchObject({ name: 'Steel Mug', imageAssetIds: [photo.id] });

		const [kit] = await ok({ resource: 'brandKit', operation: 'create', name: 'Acme' });
		const [product] = await ok({
			resource: 'product',
			operation: 'create',
			name: '={{ $json.name ?? "Glass Water Bottle" }}',
			additionalFields: {
				brandKitId: rl(kit.id),
				features: 'Leak-proof, 1 litre',
				imageAssetIds: photo.id,
				source: 'url',
				import: JSON.stringify({ url: draft.url }),
			},
		});
		expect(product).toMatchObject({
			name: 'Glass Water Bottle',
			brandKitId: kit.id,
			features: ['Leak-proof', '1 litre'],
			imageAssetIds: [photo.id],
			source: 'url',
			import: { url: draft.url },
		});
		await ok({ resource: 'product', operation: 'create', name: 'Unbranded' });
		const mine = await ok({
			resource: 'product',
			operation: 'getAll',
			returnAll: true,
			filters: { brandKitId: rl(kit.id) },
		});
		expect(mine.map((p) => p.id)).toEqual([product.id]);
		expect(sb.control.requests({ method: 'GET', path: '/products$' }).pop()?.query.brandKitId).toBe(
			kit.id,
		);
		const [got] = await ok({ resource: 'product', operation: 'get', productId: rl(product.id) });
		expect(got.id).toBe(product.id);
		const [upd] = await ok({
			resource: 'product',
			operation: 'update',
			productId: rl(product.id),
			updateFields: { price: '24.90', currency: 'EUR', benefits: 'No plastic' },
		});
		expect(upd).toMatchObject({ price: '24.90', currency: 'EUR', benefits: ['No plastic'] });
		const [del] = await ok({ resource: 'product', operation: 'delete', productId: rl(product.id) });
		expect(del.deleted).toBe(true);
	});

	test('continue on fail: a URL the robots.txt disallows fails its item, the others go on', async () => {
		const { out } = await run(
			{ resource: 'product', operation: 'import', url: '={{ $json.url }}' },
			[{ url: 'https://shop.example.com/p/lamp' }, { url: 'https://shop.example.com/cart/lamp' }],
			{ continueOnFail: true },
		);
		expect(out[0]).toMatchObject({ name: 'Lamp' });
		expect(out[1].error).toBe('MediaGen rejected the values sent');
		expect(String(out[1].description)).toMatch(/robots\.txt/);
		const tooLong = await run(
			{ resource: 'product', operation: 'import', url: `https://a.example/${'x'.repeat(2000)}` },
			[{}],
			{ continueOnFail: true },
		);
		expect(tooLong.out[0].error).toBe('URL must be at most 2000 characters, got 2018');
		expect(sb.control.requests({ path: '/products/import' })).toHaveLength(2);
	});
});

describe('ad project, ad copy, matrix, variants', () => {
	async function project() {
		const [product] = await ok({ resource: 'product', operation: 'create', name: 'Glass Bottle' });
		const [ad] = await ok({
			resource: 'adProject',
			operation: 'create',
			name: 'Spring launch',
			additionalFields: {
				entry: 'brand',
				productId: rl(product.id),
				presenter: { characterIds: '' },
			},
		});
		return { product, ad };
	}

	test('create, get, get many, update (wizard as fixed collections), delete', async () => {
		const { product, ad } = await project();
		expect(ad).toMatchObject({ entry: 'brand', productId: product.id, format: 'ugc', copy: [] });
		const character = await newCharacter('Mia');
		const [upd] = await ok({
			resource: 'adProject',
			operation: 'update',
			adProjectId: rl(ad.id),
			updateFields: {
				step: 4,
				audience: { description: 'busy parents', painPoints: 'plastic waste, leaks' },
				strategy: { objective: 'conversions', platform: 'shortclip', angle: 'problem_solution' },
				presenter: { characterIds: character },
				visual: { styles: 'ugc', aspects: '9:16, 1:1', durations: '8, 15', includeLogo: true },
				settings: { modelId: 'ad-video-2', params: '{"quality": "draft"}', languages: 'en,de' },
			},
		});
		expect(upd).toMatchObject({
			step: 4,
			audience: { description: 'busy parents', painPoints: ['plastic waste', 'leaks'] },
			strategy: { objective: 'conversions', platform: 'shortclip', angle: 'problem_solution' },
			presenter: { characterIds: [character] },
			visual: { styles: ['ugc'], aspects: ['9:16', '1:1'], durations: [8, 15], includeLogo: true },
			settings: { modelId: 'ad-video-2', params: { quality: 'draft' }, languages: ['en', 'de'] },
		});
		const [got] = await ok({ resource: 'adProject', operation: 'get', adProjectId: rl(ad.id) });
		expect(got.step).toBe(4);
		const list = await ok({ resource: 'adProject', operation: 'getAll', returnAll: true });
		expect(list.map((a) => a.id)).toEqual([ad.id]);

		const bad = await run({
			resource: 'adProject',
			operation: 'update',
			adProjectId: rl(ad.id),
			updateFields: { step: 9, visual: { durations: '8, long' } },
		});
		expect(bad.error?.message).toBe('Step must be between 1 and 8, got 9');
		const badList = await run({
			resource: 'adProject',
			operation: 'update',
			adProjectId: rl(ad.id),
			updateFields: { visual: { durations: '8, long' } },
		});
		expect(badList.error?.message).toBe("Visual.durations[1] must be a number, got 'long'");
		expect(sb.control.requests({ method: 'PATCH' })).toHaveLength(1);

		const [del] = await ok({ resource: 'adProject', operation: 'delete', adProjectId: rl(ad.id) });
		expect(del).toEqual({ id: ad.id, deleted: true });
	});

	test('ad copy: generate (kinds, count, language, replace), create, update, delete', async () => {
		const { ad } = await project();
		const generated = await ok({
			resource: 'adCopy',
			operation: 'generate',
			adProjectId: rl(ad.id),
			kinds: ['hook', 'cta'],
			additionalFields: { count: 2, language: 'de' },
		});
		expect(generated).toHaveLength(4);
		expect(generated.map((c) => c.kind)).toEqual(['hook', 'hook', 'cta', 'cta']);
		expect(generated.every((c) => c.language === 'de')).toBe(true);
		const replaced = await ok({
			resource: 'adCopy',
			operation: 'generate',
			adProjectId: rl(ad.id),
			kinds: ['hook'],
			additionalFields: { count: 1, language: 'de', replace: true },
		});
		expect(replaced).toHaveLength(1);
		const [mine] = await ok({
			resource: 'adCopy',
			operation: 'create',
			adProjectId: rl(ad.id),
			kind: 'headline',
			content: 'Glass that goes everywhere',
			additionalFields: { data: '{"source": "brief"}' },
		});
		expect(mine).toMatchObject({ kind: 'headline', language: 'en', data: { source: 'brief' } });
		const [upd] = await ok({
			resource: 'adCopy',
			operation: 'update',
			id: String(mine.id),
			updateFields: { selected: true, content: 'Glass, everywhere' },
		});
		expect(upd).toMatchObject({ selected: true, content: 'Glass, everywhere' });
		const [got] = await ok({ resource: 'adProject', operation: 'get', adProjectId: rl(ad.id) });
		expect((got.copy as IDataObject[]).map((c) => c.kind).sort()).toEqual([
			'cta',
			'cta',
			'headline',
			'hook',
		]);
		const [del] = await ok({ resource: 'adCopy', operation: 'delete', id: String(mine.id) });
		expect(del.deleted).toBe(true);

		const before = sb.control.requests().length;
		const bad = await run({
			resource: 'adCopy',
			operation: 'generate',
			adProjectId: rl(ad.id),
			kinds: '={{ ["jingle"] }}',
			additionalFields: { count: 9 },
		});
		expect(bad.error?.message).toMatch(/^Kinds\[0\] must be one of hook, .*got 'jingle'/);
		const count = await run({
			resource: 'adCopy',
			operation: 'generate',
			adProjectId: rl(ad.id),
			kinds: ['hook'],
			additionalFields: { count: 9 },
		});
		expect(count.error?.message).toBe('Count must be between 1 and 8, got 9');
		expect(sb.control.requests()).toHaveLength(before);
	});

	test('matrix run without waiting, combos checked field by field before sending', async () => {
		const { ad } = await project();
		const copy = await ok({
			resource: 'adCopy',
			operation: 'generate',
			adProjectId: rl(ad.id),
			kinds: ['hook', 'script', 'cta'],
			additionalFields: { count: 1 },
		});
		const id = (kind: string) => copy.find((c) => c.kind === kind)?.id;
		const combo = {
			language: 'en',
			hook: id('hook'),
			script: id('script'),
			cta: id('cta'),
			presenter: 'none',
			style: 'ugc',
			aspect: '9:16',
			duration: 6,
		};
		const before = sb.control.requests().length;
		const bad = await run({
			resource: 'adProject',
			operation: 'runMatrix',
			adProjectId: rl(ad.id),
			combos: JSON.stringify([combo, { ...combo, aspect: '16:9-wide', hook: undefined }]),
		});
		expect(bad.error?.message).toBe('Combinations[1].hook is required');
		const long = await run({
			resource: 'adProject',
			operation: 'runMatrix',
			adProjectId: rl(ad.id),
			combos: JSON.stringify([{ ...combo, aspect: '16:9-wide' }]),
		});
		expect(long.error?.message).toBe('Combinations[0].aspect must be at most 8 characters, got 9');
		expect(sb.control.requests()).toHaveLength(before);

		const started = await ok({
			resource: 'adProject',
			operation: 'runMatrix',
			adProjectId: rl(ad.id),
			combos: JSON.stringify([combo, { ...combo, language: 'de' }]),
			waitForCompletion: false,
		});
		expect(started).toHaveLength(2);
		expect(started.map((g) => g.status)).toEqual(['queued', 'queued']);
		expect(started[0].batch_id).toBe(started[1].batch_id);
		const variants = await ok({
			resource: 'adVariant',
			operation: 'getAll',
			adProjectId: rl(ad.id),
			returnAll: true,
		});
		expect(variants).toHaveLength(2);
	});
});

describe('full ad flow in one workflow', () => {
	test('brand kit → product → ad project → copy → matrix preview → run 4 combos → winners → export ZIP', async () => {
		const before = balance();
		const workflow = once(
			chain(
				[{}],
				[
					ads('Brand Kit', {
						resource: 'brandKit',
						operation: 'create',
						name: 'Acme',
						additionalFields: { colors: { values: [{ name: 'Ink', hex: '#112233' }] } },
					}),
					ads('Product', {
						resource: 'product',
						operation: 'create',
						name: 'Glass Bottle',
						additionalFields: {
							brandKitId: rl('={{ $json.id }}'),
							benefits: 'No plastic, Keeps cold',
						},
					}),
					ads('Ad Project', {
						resource: 'adProject',
						operation: 'create',
						name: 'Spring launch',
						additionalFields: {
							productId: rl('={{ $json.id }}'),
							brandKitId: rl("={{ $('Brand Kit').first().json.id }}"),
						},
					}),
					ads('Wizard', {
						resource: 'adProject',
						operation: 'update',
						adProjectId: rl('={{ $json.id }}'),
						updateFields: {
							step: 5,
							audience: { painPoints: 'plastic bottles' },
							settings: { params: '{"sandbox": {"durationMs": 2000}}' },
						},
					}),
					ads('Generate Copy', {
						resource: 'adCopy',
						operation: 'generate',
						adProjectId: rl('={{ $json.id }}'),
						kinds: ['hook', 'script', 'cta'],
						additionalFields: { count: 2 },
					}),
					ads('Preview', {
						resource: 'adProject',
						operation: 'previewMatrix',
						adProjectId: rl("={{ $('Ad Project').first().json.id }}"),
						additionalFields: {
							languages: 'en, de',
							hooks:
								"={{ $('Generate Copy').all().filter(i => i.json.kind === 'hook').map(i => i.json.id).join(',') }}",
							scripts:
								"={{ $('Generate Copy').all().find(i => i.json.kind === 'script').json.id }}",
							ctas: "={{ $('Generate Copy').all().find(i => i.json.kind === 'cta').json.id }}",
							presenters: 'none',
							styles: 'ugc',
							aspects: '9:16',
							durations: '5',
						},
					}),
					ads('Run', {
						resource: 'adProject',
						operation: 'runMatrix',
						adProjectId: rl("={{ $('Ad Project').first().json.id }}"),
						combos: '={{ JSON.stringify($json.combinations) }}',
					}),
					ads('Variants', {
						resource: 'adVariant',
						operation: 'getAll',
						adProjectId: rl("={{ $('Ad Project').first().json.id }}"),
						returnAll: true,
					}),
					ads('Mark', {
						resource: 'adVariant',
						operation: 'markWinner',
						id: '={{ $json.id }}',
						winner: '={{ $json.dimensions.language === "de" }}',
					}),
					ads('Winners', {
						resource: 'adVariant',
						operation: 'getAll',
						adProjectId: rl("={{ $('Ad Project').first().json.id }}"),
						returnAll: true,
						filters: { winners: true },
					}),
					ads('Export', {
						resource: 'adVariant',
						operation: 'export',
						adProjectId: rl("={{ $('Ad Project').first().json.id }}"),
						variantIds: "={{ $('Winners').all().map(i => i.json.id).join(',') }}",
						binaryPropertyName: 'zip',
					}),
				],
			),
			['Preview', 'Variants', 'Winners', 'Export'],
		);
		const result = await runWorkflow(workflow, { credentials: creds() });
		expect(result.error).toBeUndefined();

		const [preview] = result.json('Preview');
		expect(preview.count).toBe(4);
		expect(preview.credits).toBe(4 * 40);
		const runs = result.json('Run');
		expect(runs).toHaveLength(4);
		expect(runs.every((g) => g.status === 'completed' && g.tool === 'ads')).toBe(true);
		expect(new Set(runs.map((g) => g.batch_id)).size).toBe(1);
		expect(sb.control.requests({ method: 'POST', path: '/matrix/run$' })).toHaveLength(1);
		const charged = runs.reduce((n, g) => n + Number(g.credits_charged), 0);
		expect(charged).toBe(preview.credits);
		expect(balance()).toBe(before - charged);

		expect(result.json('Variants')).toHaveLength(4);
		expect(result.json('Mark').filter((v) => v.winner)).toHaveLength(2);
		const winners = result.json('Winners');
		expect(winners.map((v) => (v.dimensions as IDataObject).language)).toEqual(['de', 'de']);

		const [exported] = result.items('Export');
		expect(exported.json).toMatchObject({ mimeType: 'application/zip', source: 'export' });
		const file = exported.binary?.zip as IBinaryData;
		expect(file).toMatchObject({
			mimeType: 'application/zip',
			fileName: 'spring-launch-export.zip',
		});
		const chunks: Buffer[] = [];
		for await (const chunk of await openBinary(file)) chunks.push(chunk as Buffer);
		const entries = readZip(Buffer.concat(chunks));
		expect(entries.filter((e) => e.name.startsWith('creatives/'))).toHaveLength(2);
		const csv = entries.find((e) => e.name === 'copy-sheet.csv')?.data.toString('utf8') ?? '';
		const rows = csv.trim().split('\r\n');
		expect(rows).toHaveLength(3);
		expect(rows.slice(1).every((r) => r.includes(',true,de,none,ugc,9:16,5,'))).toBe(true);
		expect(csv).toContain('plastic bottles');
	});
});

describe('marketing template', () => {
	const base = (productId: string, extra: INodeParameters = {}) => ({
		resource: 'marketingTemplate',
		id: 'ugc-testimonial',
		productId: rl(productId),
		...extra,
	});

	test('estimate; run waits and returns the file; Max Credits refuses; idempotency key sent', async () => {
		const [product] = await ok({ resource: 'product', operation: 'create', name: 'Glass Bottle' });
		const params = { params: '{"sandbox": {"durationMs": 1000}}', headline: 'Summer' };
		const [estimate] = await ok({
			...base(String(product.id)),
			operation: 'estimate',
			additionalFields: params,
		});
		expect(estimate.credits).toBe(60);

		const before = balance();
		const refused = await run({
			...base(String(product.id)),
			operation: 'run',
			additionalFields: params,
			options: { maxCredits: 59 },
		});
		expect(refused.error?.message).toBe('Estimated cost is 60 credits, above Max Credits (59)');
		expect(sb.control.requests({ path: '/marketing/templates/.*/run' })).toHaveLength(0);
		expect(balance()).toBe(before);

		const character = await newCharacter('Mia');
		const done = await run({
			...base(String(product.id)),
			operation: 'run',
			additionalFields: { ...params, characterId: rl(character) },
			returnAs: 'both',
			options: { maxCredits: 60 },
		});
		expect(done.error).toBeUndefined();
		expect(done.out[0]).toMatchObject({
			status: 'completed',
			tool: 'marketing',
			credits_charged: 60,
		});
		expect(done.out[0].context).toMatchObject({ characterId: character });
		expect(done.items('Ads')[0].binary?.data).toMatchObject({ mimeType: 'video/mp4' });
		const [sent] = sb.control.requests({ method: 'POST', path: '/marketing/templates/.*/run' });
		expect(sent.idempotencyKey).toMatch(/^n8n-[0-9a-f]{48}$/);
		expect(balance()).toBe(before - 60);

		const own = await run({
			...base(String(product.id)),
			operation: 'run',
			additionalFields: params,
			waitForCompletion: false,
			options: { idempotencyKey: 'campaign-7' },
		});
		const again = await run({
			...base(String(product.id)),
			operation: 'run',
			additionalFields: params,
			waitForCompletion: false,
			options: { idempotencyKey: 'campaign-7' },
		});
		expect(again.out[0].id).toBe(own.out[0].id);

		const unknown = await run({ ...base(String(product.id)), id: 'nope', operation: 'estimate' });
		expect(unknown.error?.message).toMatch(/^Not found/);
		const bad = await run({
			...base(String(product.id)),
			operation: 'estimate',
			additionalFields: { headline: 'h'.repeat(121) },
		});
		expect(bad.error?.message).toBe('Headline must be at most 120 characters, got 121');
	});
});
