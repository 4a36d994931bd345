/**
 * What changes when a node runs as an AI tool (n8n's `<node>Tool`): files as signed URLs, a
 * bounded wait, simplified records, the tool descriptions (docs/agents.md).
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { DownloadLink } from './binaryDownload';
import { downloadLink } from './binaryDownload';
import type { Endpoint } from './catalog/dsl';
import type { PendingJob } from './poller';

/**
 * The longest a tool call waits for its jobs: under the MCP SDK's default request timeout (60 s),
 * so an MCP client gets an answer rather than a timeout of its own.
 */
export const TOOL_MODE = { waitSeconds: 45 };

/** Whether this run of the node is a tool call (n8n names the tool variant `…Tool`). */
export function isToolCall(ctx: Pick<IExecuteFunctions, 'getNode'>): boolean {
	return ctx.getNode().type.endsWith('Tool');
}

/** A file as a tool answers it: where to fetch it, until when, and what it is. */
export async function fileAsLink(
	ctx: IExecuteFunctions,
	assetId: string,
	itemIndex: number,
): Promise<IDataObject> {
	const link: DownloadLink = await downloadLink(ctx, assetId, itemIndex);
	return {
		assetId,
		url: link.url,
		expiresAt: link.expiresAt ?? null,
		filename: link.filename ?? null,
		mimeType: link.mimeType ?? null,
		size: link.size ?? null,
		howToFetch:
			'GET the url (no authentication) before expiresAt; after that, call the asset download tool again with assetId for a new URL.',
	};
}

/** The answer for a job still running when a tool call's wait ended. */
export function stillRunning(job: PendingJob): IDataObject {
	const status = String(job.record.status ?? 'queued');
	return {
		id: job.id,
		status,
		done: false,
		waitedSeconds: TOOL_MODE.waitSeconds,
		next: `The job is still ${status} at MediaGen and keeps going; it is charged only if it succeeds. Do not start it again: check it later by calling the matching Get tool (e.g. Get a generation) with id ${job.id}.`,
	};
}

// ---------------------------------------------------------------------------------------------
// Output: Simplified (node version 2)

/** Records with more fields than this are simplified (n8n's UX guideline). */
const SIMPLE_MAX_FIELDS = 10;

/** The fields a simplified record keeps, in this order, where the record has them. */
const SIMPLE_FIELDS = [
	'id',
	'name',
	'title',
	'status',
	'kind',
	'tool',
	'model_id',
	'prompt',
	'project_id',
	'projectId',
	'generationId',
	'filename',
	'mimeType',
	'size',
	'url',
	'outputs',
	'files',
	'credits_charged',
	'credits',
	'error',
	// the user's own fields and the node's provenance (`context.n8n`): what ties a job to its row
	'context',
	'created_at',
	'completed_at',
	'nextCursor',
	'notice',
];

/** A record with the fields a user or model needs; small records stay as they are. */
export function simplify(record: IDataObject): IDataObject {
	if (Object.keys(record).length <= SIMPLE_MAX_FIELDS) return record;
	const out: IDataObject = {};
	for (const key of SIMPLE_FIELDS) if (key in record) out[key] = record[key];
	return out;
}

// ---------------------------------------------------------------------------------------------
// Tool descriptions (node version 2)

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
	const parts = [`MediaGen: ${sentence(withoutWorkflowTerms(e.description))}`];
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
