/**
 * How a node run answers when it is a tool call (n8n's AI Agent, MCP Server Trigger): files as
 * signed URLs, a bounded wait, a job still running told as such (docs/agents.md).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { DownloadLink } from '../files/download';
import { downloadLink } from '../files/download';
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
