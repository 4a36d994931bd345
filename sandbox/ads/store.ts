/**
 * Records of the ads area (brand kits, products, ad projects, copy items, variants), kept per
 * workspace beside the doc 1 state: a WeakMap keyed by the Workspace object, so a reset (which
 * makes new workspaces) clears them too. Views are the response shapes of docs/api-assumptions.md.
 */
import { Store, type GenerationRec, type Rec, type Workspace } from '../state';

export const COPY_KINDS = [
	'hook',
	'script',
	'primary_text',
	'headline',
	'description',
	'cta',
	'caption',
	'storyboard',
] as const;
export type CopyKind = (typeof COPY_KINDS)[number];

export const ASSET_ROLES = ['logo', 'reference', 'guideline'] as const;
export const FONT_ROLES = ['heading', 'body', 'accent'] as const;
export const ENTRIES = [
	'url',
	'image',
	'creative',
	'script',
	'template',
	'influencer',
	'brand',
] as const;
export const PRODUCT_SOURCES = ['url', 'image', 'manual', 'creative'] as const;

export interface BrandKitRec extends Rec {
	name: string;
	website: string;
	tone: string;
	guidelines: string;
	colors: { name: string; hex: string }[];
	fonts: { name: string; role: (typeof FONT_ROLES)[number] }[];
	assets: { assetId: string; role: (typeof ASSET_ROLES)[number] }[];
}

export interface ProductRec extends Rec {
	name: string;
	description: string;
	category: string;
	features: string[];
	benefits: string[];
	price: string;
	currency: string;
	url: string;
	brandKitId: string | null;
	imageAssetIds: string[];
	source: (typeof PRODUCT_SOURCES)[number];
	import: Record<string, unknown> | null;
}

export interface Audience {
	description?: string;
	ageRange?: string;
	gender?: string;
	interests?: string[];
	painPoints?: string[];
	market?: string;
	language?: string;
}
export interface Strategy {
	objective?: string;
	platform?: string;
	angle?: string;
	tone?: string;
	offer?: string;
	notes?: string;
}
export interface Visual {
	styles?: string[];
	aspects?: string[];
	durations?: number[];
	includeLogo?: boolean;
}
export interface Settings {
	modelId?: string;
	params?: Record<string, unknown>;
	languages?: string[];
}

export interface AdProjectRec extends Rec {
	name: string;
	entry: (typeof ENTRIES)[number];
	productId: string | null;
	brandKitId: string | null;
	format: string;
	sourceAssetId: string | null;
	step: number;
	audience: Audience;
	strategy: Strategy;
	presenter: { characterIds: string[] };
	visual: Visual;
	settings: Settings;
}

export interface CopyRec extends Rec {
	adProjectId: string;
	kind: CopyKind;
	content: string;
	language: string;
	selected: boolean;
	data: Record<string, unknown>;
	origin: 'ai' | 'manual';
}

export interface Combo {
	language: string;
	hook: string;
	script: string;
	cta: string;
	presenter: string;
	style: string;
	aspect: string;
	duration: number;
}

export interface VariantRec extends Rec {
	adProjectId: string;
	batchId: string;
	generationId: string;
	dimensions: Combo;
	winner: boolean;
}

export class AdsStore {
	readonly brands = new Store<BrandKitRec>('Brand kit');
	readonly products = new Store<ProductRec>('Product');
	readonly ads = new Store<AdProjectRec>('Ad project');
	readonly copy = new Store<CopyRec>('Copy item');
	readonly variants = new Store<VariantRec>('Variant');
}

const stores = new WeakMap<Workspace, AdsStore>();

/** The ads records of a workspace. */
export function adsOf(ws: Workspace): AdsStore {
	let s = stores.get(ws);
	if (!s) {
		s = new AdsStore();
		stores.set(ws, s);
	}
	return s;
}

// ---------------------------------------------------------------------------------------------
// Views

export const brandKitView = (ws: Workspace) => (b: BrandKitRec) => ({
	id: b.id,
	name: b.name,
	website: b.website,
	tone: b.tone,
	guidelines: b.guidelines,
	colors: b.colors,
	fonts: b.fonts,
	// assets deleted from the library leave the kit
	assets: b.assets.filter((a) => ws.assets.find(a.assetId)),
	created_at: b.created_at,
	updated_at: b.updated_at,
});

export const productView = (ws: Workspace) => (p: ProductRec) => ({
	id: p.id,
	name: p.name,
	description: p.description,
	category: p.category,
	features: p.features,
	benefits: p.benefits,
	price: p.price,
	currency: p.currency,
	url: p.url,
	brandKitId: p.brandKitId,
	imageAssetIds: p.imageAssetIds.filter((id) => ws.assets.find(id)),
	source: p.source,
	import: p.import,
	created_at: p.created_at,
	updated_at: p.updated_at,
});

export const copyView = (c: CopyRec) => ({
	id: c.id,
	adProjectId: c.adProjectId,
	kind: c.kind,
	content: c.content,
	language: c.language,
	selected: c.selected,
	data: c.data,
	origin: c.origin,
	created_at: c.created_at,
	updated_at: c.updated_at,
});

/** Copy items of an ad project, oldest first (the order they were written in). */
export const copyOf = (s: AdsStore, adProjectId: string): CopyRec[] =>
	s.copy
		.all()
		.filter((c) => c.adProjectId === adProjectId)
		.sort((a, b) => a.seq - b.seq);

/** List entries: the project without its copy. */
export const adSummaryView = (ws: Workspace) => (a: AdProjectRec) => {
	const s = adsOf(ws);
	return {
		id: a.id,
		name: a.name,
		entry: a.entry,
		productId: a.productId,
		brandKitId: a.brandKitId,
		format: a.format,
		sourceAssetId: a.sourceAssetId,
		step: a.step,
		audience: a.audience,
		strategy: a.strategy,
		presenter: a.presenter,
		visual: a.visual,
		settings: a.settings,
		copyCount: s.copy.all().filter((c) => c.adProjectId === a.id).length,
		variantCount: s.variants.all().filter((v) => v.adProjectId === a.id).length,
		created_at: a.created_at,
		updated_at: a.updated_at,
	};
};

/** A single ad project: with its copy. */
export const adView = (ws: Workspace, a: AdProjectRec) => ({
	...adSummaryView(ws)(a),
	copy: copyOf(adsOf(ws), a.id).map(copyView),
});

export const variantView = (ws: Workspace) => (v: VariantRec) => {
	const g: GenerationRec | undefined = ws.generations.find(v.generationId);
	const output = g?.outputs[0];
	return {
		id: v.id,
		adProjectId: v.adProjectId,
		batchId: v.batchId,
		generationId: v.generationId,
		dimensions: v.dimensions,
		status: g?.status ?? 'failed',
		result: output ? { assetId: output.asset_id, kind: output.kind } : null,
		error: g ? g.error : { code: 'not_found', message: 'The generation is gone' },
		credits_charged: g?.credits_charged ?? 0,
		winner: v.winner,
		created_at: v.created_at,
		updated_at: v.updated_at,
	};
};
