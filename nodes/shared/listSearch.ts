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

import type { LocatorKind } from './catalog/dsl';
import { mediaGenRequest } from './transport';

export const UUID_REGEX =
	'^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

interface LocatorSource {
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
		path: '/projects',
		searchParam: 'q',
		label: (r) => text(r.name, r.id),
		method: 'searchProjects',
	},
	collection: {
		path: '/collections',
		label: (r) => text(r.name, r.id),
		method: 'searchCollections',
	},
	asset: {
		path: '/assets',
		searchParam: 'q',
		label: (r) => `${text(r.title, r.filename, r.id)} (${text(r.kind)})`,
		method: 'searchAssets',
	},
	generation: {
		path: '/generations',
		label: (r) =>
			`${text(r.title, r.prompt, r.model_id, r.id).slice(0, 60)} · ${text(r.tool)} · ${text(r.status)}`,
		method: 'searchGenerations',
	},
	webhook: { path: '/webhooks', label: (r) => text(r.url, r.id), method: 'searchWebhooks' },
	character: {
		path: '/characters',
		searchParam: 'q',
		label: (r) => text(r.name, r.id),
		method: 'searchCharacters',
	},
	characterPreset: {
		path: '/characters/presets',
		label: (r) => text(r.name, r.id),
		method: 'searchCharacterPresets',
	},
	brandKit: { path: '/brands', label: (r) => text(r.name, r.id), method: 'searchBrandKits' },
	product: { path: '/products', label: (r) => text(r.name, r.id), method: 'searchProducts' },
	adProject: { path: '/ads', label: (r) => text(r.name, r.id), method: 'searchAdProjects' },
	edit: { path: '/edits', label: (r) => text(r.name, r.label, r.id), method: 'searchEdits' },
	effectCollection: {
		path: '/effects/collections',
		label: (r) => text(r.name, r.id),
		method: 'searchEffectCollections',
	},
	audioMix: { path: '/audio/mixes', label: (r) => text(r.name, r.id), method: 'searchAudioMixes' },
	cinemaProject: {
		path: '/cinema',
		label: (r) => text(r.name, r.id),
		method: 'searchCinemaProjects',
	},
	canvasWorkflow: {
		path: '/canvas',
		label: (r) => text(r.name, r.id),
		method: 'searchCanvasWorkflows',
	},
	scene3d: { path: '/3d/scenes', label: (r) => text(r.name, r.id), method: 'searchScenes3d' },
	agentSession: {
		path: '/agent/sessions',
		label: (r) => text(r.title, r.id),
		method: 'searchAgentSessions',
	},
};

export interface ListPage {
	data?: IDataObject[];
	nextCursor?: string | number | null;
}

/** One page of a list endpoint, tolerant of a bare array answer. */
export function pageOf(response: unknown): { records: IDataObject[]; next?: string | number } {
	if (Array.isArray(response)) return { records: response as IDataObject[] };
	const page = (response ?? {}) as ListPage;
	const next = page.nextCursor;
	return {
		records: Array.isArray(page.data) ? page.data : [],
		next: next === null || next === undefined || next === '' ? undefined : next,
	};
}

const PAGE = 50;

async function search(
	ctx: ILoadOptionsFunctions,
	kind: LocatorKind,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const source = LOCATORS[kind];
	const qs: IDataObject = { limit: PAGE };
	if (paginationToken) qs.before = paginationToken;
	if (filter && source.searchParam) qs[source.searchParam] = filter;
	const { records, next } = pageOf(
		await mediaGenRequest(ctx, { method: 'GET', path: source.path, qs }),
	);
	const needle = filter?.toLowerCase();
	const results: INodeListSearchItems[] = records
		.map((r) => ({ name: source.label(r), value: String(r.id) }))
		.filter((r) => source.searchParam || !needle || r.name.toLowerCase().includes(needle));
	return { results, paginationToken: next === undefined ? undefined : String(next) };
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
		description,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: `Select a ${kind}...`,
				typeOptions: { searchListMethod: LOCATORS[kind].method, searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. 0b6e8a4c-1f0d-4d5e-9a7b-2c3d4e5f6a7b',
				// No `validation` regex: n8n runs those through its guarded regex engine (a wall-clock
				// timeout) at the start of every execution, which fails the run on a busy machine. The
				// id is checked before any request instead (fields.ts), with the field's name.
			},
		],
	};
}
