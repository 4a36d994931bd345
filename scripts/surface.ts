/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * The parameter surface of every node version and of the credential: what a saved workflow (or a
 * saved credential) depends on. n8n saves a node's parameters without those left at their default
 * and loads them into the node version the workflow was saved with, so a released version must keep
 * its parameter names, types, defaults, display conditions, option values, type options and
 * required flags for ever. Wording (display names, descriptions, placeholders, hints) and the order
 * of parameters are not part of it.
 *
 * test/surface/<node>@<version>.json pins each released node version, test/surface/<credential>.json
 * the credential; test/unit/surface.test.ts compares them with the current descriptions.
 *
 *   npm run surface:new   (--new) write the file of every node version that has none yet (a NEW
 *                         version); an existing file is never overwritten
 *   npm run surface:add   (--add) add new parameters and new option values to a pinned file; a
 *                         file whose pinned content changed is never rewritten (exit code 1)
 *   tsx scripts/surface.ts         list the node versions and whether each one is pinned
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

import type {
	ICredentialType,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

export const SURFACE_DIR = join(__dirname, '..', 'test', 'surface');
const ROOT = join(__dirname, '..');

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Plain JSON with object keys sorted, so that key order never counts as a change. */
function canonical(value: unknown): Json {
	if (value === null || typeof value !== 'object') {
		return typeof value === 'function' || value === undefined ? null : (value as Json);
	}
	if (Array.isArray(value)) return value.map(canonical);
	const out: { [key: string]: Json } = {};
	for (const key of Object.keys(value).sort()) {
		const v = (value as Record<string, unknown>)[key];
		if (v !== undefined && typeof v !== 'function') out[key] = canonical(v);
	}
	return out;
}

/** Whether a `@version` display condition lets `version` see the parameter. */
function versionMatches(conditions: unknown[], version: number): boolean {
	return conditions.some((c) => {
		if (typeof c === 'number') return c === version;
		const cnd = (c as { _cnd?: Record<string, number> })._cnd ?? {};
		return Object.entries(cnd).every(([op, v]) => {
			if (op === 'eq') return version === v;
			if (op === 'not') return version !== v;
			if (op === 'gte') return version >= v;
			if (op === 'lte') return version <= v;
			if (op === 'gt') return version > v;
			if (op === 'lt') return version < v;
			return true;
		});
	});
}

function visibleIn(property: INodeProperties, version: number): boolean {
	const show = property.displayOptions?.show?.['@version'];
	const hide = property.displayOptions?.hide?.['@version'];
	if (show && !versionMatches(show as unknown[], version)) return false;
	if (hide && versionMatches(hide as unknown[], version)) return false;
	return true;
}

/** Parameters keyed by name (and display condition, where one name is declared more than once). */
function propertyMap(properties: INodeProperties[], version: number): Json {
	const out: { [key: string]: Json } = {};
	for (const property of properties.filter((p) => visibleIn(p, version))) {
		const base = property.displayOptions
			? `${property.name} when ${JSON.stringify(canonical(property.displayOptions))}`
			: property.name;
		let key = base;
		for (let n = 2; key in out; n++) key = `${base} #${n}`;
		out[key] = propertySurface(property, version);
	}
	return out;
}

function propertySurface(property: INodeProperties, version: number): Json {
	const surface: Record<string, unknown> = {
		type: property.type,
		default: property.default,
		required: property.required,
		displayOptions: property.displayOptions,
		typeOptions: property.typeOptions,
	};
	const options = (property.options ?? []) as unknown as Array<Record<string, unknown>>;
	if (property.type === 'options' || property.type === 'multiOptions') {
		surface.options = options
			.map((o) => o.value)
			.sort((a, b) => String(a).localeCompare(String(b)));
	} else if (property.type === 'collection') {
		surface.options = propertyMap(options as unknown as INodeProperties[], version);
	} else if (property.type === 'fixedCollection') {
		const groups: Record<string, Json> = {};
		for (const group of options) {
			groups[String(group.name)] = propertyMap((group.values ?? []) as INodeProperties[], version);
		}
		surface.options = groups;
	}
	// A mode's `validation` is not pinned: removing one never breaks a saved workflow, and adding
	// one (which could refuse saved values) is refused for its own reason by
	// test/engine/safeRegex.test.ts (n8n runs it in its guarded regex engine at every execution).
	if (property.modes) {
		surface.modes = property.modes.map((m) => ({
			name: m.name,
			type: m.type,
			typeOptions: m.typeOptions,
			extractValue: m.extractValue,
		}));
	}
	return canonical(surface);
}

/** What a saved workflow depends on in one version of a node. */
export function nodeSurface(description: INodeTypeDescription, version: number): Json {
	return canonical({
		node: description.name,
		version,
		credentials: (description.credentials ?? []).map((c) => ({
			name: c.name,
			required: c.required,
			displayOptions: c.displayOptions,
		})),
		properties: propertyMap(description.properties, version),
	});
}

export function credentialSurface(credential: ICredentialType): Json {
	return canonical({
		credential: credential.name,
		properties: propertyMap(credential.properties, 1),
	});
}

interface PackageJson {
	n8n: { nodes: string[]; credentials: string[] };
}

/** Loads a class the way package.json lists it (dist/x/Y.node.js -> the source x/Y.node.ts). */
function load<T>(distPath: string): T {
	const source = join(ROOT, distPath.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
	const className = basename(source).split('.')[0];
	// eslint-disable-next-line @typescript-eslint/no-require-imports -- the list comes from package.json
	const Class = (require(source) as Record<string, new () => T>)[className];
	return new Class();
}

/** Every node version and the credential of the package, by the file name of its surface. */
export function currentSurfaces(): Map<string, Json> {
	// eslint-disable-next-line @typescript-eslint/no-require-imports -- read at call time
	const pkg = require(join(ROOT, 'package.json')) as PackageJson;
	const out = new Map<string, Json>();
	for (const path of pkg.n8n.nodes) {
		const node = load<INodeType & { nodeVersions?: Record<number, INodeType> }>(path);
		const versions: Array<[number, INodeTypeDescription]> = node.nodeVersions
			? Object.entries(node.nodeVersions).map(([v, n]) => [
					Number(v),
					{ ...node.description, ...n.description },
				])
			: ([] as number[]).concat(node.description.version).map((v) => [v, node.description]);
		for (const [version, description] of versions) {
			out.set(`${description.name}@${version}.json`, nodeSurface(description, version));
		}
	}
	for (const path of pkg.n8n.credentials) {
		const credential = load<ICredentialType>(path);
		out.set(`${credential.name}.json`, credentialSurface(credential));
	}
	return out;
}

export function surfaceFile(name: string): string {
	return join(SURFACE_DIR, name);
}

export interface Difference {
	/** `added`: a new parameter or a new option value, which saved workflows do not notice. */
	kind: 'added' | 'changed';
	text: string;
}

const isParameter = (v: unknown) => !!v && typeof v === 'object' && 'type' in v && 'default' in v;
const isPrimitiveList = (v: unknown): v is Array<string | number | boolean> =>
	Array.isArray(v) && v.every((x) => typeof x !== 'object');

/**
 * Where the current surface differs from the pinned one. A parameter that is new (in the node, a
 * collection or a fixed collection) and a value added to an options list are `added`: a saved
 * workflow does not have them and keeps working. Everything else (a removed or renamed parameter,
 * a changed type, default, display condition, type option or required flag, a removed option
 * value) is `changed`.
 */
export function differences(pinned: unknown, current: unknown, path = ''): Difference[] {
	if (JSON.stringify(pinned) === JSON.stringify(current)) return [];
	const show = (v: unknown) => JSON.stringify(v) ?? '(absent)';
	if (pinned === undefined && isParameter(current)) {
		return [{ kind: 'added', text: `${path}: new parameter ${show(current)}` }];
	}
	if (path.endsWith('["options"]') && isPrimitiveList(pinned) && isPrimitiveList(current)) {
		const removed = pinned.filter((v) => !current.includes(v));
		const added = current.filter((v) => !pinned.includes(v));
		return [
			...(removed.length
				? [{ kind: 'changed' as const, text: `${path}: option values removed ${show(removed)}` }]
				: []),
			...(added.length
				? [{ kind: 'added' as const, text: `${path}: option values added ${show(added)}` }]
				: []),
		];
	}
	if (
		pinned &&
		current &&
		typeof pinned === 'object' &&
		typeof current === 'object' &&
		!Array.isArray(pinned) &&
		!Array.isArray(current)
	) {
		const keys = [...new Set([...Object.keys(pinned), ...Object.keys(current)])];
		return keys.flatMap((k) =>
			differences(
				(pinned as Record<string, unknown>)[k],
				(current as Record<string, unknown>)[k],
				`${path}[${JSON.stringify(k)}]`,
			),
		);
	}
	return [{ kind: 'changed', text: `${path || '(root)'}: ${show(pinned)} -> ${show(current)}` }];
}

if (require.main === module) {
	const writeNew = process.argv.includes('--new');
	const writeAdded = process.argv.includes('--add');
	const save = (file: string, surface: Json) =>
		writeFileSync(file, `${JSON.stringify(surface, null, '\t')}\n`);
	let refused = 0;
	for (const [name, surface] of currentSurfaces()) {
		const file = surfaceFile(name);
		if (!existsSync(file)) {
			if (writeNew) save(file, surface);
			process.stdout.write(
				writeNew ? `written  ${name}\n` : `MISSING  ${name} (npm run surface:new)\n`,
			);
			continue;
		}
		const diff = differences(JSON.parse(readFileSync(file, 'utf8')), surface);
		const changed = diff.filter((d) => d.kind === 'changed');
		if (!diff.length) {
			process.stdout.write(`pinned   ${name}\n`);
		} else if (changed.length) {
			refused++;
			process.stdout.write(`CHANGED  ${name}: make a new node version; not rewritten\n`);
			for (const d of changed.slice(0, 10)) process.stdout.write(`  ${d.text}\n`);
		} else if (writeAdded) {
			save(file, surface);
			process.stdout.write(
				`added    ${name}: ${diff.length} new parameter(s) or option value(s) pinned\n`,
			);
		} else {
			process.stdout.write(
				`NEW      ${name}: ${diff.length} new parameter(s) or option value(s) (npm run surface:add)\n`,
			);
		}
	}
	process.exitCode = refused ? 1 : 0;
}
