/**
 * MediaGen Ads (doc 2): brand kits, products, ad projects with copy, the creative matrix,
 * variants, the ZIP export, and marketing templates. Records live in ../ads/store.ts (per
 * workspace); jobs go through the generation engine (../jobs.ts), so credits, lifecycle and
 * events are those of generations.
 */
import { ApiError, conflict, json, notFound, validationError, type Issue } from '../http';
import { estimate, type GenerationInput } from '../jobs';
import { createAsset } from '../library';
import { paginate } from '../pagination';
import { route } from '../route';
import { newId, recBase, touch, type Workspace } from '../state';
import { isPrivateAddress } from '../hooks';
import { assetView, generationView } from '../views';
import { int, obj, oneOf, pageQuery, qBool, str, uuid, z } from '../validation';
import {
	ASSET_ROLES,
	COPY_KINDS,
	ENTRIES,
	FONT_ROLES,
	PRODUCT_SOURCES,
	adSummaryView,
	adView,
	adsOf,
	brandKitView,
	copyOf,
	copyView,
	productView,
	variantView,
	type AdProjectRec,
	type AdsStore,
	type Combo,
	type CopyKind,
	type CopyRec,
	type VariantRec,
} from '../ads/store';
import {
	MARKETING_TEMPLATES,
	ROBOTS_DISALLOWED,
	draftFromPhoto,
	draftFromUrl,
	writeCopy,
} from '../ads/content';
import { makeZip } from '../ads/zip';
import { storeOf as influencerOf } from '../influencer/model';

// ---------------------------------------------------------------------------------------------
// Schemas (spec notation -> zod)

