/**
 * MediaGen Influencer (spec doc 2: characters, presets, content series): records, stored per
 * workspace in a WeakMap (a reset makes new workspaces, so the stores go with them), their JSON
 * views, the identity prompt, the series idea writer, and the link between the generations these
 * endpoints start and the character (output assets, reference-set references, series drafts).
 */
import type { App } from '../app';
import { ApiError, conflict, notFound } from '../http';
import type { Estimate, GenerationInput } from '../jobs';
import { now, recBase, Store, touch, type GenerationRec, type Rec, type Workspace } from '../state';

export const CHARACTER_TYPES = [
	'natural',
	'distinctive',
	'extreme',
	'stylized',
	'fantasy',
] as const;
export const CATEGORIES = [
	'fashion',
	'lifestyle',
	'beauty',
	'comedy',
	'editorial',
	'technology',
	'cinematic',
	'fantasy',
	'fitness',
	'gaming',
	'other',
] as const;
export const REFERENCE_KINDS = [
	'portrait',
	'full_body',
	'angle',
	'expression',
	'sheet',
	'upload',
] as const;
export const REFERENCE_SET_KINDS = [
	'portrait',
	'full_body',
	'angle',
	'expression',
	'sheet',
] as const;
export const DESTINATIONS = [
	'photoapp_reels',
	'photoapp_feed',
	'shortclip',
	'videosite_shorts',
	'adnet_ads',
] as const;

/** Model used when a request names none and the character has no base model. */
export const DEFAULT_CHARACTER_MODEL = 'mediagen-character-v1';

export type CharacterType = (typeof CHARACTER_TYPES)[number];
export type ReferenceKind = (typeof REFERENCE_KINDS)[number];

export interface Voice {
	modelId?: string;
	voice?: string;
	language?: string;
	description?: string;
}
export interface Personality {
	traits?: string[];
	bio?: string;
	niche?: string;
}

export interface Reference {
	assetId: string;
	kind: ReferenceKind;
	label: string | null;
	primary: boolean;
	rightsConfirmed: boolean;
	/** The reference-set generation that made it, when it was made that way. */
	generationId: string | null;
	added_at: string;
}

export interface CharacterRec extends Rec {
	name: string;
	type: CharacterType;
	attributes: Record<string, unknown>;
	customPrompt: string;
	negativePrompt: string;
	baseModelId: string | null;
	seed: number | null;
	voice: Voice;
	personality: Personality;
	stylePublic: boolean;
	presetId: string | null;
	description: string | null;
	category: string | null;
	studioDraft: boolean;
	favorite: boolean;
	coverAssetId: string | null;
	identityPrompt: string;
	references: Reference[];
	duplicatedFrom: string | null;
}

export interface PresetRec extends Rec {
	name: string;
	type: CharacterType;
	attributes: Record<string, unknown>;
	starter: boolean;
}

export interface SeriesRec extends Rec {
	characterId: string;
	title: string;
	theme: string;
	audience: string;
	language: string;
	personality: string;
	tone: string;
	categories: string[];
	videoSeconds: number;
	destinations: string[];
	itemIds: string[];
	/** Ideas written so far (numbering of new ideas continues after deletions). */
	written: number;
}

export interface SeriesItemRec extends Rec {
	seriesId: string;
	characterId: string;
	number: number;
	title: string;
	format: 'image' | 'video';
	hook: string;
	scene: string;
	script: string;
	caption: string;
	hashtags: string[];
	generationId: string | null;
}

/** Starter presets: the same fixed ids in every workspace; they cannot be deleted. */
const STARTERS: Array<Pick<PresetRec, 'id' | 'name' | 'type' | 'attributes'>> = [
	{
		id: 'c0ffee00-0000-4000-8000-000000000001',
		name: 'Everyday natural',
		type: 'natural',
		attributes: { age: '25-30', skin: 'natural texture', makeup: 'minimal', lighting: 'daylight' },
	},
	{
		id: 'c0ffee00-0000-4000-8000-000000000002',
		name: 'Distinctive features',
		type: 'distinctive',
		attributes: { freckles: true, hair: 'copper curls', eyes: 'heterochromia' },
	},
	{
		id: 'c0ffee00-0000-4000-8000-000000000003',
		name: 'Extreme editorial',
		type: 'extreme',
		attributes: { hair: 'sculpted platinum', makeup: 'graphic liner', styling: 'avant-garde' },
	},
	{
		id: 'c0ffee00-0000-4000-8000-000000000004',
		name: 'Stylized 3D',
		type: 'stylized',
		attributes: { render: 'stylized 3D', proportions: 'slightly exaggerated' },
	},
	{
		id: 'c0ffee00-0000-4000-8000-000000000005',
		name: 'Fantasy elf',
		type: 'fantasy',
		attributes: { ears: 'pointed', skin: 'luminous', wardrobe: 'woodland armour' },
	},
];

