// Forms a no-code user gets right the first time (#15): each node version 2 (and 3, where a node
// has it) opens on its main job, every field a user cannot guess has help, and lists speak in words.
import type { INodeProperties, INodeTypeDescription, IVersionedNodeType } from 'n8n-workflow';

import { MediaGen } from '../../nodes/MediaGen/MediaGen.node';
import { MediaGen3d } from '../../nodes/MediaGen3d/MediaGen3d.node';
import { MediaGenAds } from '../../nodes/MediaGenAds/MediaGenAds.node';
import { MediaGenAgent } from '../../nodes/MediaGenAgent/MediaGenAgent.node';
import { MediaGenCanvas } from '../../nodes/MediaGenCanvas/MediaGenCanvas.node';
import { MediaGenCinema } from '../../nodes/MediaGenCinema/MediaGenCinema.node';
import { MediaGenEditor } from '../../nodes/MediaGenEditor/MediaGenEditor.node';
import { MediaGenInfluencer } from '../../nodes/MediaGenInfluencer/MediaGenInfluencer.node';
import { MODEL_ID_PLACEHOLDER } from '../../nodes/shared/fields/help';

const NODES: IVersionedNodeType[] = [
	new MediaGen(),
	new MediaGenInfluencer(),
	new MediaGenAds(),
	new MediaGenEditor(),
	new MediaGenCinema(),
	new MediaGenCanvas(),
	new MediaGen3d(),
	new MediaGenAgent(),
];

/** Each node's first screen in version 2: the resource and operation it opens on. */
const MAIN: Record<string, [string, string]> = {
	mediaGen: ['generation', 'create'],
	mediaGenInfluencer: ['character', 'generate'],
	mediaGenAds: ['adProject', 'runMatrix'],
	mediaGenEditor: ['edit', 'render'],
	mediaGenCinema: ['cinemaProject', 'generate'],
	mediaGenCanvas: ['run', 'start'],
	mediaGen3d: ['scene', 'aiScene'],
	mediaGenAgent: ['session', 'sendMessage'],
};

/** Nodes whose newest version (the default) is 3: inputs that were JSON only without code (#25). */
const NEWEST: Record<string, number> = { mediaGenAds: 3, mediaGenInfluencer: 3 };

const DESTRUCTIVE = /^(delete|cancel|reject|archive|remove|discard)/i;