/** `hex: string*`: the spec gives no pattern; the sandbox accepts #RGB or #RRGGBB ('#' optional). */
const hex = () =>
	z
		.string()
		.regex(/^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'Expected a hex colour: #RGB or #RRGGBB')
		.transform((s) => {
			const h = s.replace(/^#/, '').toLowerCase();
			return `#${h.length === 3 ? [...h].map((c) => c + c).join('') : h}`;
		});
const colorItem = z.object({ name: str(40).default(''), hex: hex() });
const fontItem = z.object({ name: str(60), role: oneOf(FONT_ROLES).default('heading') });

const strings = () => z.array(z.string());
const uuids = () => z.array(uuid());

const audience = z.object({
	description: str(1000).optional(),
	ageRange: str(20).optional(),
	gender: str(30).optional(),
	interests: strings().optional(),
	painPoints: strings().optional(),
	market: str(60).optional(),
	language: str(20).optional(),
});
const strategy = z.object({
	objective: oneOf([
		'awareness',
		'traffic',
		'conversions',
		'app_installs',
		'leads',
	] as const).optional(),
	platform: oneOf(['adnet', 'shortclip', 'videosite', 'marketplace', 'web'] as const).optional(),
	angle: oneOf([
		'problem_solution',
		'testimonial',
		'before_after',
		'feature_demo',
		'social_proof',
		'offer',
		'story',
		'comparison',
	] as const).optional(),
	tone: str(120).optional(),
	offer: str(300).optional(),
	notes: str(1000).optional(),
});
const visual = z.object({
	styles: strings().optional(),
	aspects: strings().optional(),
	durations: z.array(int()).optional(),
	includeLogo: z.boolean().optional(),
});
const settings = z.object({
	modelId: str(80).optional(),
	params: obj().optional(),
	languages: strings().optional(),
});

const marketingBody = z.object({
	productId: uuid(),
	brandKitId: uuid().optional(),
	characterId: uuid().optional(),
	headline: str(120).default(''),
	extra: str(1000).default(''),
	aspectRatio: str(8).optional(),
	modelId: str(80).optional(),
	params: obj().default({}),
	projectId: uuid().optional(),
	idempotencyKey: str(120).optional(),
});

// ---------------------------------------------------------------------------------------------
// Helpers

const issue = (path: string, message: string, code: string): ApiError =>
	validationError([{ path, message, code }]);

/** 404 when a referenced brand kit, product or asset is not in the workspace. */
function checkRefs(
	ws: Workspace,
	s: AdsStore,
	refs: {
		brandKitId?: string;
		productId?: string;
		assetIds?: string[];
		projectId?: string;
		characterIds?: string[];
	},
): void {
	if (refs.characterIds?.length)
		influencerOf(ws).characters.requireAll([...new Set(refs.characterIds)]);
	if (refs.brandKitId) s.brands.get(refs.brandKitId);
	if (refs.productId) s.products.get(refs.productId);
	if (refs.projectId) ws.projects.get(refs.projectId);
	if (refs.assetIds?.length) ws.assets.requireAll([...new Set(refs.assetIds)]);
}

/** Copy items given by id must be this project's and of the expected kind. */
function checkCopy(
	s: AdsStore,
	ad: AdProjectRec,
	wanted: { path: string; id: string; kind: CopyKind }[],
): Map<string, CopyRec> {
	const found = new Map<string, CopyRec>();
	const missing: string[] = [];
	const issues: Issue[] = [];
	for (const w of wanted) {
		const c = s.copy.find(w.id);
		if (!c || c.adProjectId !== ad.id) {
			if (!missing.includes(w.id)) missing.push(w.id);
			continue;
		}
		if (c.kind !== w.kind)
			issues.push({
				path: w.path,
				message: `Copy item ${w.id} is a ${c.kind}, not a ${w.kind}`,
				code: 'wrong_kind',
			});
		found.set(c.id, c);
	}
	if (missing.length) {
		const e = notFound(`Copy item of ad project ${ad.id}`, missing.join(', '));
		e.details.ids = missing;
		throw e;
	}
	if (issues.length) throw validationError(issues);
	return found;
}

const DEFAULT_AD_MODEL = 'ads-video-1';
/** Above this many combinations a matrix preview is refused (the spec gives no limit). */
export const MAX_COMBINATIONS = 1000;

/** Params of an ad variant's generation: the project's settings.params plus the combination. */
function variantParams(ad: AdProjectRec, c: Partial<Combo>): Record<string, unknown> {
	const params: Record<string, unknown> = { ...(ad.settings.params ?? {}) };
	if (c.duration !== undefined && c.duration !== null) params.duration = c.duration;
	for (const k of ['aspect', 'style', 'language', 'presenter'] as const)
		if (c[k] !== undefined && c[k] !== null) params[k] = c[k];
	return params;
}

function variantInput(
	ws: Workspace,
	s: AdsStore,
	ad: AdProjectRec,
	c: Combo,
	copy: Map<string, CopyRec>,
	context: Record<string, unknown>,
): GenerationInput {
	const product = ad.productId ? s.products.find(ad.productId) : undefined;
	const inputs: GenerationInput['inputs'] = [];
	const images = (product?.imageAssetIds ?? []).filter((id) => ws.assets.find(id));
	if (images.length) inputs.push({ slot: 'product', assetIds: images });
	if (ad.sourceAssetId && ws.assets.find(ad.sourceAssetId))
		inputs.push({ slot: 'source', assetIds: [ad.sourceAssetId] });
	const text = (id: string) => copy.get(id)?.content ?? '';
	return {
		modelId: ad.settings.modelId ?? DEFAULT_AD_MODEL,
		mode: 'video',
		tool: 'ads',
		prompt: [
			`Hook: ${text(c.hook)}`,
			`Script: ${text(c.script)}`,
			`CTA: ${text(c.cta)}`,
			`Presenter: ${c.presenter}; style: ${c.style}; aspect ${c.aspect}; ${c.duration} s; language ${c.language}`,
		].join('\n'),
		params: variantParams(ad, c),
		inputs,
		title: `${ad.name} · ${c.language} · ${c.aspect} · ${c.duration}s`.slice(0, 200),
		context,
	};
}

/** One CSV cell, quoted when it needs to be. */
const csvCell = (v: unknown): string => {
	const s = v === null || v === undefined ? '' : String(v);
	return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

const slug = (s: string): string =>
	s
		.toLowerCase()
		.replace(/[^a-z0-9]+/g, '-')
		.replace(/^-+|-+$/g, '')
		.slice(0, 60) || 'ad';

async function bytesOf(stream: NodeJS.ReadableStream): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of stream) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}

function templateOf(id: string) {
	const t = MARKETING_TEMPLATES.find((x) => x.id === id);
	if (!t) throw notFound('Marketing template', id);
	return t;
}

