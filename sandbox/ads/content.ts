/**
 * Deterministic stand-ins for the service's AI and scraping: product drafts from a URL or a photo,
 * ad copy from the project's product, audience and strategy, and the marketing template catalogue.
 * The same input always gives the same text, so tests can assert it.
 */
import { createHash } from 'node:crypto';
import type { AssetRec } from '../state';
import type { AdProjectRec, CopyKind, ProductRec } from './store';

const hashOf = (s: string): number => createHash('sha256').update(s).digest().readUInt32BE(0);

const titleCase = (s: string): string =>
	s
		.split(/[\s_-]+/)
		.filter(Boolean)
		.map((w) => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase())
		.join(' ');

/** Paths a simulated robots.txt disallows on every site. */
export const ROBOTS_DISALLOWED = /^\/(admin|account|cart|checkout|private)(\/|$)/i;

export interface ProductDraft {
	name: string;
	description: string;
	category: string;
	features: string[];
	benefits: string[];
	price: string;
	currency: string;
	url: string;
	imageAssetIds: string[];
	source: 'url' | 'image';
	import: Record<string, unknown>;
}

const CATEGORIES = ['Home', 'Beauty', 'Fitness', 'Outdoor', 'Kitchen', 'Tech accessories'];

/** What the service would read from a public product page. */
export function draftFromUrl(url: URL): ProductDraft {
	const h = hashOf(url.href);
	const slug =
		url.pathname
			.split('/')
			.filter(Boolean)
			.pop()
			?.replace(/\.[a-z0-9]+$/i, '') ?? '';
	const name = (titleCase(decodeURIComponent(slug)) || titleCase(url.hostname.split('.')[0])).slice(
		0,
		160,
	);
	const category = CATEGORIES[h % CATEGORIES.length];
	return {
		name,
		description: `${name} from ${url.hostname}: a ${category.toLowerCase()} product made for everyday use.`,
		category,
		features: [`${name} in three colours`, 'Lightweight build', 'Two-year warranty'],
		benefits: ['Saves time every day', 'Looks good anywhere'],
		price: `${(h % 90) + 9}.99`,
		currency: 'USD',
		url: url.href.slice(0, 1000),
		imageAssetIds: [],
		source: 'url',
		import: {
			url: url.href,
			host: url.hostname,
			robotsAllowed: true,
			fetchedAt: new Date().toISOString(),
		},
	};
}

/** What the service would describe from a product photo. */
export function draftFromPhoto(asset: AssetRec): ProductDraft {
	const h = hashOf(asset.id);
	const base = asset.title.replace(/\.[a-z0-9]+$/i, '');
	const name = (titleCase(base) || 'Product').slice(0, 160);
	const category = CATEGORIES[h % CATEGORIES.length];
	return {
		name,
		description: `${name}, as seen in the photo: a ${category.toLowerCase()} product with a clean, modern look.`,
		category,
		features: ['Compact shape', 'Matte finish'],
		benefits: ['Easy to use', 'Fits any setting'],
		price: '',
		currency: '',
		url: '',
		imageAssetIds: [asset.id],
		source: 'image',
		import: { assetId: asset.id, detectedCategory: category },
	};
}

/** One piece of copy of a kind (n-th of its batch). */
export function writeCopy(
	kind: CopyKind,
	n: number,
	language: string,
	ad: AdProjectRec,
	product: ProductRec | undefined,
): string {
	const thing = product?.name ?? ad.name;
	const benefit = product?.benefits[n % Math.max(1, product.benefits.length)] ?? 'made for you';
	const pain = ad.audience.painPoints?.[n % Math.max(1, ad.audience.painPoints.length)];
	const who = ad.audience.description || 'you';
	const offer = ad.strategy.offer;
	const lang = language === 'en' ? '' : `[${language}] `;
	const text: Record<CopyKind, string> = {
		hook: pain
			? `Tired of ${pain}? Meet ${thing}.`
			: `Stop scrolling: ${thing} is here (#${n + 1}).`,
		script: `Open on ${thing}. Show it in use for ${who}. Point out: ${benefit}. Close on the logo.`,
		primary_text: `${thing}: ${benefit}.${offer ? ` ${offer}.` : ''}`,
		headline: `${thing}, ${benefit}`.slice(0, 80),
		description: `${product?.description || `${thing} for ${who}.`}`,
		cta: ['Shop now', 'Try it today', 'Get yours', 'Learn more'][n % 4],
		caption: `${thing} ✨ ${benefit} #${thing.replace(/\W+/g, '').toLowerCase()}`,
		storyboard: `1. Hook on ${thing}. 2. Problem. 3. ${thing} solves it: ${benefit}. 4. Call to action.`,
	};
	return `${lang}${text[kind]}`.slice(0, 5000);
}

export interface MarketingTemplate {
	id: string;
	name: string;
	/** Generation mode: the output kind follows it (image or video). */
	mode: 'image' | 'video';
	modelId: string;
	/** Params the template sets; the request's params override them. */
	params: Record<string, unknown>;
}

/** The sandbox's template catalogue (the spec lists no templates). */
export const MARKETING_TEMPLATES: MarketingTemplate[] = [
	{
		id: 'product-spotlight',
		name: 'Product spotlight',
		mode: 'image',
		modelId: 'marketing-image-1',
		params: {},
	},
	{
		id: 'lifestyle-scene',
		name: 'Lifestyle scene',
		mode: 'image',
		modelId: 'marketing-image-1',
		params: { count: 2 },
	},
	{
		id: 'sale-banner',
		name: 'Sale banner',
		mode: 'image',
		modelId: 'marketing-image-1',
		params: {},
	},
	{
		id: 'ugc-testimonial',
		name: 'UGC testimonial video',
		mode: 'video',
		modelId: 'marketing-video-1',
		params: { duration: 10 },
	},
	{
		id: 'launch-teaser',
		name: 'Launch teaser video',
		mode: 'video',
		modelId: 'marketing-video-1',
		params: { duration: 6 },
	},
];
