/**
 * Shared set-up of the engine tests: the sandbox started in-process for a test file (reset before
 * each test), short polling and retry delays, n8n binary data, node factories that register their
 * node type with the harness, and helpers to run workflows with the sandbox's credentials.
 */
import type {
	IDataObject,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	INodeParameters,
	INodeType,
	IVersionedNodeType,
} from 'n8n-workflow';

import { POLLING } from '../../../nodes/shared/jobs/poller';
import { RETRY } from '../../../nodes/shared/transport/retry';
import type { Sandbox } from '../../../sandbox';
import { startSandbox } from '../../../sandbox';
import { client, startedLater } from '../sandbox/helpers';
import type { BinaryDataSetup, BinaryMode } from './binaryData';
import { setupBinaryData } from './binaryData';
import type { RunOptions, RunResult, TestNode } from './harness';
import { NODE_TYPES, chain, runWorkflow } from './harness';

export interface UseSandboxOptions {
	/** Multiplies the sandbox's job durations; default 0.01. */
	timeScale?: number;
	/** Let the sandbox deliver webhooks to http://127.0.0.1 (default false). */
	allowHttpWebhooks?: boolean;
	/** Configure n8n binary data in this mode for the whole file (cleaned up after). */
	binaryData?: BinaryMode;
}

/** A run of one node: the run's result plus `out`, that node's output JSON. */
export type NodeRun = RunResult & { out: IDataObject[] };

export interface SandboxEnv {
	/**
	 * The file's sandbox. Started in beforeAll, so this is a stand-in that forwards to it: usable
	 * in tests and hooks, not at the top level of the file.
	 */
	sb: Sandbox;
	/** MediaGen API credentials for the sandbox, with the Pro key unless another is given. */
	creds(key?: string): RunOptions['credentials'];
	/** Runs `nodes` after an Items node emitting `items`. */
	flow(nodes: TestNode[], items?: IDataObject[], key?: string): Promise<RunResult>;
	/** Runs one node; `out` is its output JSON. */
	runOne(node: TestNode, items?: IDataObject[], key?: string): Promise<NodeRun>;
	/**
	 * For files that run one node named `name` most of the time: `run(parameters, extra?, items?)`
	 * runs it; `ok` runs it too, expects no error and returns `out`.
	 */
	runner(node: NodeFactory, name: string): NodeRunner;
}

export interface NodeRunner {
	run(
		parameters: INodeParameters,
		extra?: Partial<TestNode>,
		items?: IDataObject[],
	): Promise<NodeRun>;
	ok(parameters: INodeParameters, extra?: Partial<TestNode>): Promise<IDataObject[]>;
}

/**
 * Starts the sandbox for the current test file (beforeAll, without rate limit, quiet), resets it
 * before each test and closes it after all of them.
 */
export function useSandbox(options: UseSandboxOptions = {}): SandboxEnv {
	let started: Sandbox | undefined;
	let cleanup: (() => void) | undefined;
	beforeAll(async () => {
		started = await startSandbox({
			port: 0,
			quiet: true,
			rateLimitPerMinute: 0,
			timeScale: options.timeScale ?? 0.01,
			allowHttpWebhooks: options.allowHttpWebhooks,
		});
		if (options.binaryData) cleanup = (await setupBinaryData(options.binaryData)).cleanup;
	});
	afterAll(async () => {
		cleanup?.();
		await started?.close();
	});
	beforeEach(() => sb.control.reset());

	const sb = startedLater(() => started, 'the sandbox');
	const creds = (key = sb.keys.pro) => ({ mediaGenApi: { apiKey: key, baseUrl: sb.baseUrl } });
	const flow = async (nodes: TestNode[], items: IDataObject[] = [{}], key?: string) =>
		await runWorkflow(chain(items, nodes), { credentials: creds(key) });
	const runOne = async (node: TestNode, items?: IDataObject[], key?: string) => {
		const result = await flow([node], items, key);
		return { ...result, out: result.json(node.name) };
	};
	const runner = (node: NodeFactory, name: string): NodeRunner => {
		const run = async (parameters: INodeParameters, extra = {}, items: IDataObject[] = [{}]) =>
			await runOne(node(name, parameters, extra), items);
		const ok = async (parameters: INodeParameters, extra = {}) => {
			const r = await run(parameters, extra);
			expect(r.error).toBeUndefined();
			return r.out;
		};
		return { run, ok };
	};
	return { sb, creds, flow, runOne, runner };
}

