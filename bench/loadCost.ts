/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions, no-console -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * B5, load cost: what installing the package costs n8n before any workflow runs.
 *
 *     node_modules/.bin/tsx bench/loadCost.ts             # 5 start-ups each, 1,000 items
 *     node_modules/.bin/tsx bench/loadCost.ts 3 1000      # start-ups each, items
 *
 * 1. Start-up: `n8n start` (2.40.7, Node 24) until GET /healthz/readiness answers 200, on a home
 *    with the packed package installed and on one without, alternating (one discarded warm-up
 *    start each, which also runs the database migrations); medians and the delta in %.
 * 2. Description size per node: JSON.stringify of each built node's description (dist/), bytes,
 *    top-level properties, and every property counted recursively (collection options and
 *    fixed-collection values included).
 * 3. Parameter resolution per item of the largest operation (the catalog endpoint with the most
 *    fields, nested fields included): in-process with n8n-core's engine (test/harness/engine/harness.ts,
 *    WorkflowExecute, real ExecuteContext), a probe node with the same description as the
 *    operation's node runs the package's own `prepareRequest` (nodes/shared/fields/request.ts: every
 *    getNodeParameter of the item, validation, request assembly; what the node does for an item
 *    before it sends anything) for 1,000 items with every field set, timed inside the node's
 *    execute; against a baseline of one `getNodeParameter('resource', i)` per item.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { startSandbox } from '../sandbox';
import { catalog } from '../nodes/shared/catalog';
import type { Endpoint, Field, FieldMap, Group } from '../nodes/shared/catalog/dsl';
import { optionalCollectionOf, pathParamName } from '../nodes/shared/fields/names';
import { catalogProperties } from '../nodes/shared/form/version';
import { prepareRequest } from '../nodes/shared/fields/request';
import { createN8nHome, startN8n, type N8nHome } from '../test/harness/e2e/n8n';
import { chain, NODE_TYPES, runWorkflow } from '../test/harness/engine/harness';
import { fmt, log, machine, median, packBuilt, table } from './lib';

const ROUNDS = Number(process.argv[2] ?? 5);
const ITEMS = Number(process.argv[3] ?? 1000);
const REPO = resolve(__dirname, '..');
const UUID = '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f';

// ---------------------------------------------------------------------------------------------
// 1. start-up

async function startUp(): Promise<string> {
	const pack = await packBuilt();
	const parent = mkdtempSync(join(tmpdir(), 'mediagen-bench-b5-'));
	try {
		log('creating two homes (with and without the package)...');
		const homes: Record<'with' | 'without', N8nHome> = {
			with: await createN8nHome({ tarball: pack.tarball, parentDir: parent }),
			without: await createN8nHome({ parentDir: parent }),
		};
		const times: Record<'with' | 'without', number[]> = { with: [], without: [] };
		for (let round = -1; round < ROUNDS; round++) {
			const order: Array<'with' | 'without'> =
				round % 2 === 0 ? ['with', 'without'] : ['without', 'with'];
			for (const which of order) {
				const t0 = performance.now();
				const n8n = await startN8n(homes[which], undefined, { timeoutMs: 180_000 });
				const ms = performance.now() - t0;
				await n8n.stop();
				if (round >= 0) times[which].push(ms);
				log(
					`start-up ${round < 0 ? 'warm-up' : `round ${round + 1}`} ${which} package: ${fmt(ms / 1000, 2)} s`,
				);
			}
		}
		const own = packageLoadTimes(homes.with);
		for (const h of Object.values(homes)) await h.cleanup();
		const w = median(times.with);
		const wo = median(times.without);
		const delta = (w - wo) / wo;
		return [
			table(
				['home', 'start-up to readiness, median (s)', 'each run (s)'],
				[
					[
						'with n8n-nodes-mediagen',
						fmt(w / 1000, 2),
						times.with.map((t) => fmt(t / 1000, 2)).join(' / '),
					],
					['without', fmt(wo / 1000, 2), times.without.map((t) => fmt(t / 1000, 2)).join(' / ')],
				],
			),
			`start-up delta: ${fmt((w - wo) / 1000, 2)} s = ${fmt(delta * 100, 1)} % (target ≤ 10 %): ${delta <= 0.1 ? 'MET' : 'MISSED'}`,
			`the package's own load, in a fresh Node 24 process (require of every node and credential file of the installed package, with n8n's n8n-workflow, and one instance of each class, as n8n's loader does): median ${fmt(median(own), 0)} ms (${own.map((t) => fmt(t, 0)).join(' / ')}) = ${fmt((median(own) / wo) * 100, 1)} % of the start-up without it`,
		].join('\n');
	} finally {
		pack.cleanup();
		rmSync(parent, { recursive: true, force: true });
	}
}

