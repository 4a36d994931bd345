/** User values checked against their catalog fields and turned into the JSON the API expects. */
import type { IDataObject } from 'n8n-workflow';

import type { Field, FieldMap, JsonValue } from '../catalog/dsl';
import { UUID_REGEX } from './listSearch';

const UUID_RE = new RegExp(UUID_REGEX);

export class FieldError extends Error {}

export function fail(message: string): never {
	throw new FieldError(message);
}

function show(value: unknown): string {
	const text = typeof value === 'string' ? `'${value}'` : JSON.stringify(value);
	return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

export function isBlank(value: unknown): boolean {
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
