/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only code (tests): never published, see package.json "files" */
/**
 * Workflows of the e2e suites (nodes.e2e.test.ts headless, queue.e2e.test.ts in queue mode):
 * the MediaGen node's create/get/list, 404 with and without continue-on-fail, binary in and out,
 * generations waited for. Each starts with a Manual Trigger; `viaWebhook` swaps it for a Webhook.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import type { DemoContext, SetupOptions } from '../../../scripts/demoSetup';
import { SANDBOX_CREDENTIAL, setupDemo } from '../../../scripts/demoSetup';
import type { N8nWorkflow } from './n8n';
import { hasBuiltPackage, REPO_ROOT } from './n8n';

export const MIN = 60_000;

/**
 * setupDemo's options in the e2e suites: the packed repository (or a directory to pack instead,
 * MEDIAGEN_E2E_PACK_DIR: a copy with a changed package.json, say), sandbox time scale 0.02,
 * 120 requests per minute, webhooks to http://127.0.0.1 allowed.
 */
export const e2eDemoOptions = (workDir: string): SetupOptions => ({
	workDir,
	build: false,
	packDir: process.env.MEDIAGEN_E2E_PACK_DIR || undefined,
	timeScale: 0.02,
	rateLimitPerMinute: 120,
	allowHttpWebhooks: true,
});
/**
 * A suite's demo context: setupDemo (e2eDemoOptions) in a temp working directory before the
 * file's tests, closed and removed after them, with the timings logged under `label`. The
 * directory that is packed (the repository, or MEDIAGEN_E2E_PACK_DIR) must hold a build.
 */
export function useDemoSuite(label: string, workDirPrefix = 'mediagen-e2e-'): DemoSuite {
	let ctx: DemoContext | undefined;
	let workDir: string | undefined;
	const timings: Record<string, number> = {};
	beforeAll(async () => {
		if (!hasBuiltPackage(process.env.MEDIAGEN_E2E_PACK_DIR || REPO_ROOT))
			throw new Error('dist/ is not built: run `npm run build` first');
		workDir = mkdtempSync(path.join(tmpdir(), workDirPrefix));
		const t0 = Date.now();
		ctx = await setupDemo(e2eDemoOptions(workDir));
		timings.setup = Date.now() - t0;
	}, 30 * MIN);
	afterAll(async () => {
		await ctx?.close();
		if (workDir) rmSync(workDir, { recursive: true, force: true });
		// eslint-disable-next-line no-console
		console.log(`[${label}] timings (ms): ${JSON.stringify(timings)}`);
	});
	return {
		get ctx() {
			return ctx!;
		},
		get workDir() {
			return workDir!;
		},
		timings,
	};
}

/** What useDemoSuite gives a suite's tests (set once its beforeAll has run). */
export interface DemoSuite {
	readonly ctx: DemoContext;
	readonly workDir: string;
	timings: Record<string, number>;
}

export const MG = 'n8n-nodes-mediagen.mediaGen';
export const MISSING = '00000000-0000-4000-8000-000000000000';

const rl = (value: string) => ({ __rl: true, mode: 'id', value });

let seq = 0;
export function node(
	name: string,
	type: string,
	parameters: Record<string, unknown>,
	extra: Record<string, unknown> = {},
) {
	seq++;
	return {
		id: `e2e-node-${seq}`,
		name,
		type,
		typeVersion: type === 'n8n-nodes-base.readWriteFile' ? 1.1 : 1,
		position: [seq * 200, 0],
		parameters,
		...(type.startsWith('n8n-nodes-mediagen.')
			? { credentials: { mediaGenApi: SANDBOX_CREDENTIAL } }
			: {}),
		...extra,
	};
}
export const mg = (
	name: string,
	parameters: Record<string, unknown>,
	extra: Record<string, unknown> = {},
) => node(name, MG, parameters, extra);

/** Manual trigger, then the nodes in a chain. */
export function workflow(
	id: string,
	name: string,
	nodes: Array<Record<string, unknown>>,
): N8nWorkflow & { id: string } {
	const all = [node('Start', 'n8n-nodes-base.manualTrigger', {}), ...nodes];
	const connections: Record<string, unknown> = {};
	for (let i = 0; i + 1 < all.length; i++) {
		connections[String(all[i].name)] = {
			main: [[{ node: all[i + 1].name, type: 'main', index: 0 }]],
		};
	}
	return { id, name, nodes: all, connections, settings: { executionOrder: 'v1' } };
}

const generation = (params: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
	resource: 'generation',
	operation: 'create',
	modelId: 'flux-pro',
	tool: 'image',
	prompt: 'e2e: a teapot on a wooden table',
	additionalFields: { params: JSON.stringify(params) },
	...extra,
});

