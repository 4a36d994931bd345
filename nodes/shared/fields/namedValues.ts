/**
 * A flat JSON object typed as name/value pairs on the form, from node version 3 (Character Preset
 * → Create's Attributes: Using Fields Below or Using JSON), then checked as the JSON would be.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Field } from '../catalog/dsl';
import { INPUT_SOURCES_VERSION } from '../catalog/versions';

const sourceOf = (key: string) => `${key}Source`;
const pairsOf = (key: string) => `${key}Fields`;

const hasPairs = (f: Field) => f.kind === 'json' && f.namedValues === true;

/**
 * The properties of a field that may be typed as pairs (version 3 on): the choice, the pairs, and
 * the field's own JSON property for Using JSON. Undefined for any other field or version.
 */
export function namedValuesProperties(
	key: string,
	f: Field,
	p: INodeProperties,
	version: number,
): INodeProperties[] | undefined {
	if (!hasPairs(f) || version < INPUT_SOURCES_VERSION) return undefined;
	const show = p.displayOptions?.show ?? {};
	const one = p.displayName.replace(/s$/, '');
	return [
		{
			displayName: `Specify ${p.displayName}`,
			name: sourceOf(key),
			type: 'options',
			noDataExpression: true,
			default: 'fields',
			options: [
				{ name: 'Using Fields Below', value: 'fields', description: 'A name and a value each' },
				{ name: 'Using JSON', value: 'json', description: 'One JSON object' },
			],
			displayOptions: { show },
		},
		{
			displayName: p.displayName,
			name: pairsOf(key),
			type: 'fixedCollection',
			typeOptions: { multipleValues: true },
			placeholder: `Add ${one}`,
			default: {},
			description: `Each ${one.toLowerCase()} as a name and a value, e.g. hair: copper curls`,
			options: [
				{
					name: 'values',
					displayName: one,
					values: [
						{
							displayName: 'Name',
							name: 'name',
							type: 'string',
							default: '',
							placeholder: 'e.g. hair',
						},
						{
							displayName: 'Value',
							name: 'value',
							type: 'string',
							default: '',
							placeholder: 'e.g. copper curls',
						},
					],
				},
			],
			displayOptions: { show: { ...show, [sourceOf(key)]: ['fields'] } },
		},
		{ ...p, displayOptions: { ...p.displayOptions, show: { ...show, [sourceOf(key)]: ['json'] } } },
	];
}

/**
 * The object an item's pairs make (version 3, Using Fields Below), or undefined when the field
 * is read as JSON. A pair without a name, or a name given twice, is refused by its position.
 */
export function namedValuesOf(
	ctx: IExecuteFunctions,
	key: string,
	f: Field,
	itemIndex: number,
	label: string,
): IDataObject | undefined {
	if (!hasPairs(f) || ctx.getNode().typeVersion < INPUT_SOURCES_VERSION) return undefined;
	if (ctx.getNodeParameter(sourceOf(key), itemIndex, 'json') !== 'fields') return undefined;
	const pairs = ctx.getNodeParameter(`${pairsOf(key)}.values`, itemIndex, []) as Array<{
		name?: unknown;
		value?: unknown;
	}>;
	const out = new Map<string, unknown>();
	const refuse = (message: string) =>
		new NodeOperationError(ctx.getNode(), `${label}: ${message}`, { itemIndex });
	for (const [n, pair] of pairs.entries()) {
		const name = typeof pair.name === 'string' ? pair.name.trim() : String(pair.name ?? '');
		if (!name) throw refuse(`entry ${n + 1} has no name`);
		if (out.has(name)) throw refuse(`the name '${name}' is given twice`);
		out.set(name, pair.value ?? '');
	}
	return Object.fromEntries(out) as IDataObject;
}
