/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, no-console -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * Output schemas: for every operation of every node version, the JSON Schema of the node's default
 * output item, written where n8n looks for it, `nodes/<Node>/__schema__/v<x.y.z>/<resource>/
 * <operation>.json` (the trigger: `v<x.y.z>/output.json`). `n8n-node build` copies every
 * `**\/__schema__/**\/*.json` into dist/ beside the built node file; n8n serves them at
 * `GET /schemas/<node type>/<x.y.z>/<resource>/<operation>.json` and its editor shows them for a
 * node that has not run (docs/output-schemas.md).
 *
 * One source: the catalog (which operations exist and how they behave), what each endpoint answers
 * (./output-schemas/records.ts) and the defaults of each node version's own parameters (Wait for
 * Completion, Return As, Download File, Output), read from the node descriptions. The files are
 * never written by hand.
 *
 *   tsx scripts/output-schemas.ts          write them (npm run schemas; npm run build runs it)
 *   tsx scripts/output-schemas.ts --check  exit 1 when a file is missing, stale or left over
 */
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

import type {
	IDataObject,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	IVersionedNodeType,
} from 'n8n-workflow';

import { MediaGen } from '../nodes/MediaGen/MediaGen.node.ts';
import { MediaGen3d } from '../nodes/MediaGen3d/MediaGen3d.node.ts';
import { MediaGenAds } from '../nodes/MediaGenAds/MediaGenAds.node.ts';
import { MediaGenAgent } from '../nodes/MediaGenAgent/MediaGenAgent.node.ts';
import { MediaGenCanvas } from '../nodes/MediaGenCanvas/MediaGenCanvas.node.ts';
import { MediaGenCinema } from '../nodes/MediaGenCinema/MediaGenCinema.node.ts';
import { MediaGenEditor } from '../nodes/MediaGenEditor/MediaGenEditor.node.ts';
import { MediaGenInfluencer } from '../nodes/MediaGenInfluencer/MediaGenInfluencer.node.ts';
import { MediaGenTrigger } from '../nodes/MediaGenTrigger/MediaGenTrigger.node.ts';
import { catalog } from '../nodes/shared/catalog';
import type { Endpoint } from '../nodes/shared/catalog/dsl';
import { INPUT_SOURCES_VERSION } from '../nodes/shared/catalog/versions';
import { simplify } from '../nodes/shared/form/output';
import { findEndpoint } from '../nodes/shared/run/execute';
import {
	RESPONSES,
	deliveryRetries,
	downloadInfo,
	subtitles,
	triggerEvent,
} from './output-schemas/records';
import type { JsonSchema } from './output-schemas/schema';
import { extend, isPage, string } from './output-schemas/schema';

export const ROOT = join(__dirname, '..');

/** Every node of the package, by node type name (package.json `n8n.nodes` must list exactly these). */
const NODE_TYPES: Record<string, () => IVersionedNodeType> = {
	mediaGen: () => new MediaGen(),
	mediaGenInfluencer: () => new MediaGenInfluencer(),
	mediaGenAds: () => new MediaGenAds(),
	mediaGenEditor: () => new MediaGenEditor(),
	mediaGenCinema: () => new MediaGenCinema(),
	mediaGenCanvas: () => new MediaGenCanvas(),
	mediaGen3d: () => new MediaGen3d(),
	mediaGenAgent: () => new MediaGenAgent(),
	mediaGenTrigger: () => new MediaGenTrigger(),
};

/** One schema file: where it goes, what it describes, and the schema. */
export interface SchemaFile {
	/** Path from the repository root, e.g. nodes/MediaGen/__schema__/v2.0.0/generation/create.json */
	path: string;
	node: string;
	version: number;
	/** Absent for the trigger (its one output: `output.json`). */
	resource?: string;
	operation?: string;
	schema: JsonSchema;
}

/** n8n's version folder name: 2 → v2.0.0 (n8n-core's output-schema-resolver, padVersion). */
export function versionDir(version: number): string {
	return `v${String(version).split('.').concat(['0', '0']).slice(0, 3).join('.')}`;
}

/** package.json `n8n.nodes`: node type name → the node's source folder (nodes/<Node>). */
export function listedNodes(): Array<{ name: string; dir: string }> {
	const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
		n8n: { nodes: string[] };
	};
	return pkg.n8n.nodes.map((file) => {
		const base = file
			.split('/')
			.pop()!
			.replace(/\.node\.js$/, '');
		return {
			name: `${base[0].toLowerCase()}${base.slice(1)}`,
			dir: dirname(file).replace(/^dist\//, ''),
		};
	});
}

// ---------------------------------------------------------------------------------------------
// The defaults of a node version's parameters for one operation