export class InfluencerStore {
	readonly characters = new Store<CharacterRec>('Character');
	readonly presets = new Store<PresetRec>('Character preset');
	readonly series = new Store<SeriesRec>('Series');
	readonly items = new Store<SeriesItemRec>('Series item');
	/** Terminal generations whose effects (asset links, references) were applied. */
	readonly settled = new Set<string>();

	constructor() {
		for (const s of STARTERS) this.presets.put({ ...recBase(), ...s, starter: true });
	}
}

const stores = new WeakMap<Workspace, InfluencerStore>();

/** The workspace's store, brought up to date with the jobs that finished since the last call. */
export function storeOf(ws: Workspace): InfluencerStore {
	let s = stores.get(ws);
	if (!s) {
		s = new InfluencerStore();
		stores.set(ws, s);
	}
	sync(ws, s);
	return s;
}

// ---------------------------------------------------------------------------------------------
// Identity prompt

function attributeText(attributes: Record<string, unknown>): string {
	return Object.entries(attributes)
		.map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
		.join('; ');
}

/** The identity prompt, compiled from the character's fields (recompiled on every update). */
export function compileIdentity(c: Omit<CharacterRec, 'identityPrompt'>): string {
	const parts = [
		`${c.name}, a ${c.type}${c.category ? ` ${c.category}` : ''} character`,
		c.description ?? '',
		Object.keys(c.attributes).length ? `Attributes: ${attributeText(c.attributes)}` : '',
		c.personality.niche ? `Niche: ${c.personality.niche}` : '',
		c.personality.traits?.length ? `Traits: ${c.personality.traits.join(', ')}` : '',
		c.customPrompt,
	];
	return parts.filter((p) => p.trim() !== '').join('. ');
}

// ---------------------------------------------------------------------------------------------
// Views

/** References whose assets still exist (a deleted asset stops being a reference). */
export function liveReferences(ws: Workspace, c: CharacterRec): Reference[] {
	c.references = c.references.filter((r) => ws.assets.find(r.assetId));
	if (c.references.length && !c.references.some((r) => r.primary)) c.references[0].primary = true;
	return c.references;
}

/** Reference asset ids, the primary first. */
export function referenceIds(ws: Workspace, c: CharacterRec): string[] {
	const refs = liveReferences(ws, c);
	return [...refs.filter((r) => r.primary), ...refs.filter((r) => !r.primary)].map(
		(r) => r.assetId,
	);
}

function characterGenerations(ws: Workspace, characterId: string): GenerationRec[] {
	return ws.generations.all().filter((g) => g.context.characterId === characterId);
}

export function characterView(ws: Workspace, c: CharacterRec, full = true) {
	const refs = liveReferences(ws, c);
	const projectIds = [
		...new Set(
			characterGenerations(ws, c.id)
				.map((g) => g.project_id)
				.filter((p): p is string => !!p),
		),
	];
	const base = {
		id: c.id,
		name: c.name,
		type: c.type,
		attributes: c.attributes,
		customPrompt: c.customPrompt,
		negativePrompt: c.negativePrompt,
		baseModelId: c.baseModelId,
		seed: c.seed,
		voice: c.voice,
		personality: c.personality,
		stylePublic: c.stylePublic,
		presetId: c.presetId,
		description: c.description,
		category: c.category,
		studioDraft: c.studioDraft,
		favorite: c.favorite,
		coverAssetId: c.coverAssetId && ws.assets.find(c.coverAssetId) ? c.coverAssetId : null,
		identityPrompt: c.identityPrompt,
		referenceCount: refs.length,
		duplicatedFrom: c.duplicatedFrom,
		created_at: c.created_at,
		updated_at: c.updated_at,
	};
	if (!full) return base;
	return {
		...base,
		references: refs.map((r) => {
			const a = ws.assets.get(r.assetId);
			return { ...r, asset: { id: a.id, kind: a.kind, title: a.title } };
		}),
		projects: projectIds
			.map((id) => ws.projects.find(id))
			.filter((p) => !!p)
			.map((p) => ({ id: p.id, name: p.name, status: p.status })),
	};
}