/**
 * Time to load the installed package the way n8n does (require each file named in its `n8n`
 * field, instantiate each class), in fresh Node 24 processes, n8n-workflow preloaded from n8n.
 */
function packageLoadTimes(home: N8nHome): number[] {
	const dir = home.communityPackage!.dir;
	const n8nModules = dirname(dirname(dirname(home.runtime.bin)));
	const script = `
const path = require('path');
require('n8n-workflow');
const pkg = require(path.join(process.argv[1], 'package.json'));
const t = process.hrtime.bigint();
for (const f of [...pkg.n8n.credentials, ...pkg.n8n.nodes]) {
	for (const C of Object.values(require(path.join(process.argv[1], f)))) if (typeof C === 'function' && /^class /.test(Function.prototype.toString.call(C))) new C();
}
process.stdout.write(String(Number(process.hrtime.bigint() - t) / 1e6));`;
	const out: number[] = [];
	for (let i = 0; i < 5; i++) {
		const r = spawnSync(home.runtime.node, ['-e', script, dir], {
			env: { ...process.env, NODE_PATH: n8nModules },
			encoding: 'utf8',
		});
		if (r.status !== 0) throw new Error(`package load: ${r.stderr}`);
		out.push(Number(r.stdout));
	}
	return out;
}

// ---------------------------------------------------------------------------------------------
// 2. description sizes

function countProperties(props: unknown[]): number {
	let n = 0;
	for (const p of props as Array<Record<string, unknown>>) {
		if (!p || typeof p !== 'object') continue;
		if ('values' in p && Array.isArray(p.values) && !('type' in p)) {
			n += countProperties(p.values); // a fixed collection's option group
			continue;
		}
		n++;
		if ((p.type === 'collection' || p.type === 'fixedCollection') && Array.isArray(p.options)) {
			n += countProperties(p.options);
		}
	}
	return n;
}

async function descriptionSizes(): Promise<string> {
	const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
		n8n: { nodes: string[] };
	};
	const rows: Array<Array<string | number>> = [];
	let total = 0;
	for (const file of pkg.n8n.nodes) {
		const mod = (await import(join(REPO, file))) as Record<string, new () => INodeType>;
		const Cls = Object.values(mod).find((v) => typeof v === 'function' && /\.node\.js$/.test(file));
		if (!Cls) continue;
		const node = new Cls() as INodeType & {
			nodeVersions?: Record<number, INodeType>;
			currentVersion?: number;
		};
		const description: INodeTypeDescription =
			node.description ?? node.nodeVersions![node.currentVersion!].description;
		const bytes = Buffer.byteLength(JSON.stringify(description));
		total += bytes;
		rows.push([
			description.name,
			bytes,
			fmt(bytes / 1024, 1),
			description.properties.length,
			countProperties(description.properties),
		]);
	}
	rows.push(['**all nodes**', total, fmt(total / 1024, 1), '', '']);
	return table(
		['node', 'description (bytes)', 'KiB', 'top-level properties', 'all properties (nested)'],
		rows,
	);
}

// ---------------------------------------------------------------------------------------------
// 3. parameter resolution of the largest operation

function fieldCount(fields: FieldMap): number {
	let n = 0;
	for (const f of Object.values(fields)) {
		n++;
		if (f.kind === 'object' || f.kind === 'objectList') n += fieldCount(f.fields);
	}
	return n;
}

/** A valid value for a field (the largest value the limits allow is not the point: all set). */
function sample(f: Field): unknown {
	switch (f.kind) {
		case 'string':
			if (f.pattern) return f.pattern.example;
			if (f.format === 'uri') return 'https://example.com/bench.png';
			return 'bench value';
		case 'integer':
		case 'number':
			return f.min ?? 1;
		case 'boolean':
			return true;
		case 'uuid':
			return UUID;
		case 'options':
			return f.values[0];
		case 'multiOptions':
			return [f.values[0]];
		case 'list':
			return f.of === 'uuid' ? [UUID] : f.of === 'integer' ? [1] : ['a'];
		case 'json':
			return { key: 'value' };
		case 'object':
			return sampleValues(f.fields);
		case 'objectList':
			return [sampleValues(f.fields)];
	}
}

function sampleValues(fields: FieldMap): IDataObject {
	const out: IDataObject = {};
	for (const [k, f] of Object.entries(fields))
		if (!f.derived) out[k] = sample(f) as IDataObject[string];
	return out;
}