function opensOn(d: INodeTypeDescription): { resource: string; operation: string } {
	const resource = String(d.properties.find((p) => p.name === 'resource')!.default);
	const operation = d.properties.find(
		(p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(resource),
	)!.default as string;
	return { resource, operation };
}

/** Whether a property is shown for the given parameter values (only `show` of resource/operation). */
function shownFor(p: INodeProperties, values: Record<string, string>): boolean {
	const show = p.displayOptions?.show ?? {};
	return Object.entries(show).every(
		([k, allowed]) => !(k in values) || (allowed as unknown[]).includes(values[k]),
	);
}

/** Every property of a description, nested ones included. */
function allProperties(props: INodeProperties[]): INodeProperties[] {
	return props.flatMap((p) => {
		const nested = (p.options ?? []).flatMap((o) =>
			'type' in o
				? allProperties([o as INodeProperties])
				: 'values' in o
					? allProperties(o.values as INodeProperties[])
					: [],
		);
		return [p, ...nested];
	});
}

describe.each(NODES.map((n) => [n.description.name, n] as const))('%s', (name, node) => {
	const v1 = node.getNodeType(1).description;
	const newest = node.getNodeType(NEWEST[name] ?? 2).description;

	test('the newest version is the default for new nodes; versions 2 on open on the main job', () => {
		expect(node.description.defaultVersion).toBe(NEWEST[name] ?? 2);
		for (let v = 2; v <= (NEWEST[name] ?? 2); v++) {
			const { resource, operation } = opensOn(node.getNodeType(v).description);
			expect([resource, operation]).toEqual(MAIN[name]);
		}
	});

	// the checks below are of the newest version, the form a new node gets

	test('no resource of the newest version opens on a destructive operation', () => {
		for (const p of newest.properties.filter((q) => q.name === 'operation')) {
			// a resource with nothing but a destructive operation (Agent → Action: Reject) has no choice
			const values = p.options!.map((o) => String((o as { value: string }).value));
			if (values.every((v) => DESTRUCTIVE.test(v))) continue;
			expect(`${p.displayOptions?.show?.resource}: ${p.default}`).not.toMatch(
				/: (delete|cancel|reject|archive|remove|discard)/i,
			);
		}
		expect(DESTRUCTIVE.test(MAIN[name][1])).toBe(false);
	});

	test('version 1 opens as released (first resource in alphabetical order, Get Many)', () => {
		const resources = v1.properties.find((p) => p.name === 'resource')!.options!;
		const first = [...resources].sort((a, b) => a.name.localeCompare(b.name))[0];
		expect(opensOn(v1).resource).toBe((first as { value: string }).value);
	});

	test("the main operation's required fields are on the first screen, each with help", () => {
		const [resource, operation] = MAIN[name];
		const required = newest.properties.filter(
			(p) => p.required && shownFor(p, { resource, operation }),
		);
		for (const p of required) {
			expect({ field: p.displayName, description: p.description ?? null }).toEqual({
				field: p.displayName,
				description: expect.stringMatching(/\w/),
			});
		}
	});

	test('lists speak in words: locator placeholders have no internal names', () => {
		for (const p of allProperties(newest.properties).filter((q) => q.type === 'resourceLocator')) {
			for (const mode of p.modes ?? []) {
				if (mode.placeholder) expect(mode.placeholder).not.toMatch(/[a-z][A-Z]|\.\.\./);
			}
			const list = p.modes!.find((m) => m.name === 'list')!;
			expect(list.placeholder).toMatch(/^Select an? [a-z0-9 ]+…$|^Select an? 3D scene…$/);
			expect(p.modes!.find((m) => m.name === 'id')!.hint).toMatch(
				/^The ID of the .+: the id field of /,
			);
		}
	});

	test('every Model ID, ID and JSON field says what it is', () => {
		const missing: string[] = [];
		for (const p of allProperties(newest.properties)) {
			const text = p.description ?? '';
			if (/model ?id$/i.test(p.displayName) && !text.includes('model picker'))
				missing.push(`${p.displayName}: no Model ID help`);
			if (/model ?id$/i.test(p.displayName) && p.placeholder !== MODEL_ID_PLACEHOLDER)
				missing.push(`${p.displayName}: no Model ID placeholder`);
			if (/\bIDs?$/.test(p.displayName) && p.type === 'string' && !/\bID|id\b/.test(text))
				missing.push(`${p.displayName}: no origin of the ID`);
			if (p.type === 'json' && !/e\.g\.|\{/.test(text))
				missing.push(`${p.displayName}: no JSON example`);
		}
		expect([...new Set(missing)]).toEqual([]);
	});

	test('the newest version as a tool: one description per operation, for the model (what, how, what it needs)', () => {
		const problems: string[] = [];
		const descriptions = newest.properties.filter((p) => p.name === 'toolDescription');
		for (const op of newest.properties.filter((p) => p.name === 'operation')) {
			const resource = String(op.displayOptions!.show!.resource![0]);
			for (const o of op.options as Array<{ value: string; name: string }>) {
				const at = `${resource} → ${o.name}`;
				const found = descriptions.filter(
					(d) =>
						d.displayOptions?.show?.resource?.includes(resource) &&
						d.displayOptions?.show?.operation?.includes(o.value),
				);
				if (found.length !== 1) {
					problems.push(`${at}: ${found.length} tool descriptions`);
					continue;
				}
				const [d] = found;
				const text = String(d.default);
				// shown only on the tool variant (n8n's `@tool`), so a workflow's form is unchanged
				if (JSON.stringify(d.displayOptions?.show?.['@tool']) !== '[true]')
					problems.push(`${at}: not tool-only`);
				if (!text.startsWith('MediaGen: ')) problems.push(`${at}: ${text}`);
				if (/binary|by default/i.test(text)) problems.push(`${at}: workflow terms: ${text}`);
				const required = newest.properties.filter(
					(p) =>
						p.required &&
						p.displayOptions?.show?.resource?.includes(resource) &&
						p.displayOptions?.show?.operation?.includes(o.value) &&
						p.name !== 'binaryPropertyName',
				);
				for (const r of required)
					if (!text.includes(r.displayName)) problems.push(`${at}: ${r.displayName} not named`);
				if (/^(delete)/i.test(o.value) && !text.includes('ask the user first'))
					problems.push(`${at}: a delete without a warning`);
			}
		}
		expect(problems).toEqual([]);
		// version 1 as released: n8n adds its own Tool Description there
		expect(v1.properties.some((p) => p.name === 'toolDescription')).toBe(false);
	});
});

/**
 * n8n's editor shows an option's description under its name in a dropdown, cut after two lines
 * (editor-ui ParameterInput: `option-description--clamped`, `-webkit-line-clamp: 2`); at the node
 * panel's default width (1440×900 window) that is about 110 characters: "Enable the endpoint if
 * MediaGen disabled it, then have MediaGen send its failed deliveries again, oldest first: the…"
 * (114) was cut there (#37, finding 9). Checked for every operation of every version of the action
 * nodes (MediaGen Trigger has no operation list; its event descriptions are short).
 */
const FITS_TWO_LINES = 100;

test('operation lists: within a resource, names and actions are distinct; every description fits two lines', () => {
	const problems: string[] = [];
	const overLong: string[] = [];
	for (const node of NODES) {
		for (const [version, type] of Object.entries(node.nodeVersions)) {
			for (const p of type.description.properties.filter((x) => x.name === 'operation')) {
				const options = (p.options ?? []) as Array<{
					name: string;
					action?: string;
					description?: string;
				}>;
				const resources = (p.displayOptions?.show?.resource ?? []).join(', ');
				const at = `${type.description.name}@${version} ${resources}`;
				for (const k of ['name', 'action'] as const) {
					const seen = options.map((o) => (o[k] ?? '').toLowerCase());
					const twice = seen.filter((v, i) => v && seen.indexOf(v) !== i);
					if (twice.length) problems.push(`${at}: ${k} twice: ${twice.join(', ')}`);
				}
				for (const o of options) {
					const length = (o.description ?? '').length;
					if (length > FITS_TWO_LINES)
						overLong.push(`${at} → ${o.name}: ${length} characters: ${o.description}`);
				}
			}
		}
	}
	expect(problems).toEqual([]);
	expect({ overTwoLines: FITS_TWO_LINES, descriptions: overLong }).toEqual({
		overTwoLines: FITS_TWO_LINES,
		descriptions: [],
	});
});
