/**
 * Field kinds -> n8n properties, validation and request assembly. Everything a catalog
 * declaration means for the UI and for the request is decided here, once.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type {
	Endpoint,
	Field,
	FieldMap,
	Group,
	JsonValue,
	LocatorKind,
	MainOperation,
} from './catalog/dsl';
import { idOrigin, locatorProperty, LOCATORS, UUID_REGEX } from './listSearch';
import { namedValuesOf, namedValuesProperties } from './namedValues';
import { toolDescription, toolDescriptionProperty } from './tool';
import { asNodeError } from './transport';

const UUID_RE = new RegExp(UUID_REGEX);

/** Page size used when the node walks a list; the service treats more than 100 as 100. */
export const PAGE_SIZE = 100;

// ---------------------------------------------------------------------------------------------
// Names

const ACRONYMS: Record<string, string> = { id: 'ID', ids: 'IDs', url: 'URL', uri: 'URI', q: 'Q' };

/** `cover_asset_id` -> "Cover Asset ID", `assetIds` -> "Asset IDs". */
export function displayNameOf(key: string, field?: Field): string {
	if (field?.displayName) return field.displayName;
	const words = key
		.replace(/([a-z0-9])([A-Z])/g, '$1 $2')
		.split(/[_\s]+/)
		.filter(Boolean);
	return words
		.map((w) => ACRONYMS[w.toLowerCase()] ?? w.charAt(0).toUpperCase() + w.slice(1))
		.join(' ');
}

/** Enum value -> option name: `primary_text` -> "Primary Text", `16:9` stays. */
export function optionNameOf(value: string): string {
	if (!/^[a-z]/i.test(value)) return value;
	return displayNameOf(value);
}

/** The n8n parameter name of a path parameter: a located `{id}` becomes `projectId`. */
export function pathParamName(key: string, field: Field): string {
	return field.kind === 'uuid' && field.locator ? `${field.locator}Id` : key;
}

/** Name of the collection holding an operation's optional fields. */
export function optionalCollectionOf(e: Endpoint): { name: string; displayName: string } {
	if (e.paginate) return { name: 'filters', displayName: 'Filters' };
	if (e.operation === 'update') return { name: 'updateFields', displayName: 'Update Fields' };
	return { name: 'additionalFields', displayName: 'Additional Fields' };
}

// ---------------------------------------------------------------------------------------------
// Properties

function limitsText(field: Field): string {
	const parts: string[] = [];
	if (field.kind === 'string' && field.max !== undefined)
		parts.push(`At most ${field.max} characters.`);
	if ((field.kind === 'integer' || field.kind === 'number') && field.min !== undefined) {
		parts.push(
			field.max !== undefined ? `From ${field.min} to ${field.max}.` : `At least ${field.min}.`,
		);
	}
	if (field.kind === 'list') {
		parts.push(
			`A list of ${field.of === 'uuid' ? 'IDs' : `${field.of}s`}: comma-separated, or an array from an expression.`,
		);
	}
	return parts.join(' ');
}

/**
 * What a Model ID is, for every `…ModelId` field. The API has no list of models (spec doc 1): the
 * ID is the one MediaGen shows for the model, or the `model_id` of an earlier job.
 */
export const MODEL_ID_HELP =
	"The model that runs the job, as MediaGen names it (e.g. flux-pro for images, vid-2 for video, voice-1 for audio). Copy it from the model picker in MediaGen's app, or reuse the model_id of an earlier generation (Generation → Get). The cost depends on the model: the Estimate operation tells it for free.";

/** A Model ID in a few words, for a model reading a tool description. */
const MODEL_ID_SHORT =
	"the model's name at MediaGen, e.g. flux-pro for images, vid-2 for video, voice-1 for audio";

/** What a Model ID looks like, in the empty field. */
export const MODEL_ID_PLACEHOLDER = 'e.g. flux-pro';

/**
 * Where the IDs of a plain ID field come from, by its display name (located fields say it
 * themselves): a locator kind, or the words.
 */
