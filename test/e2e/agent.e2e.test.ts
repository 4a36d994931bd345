/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only code (tests): never published, see package.json "files" */
/**
 * The MediaGen nodes as tools of n8n's AI Agent, in a real n8n 2.40.7 with the packed package:
 * examples/ai-agent.json itself (Manual Trigger → AI Agent, OpenAI Chat Model, four MediaGen
 * tools: create_project, create_generation, get_generation, download_asset), run headless with
 * `n8n execute`. Its "OpenAI" credential points at a scripted OpenAI-compatible model
 * (fakeModel.ts) that calls the tools in order, passing the ids each returned to the next, then
 * answers. Asserted on the sandbox (what was created, one generation, charged once, exactly its
 * estimate) and on what the agent sent back to the model (the tools offered, the tool results).
 * The same workflow started by a Webhook that answers as a stream (published, `n8n start`): the
 * agent streams, asks the model for streamed answers (SSE chunks), and the tools work the same.
 *
 * Skipped unless MEDIAGEN_E2E=1. Needs a build (`npm run build`); `npm run test:e2e` does both.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import type { DemoContext } from '../../scripts/demoSetup';
import { loadExamples, setupDemo } from '../../scripts/demoSetup';
import type { FakeModel, ToolResult } from '../harness/e2e/fakeModel';
import { startFakeModel, toolResultsOf } from '../harness/e2e/fakeModel';
import type { N8nInstance, N8nWorkflow } from '../harness/e2e/n8n';
import {
	describeE2E,
	describeResult,
	executeWorkflow,
	hasBuiltPackage,
	importCredentials,
	importWorkflows,
	nodeItems,
	publishWorkflow,
	randomId,
	startN8n,
} from '../harness/e2e/n8n';
import { e2eDemoOptions, MIN } from '../harness/e2e/workflows';

const EXAMPLE = 'ai-agent.json';
const PROMPT = 'A red bicycle leaning on a sunlit brick wall at dawn, 35mm photo';
const FINAL = 'Done: project, image and download are ready.';

/** The one tool result of a tool (its JSON: n8n sends a tool's items as an array). */
function resultOf(results: ToolResult[], tool: string): Record<string, unknown> {
	const r = results.filter((x) => x.tool === tool);
	if (r.length !== 1)
		throw new Error(`${r.length} results of ${tool} (${results.map((x) => x.tool).join(', ')})`);
	const json = r[0].json;
	return (Array.isArray(json) ? json[0] : json) as Record<string, unknown>;
}

const STREAM_PATH = 'mediagen-agent-stream';

/**
 * The example started by a Webhook answering as a stream (`responseMode: streaming`) instead of
 * the Manual Trigger: n8n's agent then streams, and asks the model for streamed answers.
 */
function streamingVariant(wf: N8nWorkflow & { id: string }): N8nWorkflow & { id: string } {
	const manual = wf.nodes.find((n) => n.type === 'n8n-nodes-base.manualTrigger')!;
	const webhook = {
		...manual,
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2.1,
		webhookId: '5f0c6a0e-2b1d-4c3e-8f4a-9b8c7d6e5f40',
		parameters: { httpMethod: 'POST', path: STREAM_PATH, responseMode: 'streaming', options: {} },
	};
	const connections: Record<string, unknown> = {
		...wf.connections,
		Webhook: wf.connections[String(manual.name)],
	};
	delete connections[String(manual.name)];
	return {
		...wf,
		id: 'e2eAgentStream01',
		name: `${String(wf.name)} (webhook, streaming)`,
		nodes: wf.nodes.map((n) => (n === manual ? webhook : n)),
		connections,
	};
}

