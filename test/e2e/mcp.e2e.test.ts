/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only code (tests): never published, see package.json "files" */
/**
 * The MediaGen nodes served to MCP clients by n8n's MCP Server Trigger, in a real n8n 2.40.7
 * (`n8n start`, the workflow published) with the packed package: examples/mcp-server.json itself
 * (bearer auth, twelve MediaGen tools with `$fromAI` parameters), its bearer credential imported
 * with a test token. Driven by the official MCP SDK client that n8n ships (loaded from n8n's
 * node_modules), over Streamable HTTP and over SSE: tools listed with their descriptions and
 * arguments, every tool called, bad arguments refused with an error naming the field and nothing
 * sent to the sandbox, a wrong token refused (403, n8n's answer), money asserted at the sandbox (each job
 * charged exactly its estimate, once).
 *
 * Skipped unless MEDIAGEN_E2E=1. Needs a build (`npm run build`); `npm run test:e2e` does both.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import type { DemoContext } from '../../scripts/demoSetup';
import { loadExamples, setupDemo } from '../../scripts/demoSetup';
import type { N8nInstance } from '../harness/e2e/n8n';
import {
	describeE2E,
	hasBuiltPackage,
	importCredentials,
	importWorkflows,
	publishWorkflow,
	randomId,
	startN8n,
} from '../harness/e2e/n8n';
import { e2eDemoOptions, MIN } from '../harness/e2e/workflows';

const EXAMPLE = 'mcp-server.json';
/** The bearer token of the MCP Server Trigger's credential in this run */
const TOKEN = randomId(32);

// ------------------------------------------------------------------------------------
// The MCP SDK's client, from n8n's own install (CommonJS build: package.json exports `require`)
// ------------------------------------------------------------------------------------

interface McpTool {
	name: string;
	description?: string;
	inputSchema: { type: 'object'; properties?: Record<string, unknown>; required?: string[] };
}
interface McpCallResult {
	content: Array<{ type: string; text?: string }>;
	isError?: boolean;
}
interface McpClient {
	connect(transport: unknown): Promise<void>;
	listTools(): Promise<{ tools: McpTool[] }>;
	getInstructions(): string | undefined;
	callTool(
		req: { name: string; arguments?: Record<string, unknown> },
		schema?: unknown,
		opts?: { timeout?: number },
	): Promise<McpCallResult>;
	close(): Promise<void>;
}
interface Sdk {
	Client: new (info: { name: string; version: string }) => McpClient;
	StreamableHTTPClientTransport: new (url: URL, opts?: { requestInit?: RequestInit }) => unknown;
	SSEClientTransport: new (
		url: URL,
		opts?: { requestInit?: RequestInit; eventSourceInit?: unknown },
	) => unknown;
}

function loadSdk(n8nBin: string): Sdk {
	// <runtime>/n8n/node_modules/n8n/bin/n8n → <runtime>/n8n/node_modules
	const dir = path.resolve(n8nBin, '..', '..', '..', '@modelcontextprotocol', 'sdk', 'dist', 'cjs');
	/* eslint-disable @typescript-eslint/no-require-imports -- the SDK is n8n's, loaded by path */
	return {
		Client: require(path.join(dir, 'client', 'index.js')).Client,
		StreamableHTTPClientTransport: require(path.join(dir, 'client', 'streamableHttp.js'))
			.StreamableHTTPClientTransport,
		SSEClientTransport: require(path.join(dir, 'client', 'sse.js')).SSEClientTransport,
	};
	/* eslint-enable @typescript-eslint/no-require-imports */
}

/** The text of a tool result, and its JSON when it is JSON (n8n sends a tool's items as an array). */
function parse(r: McpCallResult): { text: string; json: unknown; first: Record<string, unknown> } {
	const text = r.content.map((c) => c.text ?? '').join('');
	let json: unknown;
	try {
		json = JSON.parse(text);
	} catch {
		json = undefined;
	}
	const first = (Array.isArray(json) ? json[0] : json) as Record<string, unknown>;
	return { text, json, first: first ?? {} };
}