/** The generation a marketing template run starts (also what its estimate prices). */
function marketingInput(
	ws: Workspace,
	templateId: string,
	body: z.output<typeof marketingBody>,
): GenerationInput {
	const t = templateOf(templateId);
	const s = adsOf(ws);
	checkRefs(ws, s, {
		productId: body.productId,
		brandKitId: body.brandKitId,
		projectId: body.projectId,
		characterIds: body.characterId ? [body.characterId] : [],
	});
	const product = s.products.get(body.productId);
	const brand = body.brandKitId ? s.brands.get(body.brandKitId) : undefined;
	const params: Record<string, unknown> = { ...t.params, ...body.params };
	if (body.aspectRatio) params.aspectRatio = body.aspectRatio;
	const images = product.imageAssetIds.filter((id) => ws.assets.find(id));
	return {
		modelId: body.modelId ?? t.modelId,
		mode: t.mode,
		tool: 'marketing',
		prompt: [
			`${t.name} for ${product.name}`,
			body.headline && `Headline: ${body.headline}`,
			brand && `Brand: ${brand.name}${brand.tone ? ` (${brand.tone})` : ''}`,
			body.extra,
		]
			.filter(Boolean)
			.join('\n'),
		params,
		inputs: images.length ? [{ slot: 'product', assetIds: images }] : [],
		projectId: body.projectId,
		title: `${t.name}: ${product.name}`.slice(0, 200),
		context: {
			templateId: t.id,
			productId: product.id,
			brandKitId: body.brandKitId ?? null,
			characterId: body.characterId ?? null,
		},
	};
}

// ---------------------------------------------------------------------------------------------
// Routes

const brandRoutes = [
	route({
		method: 'GET',
		path: '/brands',
		scope: 'content.read',
		query: z.object(pageQuery),
		handler: ({ ws, query }) => json(paginate(adsOf(ws).brands.all(), query, brandKitView(ws))),
	}),
	route({
		method: 'POST',
		path: '/brands',
		scope: 'content.create',
		body: z.object({
			name: str(80),
			website: str(300).default(''),
			tone: str(300).default(''),
			guidelines: str(5000).default(''),
			colors: z.array(colorItem).default([]),
			fonts: z.array(fontItem).default([]),
		}),
		handler: ({ ws, body }) => {
			const b = adsOf(ws).brands.put({ ...recBase(), ...body, assets: [] });
			return json(brandKitView(ws)(b), 201);
		},
	}),
	route({
		method: 'GET',
		path: '/brands/{id}',
		scope: 'content.read',
		handler: ({ ws, params }) => json(brandKitView(ws)(adsOf(ws).brands.get(params.id))),
	}),
	route({
		method: 'PATCH',
		path: '/brands/{id}',
		scope: 'content.create',
		body: z.object({
			name: str(80).optional(),
			website: str(300).optional(),
			tone: str(300).optional(),
			guidelines: str(5000).optional(),
			colors: z.array(colorItem).optional(),
			fonts: z.array(fontItem).optional(),
		}),
		handler: ({ ws, params, body }) => {
			const b = adsOf(ws).brands.get(params.id);
			for (const [k, v] of Object.entries(body)) if (v !== undefined) Object.assign(b, { [k]: v });
			touch(b);
			return json(brandKitView(ws)(b));
		},
	}),
	route({
		method: 'DELETE',
		path: '/brands/{id}',
		scope: 'content.delete',
		handler: ({ ws, params }) => {
			const s = adsOf(ws);
			const b = s.brands.get(params.id);
			s.brands.delete(b.id);
			for (const r of [...s.products.all(), ...s.ads.all()])
				if (r.brandKitId === b.id) {
					r.brandKitId = null;
					touch(r);
				}
			return json({ id: b.id, deleted: true });
		},
	}),
	route({
		method: 'POST',
		path: '/brands/{id}/assets',
		scope: 'content.create',
		body: z.object({
			assetId: uuid(),
			role: oneOf(ASSET_ROLES),
			remove: z.boolean().optional(),
		}),
		handler: ({ ws, params, body }) => {
			const b = adsOf(ws).brands.get(params.id);
			const same = (a: { assetId: string; role: string }) =>
				a.assetId === body.assetId && a.role === body.role;
			if (body.remove) {
				b.assets = b.assets.filter((a) => !same(a));
			} else {
				ws.assets.get(body.assetId);
				if (!b.assets.some(same)) b.assets.push({ assetId: body.assetId, role: body.role });
			}
			touch(b);
			return json(brandKitView(ws)(b));
		},
	}),
];