/**
 * Jobs here last tens of milliseconds: poll and back off on that scale for the current test file
 * (restored after it). `polling: false` leaves polling as it is.
 */
export function fastJobs(
	options: { polling?: Partial<typeof POLLING> | false; retry?: Partial<typeof RETRY> } = {},
): void {
	const saved = { polling: { ...POLLING }, retry: { ...RETRY } };
	beforeAll(() => {
		if (options.polling !== false)
			Object.assign(POLLING, options.polling ?? { minMs: 20, maxMs: 200 });
		Object.assign(RETRY, options.retry ?? { baseDelayMs: 5, maxDelayMs: 20 });
	});
	afterAll(() => {
		Object.assign(POLLING, saved.polling);
		Object.assign(RETRY, saved.retry);
	});
}

/**
 * For a test file that switches n8n's binary data mode between its tests: the returned function
 * (re)configures binary data in a mode; the last setup is cleaned up after the file.
 */
export function binaryModes(): (mode: BinaryMode) => Promise<BinaryDataSetup> {
	let current: BinaryDataSetup | undefined;
	afterAll(() => current?.cleanup());
	return async (mode) => {
		current?.cleanup();
		current = await setupBinaryData(mode);
		return current;
	};
}

/** A resource locator by ID. */
/**
 * Generation → Create's parameters in engine tests: an image of `prompt` (an expression works),
 * its sandbox job running `durationMs` (scaled by the sandbox's time scale), `extra` on top.
 */
export const generationCreate = (
	extra: INodeParameters = {},
	durationMs = 300,
	prompt = 'a lighthouse in fog',
): INodeParameters => ({
	resource: 'generation',
	operation: 'create',
	modelId: 'flux-pro',
	tool: 'image',
	prompt,
	additionalFields: { params: JSON.stringify({ sandbox: { durationMs } }) },
	...extra,
});

/** A new edit of a 4 KB video clip at the sandbox (the record of dubs and captions); its id. */
export async function newEdit(sb: Sandbox): Promise<string> {
	const source = sb.control.createLargeAsset({
		size: 4096,
		mimeType: 'video/mp4',
		filename: 'clip.mp4',
	}).id;
	const created = await client(sb, sb.keys.pro)('POST', '/edits', { sourceAssetId: source });
	return String(created.body.id);
}

export const rl = (value: unknown) => ({ __rl: true, mode: 'id', value: String(value) });

/** Makes nodes of one type for chain(): name, parameters and node settings (continueOnFail, …). */
export type NodeFactory = (
	name: string,
	parameters: INodeParameters,
	extra?: Partial<TestNode>,
) => TestNode;

/** Registers a node type with the harness and returns a factory of its nodes for chain(). */
export function nodeFactory(nodeType: INodeType | IVersionedNodeType): NodeFactory {
	const type = `n8n-nodes-mediagen.${nodeType.description.name}`;
	NODE_TYPES[type] = nodeType;
	return (name: string, parameters: INodeParameters, extra: Partial<TestNode> = {}): TestNode => ({
		name,
		type,
		parameters,
		...extra,
	});
}

/**
 * A load-options context (what n8n gives a resource locator's list search) that sends the
 * requests to the sandbox over HTTP with the given key.
 */
export function loadOptionsContext(baseUrl: string, apiKey: string): ILoadOptionsFunctions {
	return {
		getCredentials: async () => ({ apiKey, baseUrl }),
		getNode: () => ({ id: 'n', name: 'Lists', type: 'x', typeVersion: 1, position: [0, 0] }),
		helpers: {
			httpRequestWithAuthentication: async (_cred: string, o: IHttpRequestOptions) => {
				const url = new URL(o.url);
				for (const [k, v] of Object.entries(o.qs ?? {})) url.searchParams.set(k, String(v));
				const res = await fetch(url, {
					method: o.method,
					headers: { authorization: `Bearer ${apiKey}` },
				});
				return {
					statusCode: res.status,
					headers: Object.fromEntries(res.headers),
					body: await res.json(),
				};
			},
		},
	} as unknown as ILoadOptionsFunctions;
}
