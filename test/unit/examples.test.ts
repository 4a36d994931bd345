/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only code (tests): never published, see package.json "files" */
// The examples' shape, checked without n8n: no example needs code (#25), the AI examples (which the
// demo and the compatibility matrix skip) are each run by their own e2e suite, and their tools are
// what a model can use; the no-code ad matrix and the long-jobs pair are built as documented.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

import type { Example } from '../../scripts/demoSetup';
import {
	AI_EXAMPLE_REASON,
	EXAMPLE_PAIRS,
	EXAMPLES_DIR,
	isAiExample,
	loadExamples,
	PACKAGE_NAME,
	SANDBOX_CREDENTIAL,
	whyNotRunnable,
} from '../../scripts/demoSetup';

const E2E = path.join(__dirname, '..', 'e2e');
const AI_SUITES: Record<string, string> = {
	'ai-agent.json': 'agent.e2e.test.ts',
	'mcp-server.json': 'mcp.e2e.test.ts',
};

const examples = loadExamples();

test.each(examples.map((e) => [e.file, e] as const))(
	'%s: unique 16-character id, node names, connections to existing nodes',
	(_file, ex) => {
		expect(ex.workflow.id).toMatch(/^mgExample[A-Za-z0-9]{7}$/);
		const names = ex.workflow.nodes.map((n) => String(n.name));
		expect(new Set(names).size).toBe(names.length);
		for (const [from, outputs] of Object.entries(ex.workflow.connections)) {
			expect(names).toContain(from);
			for (const list of Object.values(outputs as Record<string, Array<Array<{ node: string }>>>))
				for (const c of list.flat()) expect(names).toContain(c.node);
		}
	},
);

/** Nodes that run code a user writes (JavaScript, Python, a shell command). */
const CODE_NODES = [
	'n8n-nodes-base.code',
	'n8n-nodes-base.function',
	'n8n-nodes-base.functionItem',
	'n8n-nodes-base.aiTransform',
	'n8n-nodes-base.executeCommand',
	'@n8n/n8n-nodes-langchain.code',
	'@n8n/n8n-nodes-langchain.toolCode',
];
const codeNodesOf = (ex: { workflow: Pick<Example['workflow'], 'nodes'> }) =>
	ex.workflow.nodes.filter((n) => CODE_NODES.includes(String(n.type))).map((n) => String(n.name));

test('no example needs code: not one Code (or Function, AI Transform, Execute Command) node', () => {
	// the check sees one
	expect(
		codeNodesOf({
			workflow: { nodes: [{ name: 'Build', type: 'n8n-nodes-base.code' }] },
		}),
	).toEqual(['Build']);
	expect(examples.length).toBeGreaterThanOrEqual(9);
	expect(examples.map((ex) => [ex.file, codeNodesOf(ex)])).toEqual(
		examples.map((ex) => [ex.file, []]),
	);
});

test('example ids are unique', () => {
	const ids = examples.map((e) => e.workflow.id);
	expect(new Set(ids).size).toBe(ids.length);
});

test('the AI examples are skipped by the demo and the matrix, with the reason, and each has its own e2e suite', () => {
	const ai = examples.filter((e) => isAiExample(e)).map((e) => e.file);
	expect(ai.sort()).toEqual(Object.keys(AI_SUITES).sort());
	for (const ex of examples) {
		if (isAiExample(ex)) {
			expect(whyNotRunnable(ex, [])).toBe(AI_EXAMPLE_REASON);
			const suite = readFileSync(path.join(E2E, AI_SUITES[ex.file]), 'utf8');
			expect(suite).toContain(`const EXAMPLE = '${ex.file}';`);
		}
	}
});