const productBody = {
	name: str(160),
	description: str(5000),
	category: str(80),
	features: strings(),
	benefits: strings(),
	price: str(40),
	currency: str(8),
	url: str(1000),
	brandKitId: uuid(),
	imageAssetIds: uuids(),
};

const productRoutes = [
	route({
		method: 'POST',
		path: '/products/import',
		scope: 'content.create',
		body: z.object({ url: str(2000) }),
		handler: ({ body }) => {
			let url: URL;
			try {
				url = new URL(body.url);
			} catch {
				throw issue('url', 'Expected an absolute http(s) URL', 'invalid_url');
			}
			if (url.protocol !== 'http:' && url.protocol !== 'https:')
				throw issue('url', 'Only http and https URLs can be read', 'invalid_url');
			if (isPrivateAddress(url.hostname))
				throw issue('url', 'Private network addresses are refused', 'private_address');
			if (ROBOTS_DISALLOWED.test(url.pathname))
				throw issue(
					'url',
					`robots.txt of ${url.hostname} disallows reading ${url.pathname}`,
					'robots_disallowed',
				);
			return json(draftFromUrl(url));
		},
	}),
	route({
		method: 'POST',
		path: '/products/describe',
		scope: 'content.create',
		body: z.object({ assetId: uuid() }),
		handler: ({ ws, body }) => {
			const a = ws.assets.get(body.assetId);
			if (a.kind !== 'image')
				throw issue('assetId', `Asset ${a.id} is ${a.kind}, not an image`, 'not_an_image');
			return json(draftFromPhoto(a));
		},
	}),
	route({
		method: 'GET',
		path: '/products',
		scope: 'content.read',
		query: z.object({ ...pageQuery, brandKitId: uuid().optional() }),
		handler: ({ ws, query }) => {
			const s = adsOf(ws);
			if (query.brandKitId) s.brands.get(query.brandKitId);
			const list = s.products
				.all()
				.filter((p) => !query.brandKitId || p.brandKitId === query.brandKitId);
			return json(paginate(list, query, productView(ws)));
		},
	}),
	route({
		method: 'POST',
		path: '/products',
		scope: 'content.create',
		body: z.object({
			name: productBody.name,
			description: productBody.description.default(''),
			category: productBody.category.default(''),
			features: productBody.features.default([]),
			benefits: productBody.benefits.default([]),
			price: productBody.price.default(''),
			currency: productBody.currency.default(''),
			url: productBody.url.default(''),
			brandKitId: productBody.brandKitId.optional(),
			imageAssetIds: productBody.imageAssetIds.default([]),
			source: oneOf(PRODUCT_SOURCES).optional(),
			import: obj().optional(),
		}),
		handler: ({ ws, body }) => {
			const s = adsOf(ws);
			checkRefs(ws, s, { brandKitId: body.brandKitId, assetIds: body.imageAssetIds });
			const p = s.products.put({
				...recBase(),
				...body,
				imageAssetIds: [...new Set(body.imageAssetIds)],
				brandKitId: body.brandKitId ?? null,
				source: body.source ?? 'manual',
				import: body.import ?? null,
			});
			return json(productView(ws)(p), 201);
		},
	}),
	route({
		method: 'GET',
		path: '/products/{id}',
		scope: 'content.read',
		handler: ({ ws, params }) => json(productView(ws)(adsOf(ws).products.get(params.id))),
	}),
	route({
		method: 'PATCH',
		path: '/products/{id}',
		scope: 'content.create',
		body: z.object(productBody).partial(),
		handler: ({ ws, params, body }) => {
			const s = adsOf(ws);
			const p = s.products.get(params.id);
			checkRefs(ws, s, { brandKitId: body.brandKitId, assetIds: body.imageAssetIds });
			for (const [k, v] of Object.entries(body)) if (v !== undefined) Object.assign(p, { [k]: v });
			if (body.imageAssetIds) p.imageAssetIds = [...new Set(body.imageAssetIds)];
			touch(p);
			return json(productView(ws)(p));
		},
	}),
	route({
		method: 'DELETE',
		path: '/products/{id}',
		scope: 'content.delete',
		handler: ({ ws, params }) => {
			const s = adsOf(ws);
			const p = s.products.get(params.id);
			s.products.delete(p.id);
			for (const a of s.ads.all())
				if (a.productId === p.id) {
					a.productId = null;
					touch(a);
				}
			return json({ id: p.id, deleted: true });
		},
	}),
];

