/**
 * Extracts the endpoint catalogue from the Markdown API contract (spec/N-*.md, the three documents
 * as the project was given them) and writes spec/endpoints.json.
 *
 *   npx tsx scripts/extract-spec.ts           from spec/*.md
 *   npx tsx scripts/extract-spec.ts <folder>  copies a new version of the documents from <folder>
 *                                             into spec/ first
 *
 * Output: { source: string[], count: number, endpoints: Endpoint[] } (types below), endpoints in
 * document and line order, descriptor keys in a fixed order, object fields in spec order, so the
 * output is byte-for-byte deterministic.
 *
 * Conventions of the output (where the spec notation needed a choice):
 * - `body: { "$any": { "type": "obj" } }` (key ANY_BODY_KEY) marks a body the spec gives only as
 *   "Body: obj." — an arbitrary JSON object whose contents are not shown. `body: {}` means no body
 *   ("no body", or none given).
 * - `≤N` on a string is `max`; `≤N` on an integer (only POST /uploads `size`) is `maxValue`, because
 *   the spec gives no lower bound and `range` would have to invent one.
 * - `[a..b]` is `range: [a, b]` (inclusive).
 * - `true|false` is `type: "boolean"`; `numeric` is `type: "number"`.
 * - Parenthesised remarks and trailing prose on a field that carry no notation (e.g. "(the current
 *   version)", "restricted to four values, which are not shown") are kept in `note`.
 * - `scope: null` where the spec says "Scope: not shown" (GET /workspace).
 * - `summary` is the descriptive prose after the colon (field lists, Body/Query/Path/header clauses and
 *   cross-reference phrases removed), sentences kept with their final period; it may be empty.
 * - A field written without a type but with `≤N` is a string; a bare field name (`preset`,
 *   `colors; fonts (same shapes)`, `events (same enumeration)`, `features`, ...) is resolved to a named
 *   value set of the document ("Preset values", "Aspect ratio values") or else to the same-named field
 *   of the nearest earlier endpoint of the same section, without its `required` flag and default.
 *
 * Cross-references that the prose names but does not tie to an endpoint are in IMPLICIT_BODY_REFS.
 * Everything else is parsed from the notation; any line of an endpoint section that is not
 * understood, and any difference between the endpoints parsed and those the documents write
 * (writtenEndpoints, read from the text alone), is a fatal error (exit code 1).
 */
/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, no-console --
 * build-time CLI script (never part of dist/): it reads and writes files and reports on the console. */
import * as fs from 'fs';
import * as path from 'path';

// ---------------------------------------------------------------------------------------------------
// Output types

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type FieldType =
	| 'string'
	| 'integer'
	| 'number'
	| 'boolean'
	| 'uuid'
	| 'enum'
	| 'obj'
	| 'array';
export type JsonValue =
	| null
	| boolean
	| number
	| string
	| JsonValue[]
	| { [key: string]: JsonValue };

export interface FieldDescriptor {
	type: FieldType;
	format?: 'uri';
	required?: true;
	/** Maximum string length. */
	max?: number;
	/** Maximum numeric value where no lower bound is given. */
	maxValue?: number;
	/** Inclusive numeric range. */
	range?: [number, number];
	values?: string[];
	default?: JsonValue;
	items?: FieldDescriptor;
	fields?: FieldMap;
	note?: string;
}
export type FieldMap = { [name: string]: FieldDescriptor };

export interface Endpoint {
	doc: number;
	section: string;
	method: HttpMethod;
	path: string;
	scope: string | null;
	summary: string;
	pathParams: string[];
	query: FieldMap;
	body: FieldMap;
	header?: FieldMap;
}

export interface SpecFile {
	source: string[];
	count: number;
	endpoints: Endpoint[];
}

/** Body key marking "Body: obj." (any JSON object, contents not shown). */
export const ANY_BODY_KEY = '$any';

/** One spec document: its file name, its number (`2-….md`: 2) and its lines. */
export interface SpecDocument {
	file: string;
	doc: number;
	lines: string[];
}