export const presetView = (p: PresetRec) => ({
	id: p.id,
	name: p.name,
	type: p.type,
	attributes: p.attributes,
	starter: p.starter,
	created_at: p.created_at,
	updated_at: p.updated_at,
});

const ITEM_STATUS: Record<GenerationRec['status'], string> = {
	queued: 'generating',
	running: 'generating',
	completed: 'generated',
	failed: 'failed',
	cancelled: 'failed',
};

export function itemView(ws: Workspace, i: SeriesItemRec) {
	const g = i.generationId ? ws.generations.find(i.generationId) : undefined;
	return {
		id: i.id,
		seriesId: i.seriesId,
		characterId: i.characterId,
		number: i.number,
		title: i.title,
		format: i.format,
		hook: i.hook,
		scene: i.scene,
		script: i.script,
		caption: i.caption,
		hashtags: i.hashtags,
		status: g ? ITEM_STATUS[g.status] : 'idea',
		generationId: i.generationId,
		assetIds: g?.status === 'completed' ? g.outputs.map((o) => o.asset_id) : [],
		created_at: i.created_at,
		updated_at: i.updated_at,
	};
}

export function seriesView(ws: Workspace, st: InfluencerStore, s: SeriesRec) {
	const items = s.itemIds.map((id) => st.items.find(id)).filter((i) => !!i);
	return {
		id: s.id,
		characterId: s.characterId,
		title: s.title,
		theme: s.theme,
		audience: s.audience,
		language: s.language,
		personality: s.personality,
		tone: s.tone,
		categories: s.categories,
		videoSeconds: s.videoSeconds,
		destinations: s.destinations,
		itemCount: items.length,
		items: items.map((i) => itemView(ws, i)),
		created_at: s.created_at,
		updated_at: s.updated_at,
	};
}

// ---------------------------------------------------------------------------------------------
// Series ideas (the "AI language model" of the spec, simulated deterministically)

const ANGLES = [
	'Day in the life',
	'Behind the scenes',
	'Quick tip',
	'Myth vs fact',
	'Challenge',
	'Before and after',
	'Q&A',
	'Trend remix',
	'Storytime',
	'Unboxing',
	'Top 3',
	'Reaction',
];

const cut = (s: string, max: number) => (s.length > max ? s.slice(0, max) : s);
const tag = (s: string) => `#${s.replace(/[^\p{L}\p{N}]+/gu, '').toLowerCase()}`;

function formatFor(s: SeriesRec, n: number): 'image' | 'video' {
	if (!s.destinations.length) return n % 2 === 1 ? 'video' : 'image';
	return s.destinations.every((d) => d === 'photoapp_feed') ? 'image' : 'video';
}

/** Writes `count` new ideas for a series, numbered after the ones written before. */
export function writeIdeas(
	st: InfluencerStore,
	s: SeriesRec,
	c: CharacterRec,
	count: number,
): SeriesItemRec[] {
	const out: SeriesItemRec[] = [];
	for (let k = 0; k < count; k++) {
		const n = ++s.written;
		const angle = ANGLES[(n - 1) % ANGLES.length];
		const about = s.theme ? ` about ${s.theme}` : '';
		const format = formatFor(s, n);
		const voice = [s.tone, s.personality].filter(Boolean).join(', ');
		const item = st.items.put({
			...recBase(),
			seriesId: s.id,
			characterId: c.id,
			number: n,
			title: cut(`${s.title} #${n}: ${angle}`, 200),
			format,
			hook: cut(`${angle} with ${c.name}${about}${s.audience ? ` for ${s.audience}` : ''}`, 500),
			scene: cut(
				`${c.name} ${format === 'video' ? `in a ${s.videoSeconds}-second vertical clip` : 'in a single photo'}: ${angle.toLowerCase()}${about}.`,
				3000,
			),
			script: cut(
				format === 'video'
					? `0s: hook on screen. ${Math.max(1, s.videoSeconds - 2)}s: ${c.name} delivers the ${angle.toLowerCase()}${voice ? ` (${voice})` : ''}. End: call to follow.`
					: '',
				3000,
			),
			caption: cut(`${angle}${about} (${s.language})`, 2200),
			hashtags: [...s.categories, ...(c.category ? [c.category] : []), angle].map(tag),
			generationId: null,
		});
		s.itemIds.push(item.id);
		out.push(item);
	}
	touch(s);
	return out;
}

