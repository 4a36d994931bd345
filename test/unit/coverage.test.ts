/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, no-console -- test code, never published */
/**
 * Coverage: the catalog against the machine-readable spec (spec/endpoints.json, made by
 * scripts/extract-spec.ts from the spec documents in spec/ and committed). Every declared endpoint must be in
 * the spec with the same scope, path parameters and fields (type, required, limits, enums,
 * defaults); every endpoint of a section the catalog has started must be declared.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { catalog } from '../../nodes/shared/catalog';
import type { Endpoint, Field, FieldMap } from '../../nodes/shared/catalog/dsl';

interface SpecField {
	type: 'string' | 'integer' | 'number' | 'boolean' | 'uuid' | 'enum' | 'obj' | 'array';
	required?: boolean;
	max?: number;
	maxValue?: number;
	range?: [number, number];
	default?: unknown;
	values?: string[];
	items?: SpecField;
	fields?: Record<string, SpecField>;
	format?: string;
}
interface SpecEndpoint {
	doc: number;
	section: string;
	method: string;
	path: string;
	scope: string | null;
	pathParams: string[];
	query: Record<string, SpecField>;
	body: Record<string, SpecField>;
}

const spec = JSON.parse(readFileSync(join(__dirname, '../../spec/endpoints.json'), 'utf8')) as {
	count: number;
	endpoints: SpecEndpoint[];
};

const declared: Array<{
	node: string;
	resource: string;
	e: Endpoint;
	sections: string[];
	doc: number;
}> = [];
for (const [node, groups] of Object.entries(catalog)) {
	for (const g of groups) {
		// node operations (Wait, Collect) are the node's own, not endpoints of the spec
		for (const e of g.endpoints.filter((x) => !x.nodeOperation))
			declared.push({ node, resource: g.resource, e, sections: g.sections, doc: g.doc });
	}
}
const key = (method: string, path: string) => `${method} ${path}`;
const specByKey = new Map(spec.endpoints.map((s) => [key(s.method, s.path), s]));

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Differences between a spec field and its declaration, as readable lines. */
function compareField(s: SpecField, f: Field, at: string): string[] {
	const out: string[] = [];
	const expect = (ok: boolean, what: string) => {
		if (!ok) out.push(`${at}: ${what}`);
	};
	expect(!!s.required === !!f.required, `required is ${!!f.required}, spec says ${!!s.required}`);
	if (s.default !== undefined || f.default !== undefined) {
		expect(
			same(s.default, f.default),
			`default ${JSON.stringify(f.default)}, spec ${JSON.stringify(s.default)}`,
		);
	}
	switch (s.type) {
		case 'string':
			expect(f.kind === 'string', `kind ${f.kind}, spec string`);
			if (f.kind === 'string') {
				expect(f.max === s.max, `max ${f.max}, spec ${s.max}`);
				expect(
					(f.format ?? undefined) === (s.format ?? undefined),
					`format ${f.format}, spec ${s.format}`,
				);
			}
			break;
		case 'integer':
		case 'number':
			expect(f.kind === s.type, `kind ${f.kind}, spec ${s.type}`);
			if (f.kind === 'integer' || f.kind === 'number') {
				expect(f.min === s.range?.[0], `min ${f.min}, spec ${s.range?.[0]}`);
				expect(
					f.max === (s.range?.[1] ?? s.maxValue),
					`max ${f.max}, spec ${s.range?.[1] ?? s.maxValue}`,
				);
			}
			break;
		case 'boolean':
		case 'uuid':
			expect(f.kind === s.type, `kind ${f.kind}, spec ${s.type}`);
			break;
		case 'enum':
			expect(
				f.kind === 'options' && same(f.values, s.values),
				`enum ${JSON.stringify((f as { values?: unknown }).values)}, spec ${JSON.stringify(s.values)}`,
			);
			break;
		case 'obj':
			if (s.fields) {
				expect(f.kind === 'object', `kind ${f.kind}, spec obj with fields`);
				if (f.kind === 'object') out.push(...compareMaps(s.fields, f.fields, at));
			} else expect(f.kind === 'json', `kind ${f.kind}, spec obj`);
			break;
		case 'array': {
			const items = s.items;
			if (!items) break;
			if (items.type === 'enum') {
				expect(f.kind === 'multiOptions' && same(f.values, items.values), `enum list ${f.kind}`);
			} else if (items.type === 'obj' && items.fields) {
				expect(f.kind === 'objectList', `kind ${f.kind}, spec obj[]`);
				if (f.kind === 'objectList') out.push(...compareMaps(items.fields, f.fields, `${at}[]`));
			} else if (items.type === 'obj') {
				expect(f.kind === 'json' || f.kind === 'objectList', `kind ${f.kind}, spec obj[]`);
			} else {
				expect(
					f.kind === 'list' && f.of === (items.type as string),
					`kind ${f.kind}/${(f as { of?: string }).of}, spec ${items.type}[]`,
				);
			}
			break;
		}
	}
	return out;
}