async function parameterResolution(): Promise<string> {
	// the endpoint with the most fields, over every node
	let best:
		| { node: string; groups: Group[]; group: Group; e: Endpoint; fields: number }
		| undefined;
	for (const [node, groups] of Object.entries(catalog)) {
		for (const group of groups) {
			for (const e of group.endpoints) {
				const fields = fieldCount(e.query) + fieldCount(e.body) + fieldCount(e.pathParams);
				if (!best || fields > best.fields) best = { node, groups, group, e, fields };
			}
		}
	}
	const { node, groups, group, e, fields } = best!;
	const values = { ...sampleValues(e.query), ...sampleValues(e.body) };
	const parameters: IDataObject = {
		resource: group.resource,
		operation: e.operation,
		...values,
		[optionalCollectionOf(e).name]: values,
	};
	for (const [k, f] of Object.entries(e.pathParams)) {
		parameters[pathParamName(k, f)] = { __rl: true, mode: 'id', value: UUID };
	}
	const properties: INodeProperties[] = catalogProperties(groups);
	const timings: Record<string, number> = {};
	let calls = 0;
	let bodyKeys = 0;
	const probe = (mode: 'prepare' | 'baseline' | 'count'): INodeType => ({
		description: {
			displayName: 'Probe',
			name: 'probe',
			group: ['transform'],
			version: 1,
			description: 'bench probe',
			defaults: { name: 'Probe' },
			inputs: ['main'],
			outputs: ['main'],
			properties,
		} as INodeTypeDescription,
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			const items = this.getInputData();
			if (mode === 'count') {
				const original = this.getNodeParameter.bind(this);
				(this as unknown as { getNodeParameter: unknown }).getNodeParameter = (
					...args: unknown[]
				) => {
					calls++;
					return (original as (...a: unknown[]) => unknown)(...args);
				};
				const req = prepareRequest(this, e, 0);
				bodyKeys = Object.keys(req.body ?? {}).length + Object.keys(req.qs).length;
				return [items.slice(0, 1)];
			}
			const t0 = performance.now();
			for (let i = 0; i < items.length; i++) {
				if (mode === 'prepare') prepareRequest(this, e, i);
				else this.getNodeParameter('resource', i);
			}
			timings[mode] = performance.now() - t0;
			return [items.slice(0, 1)];
		},
	});
	const sb = await startSandbox({ port: 0, quiet: true, rateLimitPerMinute: 0 });
	const per: Record<string, number[]> = { prepare: [], baseline: [] };
	try {
		const credentials = { mediaGenApi: { apiKey: sb.keys.pro, baseUrl: sb.baseUrl } };
		const items = Array.from({ length: ITEMS }, (_, i) => ({ i }));
		const run = async (mode: 'prepare' | 'baseline' | 'count') => {
			NODE_TYPES['bench.probe'] = probe(mode);
			const r = await runWorkflow(
				chain(items, [{ name: 'Probe', type: 'bench.probe', parameters: parameters as never }]),
				{ credentials },
			);
			if (r.error)
				throw new Error(`probe (${mode}): ${r.error.message} ${r.error.description ?? ''}`);
		};
		await run('count');
		for (let round = 0; round < 7; round++) {
			for (const mode of round % 2
				? (['baseline', 'prepare'] as const)
				: (['prepare', 'baseline'] as const)) {
				await run(mode);
				if (round > 0) per[mode].push(timings[mode]); // round 0: warm-up (JIT)
			}
		}
	} finally {
		await sb.close();
	}
	const prep = median(per.prepare);
	const base = median(per.baseline);
	return [
		`Largest operation: ${node} → ${group.name} → ${e.name} (${e.method} ${e.path}): ${fields} fields ` +
			`(nested included); ${calls} getNodeParameter calls per item; ${bodyKeys} body/query keys sent.`,
		table(
			[
				'work per item (in-process, n8n-core 2.40.3 engine)',
				'µs / item (median of 6)',
				`ms for ${ITEMS} items, each run`,
			],
			[
				[
					'prepareRequest, every field set',
					fmt((prep * 1000) / ITEMS, 1),
					per.prepare.map((x) => fmt(x, 1)).join(' / '),
				],
				[
					"baseline: one getNodeParameter('resource', i)",
					fmt((base * 1000) / ITEMS, 1),
					per.baseline.map((x) => fmt(x, 1)).join(' / '),
				],
			],
		),
	].join('\n');
}

async function main() {
	const only = process.env.B5_ONLY; // 'sizes' | 'params' | 'startup' (for partial runs)
	const parts: string[] = [];
	if (!only || only === 'sizes')
		parts.push('### Description sizes\n\n' + (await descriptionSizes()));
	if (!only || only === 'params')
		parts.push('### Parameter resolution\n\n' + (await parameterResolution()));
	if (!only || only === 'startup') parts.push('### Start-up\n\n' + (await startUp()));
	console.log(`\nB5 load cost, ${new Date().toISOString()}\n${machine()}\n`);
	console.log(parts.join('\n\n'));
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
