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
 *   tsx scripts/surface.ts --new   write the file of every node version that has none yet (a NEW
 *                                  version); an existing file is never overwritten
 *   tsx scripts/surface.ts         list the node versions and whether each one is pinned
 */
import { existsSync, writeFileSync } from 'node:fs';
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
	if (property.modes) {
		surface.modes = property.modes.map((m) => ({
			name: m.name,
			type: m.type,
			typeOptions: m.typeOptions,
			validation: m.validation,
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

if (require.main === module) {
	const write = process.argv.includes('--new');
	for (const [name, surface] of currentSurfaces()) {
		const file = surfaceFile(name);
		if (existsSync(file)) {
			process.stdout.write(`pinned   ${name}\n`);
		} else if (write) {
			writeFileSync(file, `${JSON.stringify(surface, null, '\t')}\n`);
			process.stdout.write(`written  ${name}\n`);
		} else {
			process.stdout.write(`MISSING  ${name} (tsx scripts/surface.ts --new)\n`);
		}
	}
}
