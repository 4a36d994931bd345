/**
 * What every catalog node's description shares: connections, credential, tool use. (Icon and
 * subtitle stay in each node file, where n8n's lint looks for them.)
 */
import type { INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

export const catalogNodeBase = {
	group: ['transform'],
	version: 1,
	usableAsTool: true,
	inputs: [NodeConnectionTypes.Main],
	outputs: [NodeConnectionTypes.Main],
	credentials: [{ name: 'mediaGenApi', required: true }],
} satisfies Partial<INodeTypeDescription>;
