/**
 * Lists as n8n items, from node version 3: a body list taken from the input items (Run Matrix:
 * all items' combinations in one request) and an answer's list as items (docs/batches.md).
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Endpoint, Group, JsonValue, ObjectListField } from '../catalog/dsl';
import { INPUT_SOURCES_VERSION } from '../catalog/versions';
import { displayNameOf, pathParamName } from '../fields/names';
import { readFields } from '../fields/validation';
import { isToolCall } from '../jobs/toolCall';

/** The parameter that says where a list comes from: `combos` → `combosSource`. */
export const sourceParameter = (key: string) => `${key}Source`;

/** The body field whose list may come from the input items, if the endpoint has one. */
function listField(e: Endpoint): [string, ObjectListField] | undefined {
	for (const [key, f] of Object.entries(e.body)) {
		if (f.kind === 'objectList' && f.fromItems) return [key, f];
	}
	return undefined;
}

// ---------------------------------------------------------------------------------------------
// Properties

/** The source selector, then the list's own (JSON) property, shown only for Source: JSON. */
function sourceProperties(p: INodeProperties): INodeProperties[] {
	const name = sourceParameter(p.name);
	const show = p.displayOptions?.show ?? {};
	const displayName = `Source for ${p.displayName}`;
	return [
		{
			displayName,
			name,
			type: 'options',
			noDataExpression: true,
			default: 'items',
			options: [
				{
					name: 'Input Items',
					value: 'items',
					description:
						'Each input item is one entry (for example the items of Preview Matrix, kept or dropped by a Filter or Limit node); all of them are sent in one request',
				},
				{
					name: 'JSON',
					value: 'json',
					description: 'A JSON array typed below or built by an expression',
				},
			],
			displayOptions: { show: { ...show, '@tool': [false] } },
		},
		// a tool call has no input items to give: its list is the JSON field, which a model fills
		{
			displayName,
			name,
			type: 'hidden',
			default: 'json',
			displayOptions: { show: { ...show, '@tool': [true] } },
		},
		{ ...p, displayOptions: { ...p.displayOptions, show: { ...show, [name]: ['json'] } } },
	];
}

/**
 * A node version's properties with the source selector before each list that may come from the
 * input items (version 3 on); earlier versions' properties are returned as they are.
 */
export function withListSources(
	props: INodeProperties[],
	groups: Group[],
	version: number,
): INodeProperties[] {
	if (version < INPUT_SOURCES_VERSION) return props;
	return props.flatMap((p) => {
		const show = p.displayOptions?.show;
		const fromItems = groups.some((g) =>
			g.endpoints.some(
				(e) =>
					listField(e)?.[0] === p.name &&
					show?.resource?.includes(g.resource) &&
					show?.operation?.includes(e.operation),
			),
		);
		return fromItems ? sourceProperties(p) : [p];
	});
}

// ---------------------------------------------------------------------------------------------
// Prepare: every item's entry, checked

/** What the prepare step found: the list to send and where each entry came from. */
export interface ItemList<T> {
	/** The plan of the one request (the first valid item's parameters, the list filled in). */
	plan?: T & { items: number[] };
	/** Items whose entry or parameters are invalid, with the error naming item and field. */
	invalid: Map<number, Error>;
}

function itemError(ctx: IExecuteFunctions, i: number, message: string, hint: string): Error {
	return new NodeOperationError(ctx.getNode(), `Item ${i + 1}: ${message}`, {
		itemIndex: i,
		description: hint,
	});
}

/** The path parameters an item names, by display name (e.g. Ad Project ID). */
function pathValues(ctx: IExecuteFunctions, e: Endpoint, i: number): Record<string, string> {
	const values: Record<string, string> = {};
	for (const [key, f] of Object.entries(e.pathParams)) {
		const name = pathParamName(key, f);
		const value = ctx.getNodeParameter(name, i, '', { extractValue: true }) as unknown;
		values[displayNameOf(name, f)] = String(value ?? '').trim();
	}
	return values;
}

/**
 * When this node run takes its list from the input items (version 3, Source: Input Items): checks
 * every item's entry and path parameters, then prepares the one request with `prepare` (the
 * run's own prepare step, run/execute.ts, given the list as the field's value). Undefined
 * otherwise: the run prepares one request per item as usual.
 */
export async function listFromItems<T>(
	ctx: IExecuteFunctions,
	e: Endpoint,
	prepare: (itemIndex: number, values: IDataObject) => Promise<T>,
): Promise<ItemList<T> | undefined> {
	const found = listField(e);
	if (!found || ctx.getNode().typeVersion < INPUT_SOURCES_VERSION || isToolCall(ctx))
		return undefined;
	const [key, field] = found;
	if (ctx.getNodeParameter(sourceParameter(key), 0, 'json') !== 'items') return undefined;
	const source = `Source for ${field.displayName ?? key}: Input Items`;
	const hint = `With ${source}, each input item is one entry with the fields ${Object.keys(field.fields).join(', ')} (for example an item of Preview Matrix).`;
	const invalid = new Map<number, Error>();
	const entries: JsonValue[] = [];
	const items: number[] = [];
	/** The path parameters of the first valid item: one request, so every item must name them. */
	let first: { i: number; values: Record<string, string> } | undefined;
	for (const [i, item] of ctx.getInputData().entries()) {
		let entry: JsonValue;
		try {
			entry = readFields(field.fields, item.json, (k) => k, true);
		} catch (error) {
			invalid.set(i, itemError(ctx, i, (error as Error).message, hint));
			continue;
		}
		const values = pathValues(ctx, e, i);
		const other = first && Object.keys(values).find((n) => values[n] !== first!.values[n]);
		if (first && other) {
			const message = `${other} is '${values[other]}', item ${first.i + 1}'s is '${first.values[other]}'`;
			const why = `With ${source}, all the items go into one request: they must name the same ${other}.`;
			invalid.set(i, itemError(ctx, i, message, why));
			continue;
		}
		first ??= { i, values };
		entries.push(entry);
		items.push(i);
	}
	if (!items.length) return { invalid };
	try {
		const plan = await prepare(items[0], { [key]: entries });
		return { plan: { ...plan, items }, invalid };
	} catch (error) {
		// the one request's own parameters are invalid: no item is sent
		const { message, description } = error as Error & { description?: string };
		for (const i of items) invalid.set(i, itemError(ctx, i, message, description ?? hint));
		return { invalid };
	}
}

// ---------------------------------------------------------------------------------------------
// Outputs

/** Version 3 on: the answer's list under the endpoint's `answerList` key, one item per entry. */
export function answerList(
	ctx: IExecuteFunctions,
	e: Endpoint,
	answer: unknown,
): IDataObject[] | undefined {
	if (!e.answerList || ctx.getNode().typeVersion < INPUT_SOURCES_VERSION) return undefined;
	const list = (answer as IDataObject | undefined)?.[e.answerList];
	return Array.isArray(list) ? (list as IDataObject[]) : undefined;
}
