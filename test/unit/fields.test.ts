import type { INodeProperties } from 'n8n-workflow';

import { catalog, mediaGenGroups } from '../../nodes/shared/catalog';
import type { Field } from '../../nodes/shared/catalog/dsl';
import {
	bool,
	endpoint,
	int,
	json,
	manyOf,
	num,
	object,
	objectList,
	oneOf,
	str,
	uuid,
	uuidList,
} from '../../nodes/shared/catalog/dsl';
import { displayNameOf } from '../../nodes/shared/fields/names';
import { catalogProperties, endpointProperties } from '../../nodes/shared/form/version';
import { coerce, FieldError } from '../../nodes/shared/fields/validation';

const ok = (f: Field, v: unknown, label = 'Field') => coerce(f, v, label);
const bad = (f: Field, v: unknown, label = 'Field') => {
	try {
		coerce(f, v, label);
	} catch (error) {
		expect(error).toBeInstanceOf(FieldError);
		return (error as Error).message;
	}
	throw new Error(`expected ${JSON.stringify(v)} to be refused`);
};

describe('display names', () => {
	test.each([
		['cover_asset_id', 'Cover Asset ID'],
		['assetIds', 'Asset IDs'],
		['negativePrompt', 'Negative Prompt'],
		['url', 'URL'],
		['deleteAssets', 'Delete Assets'],
	])('%s -> %s', (key, name) => expect(displayNameOf(key)).toBe(name));
});

describe('validation names the field and the limit', () => {
	test('string max length', () => {
		expect(bad(str({ max: 200 }), 'x'.repeat(231), 'Title')).toBe(
			'Title must be at most 200 characters, got 231',
		);
		expect(ok(str({ max: 200 }), 'x'.repeat(200))).toHaveLength(200);
	});
	test('required', () => {
		expect(bad(str({ required: true }), '', 'Name')).toBe('Name is required');
		expect(bad(uuidList({ required: true }), undefined, 'Asset IDs')).toBe('Asset IDs is required');
		// `*` asks for the list, not for entries
		expect(ok(uuidList({ required: true }), [])).toEqual([]);
	});
	test('integer range and wholeness', () => {
		const count = int({ min: 2, max: 6 });
		expect(bad(count, 9, 'Count')).toBe('Count must be between 2 and 6, got 9');
		expect(bad(count, 2.5, 'Count')).toBe('Count must be a whole number, got 2.5');
		expect(bad(count, 'abc', 'Count')).toBe("Count must be a number, got 'abc'");
		expect(ok(count, '4')).toBe(4);
		expect(ok(num({ min: 0.25, max: 4 }), 0.25)).toBe(0.25);
	});
	test('enums', () => {
		expect(bad(oneOf(['active', 'archived']), 'gone', 'Status')).toBe(
			"Status must be one of active, archived, got 'gone'",
		);
		expect(ok(manyOf(['a', 'b']), 'a, b')).toEqual(['a', 'b']);
		expect(bad(manyOf(['a', 'b']), ['a', 'c'], 'Kinds')).toBe(
			"Kinds[1] must be one of a, b, got 'c'",
		);
	});
	test('uuids and lists of uuids', () => {
		const id = '0b6e8a4c-1f0d-4d5e-9a7b-2c3d4e5f6a7b';
		expect(ok(uuid(), ` ${id} `)).toBe(id);
		expect(bad(uuid(), 'abc', 'Cover Asset ID')).toBe("Cover Asset ID must be a UUID, got 'abc'");
		expect(ok(uuidList(), `${id}, ${id}`)).toEqual([id, id]);
		expect(ok(uuidList(), [id])).toEqual([id]);
		expect(ok(uuidList(), `["${id}"]`)).toEqual([id]);
		expect(bad(uuidList(), `${id},nope`, 'Asset IDs')).toBe(
			"Asset IDs[1] must be a UUID, got 'nope'",
		);
	});
	test('booleans', () => {
		expect(ok(bool(), 'true')).toBe(true);
		expect(bad(bool(), 'yes', 'Favorite')).toBe("Favorite must be true or false, got 'yes'");
	});
	test('JSON objects', () => {
		expect(ok(json(), '{"a": 1}')).toEqual({ a: 1 });
		expect(ok(json(), { a: 1 })).toEqual({ a: 1 });
		expect(bad(json(), '[1]', 'Params')).toBe('Params must be a JSON object, got [1]');
		expect(bad(json(), '{a', 'Params')).toMatch(/^Params must be a JSON object: /);
	});
	test('nested objects name the path', () => {
		const inputs = objectList({ slot: str({ required: true, max: 40 }), assetIds: uuidList() });
		expect(ok(inputs, { values: [{ slot: 'image', assetIds: '' }] })).toEqual([{ slot: 'image' }]);
		expect(bad(inputs, { values: [{ slot: 'a' }, { slot: 'x'.repeat(41) }] }, 'Inputs')).toBe(
			'Inputs[1].slot must be at most 40 characters, got 41',
		);
		expect(bad(inputs, [{ assetIds: '' }], 'Inputs')).toBe('Inputs[0].slot is required');
		const voice = object({ modelId: str({ max: 80 }) });
		expect(ok(voice, { values: { modelId: 'v1' } })).toEqual({ modelId: 'v1' });
	});
	test('blank optional values are not sent, blank strings are', () => {
		expect(ok(uuid(), '')).toBeUndefined();
		expect(ok(int(), undefined)).toBeUndefined();
		expect(ok(str(), '')).toBe('');
	});
});

