/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only code (tests): never published, see package.json "files" */
// The examples' shape, checked without n8n: the AI examples (which the demo and the compatibility
// matrix skip) are each run by their own e2e suite, and their tools are what a model can use.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

import {
	AI_EXAMPLE_REASON,
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

	test('every MediaGen node is a tool (…Tool, latest version), connected to the agent or the MCP trigger', () => {
		expect(tools.length).toBeGreaterThanOrEqual(4);
		for (const t of tools) {
			expect(String(t.type)).toMatch(/Tool$/);
			expect(t.typeVersion).toBe(2);
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
