/**
 * Searchable, paginated lists for resource locators, one per locator kind, all served by the
 * same function over the kind's list endpoint.
 */
import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
	INodeProperties,
} from 'n8n-workflow';

import type { LocatorKind } from '../catalog/dsl';
import { listPages } from '../transport/pages';

export const UUID_REGEX =
	'^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

interface LocatorSource {
	/** The record kind in words, as a user says it: "character preset". */
	noun: string;
	/** Where its ids come from, for the By ID mode's help. */
	origin: string;
	/** List endpoint path. */
	path: string;
	/** Query parameter the endpoint searches with, if it has one; otherwise filtered here. */
	searchParam?: string;
	/** The label of a record in the list. */
	label: (record: IDataObject) => string;
	method: string;
}

const text = (...values: unknown[]) =>
	String(values.find((v) => typeof v === 'string' && v !== '') ?? '');

export const LOCATORS: Record<LocatorKind, LocatorSource> = {
	project: {
		noun: 'project',
		origin: 'Project → Create or Get Many',
		path: '/projects',
		searchParam: 'q',
		label: (r) => text(r.name, r.id),
		method: 'searchProjects',
	},
	collection: {
		noun: 'collection',
		origin: 'Collection → Create or Get Many',
		path: '/collections',
		label: (r) => text(r.name, r.id),
		method: 'searchCollections',
	},
	asset: {
		noun: 'asset',
		origin: 'Asset → Get Many, or the outputs of a generation',
		path: '/assets',
		searchParam: 'q',
		label: (r) => `${text(r.title, r.filename, r.id)} (${text(r.kind)})`,
		method: 'searchAssets',
	},
	generation: {
		noun: 'generation',
		origin: 'Generation → Create or Get Many',
		path: '/generations',
		label: (r) =>
			`${text(r.title, r.prompt, r.model_id, r.id).slice(0, 60)} · ${text(r.tool)} · ${text(r.status)}`,
		method: 'searchGenerations',
	},
	webhook: {
		noun: 'webhook endpoint',
		origin: 'Webhook → Create or Get Many',
		path: '/webhooks',
		label: (r) => text(r.url, r.id),
		method: 'searchWebhooks',
	},
	character: {
		noun: 'character',
		origin: 'Character → Create or Get Many (MediaGen Influencer)',
		path: '/characters',
		searchParam: 'q',
		label: (r) => text(r.name, r.id),
		method: 'searchCharacters',
	},
	characterPreset: {
		noun: 'character preset',
		origin: 'Character Preset → Create or Get Many (MediaGen Influencer)',
		path: '/characters/presets',
		label: (r) => text(r.name, r.id),
		method: 'searchCharacterPresets',
	},
	brandKit: {
		noun: 'brand kit',
		origin: 'Brand Kit → Create or Get Many (MediaGen Ads)',
		path: '/brands',
		label: (r) => text(r.name, r.id),
		method: 'searchBrandKits',
	},
	product: {
		noun: 'product',
		origin: 'Product → Create, Import or Get Many (MediaGen Ads)',
		path: '/products',
		label: (r) => text(r.name, r.id),
		method: 'searchProducts',
	},
	adProject: {
		noun: 'ad project',
		origin: 'Ad Project → Create or Get Many (MediaGen Ads)',
		path: '/ads',
		label: (r) => text(r.name, r.id),
		method: 'searchAdProjects',
	},
	edit: {
		noun: 'edit project',
		origin: 'Edit → Create or Get Many (MediaGen Editor)',
		path: '/edits',
		label: (r) => text(r.name, r.label, r.id),
		method: 'searchEdits',
	},
	effectCollection: {
		noun: 'effect collection',
		origin: 'Effect → Create Collection or Get Collections (MediaGen Editor)',
		path: '/effects/collections',
		label: (r) => text(r.name, r.id),
		method: 'searchEffectCollections',
	},
	audioMix: {
		noun: 'audio mix',
		origin: 'Audio Mix → Create or Get Many (MediaGen Editor)',
		path: '/audio/mixes',
		label: (r) => text(r.name, r.id),
		method: 'searchAudioMixes',
	},
	cinemaProject: {
		noun: 'cinema project',
		origin: 'Cinema Project → Create or Get Many (MediaGen Cinema)',
		path: '/cinema',
		label: (r) => text(r.name, r.id),
		method: 'searchCinemaProjects',
	},
	canvasWorkflow: {
		noun: 'canvas workflow',
		origin: 'Workflow → Create or Get Many (MediaGen Canvas)',
		path: '/canvas',
		label: (r) => text(r.name, r.id),
		method: 'searchCanvasWorkflows',
	},
	scene3d: {
		noun: '3D scene',
		origin: 'Scene → Create, AI Scene or Get Many (MediaGen 3D)',
		path: '/3d/scenes',
		label: (r) => text(r.name, r.id),
		method: 'searchScenes3d',
	},
	agentSession: {
		noun: 'agent session',
		origin: 'Session → Create or Get Many (MediaGen Agent)',
		path: '/agent/sessions',
		label: (r) => text(r.title, r.id),
		method: 'searchAgentSessions',
	},
};