describe('properties derived from declarations', () => {
	const e = endpoint('create', 'POST /things/{id}', 'content.create', {
		name: 'Create',
		action: 'Create a thing',
		body: {
			name: str({ required: true, max: 120 }),
			count: int({ min: 1, max: 12, default: 4 }),
			tool: oneOf(['image', 'video'], { default: 'image' }),
		},
		idempotent: true,
	});
	const props = endpointProperties('thing', e);
	const byName = (name: string) => props.find((p) => p.name === name) as INodeProperties;

	test('required fields are top level, optional ones in Additional Fields with spec defaults', () => {
		expect(props.map((p) => p.name)).toEqual(['id', 'name', 'additionalFields', 'options']);
		expect(byName('name')).toMatchObject({ required: true, type: 'string' });
		const extra = byName('additionalFields').options as INodeProperties[];
		expect(extra.find((o) => o.name === 'count')).toMatchObject({
			default: 4,
			typeOptions: { minValue: 1, maxValue: 12, numberPrecision: 0 },
		});
		expect(extra.find((o) => o.name === 'tool')).toMatchObject({
			type: 'options',
			default: 'image',
		});
	});
	test('every property shows only for its resource and operation', () => {
		for (const p of props) {
			expect(p.displayOptions?.show).toMatchObject({ resource: ['thing'], operation: ['create'] });
		}
	});
	test('a path parameter that must be named is required', () => {
		expect(byName('id')).toMatchObject({ required: true });
	});
});

describe('node descriptions', () => {
	test.each(Object.entries(catalog))('%s: same-named properties have one type', (_node, groups) => {
		const types = new Map<string, string>();
		for (const p of catalogProperties(groups)) {
			const seen = types.get(p.name);
			if (seen) expect(`${p.name}: ${p.type}`).toBe(`${p.name}: ${seen}`);
			types.set(p.name, p.type);
		}
	});
	test('operations carry n8n naming and action texts', () => {
		const props = catalogProperties(mediaGenGroups);
		const ops = props.filter((p) => p.name === 'operation');
		for (const op of ops) {
			for (const o of op.options as Array<{ name: string; value: string; action?: string }>) {
				expect(o.action).toBeTruthy();
				if (o.value === 'getAll') expect(o.name).toBe('Get Many');
			}
		}
	});
	test('list operations have Return All and Limit', () => {
		const props = catalogProperties(mediaGenGroups);
		const limit = props.filter((p) => p.name === 'limit');
		expect(limit.length).toBeGreaterThan(0);
		for (const p of limit) expect(p.displayOptions?.show?.returnAll).toEqual([false]);
	});
});

describe('patterns and collections', () => {
	test('a string pattern names the expected shape', () => {
		const hex = str({
			pattern: { regex: '^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$', example: '#1A2B3C' },
		});
		expect(ok(hex, '#1a2b3c')).toBe('#1a2b3c');
		expect(bad(hex, 'red', 'Colors[0].hex')).toBe(
			"Colors[0].hex must look like #1A2B3C, got 'red'",
		);
	});
	test('an object on the form is a collection: only the fields the user added are sent', () => {
		const strategy = object({
			objective: oneOf(['awareness', 'traffic']),
			tone: str({ max: 120 }),
		});
		const prop = endpointProperties(
			'x',
			endpoint('update', 'PATCH /x', null, {
				name: 'Update',
				action: 'Update x',
				body: { strategy },
			}),
		)[0].options?.[0] as INodeProperties;
		expect(prop).toMatchObject({ type: 'collection', default: {} });
		expect(ok(strategy, { tone: 'warm' })).toEqual({ tone: 'warm' });
	});
});