const adRoutes = [
	route({
		method: 'GET',
		path: '/ads',
		scope: 'content.read',
		query: z.object(pageQuery),
		handler: ({ ws, query }) => json(paginate(adsOf(ws).ads.all(), query, adSummaryView(ws))),
	}),
	route({
		method: 'POST',
		path: '/ads',
		scope: 'content.create',
		body: z.object({
			name: str(120),
			entry: oneOf(ENTRIES).default('url'),
			productId: uuid().optional(),
			brandKitId: uuid().optional(),
			format: str(40).default('ugc'),
			sourceAssetId: uuid().optional(),
			presenter: z.object({ characterIds: uuids().default([]) }).optional(),
		}),
		handler: ({ ws, body }) => {
			const s = adsOf(ws);
			checkRefs(ws, s, {
				productId: body.productId,
				brandKitId: body.brandKitId,
				assetIds: body.sourceAssetId ? [body.sourceAssetId] : [],
				characterIds: body.presenter?.characterIds,
			});
			const a = s.ads.put({
				...recBase(),
				name: body.name,
				entry: body.entry,
				productId: body.productId ?? null,
				brandKitId: body.brandKitId ?? null,
				format: body.format,
				sourceAssetId: body.sourceAssetId ?? null,
				step: 1,
				audience: {},
				strategy: {},
				presenter: { characterIds: body.presenter?.characterIds ?? [] },
				visual: {},
				settings: {},
			});
			return json(adView(ws, a), 201);
		},
	}),
	route({
		method: 'GET',
		path: '/ads/{id}',
		scope: 'content.read',
		handler: ({ ws, params }) => json(adView(ws, adsOf(ws).ads.get(params.id))),
	}),
	route({
		method: 'PATCH',
		path: '/ads/{id}',
		scope: 'content.create',
		body: z.object({
			name: str(120).optional(),
			productId: uuid().optional(),
			brandKitId: uuid().optional(),
			format: str(40).optional(),
			step: int(1, 8).optional(),
			audience: audience.optional(),
			strategy: strategy.optional(),
			presenter: z.object({ characterIds: uuids() }).optional(),
			visual: visual.optional(),
			settings: settings.optional(),
			sourceAssetId: uuid().optional(),
		}),
		handler: ({ ws, params, body }) => {
			const s = adsOf(ws);
			const a = s.ads.get(params.id);
			checkRefs(ws, s, {
				productId: body.productId,
				brandKitId: body.brandKitId,
				assetIds: body.sourceAssetId ? [body.sourceAssetId] : [],
				characterIds: body.presenter?.characterIds,
			});
			if (body.name !== undefined) a.name = body.name;
			if (body.productId !== undefined) a.productId = body.productId;
			if (body.brandKitId !== undefined) a.brandKitId = body.brandKitId;
			if (body.format !== undefined) a.format = body.format;
			if (body.step !== undefined) a.step = body.step;
			if (body.sourceAssetId !== undefined) a.sourceAssetId = body.sourceAssetId;
			if (body.presenter) a.presenter = { characterIds: body.presenter.characterIds };
			// wizard steps: the fields given replace those saved, the others are kept
			const merge = <T extends object>(saved: T, given: T | undefined): T =>
				given
					? ({
							...saved,
							...Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)),
						} as T)
					: saved;
			a.audience = merge(a.audience, body.audience);
			a.strategy = merge(a.strategy, body.strategy);
			a.visual = merge(a.visual, body.visual);
			a.settings = merge(a.settings, body.settings);
			touch(a);
			return json(adView(ws, a));
		},
	}),
	route({
		method: 'DELETE',
		path: '/ads/{id}',
		scope: 'content.delete',
		handler: ({ ws, params }) => {
			const s = adsOf(ws);
			const a = s.ads.get(params.id);
			s.ads.delete(a.id);
			for (const c of s.copy.all()) if (c.adProjectId === a.id) s.copy.delete(c.id);
			for (const v of s.variants.all()) if (v.adProjectId === a.id) s.variants.delete(v.id);
			return json({ id: a.id, deleted: true });
		},
	}),
];