const ID_ORIGINS: Array<[RegExp, LocatorKind | string]> = [
	[/^Batch ID$/, 'The batch_id shared by generations started together (Generation → Get Many)'],
	[/Scene ID$/, 'The ID of a scene: Scene → Add, or the scenes of Cinema Project → Get'],
	[/^Shot IDs$/, 'IDs of shots: Shot → Add, or the shots of Cinema Project → Get'],
	[/^Variant IDs?$/, 'ID of an ad variant: Ad Variant → Get Many, or the outputs of Run Matrix'],
	[/^Action ID$/, 'The ID of a proposed action: the actions in Session → Get or Send Message'],
	[/^Copy ID$/, 'The ID of an ad copy entry: Ad Copy → Generate or Create'],
	[/^Delivery ID$/, 'The ID of a delivery: Webhook → Get Deliveries'],
	[/^Effect ID$/, 'The ID of an effect: the items of Effect → Get Collections'],
	[/^Format ID$/, "The ID of a content format, as MediaGen's app names it (e.g. a viral format)"],
	[/^Preset ID$/, 'characterPreset'],
	[/^Run ID$/, 'The ID of a canvas run: Run → Start or Get Many'],
	[/^Series ID$/, 'The ID of a content series: Series → Plan or Get Many'],
	[/^Series Item ID$/, 'The ID of a series item: the items of Series → Get'],
	[/^Template ID$/, "The ID of a template, as MediaGen's template gallery names it"],
	[/^Upload ID$/, 'The upload ID in the answer of Asset → Upload (a started upload)'],
	[/^ID$/, 'Your own ID for this entry, unique within its list (other entries refer to it)'],
	[/Character/, 'character'],
	[/Asset|^IDs$|^Add$|^Remove$|Style Refs/, 'asset'],
];

function idHelp(name: string): string | undefined {
	const found = ID_ORIGINS.find(([re]) => re.test(name))?.[1];
	if (!found) return undefined;
	return found in LOCATORS ? idOrigin(found as LocatorKind) : found;
}

/** A short example for JSON fields whose declaration has none. */
const JSON_EXAMPLE = 'e.g. {"key": "value"}';

