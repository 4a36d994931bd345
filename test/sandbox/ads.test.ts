/**
 * Sandbox routes of the ads area (doc 2: brand kits, products, ad projects, copy, matrix,
 * variants, export, marketing templates) over real HTTP.
 */
import { readZip } from '../../sandbox/ads/zip';
import { until, useSandbox } from '../harness/sandbox/helpers';

const { sb, pro, other, readOnly } = useSandbox({ timeScale: 0.001 });

const MISSING = '00000000-0000-4000-8000-000000000000';
const image = () =>
	sb.control.createLargeAsset({ size: 64, mimeType: 'image/png', filename: 'glass-bottle.png' });

async function adWithCopy(extra: Record<string, unknown> = {}) {
	const product = (
		await pro('POST', '/products', { name: 'Glass Bottle', benefits: ['No plastic'] })
	).body;
	const ad = (await pro('POST', '/ads', { name: 'Spring', productId: product.id, ...extra })).body;
	const gen = await pro('POST', `/ads/${ad.id}/copy/generate`, {
		kinds: ['hook', 'script', 'cta'],
		count: 2,
	});
	const ids = (kind: string) =>
		gen.body.data.filter((c: { kind: string }) => c.kind === kind).map((c: { id: string }) => c.id);
	return { product, ad, hooks: ids('hook'), scripts: ids('script'), ctas: ids('cta') };
}

