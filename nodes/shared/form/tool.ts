/**
 * What a language model reads of an operation used as a tool (n8n's `<node>Tool`): the tool
 * description, written from the operation's declaration (docs/agents.md).
 */
import { TOOL_MODE } from '../jobs/toolCall';
import type { INodeProperties } from 'n8n-workflow';
import type { Endpoint } from '../catalog/dsl';

/** A sentence, ending with a full stop. */
function sentence(text: string): string {
	return /[.!?]$/.test(text) ? text : `${text}.`;
}

/**
 * An operation's description without what holds only in a workflow (binary properties, the
 * Wait for Completion and Return As defaults): a tool call answers files as URLs and bounds its
 * wait, as the rest of the tool description says.
 */
const WORKFLOW_TERMS: Array<[RegExp, string]> = [
	[/[;,] by default waits[^.]*/g, ''],
	[/\. By default waits[^.]*\.?/g, '.'],
	[/ into a binary property \(streamed\)/g, ''],
	[/ and, by default, the file/g, ''],
	[/ a binary file/g, ' a file'],
];

function withoutWorkflowTerms(text: string): string {
	return WORKFLOW_TERMS.reduce((t, [re, by]) => t.replace(re, by), text);
}

/**
 * What a model is told an operation does when it is a tool (n8n's own text would be only the
 * action, "Create a generation in MediaGen"): the operation, how a tool call of it behaves (jobs,
 * files, deletes) and what it needs, each required field with where its value comes from.
 */
export function toolDescription(e: Endpoint, needs: readonly string[]): string {
	const parts = [`MediaGen: ${sentence(withoutWorkflowTerms(e.toolText ?? e.description))}`];
	if (e.job) {
		parts.push(
			`Starts a job that costs credits and waits for it at most ${TOOL_MODE.waitSeconds} s; if it is still running then, the answer says done: false with the job's id: do not call this again, check the job later with the matching Get tool.`,
		);
	}
	if (e.job || e.binary === 'download' || e.binary === 'resultAsset') {
		parts.push(
			'Files are answered as signed download URLs (url, expiresAt), not as file contents.',
		);
	}
	if (e.binary === 'upload') {
		parts.push("Uploads the file in the workflow's input item; a model cannot send a file itself.");
	}
	if (e.method === 'DELETE' || e.operation === 'delete')
		parts.push('Deletes for good: ask the user first.');
	if (needs.length) parts.push(`Needs: ${needs.join('; ')}.`);
	return parts.join(' ');
}

/**
 * The tool description as a parameter of the tool variant only (`@tool`): n8n uses it instead of
 * its own automatic text, and the user can edit it. Its default follows the operation.
 */
export function toolDescriptionProperty(text: string): INodeProperties {
	return {
		displayName: 'Tool Description',
		name: 'toolDescription',
		type: 'string',
		default: text,
		typeOptions: { rows: 4 },
		description:
			'What the AI model is told this tool does. Written for this operation; edit it to fit your agent.',
		displayOptions: { show: { '@tool': [true] } },
	};
}