export const WF = {
	crud: workflow('e2eCrudProject01', 'e2e project create/get/list', [
		mg('Create project', {
			resource: 'project',
			operation: 'create',
			name: 'e2e project',
			additionalFields: { description: 'made by the e2e suite' },
		}),
		mg('Get project', { resource: 'project', operation: 'get', projectId: rl('={{ $json.id }}') }),
		mg('List projects', { resource: 'project', operation: 'getAll', returnAll: true }),
	]),
	notFoundContinue: workflow('e2eNotFoundCont1', 'e2e 404 continue-on-fail', [
		mg(
			'Get missing',
			{ resource: 'project', operation: 'get', projectId: rl(MISSING) },
			{ onError: 'continueRegularOutput' },
		),
		node(
			'After',
			'n8n-nodes-base.set',
			{
				mode: 'manual',
				assignments: { assignments: [{ id: 'a', name: 'went_on', value: true, type: 'boolean' }] },
				includeOtherFields: true,
				options: {},
			},
			{ typeVersion: 3.4 },
		),
	]),
	notFoundFail: workflow('e2eNotFoundFail1', 'e2e 404 stops the workflow', [
		mg('Get missing', { resource: 'project', operation: 'get', projectId: rl(MISSING) }),
	]),
	binary: workflow('e2eBinaryRound01', 'e2e binary in and out', [
		node('Read file', 'n8n-nodes-base.readWriteFile', {
			operation: 'read',
			fileSelector: 'examples/files/product-photo.png',
			options: {},
		}),
		mg('Upload', {
			resource: 'asset',
			operation: 'upload',
			binaryPropertyName: 'data',
			additionalFields: {},
		}),
		mg('Download', {
			resource: 'asset',
			operation: 'download',
			assetId: rl('={{ $json.id }}'),
			binaryPropertyName: 'file',
		}),
		node('Write file', 'n8n-nodes-base.readWriteFile', {
			operation: 'write',
			fileName: '=demo-output/roundtrip-{{ $binary.file.fileName }}',
			dataPropertyName: 'file',
			options: {},
		}),
	]),
	generations: workflow(
		'e2eGenerations01',
		'e2e generations: wait, failure with continue-on-fail',
		[
			node(
				'Two items',
				'n8n-nodes-base.code',
				{ jsCode: "return [{ json: { fail: false } }, { json: { fail: 'model overloaded' } }];" },
				{ typeVersion: 2 },
			),
			mg(
				'Generate',
				{
					...generation({}),
					additionalFields: {
						params: '={{ JSON.stringify({ sandbox: { durationMs: 3000, fail: $json.fail } }) }}',
					},
				},
				{ onError: 'continueRegularOutput' },
			),
		],
	),
};

/**
 * The same workflow started by a Webhook (POST <path>, answering with every item of the last
 * node) instead of the Manual Trigger: what runs through the queue in queue mode.
 */
export function viaWebhook(
	wf: N8nWorkflow & { id: string },
	webhookPath: string,
): N8nWorkflow & { id: string } {
	const nodes = wf.nodes.map((n) =>
		n.type === 'n8n-nodes-base.manualTrigger'
			? {
					...n,
					type: 'n8n-nodes-base.webhook',
					typeVersion: 2,
					webhookId: `00000000-0000-4000-8000-${webhookPath
						.replace(/[^0-9a-f]/gi, '')
						.padEnd(12, '0')
						.slice(0, 12)}`,
					parameters: {
						httpMethod: 'POST',
						path: webhookPath,
						responseMode: 'lastNode',
						responseData: 'allEntries',
						options: {},
					},
				}
			: n,
	);
	return { ...wf, id: `${wf.id.slice(0, 12)}Queu`, name: `${wf.name} (webhook)`, nodes };
}

/**
 * A batch started by a Webhook that answers at once: `items` rows (a Code node), then
 * Generation → Create for each, waiting for its job (`durationMs` at the sandbox).
 */
export function webhookBatch(o: {
	id: string;
	name: string;
	path: string;
	webhookId: string;
	items: number;
	prompt: string;
	durationMs: number;
	options?: Record<string, unknown>;
}): N8nWorkflow & { id: string } {
	return {
		id: o.id,
		name: o.name,
		nodes: [
			node(
				'Webhook',
				'n8n-nodes-base.webhook',
				{ httpMethod: 'POST', path: o.path, responseMode: 'onReceived', options: {} },
				{ typeVersion: 2, webhookId: o.webhookId },
			),
			node(
				'Rows',
				'n8n-nodes-base.code',
				{
					jsCode: `return Array.from({ length: ${o.items} }, (_, i) => ({ json: { row: i + 1 } }));`,
				},
				{ typeVersion: 2 },
			),
			mg('Generate', {
				...generation({ sandbox: { durationMs: o.durationMs } }, { prompt: o.prompt }),
				...(o.options ? { options: o.options } : {}),
			}),
		],
		connections: {
			Webhook: { main: [[{ node: 'Rows', type: 'main', index: 0 }]] },
			Rows: { main: [[{ node: 'Generate', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}
