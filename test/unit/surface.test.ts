/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
// Saved workflows never break: every released node version keeps its parameter surface (names,
// types, defaults, display conditions, option values, type options, required), pinned in
// test/surface/ (scripts/surface.ts). A change to a pinned surface needs a new node version.
import { readdirSync, readFileSync } from 'node:fs';

import { MediaGenTrigger } from '../../nodes/MediaGenTrigger/MediaGenTrigger.node';
import {
	currentSurfaces,
	differences,
	nodeSurface,
	SURFACE_DIR,
	surfaceFile,
} from '../../scripts/surface';

const current = currentSurfaces();
const pinned = readdirSync(SURFACE_DIR).filter((f) => f.endsWith('.json'));

test('every node version and the credential have a pinned surface, and every pinned one still exists', () => {
	expect({ unpinned: [...current.keys()].filter((n) => !pinned.includes(n)) }).toEqual({
		unpinned: [],
	});
	expect({ removed: pinned.filter((n) => !current.has(n)) }).toEqual({ removed: [] });
	expect(pinned).toHaveLength(24); // 8 action nodes (v1, v2; Ads and Influencer v3), the trigger (v1 to v4), 2 credentials
});

test.each(pinned)('%s: the parameter surface is the pinned one', (name) => {
	const saved = JSON.parse(readFileSync(surfaceFile(name), 'utf8')) as unknown;
	const diff = differences(saved, current.get(name));
	const changed = diff.filter((d) => d.kind === 'changed').map((d) => d.text);
	const added = diff.filter((d) => d.kind === 'added').map((d) => d.text);
	const list = (lines: string[]) =>
		`${lines.slice(0, 30).join('\n')}${lines.length > 30 ? `\n… ${lines.length - 30} more` : ''}`;
	if (changed.length) {
		throw new Error(
			`A released node version's parameters changed (${name}): make a new node version ` +
				`(a versioned node, the old version's description kept as it is) and pin it with ` +
				`\`npm run surface:new\`; a pinned file is never rewritten.\n${list(changed)}`,
		);
	}
	if (added.length) {
		throw new Error(
			`New parameters or option values in ${name} (saved workflows keep working): pin them with ` +
				`\`npm run surface:add\`.\n${list(added)}`,
		);
	}
});

test('the check sees a renamed parameter, a new default, a changed display condition and a dropped option', () => {
	const description = new MediaGenTrigger().getNodeType(2).description;
	const base = nodeSurface(description, 2);
	const kinds = (edit: (p: (typeof description.properties)[number]) => void) => {
		const properties = description.properties.map((p) => ({ ...p }));
		edit(properties.find((p) => p.name === 'registration')!);
		return differences(base, nodeSurface({ ...description, properties }, 2)).map((d) => d.kind);
	};
	expect(kinds((p) => (p.name = 'registrationMode'))).toEqual(['changed', 'added']);
	expect(kinds((p) => (p.default = 'manual'))).toEqual(['changed']);
	expect(kinds((p) => (p.required = true))).toEqual(['changed']);
	expect(kinds((p) => (p.displayOptions = { show: { '@version': [2] } }))).toEqual([
		'changed',
		'added',
	]);
	expect(kinds((p) => (p.options = p.options!.slice(1)))).toEqual(['changed']);
	expect(kinds((p) => (p.options = [...p.options!, { name: 'Later', value: 'later' }]))).toEqual([
		'added',
	]);
	// wording is not part of the surface
	expect(kinds((p) => (p.displayName = 'Endpoint'))).toEqual([]);
});

test('a parameter shown only from version 2 on is not part of version 1', () => {
	const description = new MediaGenTrigger().getNodeType(2).description;
	const extra = {
		displayName: 'New',
		name: 'newInV2',
		type: 'string' as const,
		default: '',
		displayOptions: { show: { '@version': [{ _cnd: { gte: 2 } }] } },
	};
	const withExtra = { ...description, properties: [...description.properties, extra] };
	expect(differences(nodeSurface(description, 1), nodeSurface(withExtra, 1))).toEqual([]);
	expect(
		differences(nodeSurface(description, 2), nodeSurface(withExtra, 2)).map((d) => d.kind),
	).toEqual(['added']);
});