function shown(p: INodeProperties, values: IDataObject): boolean {
	const { show, hide } = p.displayOptions ?? {};
	for (const [key, allowed] of Object.entries(show ?? {})) {
		if (!(key in values) || !(allowed as unknown[]).includes(values[key])) return false;
	}
	for (const [key, hidden] of Object.entries(hide ?? {})) {
		if (key in values && (hidden as unknown[]).includes(values[key])) return false;
	}
	return true;
}

/**
 * What a node version's parameters are for an operation when the user sets nothing else: each
 * parameter shown for it, with its default (in form order, so that Return As sees Wait for
 * Completion's default).
 */
export function defaultsOf(
	description: INodeTypeDescription,
	resource: string,
	operation: string,
): IDataObject {
	const values: IDataObject = { resource, operation };
	for (const p of description.properties) {
		if (!(p.name in values) && shown(p, values)) values[p.name] = p.default as IDataObject[string];
	}
	return values;
}

// ---------------------------------------------------------------------------------------------
// From an endpoint's answer to the node's output item

const lineOf = (method: string, path: string) => `${method} ${path}`;
/** Placeholders named alike: a job's poll path `/generations/{jobId}` is `GET /generations/{id}`. */
const shapeKey = (line: string) => line.replace(/\{\w+\}/g, '{}');
const byShapeKey = new Map(Object.entries(RESPONSES).map(([line, s]) => [shapeKey(line), s]));

function answerOf(method: string, path: string, why: string): JsonSchema {
	const schema = byShapeKey.get(shapeKey(lineOf(method, path)));
	if (!schema) {
		throw new Error(
			`No answer declared for ${lineOf(method, path)} (${why}): add what it returns to RESPONSES in scripts/output-schemas/records.ts`,
		);
	}
	return schema;
}

/** The records a list answer holds (the nodes output one item per record), or the answer. */
function recordsOf(answer: JsonSchema): JsonSchema {
	return isPage(answer) ? answer.properties!.data.items! : answer;
}

function arrayItems(record: JsonSchema, key: string, where: string): JsonSchema {
	const items = record.properties?.[key]?.items;
	if (!items) throw new Error(`${where}: the record has no array "${key}"`);
	return items;
}

/** The simplified record (Output: Simplified, nodes/shared/form/output.ts `simplify`). */
function simplified(record: JsonSchema, where: string): JsonSchema {
	const keys = Object.keys(record.properties ?? {});
	const required = record.required ?? [];
	const keptOf = (ks: string[]) =>
		Object.keys(simplify(Object.fromEntries(ks.map((k) => [k, null]))));
	const kept = keptOf(keys);
	if (kept.length === keys.length) return record;
	// a record with only its required fields must be simplified the same way
	const keptRequired = keptOf(required);
	if (keptRequired.length === required.length && required.some((k) => !kept.includes(k))) {
		throw new Error(
			`${where}: whether Output: Simplified changes this record depends on its optional fields; declare them as always present or not at all`,
		);
	}
	return {
		...record,
		properties: Object.fromEntries(kept.map((k) => [k, record.properties![k]])),
		required: required.filter((k) => kept.includes(k)),
	};
}

/**
 * The default output item of one operation of a node version, from what its endpoint answers and
 * what the node does with it (each behaviour's `send`, nodes/shared/behaviours/, and
 * nodes/shared/jobs/output.ts `jobOutput`).
 */
export function operationSchema(
	e: Endpoint,
	settings: IDataObject,
	where: string,
	version = 1,
): JsonSchema {
	const answer = () => answerOf(e.method, e.path, where);
	let item: JsonSchema;
	if (e.nodeOperation?.kind === 'retryDeliveries') {
		// behaviours/webhookRetry.ts: one summary item per input item
		item = deliveryRetries;
	} else if (e.answerList && version >= INPUT_SOURCES_VERSION) {
		// behaviours/itemLists.ts answerList: one output item per entry of that list of the answer
		item = arrayItems(answer(), e.answerList, where);
	} else if (e.binary === 'upload') {
		// files/upload.ts uploadBinary: the parts are sent, then the upload completed; its asset is the output
		item = answerOf('POST', '/uploads/{id}/complete', `${where}, the completed upload`);
	} else if (e.paginate) {
		const page = answer();
		const extras = Object.fromEntries(
			(e.listExtras ?? []).map((k) => [k, page.properties?.[k] ?? {}]),
		);
		item = extend(recordsOf(page), extras);
	} else if (e.binary === 'download') {
		item = downloadInfo;
	} else if (e.binary === 'text') {
		item = subtitles;
	} else if (e.job && (settings.waitForCompletion === true || e.nodeOperation?.kind === 'wait')) {
		// a Wait operation always waits (it has no Wait for Completion)
		const polled = answerOf('GET', e.job.poll, `${where}, the job it waits for`);
		item = e.job.within ? arrayItems(polled, e.job.within, where) : polled;
		if (settings.returnAs !== 'json') {
			// jobs/output.ts jobOutput: Binary and Both add the downloaded files; no operation has them by default
			throw new Error(
				`${where}: Return As ${String(settings.returnAs)} by default is not described`,
			);
		}
	} else if (e.job) {
		// jobs/output.ts startedJobs: the started job, or each job of `{ data: [...] }`
		const started = answer();
		item = started.properties?.data?.items ?? started;
	} else {
		item = recordsOf(answer());
	}
	if (item.type !== 'object') {
		throw new Error(
			`${where}: the output of this operation is not a record; describe it in the generator`,
		);
	}
	if (e.notice) item = extend(item, { notice: string });
	return settings.output === 'simplified' ? simplified(item, where) : item;
}