describeE2E('the MediaGen tools in an AI Agent (real n8n, scripted model)', () => {
	let ctx: DemoContext;
	let workDir: string;
	let model: FakeModel;
	let n8n: N8nInstance | undefined;
	const timings: Record<string, number> = {};
	const suiteStart = Date.now();

	beforeAll(async () => {
		if (!hasBuiltPackage())
			throw new Error('dist/ is not built: run `npm run build` first (npm run test:e2e does)');
		workDir = mkdtempSync(path.join(tmpdir(), 'mediagen-e2e-agent-'));
		const t0 = Date.now();
		ctx = await setupDemo(e2eDemoOptions(workDir));
		model = await startFakeModel(
			[
				{ tool: 'create_project', args: { name: 'Bicycle shoot', description: 'e2e agent run' } },
				{
					tool: 'create_generation',
					args: { modelId: 'flux-pro', mediaType: 'image', prompt: PROMPT },
				},
				{
					tool: 'get_generation',
					args: (r) => ({ generationId: resultOf(r, 'create_generation').id }),
				},
				{
					tool: 'download_asset',
					args: (r) => ({
						assetId: (resultOf(r, 'create_generation').outputs as Array<{ asset_id: string }>)[0]
							.asset_id,
					}),
				},
			],
			FINAL,
		);
		// the example as it is; its credentials replaced by ones for the sandbox and the model
		const example = loadExamples().find((e) => e.file === EXAMPLE)!;
		const openAi = example.workflow.nodes.find(
			(n) => n.type === '@n8n/n8n-nodes-langchain.lmChatOpenAi',
		)!.credentials as { openAiApi: { id: string; name: string } };
		await importCredentials(ctx.home, [
			{
				...openAi.openAiApi,
				type: 'openAiApi',
				data: { apiKey: `e2e-${randomId(12)}`, url: model.baseUrl },
			},
		]);
		await importWorkflows(ctx.home, [example.workflow, streamingVariant(example.workflow)]);
		await publishWorkflow(ctx.home, streamingVariant(example.workflow).id);
		timings.setup = Date.now() - t0;
	}, 30 * MIN);

	afterAll(async () => {
		await n8n?.stop();
		await model?.close();
		await ctx?.close();
		if (workDir) rmSync(workDir, { recursive: true, force: true });
		timings.suite = Date.now() - suiteStart;
		// eslint-disable-next-line no-console
		console.log(`[e2e agent] timings (ms): ${JSON.stringify(timings)}`);
	});

	test(
		'examples/ai-agent.json: the agent creates a project, one generation (charged once), gets it and downloads its output',
		async () => {
			const sb = ctx.sandbox;
			const estimate = await fetch(`${sb.baseUrl}/generations/estimate`, {
				method: 'POST',
				headers: { authorization: `Bearer ${sb.keys.pro}`, 'content-type': 'application/json' },
				body: JSON.stringify({ modelId: 'flux-pro', tool: 'image' }),
			});
			const cost = Number(((await estimate.json()) as { credits: number }).credits);
			expect(cost).toBeGreaterThan(0);
			sb.control.clearRequests();
			const before = sb.control.credits('main').balance;

			const t0 = Date.now();
			const example = loadExamples().find((e) => e.file === EXAMPLE)!;
			const r = await executeWorkflow(ctx.home, example.workflow.id, { timeoutMs: 3 * MIN });
			timings.execute = Date.now() - t0;
			const seen = sb.control.requests();
			expect({ ok: r.ok, summary: describeResult(r), script: model.errors }).toEqual({
				ok: true,
				summary: expect.any(String),
				script: [],
			});

			// the agent's answer is the model's final text
			expect(nodeItems(r, 'AI Agent')[0].json.output).toBe(FINAL);

			// what the agent offered the model: the example's four tools, with their descriptions
			expect(model.requests.length).toBe(5); // four tool steps, then the final answer
			expect(model.requests.map((q) => q.stream ?? false)).toEqual(Array(5).fill(false));
			const offered = model.requests[0].tools ?? [];
			expect(offered.map((t) => t.function.name).sort()).toEqual(
				['create_generation', 'create_project', 'download_asset', 'get_generation'].sort(),
			);
			const gen = offered.find((t) => t.function.name === 'create_generation')!.function;
			expect(gen.description).toMatch(/Costs credits/);
			expect(Object.keys((gen.parameters as { properties: object }).properties).sort()).toEqual([
				'mediaType',
				'modelId',
				'prompt',
			]);

			// what came back to the model, checked against the sandbox
			const results = model.toolResults();
			expect(results.map((x) => x.tool)).toEqual([
				'create_project',
				'create_generation',
				'get_generation',
				'download_asset',
			]);
			const project = resultOf(results, 'create_project');
			expect(project).toMatchObject({ id: expect.any(String), name: 'Bicycle shoot' });
			const created = resultOf(results, 'create_generation');
			expect(created).toMatchObject({
				id: expect.any(String),
				status: 'completed',
				model_id: 'flux-pro',
				credits_charged: cost,
			});
			const got = resultOf(results, 'get_generation');
			expect(got).toMatchObject({ id: created.id, status: 'completed', credits_charged: cost });
			const assetId = (created.outputs as Array<{ asset_id: string }>)[0].asset_id;
			const downloaded = resultOf(results, 'download_asset');
			expect(downloaded).toMatchObject({ assetId, mimeType: 'image/png', url: expect.any(String) });
			// a file never reaches the model as bytes (n8n drops a tool's binary data), but as a
			// signed URL serving exactly the asset's bytes
			const downloadText = results.find((x) => x.tool === 'download_asset')!.content;
			expect(downloadText.length).toBeLessThan(4000);
			const viaUrl = Buffer.from(await (await fetch(String(downloaded.url))).arrayBuffer());
			expect(viaUrl.length).toBe(Number(downloaded.size));
			expect(viaUrl.subarray(0, 8)).toEqual(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]));

			// the sandbox: one project by that name, one generation, charged exactly once
			const api = async (p: string) =>
				(await (
					await fetch(`${sb.baseUrl}${p}`, { headers: { authorization: `Bearer ${sb.keys.pro}` } })
				).json()) as Record<string, unknown>;
			expect(await api(`/projects/${String(project.id)}`)).toMatchObject({
				name: 'Bicycle shoot',
				description: 'e2e agent run',
			});
			const creates = sb.control.requests({ method: 'POST', path: '/generations$' });
			expect(creates.map((c) => c.status)).toEqual([201]);
			expect(await api(`/generations/${String(created.id)}`)).toMatchObject({
				prompt: PROMPT,
				status: 'completed',
				credits_charged: cost,
			});
			expect(before - sb.control.credits('main').balance).toBe(cost);
			expect(sb.control.requests({ method: 'POST', path: '/projects$' })).toHaveLength(1);
			expect(
				sb.control.requests({ method: 'GET', path: `/assets/${assetId}/download$` }).length,
			).toBeGreaterThanOrEqual(1);
			// eslint-disable-next-line no-console
			console.log(
				`[e2e agent] model requests ${model.requests.length}; sandbox requests ${seen.length} ` +
					`(${seen
						.map((q) => `${q.method} ${q.path.replace(/[0-9a-f-]{36}/g, ':id')} ${q.status}`)
						.join(', ')}); charged ${cost} credits for 1 generation`,
			);
		},
		10 * MIN,
	);
	test(
		'streaming: the same agent started by a webhook streams its answer; the model is asked for streamed answers; charged once',
		async () => {
			const sb = ctx.sandbox;
			const t0 = Date.now();
			n8n = await startN8n(ctx.home);
			await n8n.waitForWebhook(STREAM_PATH);
			timings.startN8n = Date.now() - t0;
			sb.control.clearRequests();
			const before = sb.control.credits('main').balance;
			const first = model.requests.length;

			const t1 = Date.now();
			const res = await fetch(n8n.webhookUrl(STREAM_PATH), {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: '{}',
			});
			expect(res.status).toBe(200);
			const body = await res.text();
			timings.streamed = Date.now() - t1;
			// n8n streams JSON lines: begin, the agent's text in pieces, end
			const chunks = body
				.split('\n')
				.filter((l) => l.trim())
				.map((l) => JSON.parse(l) as { type: string; content?: string });
			const streamedText = chunks
				.filter((c) => c.type === 'item')
				.map((c) => c.content ?? '')
				.join('');
			expect({ streamedText, errors: model.errors }).toEqual({ streamedText: FINAL, errors: [] });

			const asked = model.requests.slice(first);
			expect(asked.map((q) => q.stream)).toEqual(Array(5).fill(true));
			expect(toolResultsOf(asked.at(-1)!.messages).map((x) => x.tool)).toEqual([
				'create_project',
				'create_generation',
				'get_generation',
				'download_asset',
			]);
			const created = resultOf(toolResultsOf(asked.at(-1)!.messages), 'create_generation');
			expect(created).toMatchObject({ status: 'completed', credits_charged: expect.any(Number) });
			expect(sb.control.requests({ method: 'POST', path: '/generations$' })).toHaveLength(1);
			expect(before - sb.control.credits('main').balance).toBe(created.credits_charged);
		},
		10 * MIN,
	);
});
