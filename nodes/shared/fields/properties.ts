/** Catalog fields and operations as n8n properties: the form of every node version. */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import type { Endpoint, Field, FieldMap, Group, MainOperation } from '../catalog/dsl';
import { locatorProperty } from '../listSearch';
import { namedValuesProperties } from '../namedValues';
import { toolDescription, toolDescriptionProperty } from '../tool';
import { describe, MODEL_ID_PLACEHOLDER, needOf } from './help';
import {
	displayNameOf,
	endpointsOf,
	layoutOf,
	optionalCollectionOf,
	optionNameOf,
	pathParamName,
} from './names';

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