// ---------------------------------------------------------------------------------------------
// Every file

function optionValues(
	description: INodeTypeDescription,
	name: string,
	resource?: string,
): string[] {
	const p = description.properties.find(
		(x) => x.name === name && (resource === undefined || shown(x, { resource })),
	);
	return (p?.options ?? []).map((o) => String((o as { value: unknown }).value));
}

/** The schema file of every operation of every node version (of the trigger: its output). */
export function schemaFiles(): SchemaFile[] {
	const files: SchemaFile[] = [];
	for (const { name, dir } of listedNodes()) {
		const make = NODE_TYPES[name];
		if (!make) {
			throw new Error(
				`package.json lists node ${name}, which scripts/output-schemas.ts does not know: add it to NODE_TYPES`,
			);
		}
		const nodeType = make();
		for (const [v, version] of Object.entries(nodeType.nodeVersions)) {
			const description = (version as INodeType).description;
			const folder = `${dir}/__schema__/${versionDir(Number(v))}`;
			if (description.group.includes('trigger')) {
				files.push({
					path: `${folder}/output.json`,
					node: name,
					version: Number(v),
					schema: triggerEvent,
				});
				continue;
			}
			const groups = catalog[name];
			if (!groups) throw new Error(`Node ${name} is neither a catalog node nor a trigger`);
			for (const resource of optionValues(description, 'resource')) {
				for (const operation of optionValues(description, 'operation', resource)) {
					const where = `${name} v${v} ${resource} → ${operation}`;
					const e = findEndpoint(groups, resource, operation);
					if (!e) throw new Error(`${where}: not in the catalog`);
					files.push({
						path: `${folder}/${resource}/${operation}.json`,
						node: name,
						version: Number(v),
						resource,
						operation,
						schema: operationSchema(
							e,
							defaultsOf(description, resource, operation),
							where,
							Number(v),
						),
					});
				}
			}
		}
	}
	return files;
}

/** A schema file's text (tab-indented JSON; generated, so Prettier leaves it alone). */
export function fileText(schema: JsonSchema): string {
	return `${JSON.stringify(schema, null, '\t')}\n`;
}

/** Every schema file under nodes/ now, relative to the root. */
export function existingSchemaFiles(root = ROOT): string[] {
	const out: string[] = [];
	const walk = (dir: string, inSchema: boolean) => {
		for (const entry of readdirSync(dir, { withFileTypes: true })) {
			const path = join(dir, entry.name);
			if (entry.isDirectory()) walk(path, inSchema || entry.name === '__schema__');
			else if (inSchema) out.push(relative(root, path));
		}
	};
	walk(join(root, 'nodes'), false);
	return out.sort();
}

/** What differs between the generated schemas and the files under `root`: one line each. */
export function staleSchemaFiles(root = ROOT): string[] {
	const problems: string[] = [];
	const expected = new Set<string>();
	for (const f of schemaFiles()) {
		expected.add(f.path);
		let text: string | undefined;
		try {
			text = readFileSync(join(root, f.path), 'utf8');
		} catch {
			problems.push(`missing: ${f.path}`);
			continue;
		}
		if (text !== fileText(f.schema)) problems.push(`stale: ${f.path}`);
	}
	for (const path of existingSchemaFiles(root)) {
		if (!expected.has(path)) problems.push(`not generated (left over): ${path}`);
	}
	return problems;
}

function main(): void {
	if (process.argv.includes('--check')) {
		const problems = staleSchemaFiles();
		for (const p of problems) console.error(p);
		if (problems.length) {
			console.error('Output schemas are out of date: run npm run schemas');
			process.exit(1);
		}
		return;
	}
	const files = schemaFiles();
	const keep = new Set(files.map((f) => f.path));
	for (const path of existingSchemaFiles()) if (!keep.has(path)) rmSync(join(ROOT, path));
	for (const f of files) {
		mkdirSync(dirname(join(ROOT, f.path)), { recursive: true });
		writeFileSync(join(ROOT, f.path), fileText(f.schema));
	}
	console.log(`${files.length} output schemas in nodes/*/__schema__`);
}

if (require.main === module) {
	try {
		main();
	} catch (error) {
		console.error((error as Error).message);
		process.exit(1);
	}
}
