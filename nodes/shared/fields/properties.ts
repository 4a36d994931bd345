/** A catalog field as an n8n property: its type, default, options, help and placeholder. */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import type { Field, FieldMap, ObjectField, ObjectListField } from '../catalog/dsl';
import { locatorProperty } from './listSearch';
import { describe, MODEL_ID_PLACEHOLDER } from './help';
import { displayNameOf, optionNameOf } from './names';

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
			return objectProperty(base, field);
	}
}

/** An object field: JSON on the form, a collection (object) or a fixed collection (a list). */
function objectProperty(
	base: Pick<INodeProperties, 'displayName' | 'name' | 'description' | 'placeholder'>,
	field: ObjectField | ObjectListField,
): INodeProperties {
	if (field.asJson) {
		const empty = field.kind === 'objectList' ? [] : {};
		return { ...base, type: 'json', default: JSON.stringify(field.default ?? empty, null, 2) };
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
			{ name: 'values', displayName: 'Item', values: sortedProperties(field.fields, true) },
		],
	};
}

export function sortedProperties(fields: FieldMap, markRequired: boolean): INodeProperties[] {
	return Object.entries(fields)
		.map(([key, f]) => ({
			...fieldProperty(key, f),
			...(markRequired && f.required ? { required: true } : {}),
		}))
		.sort((a, b) => a.displayName.localeCompare(b.displayName));
}