function describe(field: Field, key = ''): string | undefined {
	let own = field.description;
	const name = displayNameOf(key, field);
	const isId =
		field.kind === 'uuid' ||
		(field.kind === 'list' && field.of === 'uuid') ||
		(field.kind === 'string' && /\bIDs?$/.test(name));
	if (/modelId$/i.test(key)) own = own ? `${own}. ${MODEL_ID_HELP}` : MODEL_ID_HELP;
	else if (isId && !(field.kind === 'uuid' && field.locator) && !own?.includes('→')) {
		const origin = idHelp(name);
		own = own && origin ? `${own}. ${origin}` : (own ?? origin);
	}
	const isJson =
		field.kind === 'json' ||
		((field.kind === 'object' || field.kind === 'objectList') && field.asJson);
	if (isJson && !/e\.g\.|\{/.test(own ?? '')) {
		own = own ? `${own}, ${JSON_EXAMPLE}` : `A JSON object, ${JSON_EXAMPLE}`;
	}
	const text = [own, limitsText(field)].filter(Boolean).join('. ').replace(/\.\./g, '.');
	return text || undefined;
}

function options(values: readonly string[]): INodePropertyOptions[] {
	return values.map((value) => ({ name: optionNameOf(value), value }));
}

/** The n8n property for one field. */
export function fieldProperty(
	key: string,
	field: Field,
	displayName = displayNameOf(key, field),
): INodeProperties {
	const base = {
		displayName,
		name: key,
		description: describe(field, key),
		placeholder: field.placeholder ?? (/modelId$/i.test(key) ? MODEL_ID_PLACEHOLDER : undefined),
	};
	switch (field.kind) {
		case 'string':
			return {
				...base,
				type: 'string',
				default: typeof field.default === 'string' ? field.default : '',
				typeOptions: field.rows ? { rows: field.rows } : undefined,
			};
		case 'integer':
		case 'number':
			return {
				...base,
				type: 'number',
				default: typeof field.default === 'number' ? field.default : (field.min ?? 0),
				typeOptions: {
					minValue: field.min,
					maxValue: field.max,
					numberPrecision: field.kind === 'integer' ? 0 : undefined,
				},
			};
		case 'boolean':
			return { ...base, type: 'boolean', default: field.default === true };
		case 'uuid':
			if (field.locator) return locatorProperty(key, field.locator, displayName, field.description);
			return {
				...base,
				type: 'string',
				default: '',
				placeholder: field.placeholder ?? 'e.g. 0b6e8a4c-1f0d-4d5e-9a7b-2c3d4e5f6a7b',
			};
		case 'options':
			return {
				...base,
				type: 'options',
				options: options(field.values),
				default: typeof field.default === 'string' ? field.default : field.values[0],
			};
		case 'multiOptions':
			return {
				...base,
				type: 'multiOptions',
				options: options(field.values),
				default: Array.isArray(field.default) ? (field.default as string[]) : [],
			};
		case 'list':
			return {
				...base,
				type: 'string',
				default: Array.isArray(field.default) ? field.default.join(', ') : '',
			};
		case 'json':
			return {
				...base,
				type: 'json',
				default: JSON.stringify(field.default ?? {}, null, 2),
			};
		case 'object':
		case 'objectList':
			if (field.asJson) {
				return {
					...base,
					type: 'json',
					default: JSON.stringify(
						field.default ?? (field.kind === 'objectList' ? [] : {}),
						null,
						2,
					),
				};
			}
			if (field.kind === 'object') {
				// A collection: only the fields the user adds are sent (no defaults sent unasked).
				return {
					...base,
					type: 'collection',
					placeholder: 'Add Field',
					default: {},
					options: sortedProperties(field.fields, false),
				};
			}
			return {
				...base,
				type: 'fixedCollection',
				default: {},
				typeOptions: { multipleValues: true },
				options: [
					{
						name: 'values',
						displayName: 'Item',
						values: sortedProperties(field.fields, true),
					},
				],
			};
	}
}

function sortedProperties(fields: FieldMap, markRequired: boolean): INodeProperties[] {
	return Object.entries(fields)
		.map(([key, f]) => ({
			...fieldProperty(key, f),
			...(markRequired && f.required ? { required: true } : {}),
		}))
		.sort((a, b) => a.displayName.localeCompare(b.displayName));
}

/** An endpoint's fields split by where the form puts them; derived once per endpoint. */
interface FormLayout {
	/** Fields the user types on the form itself: required ones and those marked `top`. */
	top: Array<[string, Field]>;
	/**
	 * Fields under the operation's collection: the other optional ones, plus the file name and
	 * MIME type of an upload as overrides. The file size and the idempotency key are never typed.
	 */
	optional: FieldMap;
}

const layouts = new WeakMap<Endpoint, FormLayout>();

function layoutOf(e: Endpoint): FormLayout {
	let layout = layouts.get(e);
	if (!layout) {
		layout = { top: [], optional: {} };
		for (const [k, f] of [...Object.entries(e.query), ...Object.entries(e.body)]) {
			if ((f.required || f.top) && !f.derived) layout.top.push([k, f]);
			else if (f.derived === 'fileName' || f.derived === 'mimeType') {
				layout.optional[k] = { ...f, required: false };
			} else if (!f.derived) layout.optional[k] = f;
		}
		layouts.set(e, layout);
	}
	return layout;
}

/** Every property of one operation, in form order. */
export function endpointProperties(resource: string, e: Endpoint, version = 1): INodeProperties[] {
	const show = { show: { resource: [resource], operation: [e.operation] } };
	const props: INodeProperties[] = [];
	/** What a model must fill in, for the tool description (version 2). */
	const needs: string[] = [];
	for (const [key, f] of Object.entries(e.pathParams)) {
		const p: INodeProperties = { ...fieldProperty(pathParamName(key, f), f), required: true };
		props.push(p);
		needs.push(needOf(key, f, p.displayName));
	}
	for (const [key, f] of layoutOf(e).top) {
		const p: INodeProperties = {
			...fieldProperty(key, f),
			...(f.required ? { required: true } : {}),
		};
		props.push(...(namedValuesProperties(key, f, p, version) ?? [p]));
		if (f.required) needs.push(needOf(key, f, p.displayName));
	}
	if (e.paginate) {
		props.push(
			{
				displayName: 'Return All',
				name: 'returnAll',
				type: 'boolean',
				default: false,
				description: 'Whether to return all results or only up to a given limit',
			},
			{
				displayName: 'Limit',
				name: 'limit',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 50,
				description: 'Max number of results to return',
				displayOptions: { show: { returnAll: [false] } },
			},
		);
	}
	const optional = layoutOf(e).optional;
	if (Object.keys(optional).length) {
		const { name, displayName } = optionalCollectionOf(e);
		props.push({
			displayName,
			name,
			type: 'collection',
			placeholder: e.paginate ? 'Add Filter' : 'Add Field',
			default: {},
			options: sortedProperties(optional, false),
		});
	}
	if (version >= 2 && hasLargeRecords(resource, e)) props.push(OUTPUT_PROPERTY);
	props.push(...behaviourProperties(e));
	if (version >= 2) props.push(toolDescriptionProperty(toolDescription(e, needs)));
	return props.map((p) => ({ ...p, displayOptions: mergeShow(show, p.displayOptions) }));
}

/** A required field as a tool description names it: with where its value comes from. */
function needOf(key: string, f: Field, displayName: string): string {
	if (f.kind === 'uuid' && f.locator) return `${displayName} (from ${LOCATORS[f.locator].origin})`;
	if (/modelId$/i.test(key)) return `${displayName} (${MODEL_ID_SHORT})`;
	const origin = /\bIDs?$/.test(displayName) ? idHelp(displayName) : undefined;
	return origin
		? `${displayName} (${origin.replace(/^[A-Z](?=[a-z])/, (c) => c.toLowerCase())})`
		: displayName;
}

/**
 * Records with more than ten fields, where version 2 offers Output: Simplified | Raw (n8n's UX
 * guideline for AI-facing nodes): generations (25 fields), assets, and every job's record.
 */
function hasLargeRecords(resource: string, e: Endpoint): boolean {
	if (e.binary === 'download' || e.binary === 'text' || e.binary === 'upload') return false;
	return !!e.job || resource === 'generation' || resource === 'asset';
}

const OUTPUT_PROPERTY: INodeProperties = {
	displayName: 'Output',
	name: 'output',
	type: 'options',
	default: 'simplified',
	description: 'How much of each record to return',
	options: [
		{
			name: 'Simplified',
			value: 'simplified',
			description:
				'The fields you usually need: ID, name or title, status, model, prompt, outputs, credits, error, file details and times',
		},
		{ name: 'Raw', value: 'raw', description: 'Every field MediaGen returns' },
	],
};

const binaryProperty = (displayName: string, description: string): INodeProperties => ({
	displayName,
	name: 'binaryPropertyName',
	type: 'string',
	default: 'data',
	required: true,
	description,
});

/** Properties of an operation's behaviour (jobs, binary in and out, idempotency). */
function behaviourProperties(e: Endpoint): INodeProperties[] {
	const props: INodeProperties[] = [];
	const options: INodeProperties[] = [];
	if (e.binary === 'upload') {
		props.push(
			binaryProperty(
				'Input Binary Field',
				'Name of the binary property holding the file to upload',
			),
		);
	}
	if (e.binary === 'resultAsset') {
		props.push(
			{
				displayName: 'Download File',
				name: 'downloadFile',
				type: 'boolean',
				default: true,
				description: 'Whether to download the resulting file into a binary property',
			},
			{
				...binaryProperty(
					'Put Output File in Field',
					'Name of the binary property to write the file to',
				),
				displayOptions: { show: { downloadFile: [true] } },
			},
		);
	}
	if (e.binary === 'download' || e.binary === 'text') {
		props.push(
			binaryProperty(
				'Put Output File in Field',
				'Name of the binary property to write the file to',
			),
		);
	}
	if (e.binary === 'download') {
		options.push({
			displayName: 'Include Download URL',
			name: 'includeDownloadUrl',
			type: 'boolean',
			default: false,
			description: 'Whether to put the short-lived signed download URL in the output too',
		});
	}
	const waitsOnly = e.nodeOperation?.kind === 'wait';
	/** Shown only while the node waits (a Wait operation always does). */
	const whileWaiting = (show: Record<string, string[]>) =>
		waitsOnly ? { show } : { show: { waitForCompletion: [true], ...show } };
	if (e.job && !waitsOnly) {
		props.push({
			displayName: 'Wait for Completion',
			name: 'waitForCompletion',
			type: 'boolean',
			default: true,
			description:
				'Whether to wait until the job has finished and return its outputs; otherwise return the started job at once',
		});
	}
	if (e.job) {
		props.push(
			{
				displayName: 'Return As',
				name: 'returnAs',
				type: 'options',
				default: 'json',
				...(waitsOnly ? {} : { displayOptions: whileWaiting({}) }),
				options: [
					{ name: 'JSON', value: 'json', description: 'The job record with its output asset IDs' },
					{
						name: 'Binary',
						value: 'binary',
						description: 'The output files, with a short summary',
					},
					{ name: 'Both', value: 'both', description: 'The job record and the output files' },
				],
			},
			{
				...binaryProperty(
					'Put Output Files in Field',
					'Name of the binary property for the first output; further outputs get _1, _2, …',
				),
				displayOptions: whileWaiting({ returnAs: ['binary', 'both'] }),
			},
		);
		if (e.job.estimate) {
			options.push({
				displayName: 'Max Credits',
				name: 'maxCredits',
				type: 'number',
				default: 0,
				typeOptions: { minValue: 0, numberPrecision: 0 },
				description:
					'Per item: estimate first and refuse the item, without starting or charging anything, when its cost is higher. 0 means no limit.',
			});
			options.push({
				displayName: 'Max Credits per Run',
				name: 'maxCreditsPerRun',
				type: 'number',
				default: 0,
				typeOptions: { minValue: 0, numberPrecision: 0 },
				description:
					'For all items of this run of the node together: every item is estimated before the first job starts, and nothing starts when the total is higher. 0 means no limit.',
			});
		}
		options.push({
			displayName: 'Timeout (Minutes)',
			name: 'timeoutMinutes',
			type: 'number',
			default: 10,
			typeOptions: { minValue: 1, maxValue: 1440 },
			description:
				"How long each job may run while the node waits, counted from when it leaves MediaGen's queue (time queued behind the run's own jobs does not count). The job keeps running at MediaGen after a timeout and may still be charged; for long jobs consider the MediaGen Trigger.",
		});
	}
	if (e.idempotent) {
		options.push({
			displayName: 'Idempotency Key',
			name: 'idempotencyKey',
			type: 'string',
			default: '',
			description:
				"At most 120 characters, one per item. By default a key derived from the execution, node, run and item is sent (the same in n8n's Retry of a failed execution), so that retries never start a job twice; set one to control it yourself.",
		});
	}
	if (e.paginate) {
		options.push(
			{
				displayName: 'Start Cursor',
				name: 'startCursor',
				type: 'string',
				default: '',
				description:
					'Start after this cursor (the nextCursor of an earlier page) instead of at the newest record',
			},
			{
				displayName: 'Include Next Cursor',
				name: 'includeNextCursor',
				type: 'boolean',
				default: false,
				description:
					'Whether to add nextCursor to every output item: the Start Cursor of the records after the last one returned, null at the end of the list',
			},
		);
	}
	if (options.length) {
		props.push({
			displayName: 'Options',
			name: 'options',
			type: 'collection',
			placeholder: 'Add Option',
			default: {},
			options: options.sort((a, b) => a.displayName.localeCompare(b.displayName)),
		});
	}
	return props;
}

function mergeShow(
	show: { show: Record<string, string[]> },
	own: INodeProperties['displayOptions'],
): INodeProperties['displayOptions'] {
	return { ...own, show: { ...show.show, ...(own?.show ?? {}) } };
}

/** The operations of a resource in a node version (node operations exist from their `since`). */
export function endpointsOf(g: Group, version: number): Endpoint[] {
	return g.endpoints.filter((e) => (e.nodeOperation?.since ?? 1) <= version);
}

/** Operations a form never opens on: they remove, stop or refuse something. */
const DESTRUCTIVE = /^(delete|cancel|reject|archive|remove|discard)/i;

/**
 * The operation a resource's selector opens on. Version 1 (as released): Get Many, else the first
 * declared. From version 2: the node's main operation on its main resource; on the others Create,
 * else Get Many, else Get, else the first one that is not destructive.
 */
export function defaultOperationOf(g: Group, version: number, main?: MainOperation): string {
	if (version < 2) {
		return (g.endpoints.find((e) => e.operation === 'getAll') ?? g.endpoints[0]).operation;
	}
	const endpoints = endpointsOf(g, version);
	if (main && main.resource === g.resource) return main.operation;
	const has = (op: string) => endpoints.some((e) => e.operation === op);
	const preferred = ['create', 'getAll', 'get'].find(has);
	return (
		preferred ?? (endpoints.find((e) => !DESTRUCTIVE.test(e.operation)) ?? endpoints[0]).operation
	);
}

/**
 * The resource selector, the operation selectors and every operation's properties, for one node
 * version. Version 1 opens on the first resource in alphabetical order; version 2 on `main`.
 */
export function catalogProperties(
	groups: Group[],
	version = 1,
	main?: MainOperation,
): INodeProperties[] {
	if (!groups.length) return [];
	const sorted = [...groups].sort((a, b) => a.name.localeCompare(b.name));
	const firstResource =
		version >= 2 && main && groups.some((g) => g.resource === main.resource)
			? main.resource
			: sorted[0].resource;
	const props: INodeProperties[] = [
		{
			displayName: 'Resource',
			name: 'resource',
			type: 'options',
			noDataExpression: true,
			options: sorted.map((g) => ({ name: g.name, value: g.resource })),
			default: firstResource,
		},
	];
	for (const g of sorted) {
		const ops = [...endpointsOf(g, version)].sort((a, b) => a.name.localeCompare(b.name));
		props.push({
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
			displayOptions: { show: { resource: [g.resource] } },
			options: ops.map((e) => ({
				name: e.name,
				value: e.operation,
				description: e.description,
				action: e.action,
			})),
			default: defaultOperationOf(g, version, main),
		});
	}
	for (const g of sorted) {
		for (const e of endpointsOf(g, version))
			props.push(...endpointProperties(g.resource, e, version));
	}
	return props;
}

// ---------------------------------------------------------------------------------------------
// Validation: user values -> JSON values of the right type, every limit checked

export class FieldError extends Error {}

function fail(message: string): never {
	throw new FieldError(message);
}

function show(value: unknown): string {
	const text = typeof value === 'string' ? `'${value}'` : JSON.stringify(value);
	return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function isBlank(value: unknown): boolean {
	return value === undefined || value === null || value === '';
}

function toList(value: unknown, label: string): unknown[] {
	if (Array.isArray(value)) return value;
	if (typeof value === 'string') {
		const trimmed = value.trim();
		if (trimmed.startsWith('[')) {
			try {
				const parsed: unknown = JSON.parse(trimmed);
				if (Array.isArray(parsed)) return parsed;
			} catch {
				fail(
					`${label} must be a list: a comma-separated string or a JSON array, got ${show(value)}`,
				);
			}
		}
		return trimmed
			.split(',')
			.map((s) => s.trim())
			.filter((s) => s !== '');
	}
	if (typeof value === 'number') return [value];
	return fail(`${label} must be a list, got ${show(value)}`);
}

function checkNumber(
	value: unknown,
	field: Field & { kind: 'integer' | 'number' },
	label: string,
): number {
	const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof n !== 'number' || !Number.isFinite(n))
		fail(`${label} must be a number, got ${show(value)}`);
	if (field.kind === 'integer' && !Number.isInteger(n))
		fail(`${label} must be a whole number, got ${n}`);
	if (field.min !== undefined && field.max !== undefined && (n < field.min || n > field.max)) {
		fail(`${label} must be between ${field.min} and ${field.max}, got ${n}`);
	}
	if (field.min !== undefined && n < field.min)
		fail(`${label} must be at least ${field.min}, got ${n}`);
	if (field.max !== undefined && n > field.max)
		fail(`${label} must be at most ${field.max}, got ${n}`);
	return n;
}

function checkString(value: unknown, field: Field & { kind: 'string' }, label: string): string {
	if (typeof value !== 'string' && typeof value !== 'number') {
		fail(`${label} must be text, got ${show(value)}`);
	}
	const s = String(value);
	if (field.max !== undefined && s.length > field.max) {
		fail(`${label} must be at most ${field.max} characters, got ${s.length}`);
	}
	if (field.pattern && s !== '' && !new RegExp(field.pattern.regex).test(s)) {
		fail(`${label} must look like ${field.pattern.example}, got ${show(s)}`);
	}
	if (field.format === 'uri' && s !== '') {
		try {
			new URL(s);
		} catch {
			fail(`${label} must be a URL, got ${show(s)}`);
		}
	}
	return s;
}

/** The value of a resource locator (`{ __rl: true, mode, value }`), or the value itself. */
function locatorValue(value: unknown): unknown {
	if (value && typeof value === 'object' && '__rl' in value)
		return (value as unknown as { value: unknown }).value;
	return value;
}

function checkUuid(raw: unknown, label: string): string {
	const value = locatorValue(raw);
	if (typeof value !== 'string' || !UUID_RE.test(value.trim()))
		fail(`${label} must be a UUID, got ${show(value)}`);
	return value.trim();
}

function checkBoolean(value: unknown, label: string): boolean {
	if (typeof value === 'boolean') return value;
	if (value === 'true' || value === 'false') return value === 'true';
	return fail(`${label} must be true or false, got ${show(value)}`);
}

function checkEnum(value: unknown, values: readonly string[], label: string): string {
	if (typeof value !== 'string' || !values.includes(value)) {
		fail(`${label} must be one of ${values.join(', ')}, got ${show(value)}`);
	}
	return value;
}

/**
 * Bounds of a free JSON value (the spec gives no limit): deeper or larger input is refused by
 * name before any request, instead of being sent (or overflowing a parser on the way).
 */
export const JSON_LIMITS = { maxDepth: 32, maxChars: 5_000_000 };

/** Nesting depth of a parsed JSON value, counted without recursion; stops past `limit`. */
function depthOf(value: unknown, limit: number): number {
	let deepest = 0;
	const stack: Array<[unknown, number]> = [[value, 1]];
	while (stack.length) {
		const [v, depth] = stack.pop() as [unknown, number];
		if (typeof v !== 'object' || v === null) continue;
		deepest = Math.max(deepest, depth);
		if (deepest > limit) return deepest;
		for (const child of Object.values(v)) stack.push([child, depth + 1]);
	}
	return deepest;
}

function checkJsonObject(value: unknown, label: string): { [key: string]: JsonValue } {
	let parsed = value;
	const tooLarge = (size: number) =>
		size > JSON_LIMITS.maxChars &&
		fail(`${label} must be at most ${JSON_LIMITS.maxChars} characters of JSON, got ${size}`);
	if (typeof value === 'string') {
		tooLarge(value.length);
		if (value.trim() === '') return {};
		try {
			parsed = JSON.parse(value);
		} catch (error) {
			fail(`${label} must be a JSON object: ${(error as Error).message}`);
		}
	}
	if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
		fail(`${label} must be a JSON object, got ${show(parsed)}`);
	}
	if (depthOf(parsed, JSON_LIMITS.maxDepth) > JSON_LIMITS.maxDepth)
		fail(`${label} must be nested at most ${JSON_LIMITS.maxDepth} levels deep`);
	if (typeof value !== 'string') tooLarge(JSON.stringify(parsed).length);
	return parsed as { [key: string]: JsonValue };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Values of a fixed collection (`{ values: {...} }` or `{ values: [...] }`), or a plain object. */
function collectionValues(value: unknown): unknown {
	if (value && typeof value === 'object' && !Array.isArray(value) && 'values' in value) {
		return (value as { values: unknown }).values;
	}
	return value;
}

function checkObject(
	value: unknown,
	fields: FieldMap,
	label: string,
	fill: boolean,
): { [key: string]: JsonValue } {
	const source = typeof value === 'string' ? checkJsonObject(value, label) : value;
	if (typeof source !== 'object' || source === null || Array.isArray(source)) {
		fail(`${label} must be an object, got ${show(source)}`);
	}
	return readFields(fields, source as IDataObject, (key) => `${label}.${key}`, fill);
}

/**
 * Checks one value against its field and returns it as the JSON the API expects.
 * Returns undefined for a blank optional value (nothing is sent).
 */
export function coerce(
	field: Field,
	raw: unknown,
	label: string,
	fill = false,
): JsonValue | undefined {
	const value = field.kind === 'uuid' ? locatorValue(raw) : raw;
	// A required list given but left empty on the form is an empty list.
	if (value === '' && field.required && (field.kind === 'list' || field.kind === 'multiOptions')) {
		return [];
	}
	if (isBlank(value) && field.kind !== 'string') {
		if (field.required) fail(`${label} is required`);
		return undefined;
	}
	switch (field.kind) {
		case 'string': {
			if (isBlank(value)) {
				if (field.required) fail(`${label} is required`);
				return value === '' ? '' : undefined;
			}
			return checkString(value, field, label);
		}
		case 'integer':
		case 'number':
			return checkNumber(value, field, label);
		case 'boolean':
			return checkBoolean(value, label);
		case 'uuid':
			return checkUuid(value, label);
		case 'options':
			return checkEnum(value, field.values, label);
		case 'multiOptions':
		case 'list': {
			// The spec's `*` on a list asks for the list, not for entries: [] is a valid value.
			const list = toList(value, label);
			if (field.max !== undefined && list.length > field.max) {
				fail(`${label} can have at most ${field.max} entries, got ${list.length}`);
			}
			return list.map((entry, i) => {
				const at = `${label}[${i}]`;
				if (field.kind === 'multiOptions') return checkEnum(entry, field.values, at);
				if (field.of === 'uuid') return checkUuid(entry, at);
				if (field.of === 'integer') return checkNumber(entry, { kind: 'integer' }, at);
				return checkString(entry, { kind: 'string' }, at);
			});
		}
		case 'json':
			return checkJsonObject(value, label);
		case 'object':
			return checkObject(collectionValues(value), field.fields, label, fill || !!field.asJson);
		case 'objectList': {
			const raw = collectionValues(value);
			// An empty fixed collection on the form is `{}`: no items.
			const empty = isPlainObject(raw) && Object.keys(raw).length === 0;
			const list = empty ? [] : typeof raw === 'string' ? toList(raw, label) : raw;
			if (!Array.isArray(list)) fail(`${label} must be a list of objects, got ${show(list)}`);
			// Entries whose fields the spec does not list are passed on as JSON objects.
			const open = Object.keys(field.fields).length === 0;
			return list.map((entry, i) =>
				open
					? checkJsonObject(entry, `${label}[${i}]`)
					: checkObject(entry, field.fields, `${label}[${i}]`, fill || !!field.asJson),
			);
		}
	}
}

/** Checks every field of a map against an object of values; absent optional fields are skipped. */
export function readFields(
	fields: FieldMap,
	values: IDataObject,
	labelOf: (key: string, field: Field) => string,
	fill = false,
): { [key: string]: JsonValue } {
	const out: { [key: string]: JsonValue } = {};
	for (const [key, field] of Object.entries(fields)) {
		let value: unknown = values[key];
		if (value === undefined && fill && field.default !== undefined) {
			value = JSON.parse(JSON.stringify(field.default)) as JsonValue;
		}
		const v = coerce(field, value, labelOf(key, field), fill);
		if (v !== undefined) out[key] = v;
	}
	return out;
}

// ---------------------------------------------------------------------------------------------
// Request assembly

export interface PreparedRequest {
	method: Endpoint['method'];
	/** Path with parameters filled in and encoded, relative to the base URL. */
	path: string;
	qs: IDataObject;
	body?: { [key: string]: JsonValue };
	idempotencyKey?: string;
	/** Path parameter values by placeholder name. */
	params: Record<string, string>;
}

/** A UTF-16 surrogate without its pair: text that cannot be encoded into a URL. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Node version 2 on: a request that would do nothing is refused before sending. A required
 * multi-select left empty (Webhook → Create with no events subscribes to nothing), and an Update
 * with no field added (an empty PATCH). Version 1 sends them, as released.
 */
function refuseEmpty(e: Endpoint, body: { [key: string]: JsonValue }): void {
	for (const [key, f] of Object.entries(e.body)) {
		const value = body[key];
		if (f.kind === 'multiOptions' && f.required && Array.isArray(value) && !value.length) {
			fail(`${displayNameOf(key, f)} needs at least one entry: choose one or more`);
		}
	}
	const collection = optionalCollectionOf(e);
	const optional = Object.keys(layoutOf(e).optional);
	if (collection.name === 'updateFields' && !optional.some((key) => body[key] !== undefined)) {
		fail(`Nothing to update: add at least one field under ${collection.displayName}`);
	}
}

/** Reads one item's parameters, validates them all, and assembles the request. */
export function prepareRequest(
	ctx: IExecuteFunctions,
	e: Endpoint,
	itemIndex: number,
	derivedValues: IDataObject = {},
): PreparedRequest {
	try {
		const optional = optionalCollectionOf(e);
		const collected = (
			Object.keys(layoutOf(e).optional).length
				? ctx.getNodeParameter(optional.name, itemIndex, {})
				: {}
		) as IDataObject;
		const values: IDataObject = { ...derivedValues };
		for (const [key, v] of Object.entries(collected)) {
			if (!(isBlank(v) && key in derivedValues)) values[key] = v;
		}
		for (const [key, f] of layoutOf(e).top) {
			if (key in derivedValues) continue; // e.g. a list from the input items (itemLists.ts)
			values[key] =
				namedValuesOf(ctx, key, f, itemIndex, displayNameOf(key, f)) ??
				(ctx.getNodeParameter(key, itemIndex, '') as IDataObject[string]);
		}
		const labelOf = (key: string, f: Field) => displayNameOf(key, f);

		let path = e.path;
		const params: Record<string, string> = {};
		for (const [key, f] of Object.entries(e.pathParams)) {
			const name = pathParamName(key, f);
			const raw = ctx.getNodeParameter(name, itemIndex, undefined, { extractValue: true });
			params[key] = String(
				coerce(f, typeof raw === 'string' ? raw.trim() : raw, displayNameOf(name, f)),
			);
			if (LONE_SURROGATE.test(params[key]))
				fail(`${displayNameOf(name, f)} contains a broken character (a lone UTF-16 surrogate)`);
			path = path.replace(`{${key}}`, encodeURIComponent(params[key]));
		}
		const qs = readFields(e.query, values, labelOf) as IDataObject;
		const body = readFields(e.body, values, labelOf);
		for (const [key, f] of Object.entries(e.body)) {
			if (f.kind === 'json' && f.spread && body[key] !== undefined) {
				const inner = body[key] as { [k: string]: JsonValue };
				delete body[key];
				Object.assign(body, inner);
			}
		}
		if (ctx.getNode().typeVersion >= 2) refuseEmpty(e, body);
		const hasBody = e.method !== 'GET' && e.method !== 'DELETE';
		return { method: e.method, path, qs, body: hasBody ? body : undefined, params };
	} catch (error) {
		if (error instanceof FieldError) {
			throw new NodeOperationError(ctx.getNode(), error.message, {
				itemIndex,
				description: 'Nothing was sent to MediaGen: fix the value and run again.',
			});
		}
		throw asNodeError(ctx, error, itemIndex);
	}
}