describeE2E('the MediaGen tools over MCP (real n8n MCP Server Trigger, MCP SDK client)', () => {
	let ctx: DemoContext;
	let workDir: string;
	let n8n: N8nInstance;
	let sdk: Sdk;
	let mcpUrl: string;
	let canvasWorkflowId: string;
	const clients: McpClient[] = [];
	const timings: Record<string, number> = {};
	const suiteStart = Date.now();
	const example = () => loadExamples().find((e) => e.file === EXAMPLE)!;
	const sb = () => ctx.sandbox;
	const balance = () => sb().control.credits('main').balance;
	const api = async (method: string, p: string, body?: unknown) => {
		const res = await fetch(`${sb().baseUrl}${p}`, {
			method,
			headers: {
				authorization: `Bearer ${sb().keys.pro}`,
				...(body ? { 'content-type': 'application/json' } : {}),
			},
			body: body ? JSON.stringify(body) : undefined,
		});
		return (await res.json()) as Record<string, unknown>;
	};

	/** An asset's bytes as the API serves them to the key's owner (signed URL of a fresh download) */
	async function assetBytes(assetId: string): Promise<Buffer> {
		const d = await api('GET', `/assets/${assetId}/download`);
		return Buffer.from(await (await fetch(String(d.url))).arrayBuffer());
	}

	async function connect(kind: 'streamable' | 'sse', token = TOKEN): Promise<McpClient> {
		const client = new sdk.Client({ name: 'mediagen-e2e', version: '1.0.0' });
		const headers = { authorization: `Bearer ${token}` };
		const transport =
			kind === 'streamable'
				? new sdk.StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers } })
				: new sdk.SSEClientTransport(new URL(mcpUrl), {
						requestInit: { headers },
						eventSourceInit: {
							fetch: (url: string | URL, init?: RequestInit) =>
								fetch(url, { ...init, headers: { ...(init?.headers ?? {}), ...headers } }),
						},
					});
		await client.connect(transport);
		clients.push(client);
		return client;
	}

	const call = (client: McpClient, name: string, args: Record<string, unknown> = {}) =>
		client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });

	beforeAll(async () => {
		if (!hasBuiltPackage())
			throw new Error('dist/ is not built: run `npm run build` first (npm run test:e2e does)');
		workDir = mkdtempSync(path.join(tmpdir(), 'mediagen-e2e-mcp-'));
		const t0 = Date.now();
		ctx = await setupDemo(e2eDemoOptions(workDir));
		sdk = loadSdk(ctx.home.runtime.bin);
		// the example as it is; its bearer credential gets the test's token
		const wf = example().workflow;
		const trigger = wf.nodes.find((n) => n.type === '@n8n/n8n-nodes-langchain.mcpTrigger')!;
		const bearer = (trigger.credentials as { httpBearerAuth: { id: string; name: string } })
			.httpBearerAuth;
		await importCredentials(ctx.home, [
			{ ...bearer, type: 'httpBearerAuth', data: { token: TOKEN } },
		]);
		await importWorkflows(ctx.home, [wf]);
		await publishWorkflow(ctx.home, wf.id);
		// a canvas workflow for the canvas tools, made from the sandbox's first template
		const templates = (await api('GET', '/canvas/templates')) as { data: Array<{ id: string }> };
		const canvas = await api('POST', '/canvas', {
			name: 'e2e mcp canvas',
			templateId: templates.data[0].id,
		});
		canvasWorkflowId = String(canvas.id);
		timings.setup = Date.now() - t0;

		const t1 = Date.now();
		n8n = await startN8n(ctx.home);
		mcpUrl = `${n8n.url}/mcp/${String((trigger.parameters as { path: string }).path)}`;
		// published workflows are activated after readiness: the path answers 404 until then
		const end = Date.now() + 60_000;
		for (;;) {
			const r = await fetch(mcpUrl, { method: 'POST', body: '{}' }).catch(() => undefined);
			if (r?.status === 403) break; // served: the request had no token
			if (Date.now() > end) throw new Error(`${mcpUrl} not served (last ${r?.status})`);
			await new Promise((res) => setTimeout(res, 250));
		}
		timings.startN8n = Date.now() - t1;
	}, 30 * MIN);

	afterAll(async () => {
		for (const c of clients) await c.close().catch(() => undefined);
		await n8n?.stop();
		await ctx?.close();
		if (workDir) rmSync(workDir, { recursive: true, force: true });
		timings.suite = Date.now() - suiteStart;
		// eslint-disable-next-line no-console
		console.log(`[e2e mcp] timings (ms): ${JSON.stringify(timings)}`);
	});

	// n8n's bearer check answers 403 ("Authorization data is wrong!") to a missing or wrong token,
	// not 401 (n8n-nodes-base Webhook/utils.js, validateWebhookAuthentication)
	test('a wrong or missing bearer token is refused (403) and nothing reaches MediaGen', async () => {
		sb().control.clearRequests();
		const init = {
			jsonrpc: '2.0',
			id: 1,
			method: 'initialize',
			params: {
				protocolVersion: '2025-03-26',
				capabilities: {},
				clientInfo: { name: 'x', version: '1' },
			},
		};
		for (const authorization of ['Bearer wrong-token', '', `Basic ${TOKEN}`]) {
			const post = await fetch(mcpUrl, {
				method: 'POST',
				headers: {
					'content-type': 'application/json',
					accept: 'application/json, text/event-stream',
					...(authorization ? { authorization } : {}),
				},
				body: JSON.stringify(init),
			});
			expect({ authorization, status: post.status }).toEqual({ authorization, status: 403 });
			const sse = await fetch(mcpUrl, {
				headers: { accept: 'text/event-stream', ...(authorization ? { authorization } : {}) },
			});
			expect({ authorization, status: sse.status }).toEqual({ authorization, status: 403 });
		}
		// the SDK's client fails to connect with a wrong token, over both transports
		await expect(connect('streamable', 'wrong-token')).rejects.toThrow(
			/403|Authorization data is wrong/,
		);
		await expect(connect('sse', 'wrong-token')).rejects.toThrow(/403|Authorization data is wrong/);
		expect(sb().control.requests()).toHaveLength(0);
	});

	test('Streamable HTTP: the tools are listed with their descriptions and $fromAI arguments', async () => {
		const client = await connect('streamable');
		// the trigger's Instructions reach the client at connection
		const trigger = example().workflow.nodes.find(
			(n) => n.type === '@n8n/n8n-nodes-langchain.mcpTrigger',
		)!;
		expect(client.getInstructions()).toBe(
			(trigger.parameters as { instructions: string }).instructions,
		);
		const { tools } = await client.listTools();
		const nodes = example().workflow.nodes.filter((n) =>
			String(n.type).startsWith('n8n-nodes-mediagen.'),
		);
		expect(tools.map((t) => t.name).sort()).toEqual(nodes.map((n) => String(n.name)).sort());
		for (const n of nodes) {
			const t = tools.find((x) => x.name === n.name)!;
			expect(t.description).toBe((n.parameters as { toolDescription: string }).toolDescription);
		}
		const gen = tools.find((t) => t.name === 'create_generation')!;
		expect(Object.keys(gen.inputSchema.properties ?? {}).sort()).toEqual([
			'mediaType',
			'modelId',
			'prompt',
		]);
		expect([...(gen.inputSchema.required ?? [])].sort()).toEqual([
			'mediaType',
			'modelId',
			'prompt',
		]);
		expect(
			(gen.inputSchema.properties as Record<string, { description?: string }>).prompt.description,
		).toMatch(/What to generate/);
		expect(
			Object.keys(tools.find((t) => t.name === 'list_projects')!.inputSchema.properties ?? {}),
		).toEqual([]);
	});

	test(
		'Streamable HTTP: every tool called; each job charged exactly its estimate, once',
		async () => {
			const client = await connect('streamable');
			const t0 = Date.now();
			sb().control.clearRequests();
			const before = balance();
			const sent = (method: string, p: string) => sb().control.requests({ method, path: p }).length;

			// projects
			const project = parse(
				await call(client, 'create_project', { name: 'MCP project', description: 'made over MCP' }),
			);
			expect(project.first).toMatchObject({ id: expect.any(String), name: 'MCP project' });
			expect(await api('GET', `/projects/${String(project.first.id)}`)).toMatchObject({
				name: 'MCP project',
				description: 'made over MCP',
			});
			const projects = parse(await call(client, 'list_projects'));
			expect((projects.json as Array<{ id: string }>).map((p) => p.id)).toContain(project.first.id);

			// a generation, waited for, and its output downloaded
			const estimate = await api('POST', '/generations/estimate', {
				modelId: 'flux-pro',
				tool: 'image',
			});
			const cost = Number(estimate.credits);
			expect(cost).toBeGreaterThan(0);
			const b0 = balance();
			const created = parse(
				await call(client, 'create_generation', {
					modelId: 'flux-pro',
					mediaType: 'image',
					prompt: 'MCP e2e: a lighthouse at dusk',
				}),
			);
			expect(created.first).toMatchObject({
				status: 'completed',
				model_id: 'flux-pro',
				credits_charged: cost,
			});
			expect(sent('POST', '/generations$')).toBe(1);
			expect(b0 - balance()).toBe(cost);
			const got = parse(await call(client, 'get_generation', { generationId: created.first.id }));
			expect(got.first).toMatchObject({
				id: created.first.id,
				status: 'completed',
				credits_charged: cost,
			});
			const assetId = (created.first.outputs as Array<{ asset_id: string }>)[0].asset_id;
			const dl = await call(client, 'download_asset', { assetId });
			const downloaded = parse(dl);
			expect(dl.isError).toBeFalsy();
			expect(downloaded.first).toMatchObject({
				assetId,
				mimeType: 'image/png',
				url: expect.stringMatching(/^http/),
			});
			expect(sent('GET', `/assets/${assetId}/download$`)).toBe(1);
			// the file reaches the client as a signed URL, never as bytes in the answer (n8n drops a
			// tool's binary data); the URL serves exactly the asset's bytes, without the API key.
			// TODO(#16, issue-tool): tool mode returns the URL without the example's Include
			// Download URL option; assert that once issue-tool is merged.
			expect(downloaded.text.length).toBeLessThan(4000);
			const viaUrl = Buffer.from(await (await fetch(String(downloaded.first.url))).arrayBuffer());
			expect(await assetBytes(assetId)).toEqual(viaUrl);
			expect(viaUrl.length).toBe(Number(downloaded.first.size));
			// eslint-disable-next-line no-console
			console.log(`[e2e mcp] download_asset answered: ${downloaded.text}`);

			// brand kits, ad project, ad copy
			const kit = parse(
				await call(client, 'create_brand_kit', { name: 'Lumen', tone: 'calm, confident' }),
			);
			expect(kit.first).toMatchObject({
				id: expect.any(String),
				name: 'Lumen',
				tone: 'calm, confident',
			});
			const kits = parse(await call(client, 'list_brand_kits'));
			expect((kits.json as Array<{ id: string }>).map((k) => k.id)).toContain(kit.first.id);
			const adProject = parse(await call(client, 'create_ad_project', { name: 'Lumen launch' }));
			expect(adProject.first).toMatchObject({ id: expect.any(String), name: 'Lumen launch' });
			const b1 = balance();
			const copy = parse(
				await call(client, 'generate_ad_copy', {
					adProjectId: adProject.first.id,
					kinds: 'hook, cta',
				}),
			);
			expect(Array.isArray(copy.json)).toBe(true);
			const kinds = new Set((copy.json as Array<{ kind: string }>).map((c) => c.kind));
			expect([...kinds].sort()).toEqual(['cta', 'hook']);
			expect(sent('POST', `/ads/${String(adProject.first.id)}/copy/generate$`)).toBe(1);
			const copyCharged = b1 - balance();

			// canvas: list, run (waited for), get the run
			const canvases = parse(await call(client, 'list_canvas_workflows'));
			expect((canvases.json as Array<{ id: string }>).map((c) => c.id)).toContain(canvasWorkflowId);
			const canvasEstimate = Number(
				(await api('POST', `/canvas/${canvasWorkflowId}/estimate`, {})).credits,
			);
			const b2 = balance();
			const run = parse(await call(client, 'start_canvas_run', { canvasWorkflowId }));
			expect(run.first).toMatchObject({ id: expect.any(String), status: 'completed' });
			expect(sent('POST', `/canvas/${canvasWorkflowId}/runs$`)).toBe(1);
			expect(b2 - balance()).toBe(Number(run.first.credits_charged));
			expect(Number(run.first.credits_charged)).toBe(canvasEstimate);
			const gotRun = parse(await call(client, 'get_canvas_run', { runId: run.first.id }));
			expect(gotRun.first).toMatchObject({ id: run.first.id, status: 'completed' });

			const total = before - balance();
			expect(total).toBe(cost + copyCharged + canvasEstimate);
			timings.everyTool = Date.now() - t0;
			// eslint-disable-next-line no-console
			console.log(
				`[e2e mcp] 12 tool calls in ${timings.everyTool} ms; sandbox requests ${sb().control.requests().length}; ` +
					`charged ${total} credits (generation ${cost}, ad copy ${copyCharged}, canvas run ${canvasEstimate})`,
			);
		},
		10 * MIN,
	);

	test(
		'bad arguments: an error result naming the field, nothing sent to MediaGen, nothing charged',
		async () => {
			const client = await connect('streamable');
			sb().control.clearRequests();
			const before = balance();
			// 1. a required argument missing: refused against the tool's schema
			const missing = await call(client, 'create_generation', {
				modelId: 'flux-pro',
				mediaType: 'image',
			}).catch((e: Error) => ({ isError: true, content: [{ type: 'text', text: e.message }] }));
			expect(missing.isError).toBe(true);
			expect(parse(missing).text).toMatch(/prompt/);
			// 2. a value the node refuses before sending anything
			const notUuid = await call(client, 'get_generation', { generationId: 'not-a-uuid' });
			expect(notUuid.isError).toBe(true);
			expect(parse(notUuid).text).toMatch(/Generation ID must be a UUID/);
			const badKind = await call(client, 'create_generation', {
				modelId: 'flux-pro',
				mediaType: 'hologram',
				prompt: 'never sent',
			});
			expect(badKind.isError).toBe(true);
			expect(parse(badKind).text).toMatch(/Tool.*hologram|hologram.*Tool/);
			expect(sb().control.requests()).toHaveLength(0);
			expect(balance()).toBe(before);
			// eslint-disable-next-line no-console
			console.log(
				`[e2e mcp] bad arguments answered: ${[missing, notUuid, badKind].map((r) => JSON.stringify(parse(r).text.slice(0, 200))).join(' | ')}`,
			);
		},
		5 * MIN,
	);

	test(
		'no credits left: the error result says so and what is needed; nothing is charged',
		async () => {
			const client = await connect('streamable');
			const saved = balance();
			sb().control.setCredits('main', 2);
			sb().control.clearRequests();
			try {
				const r = await call(client, 'create_generation', {
					modelId: 'flux-pro',
					mediaType: 'image',
					prompt: 'never charged',
				});
				expect(r.isError).toBe(true);
				expect(parse(r).text).toMatch(/Not enough credits/);
				// the estimate (Max Credits) and the refused create (402): no job, no charge
				expect(
					sb()
						.control.requests({ method: 'POST', path: '/generations' })
						.map((q) => `${q.path.replace(/^\/v1/, '')} ${q.status}`),
				).toEqual(['/generations/estimate 200', '/generations 402']);
				expect(balance()).toBe(2);
				// eslint-disable-next-line no-console
				console.log(
					`[e2e mcp] no credits answered: ${JSON.stringify(parse(r).text.slice(0, 300))}`,
				);
			} finally {
				sb().control.setCredits('main', saved);
			}
		},
		5 * MIN,
	);

	test(
		'SSE: the same tools, called over the SSE transport, reach MediaGen',
		async () => {
			const client = await connect('sse');
			const { tools } = await client.listTools();
			expect(tools).toHaveLength(12);
			sb().control.clearRequests();
			const project = parse(
				await call(client, 'create_project', { name: 'SSE project', description: 'made over SSE' }),
			);
			expect(project.first).toMatchObject({ name: 'SSE project' });
			expect(sb().control.requests({ method: 'POST', path: '/projects$' })).toHaveLength(1);
			const estimate = Number(
				(await api('POST', '/generations/estimate', { modelId: 'flux-pro', tool: 'image' }))
					.credits,
			);
			const before = balance();
			const created = parse(
				await call(client, 'create_generation', {
					modelId: 'flux-pro',
					mediaType: 'image',
					prompt: 'SSE: a kite',
				}),
			);
			expect(created.first).toMatchObject({ status: 'completed', credits_charged: estimate });
			expect(sb().control.requests({ method: 'POST', path: '/generations$' })).toHaveLength(1);
			expect(before - balance()).toBe(estimate);
		},
		5 * MIN,
	);
});