const copyRoutes = [
	route({
		method: 'PATCH',
		path: '/ads/copy/{id}',
		scope: 'content.create',
		body: z.object({
			content: str(5000).optional(),
			selected: z.boolean().optional(),
			data: obj().optional(),
		}),
		handler: ({ ws, params, body }) => {
			const c = adsOf(ws).copy.get(params.id);
			if (body.content !== undefined) c.content = body.content;
			if (body.selected !== undefined) c.selected = body.selected;
			if (body.data !== undefined) c.data = body.data;
			touch(c);
			return json(copyView(c));
		},
	}),
	route({
		method: 'DELETE',
		path: '/ads/copy/{id}',
		scope: 'content.create',
		handler: ({ ws, params }) => {
			const s = adsOf(ws);
			const c = s.copy.get(params.id);
			s.copy.delete(c.id);
			return json({ id: c.id, deleted: true });
		},
	}),
	route({
		method: 'POST',
		path: '/ads/{id}/copy/generate',
		scope: 'content.create',
		body: z.object({
			kinds: z.array(oneOf(COPY_KINDS)),
			count: int(1, 8).default(4),
			language: str(20).default('en'),
			replace: z.boolean().optional(),
		}),
		handler: ({ ws, params, body }) => {
			const s = adsOf(ws);
			const ad = s.ads.get(params.id);
			const kinds = [...new Set(body.kinds)];
			if (body.replace)
				for (const c of copyOf(s, ad.id))
					if (kinds.includes(c.kind) && c.language === body.language) s.copy.delete(c.id);
			const product = ad.productId ? s.products.find(ad.productId) : undefined;
			const made: CopyRec[] = [];
			for (const kind of kinds)
				for (let n = 0; n < body.count; n++)
					made.push(
						s.copy.put({
							...recBase(),
							adProjectId: ad.id,
							kind,
							content: writeCopy(kind, n, body.language, ad, product),
							language: body.language,
							selected: false,
							data: {},
							origin: 'ai',
						}),
					);
			touch(ad);
			return json({ data: made.map(copyView), nextCursor: null }, 201);
		},
	}),
	route({
		method: 'POST',
		path: '/ads/{id}/copy',
		scope: 'content.create',
		body: z.object({
			kind: oneOf(COPY_KINDS),
			content: str(5000),
			language: str(20).default('en'),
			data: obj().optional(),
		}),
		handler: ({ ws, params, body }) => {
			const s = adsOf(ws);
			const ad = s.ads.get(params.id);
			const c = s.copy.put({
				...recBase(),
				adProjectId: ad.id,
				kind: body.kind,
				content: body.content,
				language: body.language,
				selected: false,
				data: body.data ?? {},
				origin: 'manual',
			});
			touch(ad);
			return json(copyView(c), 201);
		},
	}),
];

/** A dimension of the matrix: the request's values, else the project's, else not varied (null). */
function dimension<T>(given: T[], saved: T[] | undefined): (T | null)[] {
	const values = given.length ? given : (saved ?? []);
	return values.length ? [...new Set(values)] : [null];
}