/** A `- METHOD /path` line of the documents: an endpoint, whatever the rest of the line says. */
const WRITTEN_LINE = /^- (GET|POST|PUT|PATCH|DELETE) (\/[^\s:(.]*)/;
/** A body table's heading naming the one endpoint it defines: `… body (METHOD /path, scope):`. */
const WRITTEN_HEADING = /\((GET|POST|PUT|PATCH|DELETE) (\/\S+), [a-z]+\.[a-z]+\):$/;

/**
 * The endpoints the documents write ("METHOD /path"), by document, read from the text alone and
 * independently of the parser below, which must give exactly these: every `- METHOD /path` line
 * and every body table heading that names one endpoint (document 2 defines POST /characters only
 * through "Character create body (POST /characters, content.create):").
 * Nothing here is a typed count: the documents are the source.
 */
export function writtenEndpoints(docs: SpecDocument[]): Map<number, string[]> {
	const written = new Map<number, string[]>();
	for (const { doc, lines } of docs) {
		const keys: string[] = [];
		for (const line of lines) {
			const m = WRITTEN_LINE.exec(line) ?? WRITTEN_HEADING.exec(line);
			if (m && !keys.includes(`${m[1]} ${m[2]}`)) keys.push(`${m[1]} ${m[2]}`);
		}
		written.set(doc, keys);
	}
	return written;
}

/**
 * Body references the prose makes without naming the endpoint (or the variant) in the endpoint line.
 * - "Character generation body: ..." is a list item after POST /characters/{id}/generate; the estimate
 *   ("cost and conditioning of a generation with this character") takes it, and generate says "Same
 *   body as the estimate."
 * - "Shot fields (add and edit): ... On edit all fields are optional and have no defaults.": the add
 *   line says "add a shot (shot fields above)", the edit line only "edit a shot."
 */
const IMPLICIT_BODY_REFS: Readonly<Record<string, { name: string; variant?: string }>> = {
	'POST /characters/{id}/estimate': { name: 'Character generation body' },
	'POST /cinema/scenes/{id}/shots': { name: 'Shot fields', variant: 'add' },
	'PATCH /cinema/shots/{id}': { name: 'Shot fields', variant: 'edit' },
};

/** Phrases in table rules that point at a value set defined elsewhere in the documents. */
const VALUE_SET_PHRASES: Readonly<Record<string, string>> = {
	'tool values above': 'Generation tool',
};

// ---------------------------------------------------------------------------------------------------
// Errors

export class SpecError extends Error {}

function fail(where: string, message: string): never {
	throw new SpecError(`${where}: ${message}`);
}

// ---------------------------------------------------------------------------------------------------
// Small text utilities

const OPEN = '([{';
const CLOSE = ')]}';

/** Splits at `sep` where the bracket depth is 0. */
function splitTop(text: string, sep: string): string[] {
	const parts: string[] = [];
	let depth = 0;
	let start = 0;
	for (let i = 0; i < text.length; i++) {
		const c = text[i];
		if (OPEN.includes(c)) depth++;
		else if (CLOSE.includes(c)) depth--;
		else if (depth === 0 && text.startsWith(sep, i)) {
			parts.push(text.slice(start, i));
			start = i + sep.length;
			i += sep.length - 1;
		}
	}
	parts.push(text.slice(start));
	return parts.map((p) => p.trim()).filter((p) => p.length > 0);
}

/** Splits prose into sentences at a top-level period followed by whitespace or the end. */
function splitSentences(text: string): string[] {
	const out: string[] = [];
	let depth = 0;
	let start = 0;
	for (let i = 0; i < text.length; i++) {
		const c = text[i];
		if (OPEN.includes(c)) depth++;
		else if (CLOSE.includes(c)) depth--;
		else if (c === '.' && depth === 0 && (i + 1 === text.length || /\s/.test(text[i + 1]))) {
			out.push(text.slice(start, i).trim());
			start = i + 1;
		}
	}
	const tail = text.slice(start).trim();
	if (tail) out.push(tail);
	return out.filter((s) => s.length > 0);
}

/** Returns the index just after the bracket matching text[open]. */
function matchBracket(text: string, open: number, where: string): number {
	let depth = 0;
	for (let i = open; i < text.length; i++) {
		if (OPEN.includes(text[i])) depth++;
		else if (CLOSE.includes(text[i])) {
			depth--;
			if (depth === 0) return i + 1;
		}
	}
	return fail(where, `unbalanced bracket in "${text}"`);
}

function camelCase(words: string): string {
	return words
		.trim()
		.split(/\s+/)
		.map((w, i) => (i === 0 ? w.toLowerCase() : w[0].toUpperCase() + w.slice(1).toLowerCase()))
		.join('');
}

function clone<T extends JsonValue | FieldDescriptor | FieldMap>(value: T): T {
	return JSON.parse(JSON.stringify(value)) as T;
}

/** Parses the JavaScript-like literals used for defaults: {a:1, b:'x', c:[], d:{...}}. */
function parseLiteral(text: string, where: string): JsonValue {
	let pos = 0;
	const skip = (): void => {
		while (pos < text.length && /\s/.test(text[pos])) pos++;
	};
	const value = (): JsonValue => {
		skip();
		const c = text[pos];
		if (c === '{') {
			pos++;
			const obj: { [key: string]: JsonValue } = {};
			skip();
			if (text[pos] === '}') {
				pos++;
				return obj;
			}
			for (;;) {
				skip();
				const key = /^[A-Za-z_$][\w$]*/.exec(text.slice(pos));
				if (!key) fail(where, `bad object key in literal "${text}"`);
				pos += key[0].length;
				skip();
				if (text[pos] !== ':') fail(where, `expected ':' in literal "${text}"`);
				pos++;
				obj[key[0]] = value();
				skip();
				if (text[pos] === ',') {
					pos++;
					continue;
				}
				if (text[pos] === '}') {
					pos++;
					return obj;
				}
				fail(where, `expected ',' or '}' in literal "${text}"`);
			}
		}
		if (c === '[') {
			pos++;
			const arr: JsonValue[] = [];
			skip();
			if (text[pos] === ']') {
				pos++;
				return arr;
			}
			for (;;) {
				arr.push(value());
				skip();
				if (text[pos] === ',') {
					pos++;
					continue;
				}
				if (text[pos] === ']') {
					pos++;
					return arr;
				}
				fail(where, `expected ',' or ']' in literal "${text}"`);
			}
		}
		if (c === "'") {
			const end = text.indexOf("'", pos + 1);
			if (end < 0) fail(where, `unterminated string in literal "${text}"`);
			const s = text.slice(pos + 1, end);
			pos = end + 1;
			return s;
		}
		const word = /^(?:true|false|null|-?\d+(?:\.\d+)?)/.exec(text.slice(pos));
		if (!word) fail(where, `unexpected "${text.slice(pos)}" in literal "${text}"`);
		pos += word[0].length;
		return JSON.parse(word[0]) as JsonValue;
	};
	const result = value();
	skip();
	if (pos !== text.length) fail(where, `trailing text in literal "${text}"`);
	return result;
}

// ---------------------------------------------------------------------------------------------------
// Field notation parser

type RawDefault =
	| { kind: 'token'; text: string; onlyFor?: string }
	| { kind: 'literal'; value: JsonValue }
	| { kind: 'above' };

interface Modifiers {
	required: boolean;
	lte?: number;
	range?: [number, number];
	dflt?: RawDefault;
	eachText?: string;
	fieldsText?: string;
	withText?: string;
	arraySuffix: boolean;
	sameRef: boolean;
	notes: string[];
}

interface FieldContext {
	where: string;
	/** Variant of a named field set ("add" / "edit"); conditional defaults "(=v on add)" use it. */
	variant?: string;
	/** Resolves a field written without a type; only available for top-level body fields. */
	resolve?: (name: string) => FieldDescriptor;
	/** Default object of the enclosing field, for "obj with the default above". */
	parentDefault?: JsonValue;
}

interface Registry {
	valueSets: Map<string, { values: string[]; key: string }>;
	objects: Map<string, FieldDescriptor>;
}

const TYPE_START =
	/^(?:string\(uri\)|(?:string|integer|number|numeric|boolean|uuid|obj)(?![\w(])|array\*? of |\([^()]*\|[^()]*\)\[\]|[a-z]+ (?:object|item)\b|[^\s|]+\|)/;
const NAMES = '[A-Za-z_][\\w-]*(?:, [A-Za-z_][\\w-]*)*';
const TYPED_CLAUSE = new RegExp(`^(${NAMES}): (.+)$`);
const PREFIXED_TYPED_CLAUSE = new RegExp(`^((?:[a-z]+ )+)(${NAMES}): (.+)$`);
const UNTYPED_CLAUSE = new RegExp(`^(${NAMES})(\\*)?(?: (.*))?$`);

function isTypedClause(clause: string): boolean {
	const m = TYPED_CLAUSE.exec(clause) ?? PREFIXED_TYPED_CLAUSE.exec(clause);
	if (!m) return false;
	return TYPE_START.test(m[m.length - 1]);
}

/** A clause that is a field beyond doubt: typed, or untyped with ≤N or =v. */
function isStrongFieldClause(clause: string): boolean {
	if (/^(?:header|Path) /.test(clause)) return false;
	if (isTypedClause(clause)) return true;
	const m = UNTYPED_CLAUSE.exec(clause);
	return !!m && !!m[3] && /^(?:≤|=)/.test(m[3]);
}

function enumOrBoolean(values: string[]): FieldDescriptor {
	if (values.length === 2 && values[0] === 'true' && values[1] === 'false')
		return { type: 'boolean' };
	return { type: 'enum', values };
}

/** Splits `a|b|c*` into values; a final `*` glued to a value means "required", a lone `*` is a value. */
function splitEnum(text: string): { values: string[]; required: boolean } {
	const values = text.split('|');
	let required = false;
	const last = values[values.length - 1];
	if (last.length > 1 && last.endsWith('*')) {
		values[values.length - 1] = last.slice(0, -1);
		required = true;
	}
	return { values, required };
}

class FieldParser {
	constructor(private readonly registry: Registry) {}

	/** Parses `a: T; b ≤N; ...` (separator `;`, or `,` inside a "with" list). */
	parseList(text: string, ctx: FieldContext, separator = ';'): FieldMap {
		const out: FieldMap = {};
		for (const clause of splitTop(text, separator)) this.parseClauseInto(clause, ctx, out);
		return out;
	}

	parseClauseInto(clause: string, ctx: FieldContext, out: FieldMap): void {
		const parentDefault = ctx.parentDefault;
		const typed = TYPED_CLAUSE.exec(clause);
		let names: string[];
		let desc: FieldDescriptor;
		if (typed && TYPE_START.test(typed[2])) {
			names = typed[1].split(', ');
			desc = this.parseTyped(typed[2], ctx, names, parentDefault);
		} else {
			const untyped = UNTYPED_CLAUSE.exec(clause);
			if (!untyped) fail(ctx.where, `cannot parse field "${clause}"`);
			names = untyped[1].split(', ');
			const mods = this.parseModifiers(untyped[3] ?? '', ctx);
			if (untyped[2]) mods.required = true;
			let base: FieldDescriptor;
			if (mods.lte !== undefined) {
				base = { type: 'string' };
			} else {
				if (!ctx.resolve)
					fail(ctx.where, `field "${clause}" has no type and cannot be resolved here`);
				if (names.length !== 1)
					fail(ctx.where, `cannot resolve several names at once: "${clause}"`);
				base = stripTop(ctx.resolve(names[0]));
			}
			desc = this.applyModifiers(base, mods, ctx, names, parentDefault);
		}
		for (const name of names) {
			if (name in out) fail(ctx.where, `duplicate field "${name}"`);
			out[name] = clone(desc);
		}
	}

	private parseTyped(
		spec: string,
		ctx: FieldContext,
		names: string[],
		parentDefault: JsonValue | undefined,
	): FieldDescriptor {
		let s = spec;
		let base: FieldDescriptor;
		let required = false;
		let m: RegExpExecArray | null;
		if ((m = /^array(\*)? of ([^\s]+)/.exec(s))) {
			const e = splitEnum(m[2]);
			if (e.values.length < 2) fail(ctx.where, `"array of" needs an enumeration: "${spec}"`);
			required = !!m[1] || e.required;
			base = { type: 'array', items: enumOrBoolean(e.values) };
		} else if ((m = /^\(([^()]+)\)\[\](\*)?/.exec(s))) {
			const e = splitEnum(m[1]);
			required = !!m[2];
			base = { type: 'array', items: enumOrBoolean(e.values) };
		} else if ((m = /^string\(uri\)(\*)?/.exec(s))) {
			required = !!m[1];
			base = { type: 'string', format: 'uri' };
		} else if (
			(m = /^(string|integer|number|numeric|boolean|uuid|obj)(\[\])?(\*)?(?![\w(])/.exec(s))
		) {
			const t: FieldType = m[1] === 'numeric' ? 'number' : (m[1] as FieldType);
			required = !!m[3];
			base = m[2] ? { type: 'array', items: { type: t } } : { type: t };
		} else if ((m = /^([a-z]+ (?:object|item))(\[\])?(\*)?/.exec(s))) {
			const obj = this.registry.objects.get(m[1]);
			if (!obj) fail(ctx.where, `unknown named object "${m[1]}"`);
			required = !!m[3];
			base = m[2] ? { type: 'array', items: clone(obj) } : clone(obj);
		} else if ((m = /^[^\s]*\|[^\s]*/.exec(s))) {
			const e = splitEnum(m[0]);
			required = e.required;
			base = enumOrBoolean(e.values);
		} else {
			return fail(ctx.where, `unknown type in "${spec}"`);
		}
		s = s.slice(m[0].length);
		if (s.startsWith('*')) {
			required = true;
			s = s.slice(1);
		}
		const mods = this.parseModifiers(s, ctx);
		if (required) mods.required = true;
		return this.applyModifiers(base, mods, ctx, names, parentDefault);
	}

	private parseModifiers(text: string, ctx: FieldContext): Modifiers {
		const mods: Modifiers = { required: false, arraySuffix: false, sameRef: false, notes: [] };
		let s = text;
		let m: RegExpExecArray | null;
		for (;;) {
			s = s.replace(/^\s+/, '');
			if (!s) break;
			if ((m = /^≤(\d+)/.exec(s))) {
				mods.lte = Number(m[1]);
			} else if ((m = /^\[(-?\d+(?:\.\d+)?)\.\.(-?\d+(?:\.\d+)?)\]/.exec(s))) {
				mods.range = [Number(m[1]), Number(m[2])];
			} else if ((m = /^\[\]/.exec(s))) {
				mods.arraySuffix = true;
			} else if (s.startsWith('=')) {
				let end: number;
				if (s[1] === "'") {
					end = s.indexOf("'", 2) + 1;
					if (end === 0) fail(ctx.where, `unterminated default in "${text}"`);
				} else if (s[1] === '[' || s[1] === '{') {
					end = matchBracket(s, 1, ctx.where);
				} else {
					end = /^=\S+/.exec(s)![0].length;
				}
				mods.dflt = { kind: 'token', text: s.slice(1, end) };
				s = s.slice(end);
				continue;
			} else if (s.startsWith('(')) {
				const end = matchBracket(s, 0, ctx.where);
				const inner = s.slice(1, end - 1).trim();
				let d: RegExpExecArray | null;
				if (inner === 'required') mods.required = true;
				else if (/^same (?:enumeration|shapes)$/.test(inner)) mods.sameRef = true;
				else if ((d = /^=(.+?)(?: on (\w+))?$/.exec(inner)))
					mods.dflt = { kind: 'token', text: d[1], onlyFor: d[2] };
				else mods.notes.push(inner);
				s = s.slice(end);
				continue;
			} else if ((m = /^each \{/.exec(s))) {
				const end = matchBracket(s, m[0].length - 1, ctx.where);
				mods.eachText = s.slice(m[0].length, end - 1);
				s = s.slice(end);
				continue;
			} else if (s.startsWith('{')) {
				const end = matchBracket(s, 0, ctx.where);
				mods.fieldsText = s.slice(1, end - 1);
				s = s.slice(end);
				continue;
			} else if ((m = /^,? ?default \{/.exec(s))) {
				const end = matchBracket(s, m[0].length - 1, ctx.where);
				mods.dflt = {
					kind: 'literal',
					value: parseLiteral(s.slice(m[0].length - 1, end), ctx.where),
				};
				s = s.slice(end);
				continue;
			} else if ((m = /^with the default above$/.exec(s))) {
				mods.dflt = { kind: 'above' };
			} else if ((m = /^with (.+)$/.exec(s))) {
				mods.withText = m[1];
			} else if ((m = /^,? ?([a-z][a-z ,]*)$/.exec(s))) {
				// Trailing prose without notation ("turns the public share link on or off").
				mods.notes.push(m[1].trim());
			} else {
				fail(ctx.where, `cannot parse "${s}" in "${text}"`);
			}
			s = s.slice(m[0].length);
		}
		return mods;
	}

	private applyModifiers(
		base: FieldDescriptor,
		mods: Modifiers,
		ctx: FieldContext,
		names: string[],
		parentDefault: JsonValue | undefined,
	): FieldDescriptor {
		let desc = base;
		const where = `${ctx.where} (field ${names.join(', ')})`;
		if (mods.arraySuffix) {
			if (desc.type !== 'enum') fail(where, `"[]" after a non-enumeration`);
			desc = { type: 'array', items: desc };
		}
		if (mods.required) desc.required = true;
		if (mods.lte !== undefined) {
			if (desc.type === 'string') desc.max = mods.lte;
			else if (desc.type === 'integer' || desc.type === 'number') desc.maxValue = mods.lte;
			else fail(where, `≤ on type ${desc.type}`);
		}
		if (mods.range) {
			if (desc.type !== 'integer' && desc.type !== 'number')
				fail(where, `range on type ${desc.type}`);
			desc.range = mods.range;
		}
		if (mods.eachText !== undefined) {
			if (desc.type !== 'array' || desc.items?.type !== 'obj') fail(where, `"each" needs obj[]`);
			desc.items.fields = this.parseList(mods.eachText, { where });
		}
		if (mods.fieldsText !== undefined) {
			if (desc.type !== 'obj') fail(where, `"{...}" fields need obj`);
			desc.fields = this.parseList(mods.fieldsText, { where });
		}
		if (mods.dflt) {
			const value = this.convertDefault(mods.dflt, desc, where, ctx, names, parentDefault);
			if (value !== undefined) desc.default = value;
		}
		if (mods.withText !== undefined) {
			if (desc.type !== 'obj') fail(where, `"with" fields need obj`);
			desc.fields = this.parseList(mods.withText, { where, parentDefault: desc.default }, ',');
		}
		if (mods.notes.length) desc.note = mods.notes.join('; ');
		return desc;
	}

	private convertDefault(
		raw: RawDefault,
		desc: FieldDescriptor,
		where: string,
		ctx: FieldContext,
		names: string[],
		parentDefault: JsonValue | undefined,
	): JsonValue | undefined {
		let value: JsonValue;
		if (raw.kind === 'above') {
			if (names.length !== 1 || !isPlainObject(parentDefault) || !(names[0] in parentDefault))
				fail(where, `"with the default above" without an enclosing default for ${names[0]}`);
			value = clone(parentDefault[names[0]]);
		} else if (raw.kind === 'literal') {
			value = raw.value;
		} else {
			if (raw.onlyFor !== undefined && raw.onlyFor !== ctx.variant) return undefined;
			const t = raw.text;
			if (t === 'empty' || t === 'empty object' || t === 'empty array') {
				if (desc.type === 'obj' && t !== 'empty array') value = {};
				else if (desc.type === 'array' && t !== 'empty object') value = [];
				else return fail(where, `default "${t}" on type ${desc.type}`);
			} else if (t.startsWith("'")) {
				value = t.slice(1, -1);
			} else if (/^(?:null|true|false|\[.*\]|\{.*\})$/.test(t)) {
				value = parseLiteral(t, where);
			} else if (desc.type === 'integer' || desc.type === 'number') {
				if (!/^-?\d+(?:\.\d+)?$/.test(t)) fail(where, `bad numeric default "${t}"`);
				value = Number(t);
			} else if (desc.type === 'enum' || desc.type === 'string') {
				value = t;
			} else {
				return fail(where, `bad default "${t}" for type ${desc.type}`);
			}
		}
		checkDefault(value, desc, where);
		return value;
	}
}

function isPlainObject(v: JsonValue | undefined): v is { [key: string]: JsonValue } {
	return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function checkDefault(value: JsonValue, desc: FieldDescriptor, where: string): void {
	if (value === null) return;
	const ok = ((): boolean => {
		switch (desc.type) {
			case 'string':
			case 'uuid':
				return typeof value === 'string';
			case 'enum':
				return typeof value === 'string' && (desc.values ?? []).includes(value);
			case 'integer':
				return typeof value === 'number' && Number.isInteger(value);
			case 'number':
				return typeof value === 'number';
			case 'boolean':
				return typeof value === 'boolean';
			case 'obj':
				return isPlainObject(value);
			case 'array':
				return Array.isArray(value);
		}
	})();
	if (!ok) fail(where, `default ${JSON.stringify(value)} does not fit type ${desc.type}`);
	if (desc.range && typeof value === 'number' && (value < desc.range[0] || value > desc.range[1]))
		fail(where, `default ${value} outside range`);
	if (desc.max !== undefined && typeof value === 'string' && value.length > desc.max)
		fail(where, `default longer than max`);
}

/** Drops the field's own `required` flag and default (nested shapes are kept). */
function stripTop(desc: FieldDescriptor): FieldDescriptor {
	const copy = clone(desc);
	delete copy.required;
	delete copy.default;
	return copy;
}

/** Fixed key order for descriptors. */
function normalize(desc: FieldDescriptor): FieldDescriptor {
	const out: FieldDescriptor = { type: desc.type };
	if (desc.format !== undefined) out.format = desc.format;
	if (desc.required) out.required = true;
	if (desc.max !== undefined) out.max = desc.max;
	if (desc.maxValue !== undefined) out.maxValue = desc.maxValue;
	if (desc.range !== undefined) out.range = desc.range;
	if (desc.values !== undefined) out.values = desc.values;
	if (desc.default !== undefined) out.default = desc.default;
	if (desc.items !== undefined) out.items = normalize(desc.items);
	if (desc.fields !== undefined) out.fields = normalizeMap(desc.fields);
	if (desc.note !== undefined) out.note = desc.note;
	return out;
}

function normalizeMap(map: FieldMap): FieldMap {
	const out: FieldMap = {};
	for (const [k, v] of Object.entries(map)) out[k] = normalize(v);
	return out;
}

// ---------------------------------------------------------------------------------------------------
// Document parser

interface Section {
	doc: number;
	name: string;
	scope?: string;
}

interface NamedBody {
	name: string;
	section: Section;
	where: string;
	clauses: string[];
	/** "Character create body (POST /characters, ...)" / "(used by A and B)". */
	usedBy?: string[];
	/** "Body shared by estimate and run": endpoints of the section whose last path segment matches. */
	lastSegments?: string[];
	/** "Shot fields (add and edit)": variants; `strip` variants are optional and without defaults. */
	variants?: { names: string[]; strip: string[] };
}

interface RawEndpoint {
	section: Section;
	where: string;
	method: HttpMethod;
	path: string;
	scope: string | null | undefined;
	summary: string[];
	pathParams: string[];
	query: FieldMap;
	header: FieldMap;
	bodyClauses: { clause: string; where: string }[];
	anyBody: boolean;
	noBody: boolean;
	sameAsPrevious: boolean;
	sameAsCreate?: { except: string[]; strip: boolean };
	fieldSetRefs: string[];
}

const ENDPOINT_LINE =
	/^- (GET|POST|PUT|PATCH|DELETE) (\/[A-Za-z0-9_{}/-]*)(?: \(([a-z]+\.[a-z]+)\))?(?:: (.*)|\.)$/;

class SpecParser {
	readonly registry: Registry = { valueSets: new Map(), objects: new Map() };
	readonly fields = new FieldParser(this.registry);
	readonly endpoints: RawEndpoint[] = [];
	readonly namedBodies = new Map<string, NamedBody>();

	/** Value sets ("X values: a|b|c.") may be used across sections and documents: collect them first. */
	collectValueSets(file: string, lines: string[]): void {
		lines.forEach((line, i) => {
			const m = /^([A-Z][\w ]*?) values(?: \([^)]*\))?: (\S+)\.$/.exec(line);
			if (!m) return;
			if (this.registry.valueSets.has(m[1]))
				fail(`${file}:${i + 1}`, `value set "${m[1]}" defined twice`);
			this.registry.valueSets.set(m[1], { values: m[2].split('|'), key: camelCase(m[1]) });
		});
	}

	parseDocument(file: string, doc: number, lines: string[]): void {
		let inEndpoints = false;
		let section: Section | undefined;
		for (let i = 0; i < lines.length; i++) {
			const line = lines[i];
			const where = `${file}:${i + 1}`;
			if (line.startsWith('## ')) {
				inEndpoints = line === '## Endpoints';
				section = undefined;
				continue;
			}
			if (!inEndpoints) {
				if (/^- (GET|POST|PUT|PATCH|DELETE) \//.test(line))
					fail(where, 'endpoint outside "## Endpoints"');
				continue;
			}
			if (line.startsWith('### ')) {
				const m = /^### (.+?)(?: \((?:scope )?([a-z]+\.[a-z]+)(?: for all)?\))?$/.exec(line);
				if (!m) fail(where, `cannot parse section heading "${line}"`);
				section = { doc, name: m[1], scope: m[2] };
				continue;
			}
			if (!section || line.trim() === '' || line === 'Endpoints:') continue;
			if (line.startsWith('- ') && /^- (GET|POST|PUT|PATCH|DELETE) /.test(line)) {
				this.parseEndpointLine(line, section, where);
				continue;
			}
			i = this.parseDefinition(lines, i, section, file);
		}
	}

	/** Parses a non-endpoint line of an endpoint section; returns the index of its last line. */
	private parseDefinition(lines: string[], i: number, section: Section, file: string): number {
		const line = lines[i];
		const where = `${file}:${i + 1}`;
		let m: RegExpExecArray | null;

		// Value sets were collected beforehand.
		if (/^[A-Z][\w ]*? values(?: \([^)]*\))?: \S+\.$/.test(line)) return i;

		// "Timeline object (used by ...):" followed by "- field: spec." lines.
		if ((m = /^([A-Z][a-z]*(?: [a-z]+)*) object \(used by .+\):$/.exec(line))) {
			const name = `${m[1].toLowerCase()} object`;
			const fieldsOut: FieldMap = {};
			let j = i + 1;
			for (; j < lines.length && lines[j].startsWith('- '); j++) {
				const text = lines[j].slice(2).replace(/\.$/, '');
				const w = `${file}:${j + 1}`;
				const clauses = splitTop(text, ';');
				const one: FieldMap = {};
				this.fields.parseClauseInto(clauses[0], { where: w }, one);
				const [fieldName] = Object.keys(one);
				const desc = one[fieldName];
				if (clauses.length > 1) {
					if (desc.type !== 'obj') fail(w, 'sub-fields on a non-object');
					const subText = clauses
						.slice(1)
						.join('; ')
						.replace(/^fields /, '');
					desc.fields = this.fields.parseList(subText, { where: w, parentDefault: desc.default });
				}
				fieldsOut[fieldName] = desc;
			}
			if (j === i + 1) fail(where, `object "${name}" has no fields`);
			this.defineObject(name, { type: 'obj', fields: fieldsOut }, where);
			return j - 1;
		}

		// "<Name> body (METHOD /path, scope):" or "<Name> body (used by A and B):" followed by a table.
		if ((m = /^([A-Z][a-z]*(?: [a-z]+)* body) \((.+)\):$/.exec(line))) {
			const { rows, last } = this.readTable(lines, i + 1, file);
			const clauses = rows.map((r) => this.tableRowToClause(r.cells, r.where));
			const name = m[1];
			const target = m[2];
			let usedBy: string[];
			const ep = /^(GET|POST|PUT|PATCH|DELETE) (\/\S+), ([a-z]+\.[a-z]+)$/.exec(target);
			const used = /^used by (.+)$/.exec(target);
			if (ep) {
				this.endpoints.push(this.newEndpoint(section, where, ep[1] as HttpMethod, ep[2], ep[3]));
				usedBy = [`${ep[1]} ${ep[2]}`];
			} else if (used) {
				usedBy = used[1].split(/, | and /).map((s) => s.trim());
				for (const u of usedBy)
					if (!/^(GET|POST|PUT|PATCH|DELETE) \/\S+$/.test(u)) fail(where, `bad endpoint "${u}"`);
			} else {
				return fail(where, `cannot parse body table heading "${line}"`);
			}
			this.defineBody({ name, section, where, clauses, usedBy });
			return last;
		}

		// "- Character generation body: fields."
		if ((m = /^- ([A-Z][a-z]*(?: [a-z]+)* body): (.+)\.$/.exec(line))) {
			this.defineBody({ name: m[1], section, where, clauses: splitTop(m[2], ';') });
			return i;
		}

		// "Body shared by estimate and run: fields."
		if ((m = /^Body shared by (\w+) and (\w+): (.+)\.$/.exec(line))) {
			this.defineBody({
				name: `Body shared by ${m[1]} and ${m[2]}`,
				section,
				where,
				clauses: splitTop(m[3], ';'),
				lastSegments: [m[1], m[2]],
			});
			return i;
		}

		// "Shot fields (add and edit): fields. On edit all fields are optional and have no defaults."
		if ((m = /^([A-Z][a-z]*(?: [a-z]+)* fields) \((\w+(?: and \w+)*)\): (.+)$/.exec(line))) {
			const [fieldText, ...rest] = splitSentences(m[3]);
			const strip: string[] = [];
			for (const sentence of rest) {
				const s = /^On (\w+) all fields are optional and have no defaults$/.exec(sentence);
				if (!s) fail(where, `cannot parse "${sentence}"`);
				strip.push(s[1]);
			}
			const names = m[2].split(' and ');
			for (const s of strip) if (!names.includes(s)) fail(where, `unknown variant "${s}"`);
			this.defineBody({
				name: m[1],
				section,
				where,
				clauses: splitTop(fieldText, ';'),
				variants: { names, strip },
			});
			return i;
		}

		// "Color item: {fields}. Font item: {fields}." / "Scene object: fields."
		const sentences = splitSentences(line);
		for (const sentence of sentences) {
			const o = /^([A-Z][a-z]*(?: [a-z]+)* (?:item|object)): (.+)$/.exec(sentence);
			if (!o) fail(where, `cannot parse line "${line}"`);
			let text = o[2];
			if (text.startsWith('{')) {
				if (matchBracket(text, 0, where) !== text.length)
					fail(where, `trailing text in "${sentence}"`);
				text = text.slice(1, -1);
			}
			this.defineObject(
				o[1].toLowerCase(),
				{ type: 'obj', fields: this.fields.parseList(text, { where }) },
				where,
			);
		}
		return i;
	}

	private defineObject(name: string, desc: FieldDescriptor, where: string): void {
		if (this.registry.objects.has(name)) fail(where, `object "${name}" defined twice`);
		this.registry.objects.set(name, desc);
	}

	private defineBody(body: NamedBody): void {
		if (this.namedBodies.has(body.name)) fail(body.where, `"${body.name}" defined twice`);
		this.namedBodies.set(body.name, body);
	}

	private readTable(
		lines: string[],
		start: number,
		file: string,
	): { rows: { cells: string[]; where: string }[]; last: number } {
		let j = start;
		while (j < lines.length && lines[j].trim() === '') j++;
		const rows: { cells: string[]; where: string }[] = [];
		let header = 0;
		for (; j < lines.length && lines[j].startsWith('|'); j++) {
			const cells = lines[j].replace(/^\|/, '').replace(/\|$/, '').split('|');
			if (header < 2) {
				header++;
				continue;
			}
			rows.push({ cells, where: `${file}:${j + 1}` });
		}
		if (!rows.length) fail(`${file}:${start}`, 'expected a table');
		return { rows, last: j - 1 };
	}

	/**
	 * Turns a table row "| name | type | rules |" into the inline notation "name: type* rules".
	 * The rules column may itself contain "|" (enumerations), so everything after the second cell is it.
	 */
	private tableRowToClause(cells: string[], where: string): string {
		const name = cells[0].trim();
		const type = cells[1].trim();
		const rules = cells.slice(2).join('|').trim();
		let typeText = type;
		let required = false;
		const mods: string[] = [];
		for (const part of splitTop(rules, ';').flatMap((p) => splitTop(p, ','))) {
			if (part === 'required') required = true;
			else if (part in VALUE_SET_PHRASES) {
				const set = this.registry.valueSets.get(VALUE_SET_PHRASES[part]);
				if (!set) fail(where, `unknown value set for "${part}"`);
				typeText = set.values.join('|');
			} else if (type === 'enum' && part.includes('|') && !part.startsWith('=')) typeText = part;
			else if (part === '=empty object') mods.push('={}');
			else if (part === '=empty array') mods.push('=[]');
			else if (part.startsWith('each item {')) mods.push(part.replace(/^each item /, 'each '));
			else if (/^(?:≤\d+|=\S+|\{.*\})$/.test(part)) mods.push(part);
			else fail(where, `cannot parse table rule "${part}"`);
		}
		if (typeText === 'enum') fail(where, `enumeration without values for "${name}"`);
		return [`${name}: ${typeText}${required ? '*' : ''}`, ...mods].join(' ');
	}

	private newEndpoint(
		section: Section,
		where: string,
		method: HttpMethod,
		p: string,
		scope: string | null | undefined,
	): RawEndpoint {
		return {
			section,
			where,
			method,
			path: p,
			scope,
			summary: [],
			pathParams: [...p.matchAll(/\{(\w+)\}/g)].map((x) => x[1]),
			query: {},
			header: {},
			bodyClauses: [],
			anyBody: false,
			noBody: false,
			sameAsPrevious: false,
			fieldSetRefs: [],
		};
	}

	private parseEndpointLine(line: string, section: Section, where: string): void {
		const m = ENDPOINT_LINE.exec(line);
		if (!m) fail(where, `cannot parse endpoint line "${line}"`);
		const ep = this.newEndpoint(section, where, m[1] as HttpMethod, m[2], m[3]);
		const previous = this.endpoints[this.endpoints.length - 1];
		this.endpoints.push(ep);
		const rest = (m[4] ?? '').trim();

		for (const sentence of splitSentences(rest)) {
			if (sentence === 'Scope: not shown') {
				if (ep.scope !== undefined) fail(where, 'scope given twice');
				ep.scope = null;
				continue;
			}
			const clauses = splitTop(sentence, ';');
			const fieldSentence = clauses.some(isStrongFieldClause);
			let mode: 'none' | 'body' | 'query' | 'both' = 'none';
			const prose: string[] = [];
			clauses.forEach((original, index) => {
				let clause = original;
				let k: RegExpExecArray | null;
				if ((k = /^(Body|body|Query|query|Both take body):?\s+(.+)$/.exec(clause))) {
					mode =
						k[1] === 'Both take body' ? 'both' : k[1].toLowerCase() === 'body' ? 'body' : 'query';
					clause = k[2];
					if (mode === 'body' && clause === 'obj') {
						ep.anyBody = true;
						return;
					}
				} else if ((k = /^Path (\w+): string\*$/.exec(clause))) {
					if (!ep.pathParams.includes(k[1])) fail(where, `"${clause}" names no path parameter`);
					return;
				} else if (clause === 'both path params string*') {
					if (ep.pathParams.length !== 2)
						fail(where, `"${clause}" but ${ep.pathParams.length} params`);
					return;
				} else if ((k = /^header ([A-Za-z][\w-]*): (.+)$/.exec(clause))) {
					this.fields.parseClauseInto(`${k[1]}: ${k[2]}`, { where }, ep.header);
					return;
				} else if (clause === 'no body') {
					ep.noBody = true;
					return;
				} else if (/^(?:same|Same) body(?: as the estimate)?$/.test(clause)) {
					ep.sameAsPrevious = true;
					return;
				} else if (
					(k =
						/^same fields as create(, all optional and without defaults)?(?: except that (\w+) is absent)?$/.exec(
							clause,
						))
				) {
					ep.sameAsCreate = { strip: !!k[1], except: k[2] ? [k[2]] : [] };
					return;
				} else if ((k = /^plus (.+)$/.exec(clause))) {
					if (!ep.sameAsCreate) fail(where, `"plus" without "same fields as create"`);
					clause = k[1];
					mode = 'body';
				}

				const ref = /\s*\(([a-z]+) fields above\)/.exec(clause);
				if (ref) {
					ep.fieldSetRefs.push(`${ref[1][0].toUpperCase()}${ref[1].slice(1)} fields`);
					clause = clause.replace(ref[0], '');
				}

				if (mode === 'query') {
					this.fields.parseClauseInto(clause, { where }, ep.query);
				} else if (mode === 'body') {
					ep.bodyClauses.push({ clause, where });
				} else if (mode === 'both') {
					if (!previous || previous.section !== section)
						fail(where, '"Both take body" without a previous endpoint');
					ep.bodyClauses.push({ clause, where });
					previous.bodyClauses.push({ clause, where });
				} else if (fieldSentence) {
					const p = PREFIXED_TYPED_CLAUSE.exec(clause);
					if (p && TYPE_START.test(p[3]) && !TYPED_CLAUSE.test(clause)) {
						// "saves the frame at time: number* [0..3600]": prose leading into a field.
						if (index !== 0) fail(where, `prose inside a field list: "${clause}"`);
						prose.push(`${p[1]}${p[2]}`);
						ep.bodyClauses.push({ clause: `${p[2]}: ${p[3]}`, where });
					} else {
						ep.bodyClauses.push({ clause, where });
					}
				} else {
					prose.push(clause);
				}
			});
			if (prose.length) ep.summary.push(`${prose.join('; ')}.`);
		}
	}

	/** Resolves scopes, named bodies and cross-references into the final endpoints. */
	build(): Endpoint[] {
		// Attach named bodies to endpoints.
		const named = new Map<RawEndpoint, { body: NamedBody; variant?: string }[]>();
		const attach = (ep: RawEndpoint, body: NamedBody, variant?: string): void => {
			const list = named.get(ep) ?? [];
			list.push({ body, variant });
			named.set(ep, list);
		};
		const find = (key: string, where: string): RawEndpoint => {
			const found = this.endpoints.filter((e) => `${e.method} ${e.path}` === key);
			if (found.length !== 1) fail(where, `expected one endpoint "${key}", found ${found.length}`);
			return found[0];
		};
		for (const body of this.namedBodies.values()) {
			if (body.usedBy) for (const key of body.usedBy) attach(find(key, body.where), body);
			if (body.lastSegments) {
				const targets = this.endpoints.filter(
					(e) =>
						e.section === body.section && body.lastSegments!.includes(e.path.split('/').pop()!),
				);
				if (targets.length !== body.lastSegments.length)
					fail(body.where, `"${body.name}" matches ${targets.length} endpoints`);
				for (const t of targets) attach(t, body);
			}
		}
		for (const [key, ref] of Object.entries(IMPLICIT_BODY_REFS)) {
			const body = this.namedBodies.get(ref.name);
			if (!body) fail('IMPLICIT_BODY_REFS', `unknown body "${ref.name}"`);
			if (body.variants && (!ref.variant || !body.variants.names.includes(ref.variant)))
				fail('IMPLICIT_BODY_REFS', `bad variant for ${key}`);
			attach(find(key, 'IMPLICIT_BODY_REFS'), body, ref.variant);
		}
		for (const body of this.namedBodies.values())
			if (![...named.values()].some((l) => l.some((x) => x.body === body)))
				fail(body.where, `"${body.name}" is used by no endpoint`);

		const built: Endpoint[] = [];
		const builtRaw: RawEndpoint[] = [];
		for (const ep of this.endpoints) {
			const key = `${ep.method} ${ep.path}`;
			for (const ref of ep.fieldSetRefs)
				if (!(named.get(ep) ?? []).some((x) => x.body.name === ref))
					fail(ep.where, `"(${ref.toLowerCase()} above)" is not mapped in IMPLICIT_BODY_REFS`);

			let scope: string | null;
			if (ep.scope === null) scope = null;
			else if (ep.scope !== undefined) {
				if (ep.section.scope && ep.section.scope !== ep.scope)
					fail(ep.where, 'scope differs from section scope');
				scope = ep.scope;
			} else if (ep.section.scope) scope = ep.section.scope;
			else return fail(ep.where, `no scope for ${key}`);

			const sectionBuilt = built.filter((_, i) => builtRaw[i].section === ep.section);
			const resolve = (name: string): FieldDescriptor => {
				for (const set of this.registry.valueSets.values())
					if (set.key === name) return { type: 'enum', values: [...set.values] };
				for (let i = sectionBuilt.length - 1; i >= 0; i--) {
					const f = sectionBuilt[i].body[name];
					if (f) return clone(f);
				}
				return fail(ep.where, `cannot resolve field "${name}"`);
			};

			const body: FieldMap = {};
			const merge = (fields: FieldMap, where: string): void => {
				for (const [name, desc] of Object.entries(fields)) {
					if (name in body) fail(where, `field "${name}" given twice for ${key}`);
					body[name] = desc;
				}
			};
			if (ep.sameAsCreate) {
				const createPath = ep.path.replace(/\/\{id\}$/, '');
				const create = sectionBuilt.find((e) => e.method === 'POST' && e.path === createPath);
				if (!create) fail(ep.where, `no create endpoint POST ${createPath}`);
				const fields: FieldMap = {};
				for (const [name, desc] of Object.entries(create.body)) {
					if (ep.sameAsCreate.except.includes(name)) continue;
					fields[name] = ep.sameAsCreate.strip ? stripTop(desc) : clone(desc);
				}
				for (const name of ep.sameAsCreate.except)
					if (!(name in create.body)) fail(ep.where, `"${name}" is not a field of the create body`);
				merge(fields, ep.where);
			}
			if (ep.sameAsPrevious) {
				const prev = sectionBuilt[sectionBuilt.length - 1];
				if (!prev || prev.method !== 'POST' || !prev.path.endsWith('/estimate'))
					fail(ep.where, '"same body" does not follow an estimate endpoint');
				merge(clone(prev.body), ep.where);
			}
			for (const { body: nb, variant } of named.get(ep) ?? []) {
				const fields: FieldMap = {};
				for (const clause of nb.clauses)
					this.fields.parseClauseInto(clause, { where: nb.where, variant, resolve }, fields);
				if (variant && nb.variants?.strip.includes(variant))
					for (const name of Object.keys(fields)) fields[name] = stripTop(fields[name]);
				merge(fields, nb.where);
			}
			for (const { clause, where } of ep.bodyClauses) {
				const fields: FieldMap = {};
				this.fields.parseClauseInto(clause, { where, resolve }, fields);
				merge(fields, where);
			}
			if (ep.anyBody) {
				if (Object.keys(body).length) fail(ep.where, '"Body: obj" together with fields');
				body[ANY_BODY_KEY] = { type: 'obj' };
			}
			if (ep.noBody && Object.keys(body).length) fail(ep.where, '"no body" together with fields');

			const out: Endpoint = {
				doc: ep.section.doc,
				section: ep.section.name,
				method: ep.method,
				path: ep.path,
				scope,
				summary: ep.summary.join(' '),
				pathParams: ep.pathParams,
				query: normalizeMap(ep.query),
				body: normalizeMap(body),
			};
			if (Object.keys(ep.header).length) out.header = normalizeMap(ep.header);
			built.push(out);
			builtRaw.push(ep);
		}
		return built;
	}
}

// ---------------------------------------------------------------------------------------------------
// Entry points

export const REPO_ROOT = path.resolve(__dirname, '..');
export const DEFAULT_SPEC_DIR = path.join(REPO_ROOT, 'spec');
export const OUTPUT_FILE = path.join(REPO_ROOT, 'spec', 'endpoints.json');

/** Every `N-*.md` document of specDir, in document order. */
export function readSpecDocuments(specDir: string = DEFAULT_SPEC_DIR): SpecDocument[] {
	const files = fs
		.readdirSync(specDir)
		.filter((f) => /^\d+-.*\.md$/.test(f))
		.sort((a, b) => parseInt(a, 10) - parseInt(b, 10) || a.localeCompare(b));
	if (!files.length) fail(specDir, 'no spec documents found');
	return files.map((file) => ({
		file,
		doc: parseInt(file, 10),
		lines: fs.readFileSync(path.join(specDir, file), 'utf8').replace(/\r\n/g, '\n').split('\n'),
	}));
}

/** Parses every `N-*.md` document of specDir and returns the catalogue; throws SpecError on problems. */
export function extractSpec(specDir: string = DEFAULT_SPEC_DIR): SpecFile {
	const docs = readSpecDocuments(specDir);
	const files = docs.map((d) => d.file);
	const parser = new SpecParser();
	for (const d of docs) parser.collectValueSets(d.file, d.lines);
	for (const d of docs) parser.parseDocument(d.file, d.doc, d.lines);

	const endpoints = parser.build();

	const seen = new Set<string>();
	for (const e of endpoints) {
		const key = `${e.method} ${e.path}`;
		if (seen.has(key)) fail(key, 'duplicate endpoint');
		seen.add(key);
	}
	for (const [doc, keys] of writtenEndpoints(docs)) {
		const parsed = endpoints.filter((e) => e.doc === doc).map((e) => `${e.method} ${e.path}`);
		const missing = keys.filter((k) => !parsed.includes(k));
		const extra = parsed.filter((k) => !keys.includes(k));
		if (missing.length || extra.length)
			fail(
				`document ${doc}`,
				`the text writes ${keys.length} endpoints, the parser found ${parsed.length}` +
					`${missing.length ? `; not parsed: ${missing.join(', ')}` : ''}` +
					`${extra.length ? `; not written: ${extra.join(', ')}` : ''}`,
			);
	}
	return { source: files, count: endpoints.length, endpoints };
}

export function renderSpecJson(spec: SpecFile): string {
	return `${JSON.stringify(spec, null, 2)}\n`;
}

/** Copies the spec documents (N-*.md) of `from` into spec/. */
function copyDocuments(from: string): void {
	const documents = fs.readdirSync(from).filter((f) => /^\d+-.*\.md$/.test(f));
	if (!documents.length) fail(from, 'no spec documents found');
	for (const file of documents)
		fs.copyFileSync(path.join(from, file), path.join(DEFAULT_SPEC_DIR, file));
}

function main(): void {
	try {
		const from = process.argv[2];
		if (from) copyDocuments(path.resolve(from));
		const spec = extractSpec();
		fs.mkdirSync(path.dirname(OUTPUT_FILE), { recursive: true });
		fs.writeFileSync(OUTPUT_FILE, renderSpecJson(spec));
		const perDoc = [...new Set(spec.endpoints.map((e) => e.doc))]
			.map((d) => `doc ${d}: ${spec.endpoints.filter((e) => e.doc === d).length}`)
			.join(', ');
		console.log(`${path.relative(REPO_ROOT, OUTPUT_FILE)}: ${spec.count} endpoints (${perDoc})`);
	} catch (error) {
		console.error(`extract-spec failed: ${error instanceof Error ? error.message : String(error)}`);
		process.exit(1);
	}
}

if (require.main === module) main();
