/**
 * Generation → Collect From Execution: the generations an n8n execution started, found by their
 * provenance (`context.n8n`), without n8n's saved data (queue mode, where a lost worker's
 * execution is left without it). docs/batches.md.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { timeOf } from '../jobs/paths';
import { listPages } from '../transport/pages';
import type { Provenance } from './identity';
import { provenanceIn } from './identity';
import { RECOVERY } from './recovery';

/** What Generation → Collect looks for: the provenance of the generations a run started. */
export interface CollectQuery {
	executionId?: string;
	workflowId?: string;
	node?: string;
	/** How far back the generations are read, in hours. */
	hours: number;
}

/**
 * The generations whose provenance names the execution (and/or workflow and node), oldest item
 * first: every job of a run n8n lost, found without n8n's saved data (queue mode, where a lost
 * worker's execution is left without it).
 */
export async function collectByProvenance(
	ctx: IExecuteFunctions,
	query: CollectQuery,
	now = Date.now(),
): Promise<IDataObject[]> {
	const found: Array<{ record: IDataObject; p: Provenance }> = [];
	const since = now - query.hours * 3_600_000;
	const walk = { path: '/generations', qs: { status: 'all' }, pageSize: RECOVERY.pageSize };
	pages: for await (const { records } of listPages(ctx, walk)) {
		for (const record of records) {
			const created = timeOf(record.created_at);
			if (created !== undefined && created < since) break pages;
			const p = provenanceIn(record);
			if (!p) continue;
			if (query.executionId && p.executionId !== query.executionId) continue;
			if (query.workflowId && p.workflowId !== query.workflowId) continue;
			if (query.node && p.node !== query.node && p.nodeId !== query.node) continue;
			found.push({ record, p });
		}
	}
	return found
		.reverse()
		.sort((a, b) => a.p.runIndex - b.p.runIndex || a.p.itemIndex - b.p.itemIndex)
		.map((f) => f.record);
}