const matrixRoutes = [
	route({
		method: 'POST',
		path: '/ads/{id}/matrix/preview',
		scope: 'content.create',
		body: z.object({
			languages: strings().default([]),
			hooks: uuids().default([]),
			scripts: uuids().default([]),
			ctas: uuids().default([]),
			presenters: strings().default([]),
			styles: strings().default([]),
			aspects: strings().default([]),
			durations: z.array(int()).default([]),
		}),
		handler: ({ ws, params, body }) => {
			const s = adsOf(ws);
			const ad = s.ads.get(params.id);
			checkCopy(s, ad, [
				...body.hooks.map((id, i) => ({ path: `hooks.${i}`, id, kind: 'hook' as const })),
				...body.scripts.map((id, i) => ({ path: `scripts.${i}`, id, kind: 'script' as const })),
				...body.ctas.map((id, i) => ({ path: `ctas.${i}`, id, kind: 'cta' as const })),
			]);
			const copyIds = (kind: CopyKind) => {
				const all = copyOf(s, ad.id).filter((c) => c.kind === kind);
				const selected = all.filter((c) => c.selected);
				return (selected.length ? selected : all).map((c) => c.id);
			};
			const dims = {
				language: dimension(body.languages, ad.settings.languages),
				hook: dimension(body.hooks, copyIds('hook')),
				script: dimension(body.scripts, copyIds('script')),
				cta: dimension(body.ctas, copyIds('cta')),
				presenter: dimension(body.presenters, ad.presenter.characterIds),
				style: dimension(body.styles, ad.visual.styles),
				aspect: dimension(body.aspects, ad.visual.aspects),
				duration: dimension(body.durations, ad.visual.durations),
			};
			const count = Object.values(dims).reduce((n, d) => n * d.length, 1);
			if (count > MAX_COMBINATIONS)
				throw issue(
					'',
					`The matrix has ${count} combinations; at most ${MAX_COMBINATIONS} can be previewed`,
					'too_many_combinations',
				);
			type Row = { [K in keyof typeof dims]: (typeof dims)[K][number] };
			let rows: Partial<Row>[] = [{}];
			for (const [key, values] of Object.entries(dims) as [keyof Row, (string | number | null)[]][])
				rows = rows.flatMap((r) => values.map((v) => ({ ...r, [key]: v })));
			const combinations = rows.map((r) => {
				const params = variantParams(ad, {
					...r,
					duration: r.duration ?? undefined,
				} as Partial<Combo>);
				return { ...r, credits: estimate('ads', 'video', params).credits };
			});
			return json({
				combinations,
				count,
				credits: combinations.reduce((n, c) => n + c.credits, 0),
			});
		},
	}),
	route({
		method: 'POST',
		path: '/ads/{id}/matrix/run',
		scope: 'content.create',
		body: z.object({
			combos: z.array(
				z.object({
					language: str(20),
					hook: uuid(),
					script: uuid(),
					cta: uuid(),
					presenter: str(40),
					style: str(30),
					aspect: str(8),
					duration: int(),
				}),
			),
		}),
		handler: ({ app, ws, params, body }) => {
			const s = adsOf(ws);
			const ad = s.ads.get(params.id);
			const copy = checkCopy(
				s,
				ad,
				body.combos.flatMap((c, i) => [
					{ path: `combos.${i}.hook`, id: c.hook, kind: 'hook' as const },
					{ path: `combos.${i}.script`, id: c.script, kind: 'script' as const },
					{ path: `combos.${i}.cta`, id: c.cta, kind: 'cta' as const },
				]),
			);
			const batchId = newId();
			const planned = body.combos.map((combo) => {
				const variantId = newId();
				const input = variantInput(ws, s, ad, combo, copy, {
					batchId,
					adProjectId: ad.id,
					variantId,
					combo,
				});
				return { combo, variantId, input, credits: app.jobs.validate(ws, input).credits };
			});
			// one batch: all of it is affordable, or nothing starts
			const required = planned.reduce((n, p) => n + p.credits, 0);
			if (required > ws.balance)
				throw new ApiError(
					402,
					'insufficient_credits',
					`Not enough credits: ${required} required for ${planned.length} variants, ${ws.balance} available`,
					{ balance: ws.balance, required },
				);
			const records = planned.map((p) => {
				const g = app.jobs.create(ws, p.input, null);
				const v: VariantRec = {
					...recBase(),
					id: p.variantId,
					adProjectId: ad.id,
					batchId,
					generationId: g.id,
					dimensions: p.combo,
					winner: false,
				};
				s.variants.put(v);
				return generationView(g);
			});
			touch(ad);
			return json({ batchId, data: records, nextCursor: null }, 201);
		},
	}),
];

