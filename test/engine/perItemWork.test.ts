/**
 * B1's work, counted rather than timed (bench/README.md, B1): a 1,000-item read through n8n-core's
 * engine, the real MediaGen node (version 1) and credential, over real HTTP to the sandbox, with
 * every call the node makes of n8n's execute functions and their helpers counted. The counts are
 * exact: work added per item (another `getNodeParameter`, a credential read, a saved-execution
 * read, a node-context write) fails here, whatever the machine's speed.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { MediaGen } from '../../nodes/MediaGen/MediaGen.node.ts';
import { simplify } from '../../nodes/shared/form/output';
import { client } from '../harness/sandbox/helpers';
import { mediaGen } from '../harness/engine/harness';
import { nodeFactory, rl, useSandbox } from '../harness/engine/setup';

const { sb, runOne } = useSandbox({ timeScale: 0.001 });

/** Calls by name: `getNodeParameter`, `helpers.httpRequestWithAuthentication`, … */
type Counts = Record<string, number>;
let counts: Counts = {};
const count = (name: string) => void (counts[name] = (counts[name] ?? 0) + 1);

/** The helpers object with each function call counted (called with the `this` it was given). */
function countedHelpers(helpers: IExecuteFunctions['helpers']): IExecuteFunctions['helpers'] {
	return new Proxy(helpers, {
		get(target, key, receiver) {
			const value: unknown = Reflect.get(target, key, receiver);
			if (typeof value !== 'function') return value;
			return function (this: unknown, ...args: unknown[]) {
				count(`helpers.${String(key)}`);
				return (value as (...a: unknown[]) => unknown).apply(this, args);
			};
		},
	});
}

/** n8n's execute context with every method call counted (and the helpers' calls). */
function countedContext(ctx: IExecuteFunctions): IExecuteFunctions {
	const helpers = countedHelpers(ctx.helpers);
	return new Proxy(ctx, {
		get(target, key) {
			if (key === 'helpers') return helpers;
			const value: unknown = Reflect.get(target, key, target);
			if (typeof value !== 'function') return value;
			return (...args: unknown[]) => {
				count(String(key));
				return (value as (...a: unknown[]) => unknown).apply(target, args);
			};
		},
	});
}

/** The MediaGen node (version 1) under another type name, run with a counting context. */
const inner = new MediaGen().getNodeType(1);
const counted: INodeType = {
	description: { ...inner.description, name: 'countedMediaGen' } as INodeTypeDescription,
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return (await inner.execute!.call(countedContext(this))) as INodeExecutionData[][];
	},
};
const node = nodeFactory(counted);

const N = 1000;
/** 1,000 requests take a few seconds, far longer on a loaded machine: nothing here is timed. */
jest.setTimeout(180_000);

async function read(parameters: IDataObject, items: IDataObject[]) {
	sb.control.clearRequests();
	counts = {};
	const result = await runOne(node('MediaGen', parameters as never), items);
	expect(result.error).toBeUndefined();
	expect(result.out).toHaveLength(items.length);
	return { counts: { ...counts }, requests: sb.control.requests({}) };
}

/** `perItem` calls for each item and `perRun` once, as `{ name: total }`. */
const expected = (n: number, perItem: Counts, perRun: Counts): Counts => {
	const all: Counts = {};
	for (const [k, v] of Object.entries(perItem)) all[k] = v * n;
	for (const [k, v] of Object.entries(perRun)) all[k] = (all[k] ?? 0) + v;
	return all;
};

/**
 * The floor of a plain read: per item, its one parameter (the ID) and its one request (n8n's
 * helper, which asks for the cancel signal, as the package does for its retry waits); per run,
 * the credential read once, resource, operation and output read once (set without an
 * expression), and the run's index and node context. Nothing of the saved execution
 * (`getExecutionDataById`), no budget, no identity.
 */
const READ_PER_ITEM: Counts = {
	getNodeParameter: 1,
	getExecutionCancelSignal: 2,
	'helpers.httpRequestWithAuthentication': 1,
};
const READ_PER_RUN: Counts = {
	continueOnFail: 1,
	getInputData: 1,
	getWorkflowDataProxy: 1,
	getContext: 1,
	getCredentials: 1,
	getNodeParameter: 3,
	getNode: 6,
};

describe(`a ${N}-item read makes ${N} requests, and its per-item work stays at its floor`, () => {
	test('Project Get', async () => {
		const project = (
			await client(sb, sb.keys.pro)<{ id: string }>('POST', '/projects', { name: 'p' })
		).body;
		const items = Array.from({ length: N }, () => ({ id: project.id }));
		const { counts: c, requests } = await read(
			{ resource: 'project', operation: 'get', projectId: rl('={{ $json.id }}') },
			items,
		);
		expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual(
			items.map(() => `GET /v1/projects/${project.id}`),
		);
		expect(c).toEqual(expected(N, READ_PER_ITEM, READ_PER_RUN));
	});

	test('Asset Get', async () => {
		const asset = sb.control.createLargeAsset({
			size: 64,
			filename: 'a.png',
			mimeType: 'image/png',
		}) as { id: string };
		const items = Array.from({ length: N }, () => ({ id: asset.id }));
		const { counts: c, requests } = await read(
			{ resource: 'asset', operation: 'get', assetId: rl('={{ $json.id }}') },
			items,
		);
		expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual(
			items.map(() => `GET /v1/assets/${asset.id}`),
		);
		expect(c).toEqual(expected(N, READ_PER_ITEM, READ_PER_RUN));
	});
});

describe('a parameter is read once per run only when it is the same for every item', () => {
	test('Output set by an expression is read for each item', async () => {
		const asset = sb.control.createLargeAsset({
			size: 64,
			filename: 'a.png',
			mimeType: 'image/png',
		}) as { id: string };
		const outputs = ['raw', 'simplified', 'raw'];
		const { out, error } = await runOne(
			mediaGen(
				'MediaGen',
				{
					resource: 'asset',
					operation: 'get',
					assetId: rl('={{ $json.id }}'),
					output: '={{ $json.output }}',
				},
				{ typeVersion: 2 },
			),
			outputs.map((output) => ({ id: asset.id, output })),
		);
		expect(error).toBeUndefined();
		expect(out.map((o) => o.id)).toEqual([asset.id, asset.id, asset.id]);
		const fields = out.map((o) => Object.keys(o).length);
		expect(fields[0]).toBeGreaterThan(10);
		expect(fields[1]).toBeLessThan(fields[0]);
		expect(fields[2]).toBe(fields[0]);
		expect(out[1]).toEqual(simplify(out[0]));
	});
});
