/**
 * The little language the output shapes are written in: JSON Schema (draft-07) as n8n's own
 * `__schema__` files use it (type, properties, items, required), nothing else. Everything an
 * output can carry is listed: a test validates real outputs against these schemas with
 * additional properties refused (test/engine/outputSchemas.test.ts), except in `free` objects.
 */

export type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array' | 'null';

export interface JsonSchema {
	type?: JsonType | JsonType[];
	properties?: Record<string, JsonSchema>;
	required?: string[];
	items?: JsonSchema;
	/** Only `true`, on an object with properties whose other keys are not known in advance. */
	additionalProperties?: true;
}

export const string: JsonSchema = { type: 'string' };
export const integer: JsonSchema = { type: 'integer' };
export const number: JsonSchema = { type: 'number' };
export const boolean: JsonSchema = { type: 'boolean' };
/** Always null (the cursor of an answer that is always one page). */
export const alwaysNull: JsonSchema = { type: 'null' };
/** An object whose contents the API leaves open (`obj` without listed fields, user JSON). */
export const free: JsonSchema = { type: 'object' };

/** The schema or null (`type: [T, 'null']`; n8n's editor shows the first type). */
export function nullable(schema: JsonSchema): JsonSchema {
	const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
	return { ...schema, type: [...types.filter((t) => t !== 'null'), 'null'] };
}

export const list = (items: JsonSchema): JsonSchema => ({ type: 'array', items });

/**
 * A record: `fields` always present, `optional` present only sometimes (e.g. a secret shown
 * once). With `open`, other keys may come too (the `data` of a trigger event).
 */
export function obj(
	fields: Record<string, JsonSchema>,
	optional: Record<string, JsonSchema> = {},
	open = false,
): JsonSchema {
	return {
		type: 'object',
		properties: { ...fields, ...optional },
		required: Object.keys(fields),
		...(open ? { additionalProperties: true } : {}),
	};
}

/** The same record with more fields: always present, and optional ones. */
export function extend(
	record: JsonSchema,
	fields: Record<string, JsonSchema>,
	optional: Record<string, JsonSchema> = {},
): JsonSchema {
	return {
		...record,
		properties: { ...record.properties, ...fields, ...optional },
		required: [...(record.required ?? []), ...Object.keys(fields)],
	};
}

/** The record without some of its fields. */
export function omit(record: JsonSchema, ...keys: string[]): JsonSchema {
	const properties = Object.fromEntries(
		Object.entries(record.properties ?? {}).filter(([k]) => !keys.includes(k)),
	);
	return {
		...record,
		properties,
		required: (record.required ?? []).filter((k) => !keys.includes(k)),
	};
}

/** A list answer: `{ data: [records], nextCursor }` (docs/api-assumptions.md, Lists). */
export function page(
	record: JsonSchema,
	extras: Record<string, JsonSchema> = {},
	cursor: JsonSchema = nullable(string),
): JsonSchema {
	return obj({ data: list(record), ...extras, nextCursor: cursor });
}

/** Whether a schema is a list answer (`data` array and `nextCursor`), as the nodes unwrap it. */
export function isPage(schema: JsonSchema): boolean {
	return schema.properties?.data?.type === 'array' && schema.properties?.nextCursor !== undefined;
}
