/**
 * Provenance a Retry can neither claim nor rule out. n8n 1.x saves nothing unique with an
 * execution's start (no resumeToken, no execution context), so a Retry there knows its lost try
 * only by the start times of the nodes before this one that both saved (identity.ts
 * fingerprintOf). An execution that saved none (a queue-mode worker lost without its event log:
 * its data as saved at its start; Stop without progress saving: the data of its start; an
 * execution still running without progress saving) has nothing to compare: its jobs may be the
 * lost try's. They are not taken and not made again: the item is refused and they are named
 * (docs/batches.md); so in a Retry of such a Retry, whose token the first one kept (`blind`).
 */
import type { IDataObject, IRunExecutionData } from 'n8n-workflow';

import type { Provenance } from './identity';
import { tokenProvesLostTry } from './identity';
import { beforeThisNode, fingerprintOf, savedExecutionData } from './savedRuns';
import type { Lookup } from './lookups';
import { loopEnds } from './loops';
import { ownProvenance, positionProvenance, RECOVERY } from './lookups';

/**
 * In n8n's Retry of a run without a saved identity (n8n 1.x), this node's and position's
 * provenance records made by other executions whose saved data holds no first run of a node
 * before this one (read: at most RECOVERY.maxExecutions executions). An execution whose data
 * cannot be read any more is not counted: n8n keeps a crashed or canceled execution (the lost
 * try), and deletes a successful one the workflow does not save. `mine`: what ownProvenance
 * found of the lost try (read once by the caller).
 */
/** n8n's Retry of a run without a saved identity (n8n 1.x), where such records may be its own. */
const withoutIdentity = ({ retrying, subOfRetried, identity }: Lookup) =>
	retrying && !subOfRetried && !tokenProvesLostTry(identity);

export async function unprovenRuns(
	lookup: Lookup,
	records: IDataObject[],
	mine: Array<{ record: IDataObject }>,
	anyPosition = false,
): Promise<Array<{ record: IDataObject; p: Provenance }>> {
	const { ctx } = lookup;
	if (!withoutIdentity(lookup)) return [];
	const self = String(ctx.getExecutionId() ?? '');
	const own = new Set(mine.map((c) => String(c.record.id)));
	const candidates = positionProvenance(lookup, records, anyPosition).filter(
		(c) => c.p.executionId !== self && !own.has(String(c.record.id)),
	);
	const blind = new Map<string, boolean>();
	for (const id of [...new Set(candidates.map((c) => c.p.executionId))].slice(
		0,
		RECOVERY.maxExecutions,
	)) {
		const data: IRunExecutionData | undefined = await savedExecutionData(ctx, id);
		const name = candidates.find((c) => c.p.executionId === id)?.p.node ?? ctx.getNode().name;
		blind.set(id, !!data && fingerprintOf(data, name, beforeThisNode(ctx, name)) === undefined);
	}
	return candidates.filter((c) => blind.get(c.p.executionId));
}

/**
 * Such records for requests no item of this run asks for now (the input or the node changed
 * before the Retry): they may be the lost try's, charged and in no output: named, not taken. At
 * the last iteration of Loop Over Items, also every position's that no iteration took: a row
 * removed before the Retry leaves the lost try's job at a position the Retry never runs.
 */
export async function unprovenOrphans(
	lookup: Lookup,
	records: IDataObject[],
	asked: Set<string | undefined>,
): Promise<IDataObject[]> {
	if (!withoutIdentity(lookup)) return [];
	const last = !!lookup.repeats && loopEnds(lookup.ctx) === true;
	const mine = await ownProvenance(lookup, records, last);
	const maybe = await unprovenRuns(lookup, records, mine, last);
	return maybe
		.filter(
			({ p, record }) =>
				p.request &&
				(!asked.has(p.request) || p.runIndex !== lookup.position) &&
				!lookup.claimed.has(String(record.id)),
		)
		.map(({ record }) => record);
}

/** The reason an item whose request such a record holds is refused. */
export function unprovenHit(ids: string[]): string {
	return `MediaGen holds ${ids.join(', ')} for this item's request, made by another execution of this node that n8n saved nothing of (n8n 1.x without Save Execution Progress: a queue-mode worker lost, a Stop): it may be the lost try's, and the node cannot tell`;
}
