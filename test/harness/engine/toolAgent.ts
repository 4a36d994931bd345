/**
 * The nodes as AI tools in n8n-core's own tool path (test/engine/tools.test.ts, the credit budget's
 * simulation): a test agent node asks the engine for its connected tools (getInputConnectionData →
 * createNodeAsTool → makeHandleToolInvocation, the node run in a SupplyDataContext with the
 * model's arguments as input) and calls them in the order of a script, the way n8n's AI Agent does
 * after a model's tool calls; and the MediaGen node as n8n's loader makes it a tool.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWorkflowBase,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { ACTION_NODES } from '../actionNodes';
import type { TestNode } from './harness';
import { chain, NODE_TYPES } from './harness';

interface ToolLike {
	name: string;
	description: string;
	metadata?: { sourceNodeName?: string };
	invoke(args: IDataObject): Promise<unknown>;
}

export interface Step {
	tool: string;
	/** Arguments; a string "$prev.a.b" is read from the previous answer (a model copying an id). */
	args: IDataObject;
}

function fromPrevious(args: IDataObject, previous: unknown): IDataObject {
	const out: IDataObject = {};
	for (const [k, v] of Object.entries(args)) {
		out[k] =
			typeof v === 'string' && v.startsWith('$prev.')
				? (v
						.slice(6)
						.split('.')
						.reduce<unknown>((o, key) => (o as Record<string, unknown>)?.[key], previous) as string)
				: v;
	}
	return out;
}

/** A test agent: calls its connected tools as its script says and outputs every answer. */
export class ScriptedAgent implements INodeType {
	description = {
		displayName: 'Scripted Agent',
		name: 'scriptedAgent',
		group: ['transform'],
		version: 1,
		description: 'Calls tools in a scripted order',
		defaults: { name: 'Agent' },
		inputs: [
			NodeConnectionTypes.Main,
			{ type: NodeConnectionTypes.AiTool, displayName: 'Tools', required: true },
		],
		outputs: [NodeConnectionTypes.Main],
		properties: [{ displayName: 'Script', name: 'script', type: 'json', default: '[]' }],
	} as INodeTypeDescription;

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const connected = await this.getInputConnectionData(NodeConnectionTypes.AiTool, 0);
		const tools = (Array.isArray(connected) ? connected : [connected]) as ToolLike[];
		const script = JSON.parse(this.getNodeParameter('script', 0) as string) as Step[];
		const out: INodeExecutionData[] = [];
		let previous: unknown = {};
		for (const step of script) {
			const tool = tools.find((t) => t.metadata?.sourceNodeName === step.tool);
			if (!tool) throw new Error(`No tool ${step.tool}`);
			try {
				const answer = JSON.parse(String(await tool.invoke(fromPrevious(step.args, previous))));
				previous = Array.isArray(answer) ? answer[0] : answer;
				out.push({ json: { tool: step.tool, answer, description: tool.description } });
			} catch (error) {
				out.push({
					json: { tool: step.tool, error: (error as Error).message, description: tool.description },
				});
			}
		}
		return [out];
	}
}

// What n8n's loader makes of a usableAsTool node (packages/cli tool generation): the same node,
// named `…Tool`, with an ai_tool output instead of main.
const v2 = ACTION_NODES.mediaGen.getNodeType(2);
/** The context n8n-core ran the tool with, kept to check the APIs the nodes use exist there. */
let toolContext: IExecuteFunctions | undefined;
const keepContext = (ctx: IExecuteFunctions) => {
	toolContext = ctx;
};
/** The context n8n-core ran the last tool call with. */
export const lastToolContext = (): IExecuteFunctions | undefined => toolContext;
NODE_TYPES['n8n-nodes-mediagen.mediaGenTool'] = {
	...v2,
	async execute(this: IExecuteFunctions) {
		keepContext(this);
		return await v2.execute!.call(this);
	},
	description: {
		...v2.description,
		name: 'mediaGenTool',
		inputs: [],
		outputs: [NodeConnectionTypes.AiTool],
	},
} as INodeType;
NODE_TYPES['test.scriptedAgent'] = new ScriptedAgent();

/** A workflow: the agent (after an Items node) with `tools` connected as its AI tools. */
export function agentWorkflow(script: Step[], tools: TestNode[]): IWorkflowBase {
	const agent: TestNode = {
		name: 'Agent',
		type: 'test.scriptedAgent',
		parameters: { script: JSON.stringify(script) },
	};
	const workflow = chain([{}], [agent, ...tools]);
	workflow.connections = {
		Items: { main: [[{ node: 'Agent', type: 'main', index: 0 }]] },
		...Object.fromEntries(
			tools.map((t) => [t.name, { ai_tool: [[{ node: 'Agent', type: 'ai_tool', index: 0 }]] }]),
		),
	};
	return workflow;
}