describe.each(Object.keys(AI_SUITES))('%s: tools a model can use', (file) => {
	const ex = examples.find((e) => e.file === file)!;
	const tools = ex.workflow.nodes.filter((n) => String(n.type).startsWith(`${PACKAGE_NAME}.`));
	const root = ex.workflow.nodes.find((n) => /\.(agent|mcpTrigger)$/.test(String(n.type)))!;

	test('every MediaGen node is a tool (…Tool, version 2 on: its own Tool Description), connected to the agent or the MCP trigger', () => {
		expect(tools.length).toBeGreaterThanOrEqual(4);
		for (const t of tools) {
			expect(String(t.type)).toMatch(/Tool$/);
			expect(t.typeVersion).toBeGreaterThanOrEqual(2);
			expect(t.credentials).toEqual({ mediaGenApi: SANDBOX_CREDENTIAL });
			const conn = ex.workflow.connections[String(t.name)] as {
				ai_tool: Array<Array<{ node: string }>>;
			};
			expect(conn.ai_tool[0][0].node).toBe(root.name);
			// the name is the tool's name: n8n would rewrite anything but [A-Za-z0-9_-]
			expect(String(t.name)).toMatch(/^[a-z_]+$/);
		}
	});

	test('each tool has a description written for the model, and every $fromAI key a description', () => {
		for (const t of tools) {
			const p = t.parameters as Record<string, unknown>;
			// version 2's own Tool Description parameter (n8n's descriptionType is not used there)
			expect(p).not.toHaveProperty('descriptionType');
			expect(String(p.toolDescription).length).toBeGreaterThan(40);
			const calls = [
				...JSON.stringify(p).matchAll(/\$fromAI\('([^']+)', '((?:[^'\\]|\\.)*)', '(\w+)'\)/g),
			];
			const raw = JSON.stringify(p).match(/\$fromAI\(/g) ?? [];
			expect(calls.length).toBe(raw.length); // every $fromAI has key, description and type
			for (const [, key, description] of calls) {
				// n8n 2.40.7's AI Agent takes an input named `tool` as the tool's name and overwrites `id`
				expect(['tool', 'id']).not.toContain(key);
				expect(description.length).toBeGreaterThan(10);
			}
		}
	});
});

describe('the ad matrix without code (MediaGen Ads version 3)', () => {
	const ex = examples.find((e) => e.file === 'ad-matrix.json')!;
	const byName = (name: string) => ex.workflow.nodes.find((n) => n.name === name)!;
	const next = (name: string) =>
		(ex.workflow.connections[name] as { main: Array<Array<{ node: string }>> }).main[0].map(
			(c) => c.node,
		);

	test('Preview Matrix (run once) → Filter → Limit → Run Matrix from its input items', () => {
		const preview = byName('Preview matrix');
		expect(preview).toMatchObject({ typeVersion: 3, executeOnce: true });
		expect(preview.parameters).toMatchObject({ resource: 'adProject', operation: 'previewMatrix' });
		expect(next('Preview matrix')).toEqual(['Keep 9:16']);
		expect(byName('Keep 9:16').type).toBe('n8n-nodes-base.filter');
		expect(next('Keep 9:16')).toEqual(['First 3']);
		expect(byName('First 3')).toMatchObject({
			type: 'n8n-nodes-base.limit',
			parameters: { maxItems: 3 },
		});
		expect(next('First 3')).toEqual(['Run ad matrix']);
		const run = byName('Run ad matrix');
		expect(run.typeVersion).toBe(3);
		expect(run.parameters).toMatchObject({ operation: 'runMatrix', combosSource: 'items' });
		expect(run.parameters).not.toHaveProperty('combos');
	});
});

describe.each(Object.entries(EXAMPLE_PAIRS))(
	'long jobs: %s finishes what %s starts',
	(finishFile, startFile) => {
		const finish = examples.find((e) => e.file === finishFile)!;
		const start = examples.find((e) => e.file === startFile)!;

		test('both are a pair, so the demo and the e2e run them together in n8n start', () => {
			expect([finish.kind, start.kind]).toEqual(['pair', 'pair']);
		});

		test('the starter reads rows from a sheet and starts a job per row, Wait for Completion off, the row’s reference in its context', () => {
			const read = start.workflow.nodes.find((n) => n.type === 'n8n-nodes-base.readWriteFile')!;
			const sheet = String((read.parameters as { fileSelector: string }).fileSelector);
			const [header] = readFileSync(path.join(EXAMPLES_DIR, '..', sheet), 'utf8').split('\n');
			expect(header.split(',')[0]).toBe('reference');
			const create = start.workflow.nodes.find((n) => n.type === `${PACKAGE_NAME}.mediaGen`)!;
			const p = create.parameters as Record<string, Record<string, unknown>>;
			expect(p).toMatchObject({
				resource: 'generation',
				operation: 'create',
				waitForCompletion: false,
			});
			expect(String(p.additionalFields.context)).toContain('"reference": "{{ $json.reference }}"');
		});

		test('the finisher starts on completed and failed generations with their context, and keeps only the sheet’s', () => {
			const trigger = finish.workflow.nodes.find(
				(n) => n.type === `${PACKAGE_NAME}.mediaGenTrigger`,
			)!;
			expect(trigger.parameters).toMatchObject({
				registration: 'automatic',
				events: ['generation.completed', 'generation.failed'],
				options: { includeContext: true },
			});
			expect(JSON.stringify(finish.workflow.nodes)).toContain('$json.context.reference');
		});
	},
);
