/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
// The nodes as AI tools (#16), in n8n-core's own tool path: a test agent node asks the engine for
// its connected tools (getInputConnectionData → createNodeAsTool → makeHandleToolInvocation, the
// node run in a SupplyDataContext with the model's arguments as input) and calls them in the order
// of a script, the way n8n's AI Agent does after a model's tool calls. Asserted at the sandbox.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { TOOL_MODE } from '../../nodes/shared/jobs/toolCall';
import type { TestNode } from '../harness/engine/harness';
import { runWorkflow } from '../harness/engine/harness';
import { useSandbox } from '../harness/engine/setup';
import type { Step } from '../harness/engine/toolAgent';
import { agentWorkflow, lastToolContext } from '../harness/engine/toolAgent';

const { sb, creds } = useSandbox({ timeScale: 0.01 });

const fromAI = (key: string, what: string) => `={{ $fromAI('${key}', '${what}', 'string') }}`;
const byId = (key: string, what: string) => ({ __rl: true, mode: 'id', value: fromAI(key, what) });

const TOOLS: TestNode[] = [
	{
		name: 'Create Generation',
		type: 'n8n-nodes-mediagen.mediaGenTool',
		typeVersion: 2,
		parameters: {
			resource: 'generation',
			operation: 'create',
			modelId: 'flux-pro',
			prompt: fromAI('prompt', 'What the image shows'),
			returnAs: 'binary',
		},
	},
	{
		name: 'Get Generation',
		type: 'n8n-nodes-mediagen.mediaGenTool',
		typeVersion: 2,
		parameters: {
			resource: 'generation',
			operation: 'get',
			generationId: byId('generationId', 'The id of a generation'),
			output: 'raw',
		},
	},
	{
		name: 'Download Asset',
		type: 'n8n-nodes-mediagen.mediaGenTool',
		typeVersion: 2,
		parameters: {
			resource: 'asset',
			operation: 'download',
			assetId: byId('assetId', 'The id of an asset'),
		},
	},
];

async function agentRun(
	script: Step[],
	overrides: Record<string, IDataObject> = {},
	credentials = creds(),
) {
	const tools = TOOLS.map((t) => ({
		...t,
		parameters: { ...t.parameters, ...overrides[t.name] },
	})) as TestNode[];
	const workflow = agentWorkflow(script, tools);
	const result = await runWorkflow(workflow, { credentials });
	if (result.error) throw new Error(`${result.error.message} ${result.error.description ?? ''}`);
	return result.json('Agent');
}

const balance = () => sb.control.credits('main').balance;
const creates = () => sb.control.requests({ method: 'POST', path: '/v1/generations' }).length;

test('create, check and download as tools: files come back as signed URLs that serve the bytes; charged once', async () => {
	const before = balance();
	const answers = await agentRun([
		{ tool: 'Create Generation', args: { prompt: 'a red kite' } },
		{ tool: 'Get Generation', args: { generationId: '$prev.id' } },
		{ tool: 'Download Asset', args: { assetId: '$prev.outputs.0.asset_id' } },
	]);
	expect(answers.map((a) => a.error ?? null)).toEqual([null, null, null]);
	const [created, got, downloaded] = answers.map((a) => (a.answer as IDataObject[])[0]);

	// Create: waited, simplified (Output's default in version 2), its file as a URL, no binary
	expect(created.status).toBe('completed');
	expect(created).not.toHaveProperty('params');
	expect(created).not.toHaveProperty('idempotency_key');
	const [file] = created.files as IDataObject[];
	expect(file).toMatchObject({ assetId: expect.any(String), url: expect.stringMatching(/^http/) });
	// Get with Output Raw: the whole record
	expect(Object.keys(got).length).toBeGreaterThan(20);
	// Download: the signed URL, its expiry and how to fetch it; the URL serves the asset's bytes
	expect(downloaded).toMatchObject({
		assetId: file.assetId,
		expiresAt: expect.any(String),
		howToFetch: expect.stringMatching(/before expiresAt/),
	});
	const res = await fetch(String(downloaded.url));
	expect(res.status).toBe(200);
	expect(Number(res.headers.get('content-length'))).toBe(downloaded.size);

	expect(creates()).toBe(1);
	expect(before - balance()).toBe(created.credits_charged);
	expect(created.credits_charged).toBeGreaterThan(0);
});