describe('brand kits', () => {
	it('create with defaults, hex normalised, get, list, update, delete', async () => {
		const c = await pro('POST', '/brands', {
			name: 'Acme',
			colors: [{ hex: '#1A2B3C' }, { name: 'Sky', hex: 'abc' }],
			fonts: [{ name: 'Inter' }, { name: 'Lora', role: 'body' }],
		});
		expect(c.status).toBe(201);
		expect(c.body).toMatchObject({
			name: 'Acme',
			website: '',
			tone: '',
			guidelines: '',
			colors: [
				{ name: '', hex: '#1a2b3c' },
				{ name: 'Sky', hex: '#aabbcc' },
			],
			fonts: [
				{ name: 'Inter', role: 'heading' },
				{ name: 'Lora', role: 'body' },
			],
			assets: [],
		});
		expect((await pro('GET', `/brands/${c.body.id}`)).body.id).toBe(c.body.id);
		const list = await pro('GET', '/brands');
		expect(list.body).toMatchObject({ data: [{ id: c.body.id }], nextCursor: null });
		const u = await pro('PATCH', `/brands/${c.body.id}`, { tone: 'Warm', colors: [] });
		expect(u.body).toMatchObject({ tone: 'Warm', colors: [], fonts: [{ name: 'Inter' }, {}] });
		expect(await other('GET', `/brands/${c.body.id}`)).toMatchObject({ status: 404 });
		const d = await pro('DELETE', `/brands/${c.body.id}`);
		expect(d.body).toEqual({ id: c.body.id, deleted: true });
		expect((await pro('GET', `/brands/${c.body.id}`)).status).toBe(404);
	});

	it('422 lists every issue: name length, bad hex, font role, missing font name', async () => {
		const r = await pro('POST', '/brands', {
			name: 'x'.repeat(81),
			colors: [{ hex: 'red' }, { hex: '#12345' }],
			fonts: [{ role: 'title' }],
		});
		expect(r.status).toBe(422);
		expect(r.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual([
			'colors.0.hex',
			'colors.1.hex',
			'fonts.0.name',
			'fonts.0.role',
			'name',
		]);
	});

	it('add and remove assets by role; unknown asset 404; read-only key 403', async () => {
		const b = (await pro('POST', '/brands', { name: 'Acme' })).body;
		const a = image();
		const add = await pro('POST', `/brands/${b.id}/assets`, { assetId: a.id, role: 'logo' });
		expect(add.body.assets).toEqual([{ assetId: a.id, role: 'logo' }]);
		await pro('POST', `/brands/${b.id}/assets`, { assetId: a.id, role: 'logo' });
		const ref = await pro('POST', `/brands/${b.id}/assets`, { assetId: a.id, role: 'reference' });
		expect(ref.body.assets).toHaveLength(2);
		const rm = await pro('POST', `/brands/${b.id}/assets`, {
			assetId: a.id,
			role: 'logo',
			remove: true,
		});
		expect(rm.body.assets).toEqual([{ assetId: a.id, role: 'reference' }]);
		expect(
			(await pro('POST', `/brands/${b.id}/assets`, { assetId: MISSING, role: 'logo' })).status,
		).toBe(404);
		expect((await pro('POST', `/brands/${b.id}/assets`, { assetId: a.id })).status).toBe(422);
		const ro = await readOnly('POST', `/brands/${b.id}/assets`, { assetId: a.id, role: 'logo' });
		expect(ro.status).toBe(403);
		expect(ro.body.error.details.requiredScope).toBe('content.create');
	});
});

describe('products', () => {
	it('import from a URL: a draft, not stored; robots.txt and private hosts refused', async () => {
		const r = await pro('POST', '/products/import', {
			url: 'https://shop.example.com/p/glass-water-bottle',
		});
		expect(r.status).toBe(200);
		expect(r.body).toMatchObject({
			name: 'Glass Water Bottle',
			source: 'url',
			url: 'https://shop.example.com/p/glass-water-bottle',
			import: { host: 'shop.example.com', robotsAllowed: true },
		});
		expect((await pro('GET', '/products')).body.data).toEqual([]);
		const robots = await pro('POST', '/products/import', {
			url: 'https://shop.example.com/cart/1',
		});
		expect(robots.body.error.details.issues[0]).toMatchObject({
			path: 'url',
			code: 'robots_disallowed',
		});
		expect((await pro('POST', '/products/import', { url: 'http://10.0.0.1/p/x' })).status).toBe(
			422,
		);
		expect((await pro('POST', '/products/import', { url: 'not a url' })).status).toBe(422);
		expect(
			(await pro('POST', '/products/import', { url: `https://a.com/${'x'.repeat(2000)}` })).status,
		).toBe(422);
	});

	it('describe from a photo: image assets only', async () => {
		const a = image();
		const r = await pro('POST', '/products/describe', { assetId: a.id });
		expect(r.body).toMatchObject({ name: 'Glass Bottle', source: 'image', imageAssetIds: [a.id] });
		const doc = sb.control.createLargeAsset({ size: 10, mimeType: 'application/pdf' });
		const bad = await pro('POST', '/products/describe', { assetId: doc.id });
		expect(bad.body.error.details.issues[0].code).toBe('not_an_image');
		expect((await pro('POST', '/products/describe', { assetId: MISSING })).status).toBe(404);
	});

	it('create with defaults, filter by brand kit, update, delete; references checked', async () => {
		const b = (await pro('POST', '/brands', { name: 'Acme' })).body;
		const a = image();
		const p = await pro('POST', '/products', {
			name: 'Bottle',
			brandKitId: b.id,
			imageAssetIds: [a.id],
			features: ['1 l'],
		});
		expect(p.status).toBe(201);
		expect(p.body).toMatchObject({
			description: '',
			category: '',
			features: ['1 l'],
			benefits: [],
			price: '',
			currency: '',
			url: '',
			brandKitId: b.id,
			imageAssetIds: [a.id],
			source: 'manual',
			import: null,
		});
		await pro('POST', '/products', { name: 'Other' });
		const filtered = await pro('GET', `/products?brandKitId=${b.id}`);
		expect(filtered.body.data.map((x: { id: string }) => x.id)).toEqual([p.body.id]);
		expect((await pro('GET', `/products?brandKitId=${MISSING}`)).status).toBe(404);
		expect((await pro('GET', '/products?limit=1')).body.nextCursor).not.toBeNull();
		const bad = await pro('POST', '/products', { name: 'X', imageAssetIds: [MISSING] });
		expect(bad.status).toBe(404);
		expect(bad.body.error.details.ids).toEqual([MISSING]);
		const u = await pro('PATCH', `/products/${p.body.id}`, { price: '19.99', currency: 'EUR' });
		expect(u.body).toMatchObject({ price: '19.99', currency: 'EUR', name: 'Bottle' });
		expect((await pro('PATCH', `/products/${p.body.id}`, { currency: 'EUROSDOLL' })).status).toBe(
			422,
		);
		await pro('DELETE', `/brands/${b.id}`);
		expect((await pro('GET', `/products/${p.body.id}`)).body.brandKitId).toBeNull();
		expect((await pro('DELETE', `/products/${p.body.id}`)).body).toEqual({
			id: p.body.id,
			deleted: true,
		});
	});
});

describe('ad projects and copy', () => {
	it('create with defaults; wizard progress merged; copy in the single record only', async () => {
		const c = await pro('POST', '/ads', { name: 'Spring' });
		expect(c.status).toBe(201);
		expect(c.body).toMatchObject({
			entry: 'url',
			format: 'ugc',
			step: 1,
			presenter: { characterIds: [] },
			copy: [],
		});
		const id = c.body.id;
		const character = (await pro('POST', '/characters', { name: 'Mia' })).body;
		const unknown = await pro('PATCH', `/ads/${id}`, { presenter: { characterIds: [MISSING] } });
		expect(unknown.status).toBe(404);
		expect(unknown.body.error.details.ids).toEqual([MISSING]);
		await pro('PATCH', `/ads/${id}`, {
			step: 2,
			audience: { description: 'busy parents', painPoints: ['plastic waste'] },
		});
		const u = await pro('PATCH', `/ads/${id}`, {
			step: 3,
			audience: { market: 'DE' },
			strategy: { objective: 'conversions', platform: 'shortclip', angle: 'problem_solution' },
			presenter: { characterIds: [character.id] },
			visual: { styles: ['ugc'], aspects: ['9:16'], durations: [8], includeLogo: true },
			settings: { modelId: 'ad-model', params: { sandbox: { durationMs: 10 } }, languages: ['en'] },
		});
		expect(u.body).toMatchObject({
			step: 3,
			audience: { description: 'busy parents', painPoints: ['plastic waste'], market: 'DE' },
			strategy: { objective: 'conversions' },
			presenter: { characterIds: [character.id] },
			visual: { durations: [8] },
			settings: { modelId: 'ad-model' },
		});
		const bad = await pro('PATCH', `/ads/${id}`, {
			step: 9,
			strategy: { objective: 'sales' },
			presenter: {},
		});
		expect(bad.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual([
			'presenter.characterIds',
			'step',
			'strategy.objective',
		]);
		const list = await pro('GET', '/ads');
		expect(list.body.data[0].copy).toBeUndefined();
		expect(list.body.data[0].copyCount).toBe(0);
		expect((await pro('POST', '/ads', { name: 'x', productId: MISSING })).status).toBe(404);
	});

	it('generate copy (kinds × count, language, replace), create, update, delete', async () => {
		const { ad } = await adWithCopy();
		const more = await pro('POST', `/ads/${ad.id}/copy/generate`, {
			kinds: ['hook'],
			count: 1,
			language: 'de',
		});
		expect(more.status).toBe(201);
		expect(more.body.data).toEqual([
			expect.objectContaining({ kind: 'hook', language: 'de', origin: 'ai', selected: false }),
		]);
		expect(more.body.data[0].content).toMatch(/^\[de\] /);
		let full = (await pro('GET', `/ads/${ad.id}`)).body;
		expect(full.copy).toHaveLength(7);
		const replaced = await pro('POST', `/ads/${ad.id}/copy/generate`, {
			kinds: ['hook'],
			count: 3,
			replace: true,
		});
		expect(replaced.body.data).toHaveLength(3);
		full = (await pro('GET', `/ads/${ad.id}`)).body;
		expect(full.copy.filter((c: { kind: string }) => c.kind === 'hook')).toHaveLength(4);
		expect(
			(await pro('POST', `/ads/${ad.id}/copy/generate`, { kinds: ['hook'], count: 9 })).status,
		).toBe(422);

		const mine = await pro('POST', `/ads/${ad.id}/copy`, { kind: 'headline', content: 'Hi' });
		expect(mine.status).toBe(201);
		expect(mine.body).toMatchObject({ language: 'en', origin: 'manual', data: {} });
		const upd = await pro('PATCH', `/ads/copy/${mine.body.id}`, {
			selected: true,
			data: { note: 1 },
		});
		expect(upd.body).toMatchObject({ selected: true, data: { note: 1 }, content: 'Hi' });
		expect((await pro('DELETE', `/ads/copy/${mine.body.id}`)).body.deleted).toBe(true);
		expect((await other('PATCH', `/ads/copy/${mine.body.id}`, {})).status).toBe(404);
		expect((await pro('DELETE', `/ads/${ad.id}`)).body).toEqual({ id: ad.id, deleted: true });
		expect((await pro('GET', `/ads/${ad.id}`)).status).toBe(404);
	});
});

describe('matrix, variants, export', () => {
	it('preview prices the cartesian product; empty dimensions come from the project', async () => {
		const { ad, hooks, scripts, ctas } = await adWithCopy();
		const r = await pro('POST', `/ads/${ad.id}/matrix/preview`, {
			languages: ['en', 'de'],
			hooks,
			scripts: [scripts[0]],
			ctas: [ctas[0]],
			presenters: ['none'],
			styles: ['ugc', 'studio'],
			aspects: ['9:16'],
			durations: [5, 10],
		});
		expect(r.status).toBe(200);
		expect(r.body.count).toBe(2 * 2 * 2 * 2);
		expect(r.body.combinations).toHaveLength(16);
		// video ads: 20 + 4 per second
		const byDuration = (d: number) =>
			r.body.combinations.find((c: { duration: number }) => c.duration === d).credits;
		expect(byDuration(5)).toBe(40);
		expect(byDuration(10)).toBe(60);
		expect(r.body.credits).toBe(8 * 40 + 8 * 60);
		expect((await pro('GET', '/credits')).body.balance).toBe(1000);

		// nothing given: the project's copy (2 hooks × 2 scripts × 2 ctas), other dimensions not varied
		const auto = await pro('POST', `/ads/${ad.id}/matrix/preview`, {});
		expect(auto.body.count).toBe(8);
		expect(auto.body.combinations[0]).toMatchObject({
			language: null,
			duration: null,
			credits: 40,
		});

		const wrong = await pro('POST', `/ads/${ad.id}/matrix/preview`, { hooks: [scripts[0]] });
		expect(wrong.body.error.details.issues[0]).toMatchObject({
			path: 'hooks.0',
			code: 'wrong_kind',
		});
		expect((await pro('POST', `/ads/${ad.id}/matrix/preview`, { ctas: [MISSING] })).status).toBe(
			404,
		);
		const huge = await pro('POST', `/ads/${ad.id}/matrix/preview`, {
			languages: Array.from({ length: 20 }, (_, i) => `l${i}`),
			styles: Array.from({ length: 20 }, (_, i) => `s${i}`),
			durations: [1, 2, 3],
		});
		expect(huge.body.error.details.issues[0].code).toBe('too_many_combinations');
	});

	it('run: one batch of generations, credits as a batch; winners; export ZIP with copy sheet', async () => {
		const { ad, hooks, scripts, ctas } = await adWithCopy();
		await pro('PATCH', `/ads/${ad.id}`, {
			settings: { params: { sandbox: { durationMs: 10 } } },
		});
		const combo = (language: string, hook: string) => ({
			language,
			hook,
			script: scripts[0],
			cta: ctas[0],
			presenter: 'none',
			style: 'ugc',
			aspect: '9:16',
			duration: 5,
		});
		const combos = [combo('en', hooks[0]), combo('en', hooks[1]), combo('de', hooks[0])];
		const bad = await pro('POST', `/ads/${ad.id}/matrix/run`, {
			combos: [{ ...combos[0], hook: ctas[0], aspect: '16:9-wide' }],
		});
		expect(bad.status).toBe(422);
		sb.control.setCredits('main', 100);
		const poor = await pro('POST', `/ads/${ad.id}/matrix/run`, { combos });
		expect(poor.status).toBe(402);
		expect(poor.body.error.details).toEqual({ balance: 100, required: 120 });
		expect((await pro('GET', '/generations')).body.data).toEqual([]);
		sb.control.setCredits('main', 1000);

		sb.control.holdJobs(); // the variants are still running while the early calls are made
		const run = await pro('POST', `/ads/${ad.id}/matrix/run`, { combos });
		expect(run.status).toBe(201);
		expect(run.body.data).toHaveLength(3);
		for (const g of run.body.data)
			expect(g).toMatchObject({ status: 'queued', tool: 'ads', batch_id: run.body.batchId });
		expect((await pro('GET', '/credits')).body).toMatchObject({ balance: 880, reserved: 120 });

		const variants = await pro('GET', `/ads/${ad.id}/variants`);
		expect(variants.body.data).toHaveLength(3);
		const v0 = variants.body.data.find(
			(v: { generationId: string }) => v.generationId === run.body.data[0].id,
		);
		expect(v0).toMatchObject({ dimensions: combos[0], winner: false, result: null });
		const early = await pro('POST', `/ads/variants/${v0.id}/winner`, { winner: true });
		expect(early.status).toBe(409);
		const exportEarly = await pro('POST', `/ads/${ad.id}/export`, { variantIds: [v0.id] });
		expect(exportEarly.status).toBe(409);
		sb.control.releaseJobs();

		await until(async () => {
			const r = await pro('GET', `/ads/${ad.id}/variants`);
			return r.body.data.every((v: { status: string }) => v.status === 'completed');
		});
		expect((await pro('GET', '/credits')).body).toMatchObject({ balance: 880, reserved: 0 });
		const win = await pro('POST', `/ads/variants/${v0.id}/winner`, { winner: true });
		expect(win.body).toMatchObject({ winner: true, status: 'completed', credits_charged: 40 });
		expect(win.body.result).toMatchObject({ assetId: expect.any(String), kind: 'video' });
		const winners = await pro('GET', `/ads/${ad.id}/variants?winners=true`);
		expect(winners.body.data.map((v: { id: string }) => v.id)).toEqual([v0.id]);
		expect((await pro('GET', `/ads/${ad.id}/variants?winners=false`)).body.data).toHaveLength(2);
		expect((await pro('GET', `/ads/${ad.id}/variants?winners=yes`)).status).toBe(422);

		const all = variants.body.data.map((v: { id: string }) => v.id);
		const exp = await readOnly('POST', `/ads/${ad.id}/export`, { variantIds: all });
		expect(exp.status).toBe(201);
		expect(exp.body).toMatchObject({
			mimeType: 'application/zip',
			source: 'export',
			filename: 'spring-export.zip',
		});
		const link = await pro('GET', `/assets/${exp.body.id}/download`);
		const res = await fetch(link.body.url);
		expect(res.headers.get('content-type')).toBe('application/zip');
		const zip = Buffer.from(await res.arrayBuffer());
		expect(zip.length).toBe(exp.body.size);
		const entries = readZip(zip);
		expect(entries.map((e) => e.name).filter((n) => n.startsWith('creatives/'))).toHaveLength(3);
		const mp4 = entries.find((e) => e.name.endsWith('.mp4'))!;
		expect(mp4.data.subarray(4, 8).toString('ascii')).toBe('ftyp');
		const csv = entries.find((e) => e.name === 'copy-sheet.csv')!.data.toString('utf8');
		const lines = csv.trim().split('\r\n');
		expect(lines[0]).toMatch(/^variant_id,file,winner,language/);
		expect(lines).toHaveLength(4);
		expect(csv).toContain(v0.id);

		expect((await pro('POST', `/ads/${ad.id}/export`, { variantIds: [MISSING] })).status).toBe(404);
		// deleting the project keeps the files
		await pro('DELETE', `/ads/${ad.id}`);
		expect((await pro('GET', `/assets/${exp.body.id}`)).status).toBe(200);
		expect((await pro('GET', `/assets/${win.body.result.assetId}`)).status).toBe(200);
	});
});

describe('marketing templates', () => {
	it('estimate equals the charge; run is a marketing generation; idempotent replays', async () => {
		const p = (await pro('POST', '/products', { name: 'Bottle' })).body;
		const body = { productId: p.id, headline: 'Summer', params: { sandbox: { durationMs: 10 } } };
		const est = await pro('POST', '/marketing/templates/ugc-testimonial/estimate', body);
		expect(est.body).toEqual({
			credits: 60,
			breakdown: [
				{ item: 'video base', credits: 20 },
				{ item: 'video 10 s × 4', credits: 40 },
			],
		});
		const img = await pro('POST', '/marketing/templates/lifestyle-scene/estimate', body);
		expect(img.body.credits).toBe(8);
		const headers = { 'idempotency-key': 'mk-1' };
		const r = await pro('POST', '/marketing/templates/ugc-testimonial/run', body, headers);
		expect(r.status).toBe(201);
		expect(r.body).toMatchObject({ tool: 'marketing', status: 'queued', idempotency_key: 'mk-1' });
		expect(r.body.context).toMatchObject({ templateId: 'ugc-testimonial', productId: p.id });
		const again = await pro('POST', '/marketing/templates/ugc-testimonial/run', body, headers);
		expect(again.headers.get('idempotent-replayed')).toBe('true');
		expect(again.body.id).toBe(r.body.id);
		const reused = await pro(
			'POST',
			'/marketing/templates/ugc-testimonial/run',
			{ ...body, headline: 'Winter' },
			headers,
		);
		expect(reused.status).toBe(409);
		const done = await until(async () => {
			const g = await pro('GET', `/generations/${r.body.id}`);
			return g.body.status === 'completed' ? g.body : undefined;
		});
		expect(done.credits_charged).toBe(60);
		expect((await pro('GET', '/credits')).body.balance).toBe(940);

		expect((await pro('POST', '/marketing/templates/nope/estimate', body)).status).toBe(404);
		const withCharacter = { ...body, characterId: MISSING };
		expect(
			(await pro('POST', '/marketing/templates/sale-banner/estimate', withCharacter)).status,
		).toBe(404);
		expect(
			(await pro('POST', '/marketing/templates/sale-banner/run', { productId: MISSING })).status,
		).toBe(404);
		const invalid = await pro('POST', '/marketing/templates/sale-banner/run', {
			headline: 'x'.repeat(121),
			aspectRatio: '123456789',
		});
		expect(invalid.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual([
			'aspectRatio',
			'headline',
			'productId',
		]);
		sb.control.setCredits('main', 3);
		expect((await pro('POST', '/marketing/templates/sale-banner/run', body)).status).toBe(402);
	});
});
