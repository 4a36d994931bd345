/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
// Saved workflows never break: every released node version keeps its parameter surface (names,
// types, defaults, display conditions, option values, type options, required), pinned in
// test/surface/ (scripts/surface.ts). A change to a pinned surface needs a new node version.
import { readdirSync, readFileSync } from 'node:fs';

import { MediaGenTrigger } from '../../nodes/MediaGenTrigger/MediaGenTrigger.node';
import { currentSurfaces, nodeSurface, SURFACE_DIR, surfaceFile } from '../../scripts/surface';

const current = currentSurfaces();
const pinned = readdirSync(SURFACE_DIR).filter((f) => f.endsWith('.json'));

/** Where two JSON values differ, as `path: pinned -> current` lines. */
function differences(a: unknown, b: unknown, path = ''): string[] {
	if (JSON.stringify(a) === JSON.stringify(b)) return [];
	if (
		a &&
		b &&
		typeof a === 'object' &&
		typeof b === 'object' &&
		Array.isArray(a) === Array.isArray(b)
	) {
		const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
		return keys.flatMap((k) =>
			differences(
				(a as Record<string, unknown>)[k],
				(b as Record<string, unknown>)[k],
				`${path}[${JSON.stringify(k)}]`,
			),
		);
	}
	return [
		`${path || '(root)'}: ${JSON.stringify(a) ?? '(absent)'} -> ${JSON.stringify(b) ?? '(absent)'}`,
	];
}

test('every node version and the credential have a pinned surface, and every pinned one still exists', () => {
	expect({ unpinned: [...current.keys()].filter((n) => !pinned.includes(n)) }).toEqual({
		unpinned: [],
	});
	expect({ removed: pinned.filter((n) => !current.has(n)) }).toEqual({ removed: [] });
	expect(pinned).toHaveLength(11); // 8 action nodes (v1), the trigger (v1, v2), the credential
});

test.each(pinned)('%s: the parameter surface is the pinned one', (name) => {
	const saved = JSON.parse(readFileSync(surfaceFile(name), 'utf8')) as unknown;
	const diff = differences(saved, current.get(name));
	if (diff.length) {
		throw new Error(
			`A released node version's parameters changed (${name}): make a new node version ` +
				`(a versioned node, the old version's description kept as it is) and pin it with ` +
				`\`tsx scripts/surface.ts --new\`; never rewrite a pinned file.\n` +
				`${diff.slice(0, 30).join('\n')}${diff.length > 30 ? `\n… ${diff.length - 30} more` : ''}`,
		);
	}
});

test('the check sees a renamed parameter, a new default, a changed display condition and a dropped option', () => {
	const description = new MediaGenTrigger().description;
	const base = nodeSurface(description, 2);
	const changed = (edit: (p: (typeof description.properties)[number]) => void) => {
		const properties = description.properties.map((p) => ({ ...p }));
		edit(properties.find((p) => p.name === 'registration')!);
		return differences(base, nodeSurface({ ...description, properties }, 2));
	};
	expect(changed((p) => (p.name = 'registrationMode')).length).toBeGreaterThan(0);
	expect(changed((p) => (p.default = 'manual'))).toEqual([expect.stringContaining('"default"')]);
	expect(changed((p) => (p.displayOptions = { show: { '@version': [2] } }))).toEqual([
		expect.stringContaining('-> (absent)'),
		expect.stringContaining('@version'),
	]);
	expect(changed((p) => (p.options = p.options!.slice(1)))).not.toEqual([]);
	// wording is not part of the surface
	expect(changed((p) => (p.displayName = 'Endpoint'))).toEqual([]);
});

test('a parameter shown only from version 2 on is not part of version 1', () => {
	const description = new MediaGenTrigger().description;
	const extra = {
		displayName: 'New',
		name: 'newInV2',
		type: 'string' as const,
		default: '',
		displayOptions: { show: { '@version': [{ _cnd: { gte: 2 } }] } },
	};
	const withExtra = { ...description, properties: [...description.properties, extra] };
	expect(differences(nodeSurface(description, 1), nodeSurface(withExtra, 1))).toEqual([]);
	expect(differences(nodeSurface(description, 2), nodeSurface(withExtra, 2))).toHaveLength(1);
});