/** Records per page of an unfiltered list, as shown. */
const PAGE = 50;

/**
 * Searching a list whose endpoint has no search parameter: pages of 100 are read and filtered
 * here until SCAN.matches records match or SCAN.pages pages (1,000 records) were read; the list
 * then offers "more" (a pagination token) that continues the walk where it stopped.
 */
export const SCAN = { pageSize: 100, pages: 10, matches: 50 };

async function search(
	ctx: ILoadOptionsFunctions,
	kind: LocatorKind,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const source = LOCATORS[kind];
	const needle = filter?.trim().toLowerCase();
	const scan = !!needle && !source.searchParam;
	const results: INodeListSearchItems[] = [];
	let cursor: string | number | undefined = paginationToken || undefined;
	const pages = listPages(ctx, {
		path: source.path,
		qs: needle && source.searchParam ? { [source.searchParam]: filter } : {},
		pageSize: scan ? SCAN.pageSize : PAGE,
		start: cursor,
		maxPages: scan ? SCAN.pages : 1,
	});
	for await (const { records, next } of pages) {
		for (const r of records) {
			const item = { name: source.label(r), value: String(r.id) };
			if (!scan || item.name.toLowerCase().includes(needle)) results.push(item);
		}
		cursor = next;
		if (cursor === undefined || results.length >= SCAN.matches) break;
	}
	return { results, paginationToken: cursor === undefined ? undefined : String(cursor) };
}

type SearchMethod = (
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
) => Promise<INodeListSearchResult>;

/** The `listSearch` methods of a node: one per locator kind, named as in LOCATORS. */
export const listSearch: Record<string, SearchMethod> = Object.fromEntries(
	(Object.keys(LOCATORS) as LocatorKind[]).map((kind): [string, SearchMethod] => [
		LOCATORS[kind].method,
		async function (this: ILoadOptionsFunctions, filter?: string, token?: string) {
			return await search(this, kind, filter, token);
		},
	]),
);

/** "a" or "an" before a noun. */
function article(noun: string): string {
	return /^[aeiou]/i.test(noun) ? 'an' : 'a';
}

/** Where the ID of a located field comes from, in words (for field descriptions and tools). */
export function idOrigin(kind: LocatorKind): string {
	return `The ID of the ${LOCATORS[kind].noun}, from ${LOCATORS[kind].origin}`;
}

/** The resource locator property for a located UUID field. */
export function locatorProperty(
	name: string,
	kind: LocatorKind,
	displayName: string,
	description?: string,
): INodeProperties {
	return {
		displayName,
		name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		description: description ?? `The ${LOCATORS[kind].noun}: pick it from the list, or give its ID`,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: `Select ${article(LOCATORS[kind].noun)} ${LOCATORS[kind].noun}…`,
				typeOptions: { searchListMethod: LOCATORS[kind].method, searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. 0b6e8a4c-1f0d-4d5e-9a7b-2c3d4e5f6a7b',
				hint: `The ID of the ${LOCATORS[kind].noun}: the id field of ${LOCATORS[kind].origin}`,
				// No `validation` regex: n8n runs those through its guarded regex engine (a wall-clock
				// timeout) at the start of every execution, which fails the run on a busy machine. The
				// id is checked before any request instead (fields/validation.ts), with the field's name.
			},
		],
	};
}