test('each tool tells the model what it does: an operation-specific description in version 2, editable', async () => {
	const answers = await agentRun([
		{ tool: 'Create Generation', args: { prompt: 'a kite' } },
		{ tool: 'Get Generation', args: { generationId: '$prev.id' } },
		{ tool: 'Download Asset', args: { assetId: '$prev.outputs.0.asset_id' } },
	]);
	const [create, get, download] = answers.map((a) => String(a.description));
	// not n8n's automatic "Create a generation in MediaGen"
	expect(create).toMatch(/^MediaGen: Start a generation\. Credits are charged only on success\./);
	expect(create).toContain(`waits for it at most ${TOOL_MODE.waitSeconds} s`);
	expect(create).toContain('done: false');
	expect(create).toContain('signed download URLs');
	expect(create).toMatch(/Needs: Model ID \(the model's name at MediaGen, e\.g\. flux-pro/);
	expect(get).toBe(
		'MediaGen: Get a generation. Needs: Generation ID (from Generation → Create or Get Many).',
	);
	expect(download).not.toMatch(/binary/);
	expect(download).toContain('signed download URLs (url, expiresAt)');

	// a description the user wrote is what the model gets
	const own = 'Make one picture; say what it shows in prompt.';
	const custom = await agentRun(
		[{ tool: 'Get Generation', args: { generationId: '00000000-0000-4000-8000-000000000000' } }],
		{ 'Get Generation': { toolDescription: own } },
	);
	expect(custom[0].description).toBe(own);
});

test('a job still running when the tool wait ends is answered as such: not failed, not cancelled, charged once when done', async () => {
	const saved = TOOL_MODE.waitSeconds;
	TOOL_MODE.waitSeconds = 1;
	sb.control.holdJobs();
	try {
		const before = balance();
		const [answer] = await agentRun([{ tool: 'Create Generation', args: { prompt: 'slow' } }]);
		const job = (answer.answer as IDataObject[])[0];
		expect(job).toMatchObject({ done: false, waitedSeconds: 1 });
		expect(String(job.next)).toContain(`id ${job.id}`);
		expect(sb.control.requests({ method: 'POST' }).filter((r) => /cancel/.test(r.path))).toEqual(
			[],
		);
		sb.control.releaseJobs();
		let record: IDataObject = {};
		for (let tries = 0; tries < 50 && record.status !== 'completed'; tries++) {
			if (tries) await sleep(100);
			const got = await agentRun([{ tool: 'Get Generation', args: { generationId: job.id } }]);
			record = (got[0].answer as IDataObject[])[0];
		}
		expect(record.status).toBe('completed');
		expect(creates()).toBe(1);
		expect(before - balance()).toBe(record.credits_charged);
	} finally {
		TOOL_MODE.waitSeconds = saved;
		sb.control.releaseJobs();
	}
});

test('errors a model can act on: the limit by name with nothing sent; no credits with the balance', async () => {
	const [tooLong] = await agentRun([
		{ tool: 'Create Generation', args: { prompt: 'x'.repeat(50_001) } },
	]);
	expect(tooLong.error).toMatch(/Prompt must be at most 50000 characters, got 50001/);
	expect(tooLong.error).toMatch(/Nothing was sent to MediaGen/);
	expect(creates()).toBe(0);

	sb.control.setCredits('main', 2);
	const [poor] = await agentRun([{ tool: 'Create Generation', args: { prompt: 'a kite' } }]);
	expect(poor.error).toMatch(/credits/i);
	expect(poor.error).toMatch(/balance 2/);
	expect(balance()).toBe(2);
});

test('two calls of one tool in one execution are two jobs (distinct idempotency keys)', async () => {
	await agentRun([
		{ tool: 'Create Generation', args: { prompt: 'one' } },
		{ tool: 'Create Generation', args: { prompt: 'two' } },
	]);
	const keys = sb.control
		.requests({ method: 'POST', path: '/v1/generations' })
		.map((r) => r.idempotencyKey);
	expect(keys).toHaveLength(2);
	expect(keys.every((k) => typeof k === 'string')).toBe(true);
	expect(new Set(keys).size).toBe(2);
	expect(
		sb.control.requests({ method: 'POST', path: '/v1/generations' }).map((r) => r.status),
	).toEqual([201, 201]);
});

test('every n8n API the nodes call exists in the context n8n-core runs a tool with', async () => {
	await agentRun([
		{ tool: 'Get Generation', args: { generationId: '00000000-0000-4000-8000-000000000000' } },
	]);
	const toolContext = lastToolContext();
	expect(toolContext?.constructor.name).toBe('SupplyDataContext');
	const dir = join(__dirname, '..', '..', 'nodes', 'shared');
	const source = (readdirSync(dir, { recursive: true }) as string[])
		.filter((f) => f.endsWith('.ts'))
		.map((f) => readFileSync(join(dir, f), 'utf8'))
		.join('\n');
	const used = new Set([...source.matchAll(/\bctx\.((?:helpers\.)?\w+)/g)].map((m) => m[1]));
	expect(used.size).toBeGreaterThan(10);
	const missing = [...used].filter((name) => {
		const [first, second] = name.split('.');
		const target = second
			? (toolContext as unknown as { helpers: Record<string, unknown> }).helpers[second]
			: (toolContext as unknown as Record<string, unknown>)[first];
		return typeof target !== 'function' && typeof target !== 'object';
	});
	expect(missing).toEqual([]);
});

test('a call over the credit budget is answered with a readable refusal, not a failure: nothing started or charged', async () => {
	const credentials = creds();
	Object.assign(credentials.mediaGenApi, { budgetPeriod: 'day', budgetCredits: 6 });
	const before = balance();
	const [first, second] = await agentRun(
		[
			{ tool: 'Create Generation', args: { prompt: 'one' } },
			{ tool: 'Create Generation', args: { prompt: 'two' } },
		],
		{ 'Create Generation': { returnAs: 'json' } },
		credentials,
	);
	const answer = (a: IDataObject) =>
		(Array.isArray(a.answer) ? a.answer[0] : a.answer) as IDataObject;
	expect(answer(first)).toMatchObject({ status: 'completed' });
	expect(second.error).toBeUndefined();
	expect(answer(second)).toMatchObject({
		refused: true,
		reason: 'creditBudget',
		message: expect.stringMatching(
			/^Credit budget: item 1 \(Create\) was refused; it needs an estimated 4 credits, 2 credits left of the budget of 6 credits per day: spent 4, reserved 0 this day/,
		),
		budget: { budget: 6, spent: 4, reserved: 0, estimate: 4, left: 2 },
		// 2 credits are left: not "used up" (issue #38, finding 5)
		next: 'This call was not started: it needs an estimated 4 credits and 2 credits are left of the credit budget until '
			.concat(String((answer(second).budget as IDataObject).resetsAt))
			.concat(
				'. A call that costs at most 2 credits can still be made (check its cost first); otherwise tell the user.',
			),
	});
	expect(sb.control.requests({ method: 'POST', path: '/generations$' })).toHaveLength(1);
	expect(before - balance()).toBe(4);
});