// ---------------------------------------------------------------------------------------------
// Jobs

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** Effects of a finished character job: output assets linked, reference-set outputs added. */
function settle(ws: Workspace, st: InfluencerStore, g: GenerationRec): void {
	if (st.settled.has(g.id) || !TERMINAL.has(g.status)) return;
	st.settled.add(g.id);
	if (g.status !== 'completed') return;
	const characterId = String(g.context.characterId);
	const c = st.characters.find(characterId);
	for (const o of g.outputs) {
		const a = ws.assets.find(o.asset_id);
		if (a && c && a.characterId === null) a.characterId = characterId;
	}
	if (c && g.context.purpose === 'reference') {
		for (const o of g.outputs) {
			if (!ws.assets.find(o.asset_id) || c.references.some((r) => r.assetId === o.asset_id))
				continue;
			c.references.push({
				assetId: o.asset_id,
				kind: g.context.referenceKind as ReferenceKind,
				label: null,
				primary: false,
				rightsConfirmed: true,
				generationId: g.id,
				added_at: now(),
			});
		}
		touch(c);
	}
}

function sync(ws: Workspace, st: InfluencerStore): void {
	for (const g of ws.generations.all()) {
		if (typeof g.context.characterId === 'string' && !st.settled.has(g.id)) settle(ws, st, g);
	}
}

/** Checks on a started job until it ends, so its effects show without waiting for a request. */
function watch(app: App, ws: Workspace, id: string): void {
	app.scheduler.after(50, () => {
		const g = ws.generations.find(id);
		const st = stores.get(ws);
		if (!g || !st) return;
		if (TERMINAL.has(g.status)) settle(ws, st, g);
		else watch(app, ws, id);
	});
}

/** Validates every input and prices them together; 402 when the whole batch is not affordable. */
export function estimateAll(app: App, ws: Workspace, inputs: GenerationInput[]): Estimate[] {
	const estimates = inputs.map((i) => app.jobs.validate(ws, i));
	const total = estimates.reduce((s, e) => s + e.credits, 0);
	if (total > ws.balance)
		throw new ApiError(
			402,
			'insufficient_credits',
			`Not enough credits: ${total} required, ${ws.balance} available`,
			{ balance: ws.balance, required: total },
		);
	return estimates;
}

/** Starts the jobs (all or none: validated and priced together first). */
export function startJobs(
	app: App,
	ws: Workspace,
	inputs: GenerationInput[],
	idempotencyKey: string | null,
): GenerationRec[] {
	estimateAll(app, ws, inputs);
	return inputs.map((input) => {
		const g = app.jobs.create(ws, input, idempotencyKey);
		watch(app, ws, g.id);
		return g;
	});
}

/** One estimate for several inputs: credits summed, breakdown items prefixed. */
export function combined(
	app: App,
	ws: Workspace,
	inputs: Array<{ label: string; input: GenerationInput }>,
): Estimate {
	const breakdown: Estimate['breakdown'] = [];
	let credits = 0;
	for (const { label, input } of inputs) {
		const e = app.jobs.validate(ws, input);
		credits += e.credits;
		for (const b of e.breakdown)
			breakdown.push({ item: `${label}: ${b.item}`, credits: b.credits });
	}
	return { credits, breakdown };
}

/** The look other images are made from: the primary reference, else the cover. */
export function mainLook(ws: Workspace, c: CharacterRec): string {
	const refs = referenceIds(ws, c);
	if (refs.length) return refs[0];
	if (c.coverAssetId && ws.assets.find(c.coverAssetId)) return c.coverAssetId;
	throw conflict(
		`Character ${c.id} has no main look yet: add a reference image (or generate looks and add one) first`,
		{ characterId: c.id },
	);
}

export const modelFor = (c: CharacterRec, requested?: string): string =>
	requested ?? c.baseModelId ?? DEFAULT_CHARACTER_MODEL;

/** The prompt a character job sends: the identity prompt, then the request's own text. */
export const promptFor = (c: CharacterRec, ...extra: Array<string | undefined>): string =>
	[c.identityPrompt, ...extra].filter((p) => p && p.trim() !== '').join('\n');

/** 404 for a format id that cannot exist (formats are opaque ids of at most 60 characters). */
export function checkFormatId(formatId: string): void {
	if (!/^[A-Za-z0-9_.:-]{1,60}$/.test(formatId)) throw notFound('Format', formatId);
}