function compareMaps(s: Record<string, SpecField>, f: FieldMap, at: string): string[] {
	const out: string[] = [];
	for (const name of Object.keys(s)) {
		if (!f[name]) out.push(`${at}.${name}: not declared`);
		else out.push(...compareField(s[name], f[name], `${at}.${name}`));
	}
	for (const name of Object.keys(f)) if (!s[name]) out.push(`${at}.${name}: not in the spec`);
	return out;
}

describe('catalog coverage of the spec', () => {
	test(`the catalog declares every endpoint of the spec and no other (${spec.count})`, () => {
		// spec/endpoints.json holds every endpoint the documents write (spec-endpoints.test.ts)
		const declaredKeys = declared.map((d) => key(d.e.method, d.e.path)).sort();
		expect(declaredKeys).toEqual(spec.endpoints.map((s) => key(s.method, s.path)).sort());
		expect(declared).toHaveLength(spec.count);
	});

	test.each(declared.map((d) => [key(d.e.method, d.e.path), d] as const))(
		'%s matches the spec',
		(_k, d) => {
			const s = specByKey.get(key(d.e.method, d.e.path));
			expect(s).toBeDefined();
			if (!s) return;
			const problems: string[] = [];
			if (s.scope !== d.e.scope) problems.push(`scope ${d.e.scope}, spec ${s.scope}`);
			if (!same(Object.keys(d.e.pathParams), s.pathParams)) problems.push('path parameters differ');
			const query = { ...s.query };
			if (d.e.paginate) {
				for (const p of ['limit', 'before'] as const) {
					if (query[p]) {
						if (p === 'before' && query.before.type !== d.e.paginate)
							problems.push(`cursor type ${d.e.paginate}, spec ${query.before.type}`);
						delete query[p];
					}
				}
			}
			problems.push(...compareMaps(query, d.e.query, 'query'));
			problems.push(...compareMaps(s.body, d.e.body, 'body'));
			expect(problems).toEqual([]);
		},
	);

	test('each endpoint is declared once', () => {
		const keys = declared.map((d) => key(d.e.method, d.e.path));
		expect(keys.length).toBe(new Set(keys).size);
	});

	test('every endpoint of a started section is declared', () => {
		const started = new Set(declared.flatMap((d) => d.sections.map((s) => `${d.doc}/${s}`)));
		const declaredKeys = new Set(declared.map((d) => key(d.e.method, d.e.path)));
		const missing = spec.endpoints
			.filter((s) => started.has(`${s.doc}/${s.section}`))
			.map((s) => key(s.method, s.path))
			.filter((k) => !declaredKeys.has(k));
		expect(missing).toEqual([]);
	});

	afterAll(() => {
		const covered = new Set(
			declared.map((d) => key(d.e.method, d.e.path)).filter((k) => specByKey.has(k)),
		);
		const perDoc = [1, 2, 3].map((doc) => {
			const all = spec.endpoints.filter((s) => s.doc === doc);
			return `doc ${doc}: ${all.filter((s) => covered.has(key(s.method, s.path))).length}/${all.length}`;
		});
		console.log(
			`covered ${covered.size}/${spec.endpoints.length} endpoints (${perDoc.join(', ')})`,
		);
	});
});