const variantRoutes = [
	route({
		method: 'GET',
		path: '/ads/{id}/variants',
		scope: 'content.read',
		query: z.object({ ...pageQuery, winners: qBool().optional() }),
		handler: ({ ws, params, query }) => {
			const s = adsOf(ws);
			const ad = s.ads.get(params.id);
			const list = s.variants
				.all()
				.filter(
					(v) =>
						v.adProjectId === ad.id && (query.winners === undefined || v.winner === query.winners),
				);
			return json(paginate(list, query, variantView(ws)));
		},
	}),
	route({
		method: 'POST',
		path: '/ads/variants/{id}/winner',
		scope: 'content.create',
		body: z.object({ winner: z.boolean() }),
		handler: ({ ws, params, body }) => {
			const v = adsOf(ws).variants.get(params.id);
			const status = ws.generations.find(v.generationId)?.status ?? 'failed';
			if (body.winner && status !== 'completed')
				throw conflict(`Variant ${v.id} is ${status}; only completed variants can win`, {
					status,
				});
			v.winner = body.winner;
			touch(v);
			return json(variantView(ws)(v));
		},
	}),
	route({
		method: 'POST',
		path: '/ads/{id}/export',
		scope: 'content.read',
		body: z.object({ variantIds: uuids() }),
		handler: async ({ app, ws, params, body }) => {
			const s = adsOf(ws);
			const ad = s.ads.get(params.id);
			const ids = [...new Set(body.variantIds)];
			const missing = ids.filter((id) => s.variants.find(id)?.adProjectId !== ad.id);
			if (missing.length) {
				const e = notFound(`Variant of ad project ${ad.id}`, missing.join(', '));
				e.details.ids = missing;
				throw e;
			}
			const variants = ids.map((id) => s.variants.get(id));
			const notReady = variants.filter((v) => {
				const g = ws.generations.find(v.generationId);
				return g?.status !== 'completed' || !g.outputs.some((o) => ws.assets.find(o.asset_id));
			});
			if (notReady.length)
				throw conflict('Only completed variants with their file can be exported', {
					variantIds: notReady.map((v) => v.id),
				});
			const text = (id: string) => s.copy.find(id)?.content ?? id;
			const rows = [
				[
					'variant_id',
					'file',
					'winner',
					'language',
					'presenter',
					'style',
					'aspect',
					'duration',
					'hook',
					'script',
					'cta',
					'credits_charged',
					'generation_id',
				],
			];
			const entries = [];
			for (const [i, v] of variants.entries()) {
				const g = ws.generations.get(v.generationId);
				const asset = ws.assets.get(g.outputs.find((o) => ws.assets.find(o.asset_id))!.asset_id);
				const ext = /\.([a-z0-9]+)$/i.exec(asset.filename)?.[1] ?? 'bin';
				const d = v.dimensions;
				const file = `creatives/${String(i + 1).padStart(2, '0')}-${slug(d.language)}-${slug(
					d.aspect,
				)}-${d.duration}s-${v.id.slice(0, 8)}.${ext}`;
				entries.push({ name: file, data: await bytesOf(app.files.open(asset.blob)) });
				rows.push([
					v.id,
					file,
					String(v.winner),
					d.language,
					d.presenter,
					d.style,
					d.aspect,
					String(d.duration),
					text(d.hook),
					text(d.script),
					text(d.cta),
					String(g.credits_charged),
					g.id,
				]);
			}
			const csv = `${rows.map((r) => r.map(csvCell).join(',')).join('\r\n')}\r\n`;
			entries.push({ name: 'copy-sheet.csv', data: Buffer.from(csv, 'utf8') });
			const zip = makeZip(entries);
			const asset = createAsset(ws, {
				filename: `${slug(ad.name)}-export.zip`,
				mimeType: 'application/zip',
				size: zip.length,
				blob: { type: 'buffer', data: zip },
				source: 'export',
				title: `${ad.name} export`.slice(0, 200),
			});
			return json(assetView(asset), 201);
		},
	}),
];

const marketingRoutes = [
	route({
		method: 'POST',
		path: '/marketing/templates/{id}/estimate',
		scope: 'content.create',
		body: marketingBody,
		handler: ({ app, ws, params, body }) =>
			json(app.jobs.validate(ws, marketingInput(ws, params.id, body))),
	}),
	route({
		method: 'POST',
		path: '/marketing/templates/{id}/run',
		scope: 'content.create',
		body: marketingBody,
		idempotent: true,
		handler: ({ app, ws, params, body, idempotencyKey }) =>
			json(
				generationView(app.jobs.create(ws, marketingInput(ws, params.id, body), idempotencyKey)),
				201,
			),
	}),
];

export const adsRoutes = [
	...brandRoutes,
	...productRoutes,
	...adRoutes,
	...copyRoutes,
	...matrixRoutes,
	...variantRoutes,
	...marketingRoutes,
];
