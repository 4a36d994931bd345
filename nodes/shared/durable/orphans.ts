/**
 * The jobs of a Retry's lost try that no item of the Retry takes (the input or the node changed
 * before it), named by the node in a warning hint: they were charged. docs/batches.md.
 */
import type { IDataObject } from 'n8n-workflow';

import type { RecoverRule } from '../catalog/dsl';
import { fillPath } from '../jobs/paths';
import { sameCallJobs } from './calls';
import type { Provenance } from './identity';
import { defaultIdempotencyKey } from './identity';
import { loopEnds } from './loops';
import type { Lookup, RecoverablePlan } from './lookups';
import { foundElsewhere, Lookups, matches, ownProvenance, positionProvenance } from './lookups';
import { unprovenOrphans } from './unproven';

/**
 * In n8n's Retry of a run whose node repeats (Loop Over Items), the jobs the lost try made at
 * its other positions for recorded requests (not this execution's own): a row added, removed or
 * moved before the Retry moves the rows to other iterations. What earlier positions of the run
 * took (and, with progress saved, what the lost try's finished positions output) is claimed.
 */
export async function otherPositions(lookup: Lookup, records: IDataObject[], withOwn = false) {
	if (!lookup.repeats || !lookup.retrying || lookup.subOfRetried) return [];
	const self = String(lookup.ctx.getExecutionId() ?? '');
	return (await ownProvenance(lookup, records, true)).filter(
		({ p }) => p.request && (withOwn || p.runIndex !== lookup.position) && p.executionId !== self,
	);
}

/** This node's and position's provenance records made by other executions than this one. */
export function otherExecutions(lookup: Lookup, records: IDataObject[]) {
	const self = String(lookup.ctx.getExecutionId() ?? '');
	return positionProvenance(lookup, records).filter((c) => c.p.executionId !== self);
}

/**
 * In a run that repeats a lost try, the jobs made for requests that no item of this run asks for
 * now: the input or the node changed before n8n's Retry (a row removed or edited, the prompt
 * changed). They were charged and belong to no item: the run names them. `lost`: the jobs an
 * earlier try of this run and position started (Generation → Create, found by their provenance;
 * jobs made before requests were recorded in it are left out). `sameRecord`: for record-matched
 * kinds, jobs on a record an item works on, made since the lost try may have begun, with values
 * no item asks for, and at the last iteration of Loop Over Items every one no position of this
 * execution took (the lost try's, another execution's or older: nothing tells). `worked` keeps
 * the records the positions read (the run memory's).
 */
export async function orphansOf(
	lookup: Lookup,
	plans: RecoverablePlan[],
	worked: (reads: string[]) => string[] = (reads) => reads,
): Promise<{ lost: IDataObject[]; maybe: IDataObject[]; sameRecord: IDataObject[] }> {
	const none = { lost: [], maybe: [], sameRecord: [] };
	if (!lookup.retrying) return none;
	const listed = await untakenOnRecords(lookup, plans, worked);
	const mine = plans.filter((p) => p.endpoint.job?.recover?.by === 'provenance');
	const byRecord = plans.filter((p) => p.endpoint.job?.recover?.by === 'generations');
	if (!mine.length && !(byRecord.length && lookup.ranBefore))
		return { ...none, sameRecord: listed };
	const lookups = new Lookups(lookup);
	const { records } = await lookups.generations('lostTry').records();
	const asked = new Set(plans.map((p) => p.requestId));
	const lost = (await lostJobs(lookup, records))
		.filter(({ p }) => mine.length && p.request && !asked.has(p.request))
		.map(({ record }) => record);
	const maybe = mine.length ? await unprovenOrphans(lookup, records, asked) : [];
	if (!byRecord.length || !lookup.ranBefore) return { lost, maybe, sameRecord: listed };
	// record-matched kinds: work on the same record, made since the lost try may have begun (the
	// window reaches back over the clocks' margin), with values no item asks for now (a row edited
	// or removed before the Retry)
	const rules = byRecord.map((p) => ({
		p,
		match: (p.endpoint.job?.recover as { match: Record<string, string> }).match,
	}));
	const onRecord = (r: IDataObject) =>
		rules.some(({ p, match }) => matches(r, recordPart(match), p.request));
	const askedFor = (r: IDataObject) => rules.some(({ p, match }) => matches(r, match, p.request));
	// in Loop Over Items, at its last iteration: also those with values items ask for that no
	// position of this execution took (more made than rows ask for now: a duplicate row removed);
	// before it, a later iteration may take them
	const last = !!lookup.repeats && loopEnds(lookup.ctx) === true;
	// a job under a key this run derives for a rank of a request no item asks for now (a duplicate
	// row removed before the Retry): the lost try's, and no item sends that key again
	const unasked = unaskedKeys(lookup, byRecord, records.length);
	const orphan = (r: IDataObject) =>
		onRecord(r) &&
		!lookup.claimed.has(String(r.id)) &&
		(last || !askedFor(r) || unasked.has(String(r.idempotency_key)));
	return { lost, maybe, sameRecord: [...records.filter(orphan), ...listed] };
}

/**
 * The default keys this run and position derive for the ranks of its requests that no item asks
 * for (`fp#3` where the items ask `fp#1` and `fp#2`), up to `n` beyond the highest asked.
 */
function unaskedKeys(lookup: Lookup, plans: RecoverablePlan[], n: number): Set<string> {
	const highest = new Map<string, number>();
	for (const p of plans) {
		const [fp, rank] = (p.requestId ?? '').split('#');
		if (!p.ownKey && fp && rank) highest.set(fp, Math.max(highest.get(fp) ?? 0, Number(rank)));
	}
	const keys = new Set<string>();
	if (!lookup.identity.durable) return keys;
	const nodeId = lookup.ctx.getNode().id;
	for (const [fp, max] of highest)
		for (let rank = max + 1; rank <= max + n; rank++)
			keys.add(
				defaultIdempotencyKey({
					token: lookup.identity.token,
					nodeId,
					position: lookup.position,
					request: `${fp}#${rank}`,
				}),
			);
	return keys;
}

/** A record a list or record rule reads (its path filled), as the run memory keeps it. */
type Read = Extract<RecoverRule, { by: 'list' | 'record' }>;

/**
 * The kinds found by a list or a record of their own (Canvas Run → Start: the canvas's runs;
 * Edit → Dub: the edit's exports), outside a loop or at the last iteration of Loop Over Items:
 * the jobs on this run's records made since the lost try may have begun that no position of
 * this execution took (the lost try's for a row edited or removed before the Retry, or for a
 * request the workflow no longer asks; another execution's; or older). Before a loop's last
 * iteration a later one may take them; at the last, the records every iteration read are read
 * (`worked`: kept in the run memory), since a row edited moves the last one to another record.
 */
async function untakenOnRecords(
	lookup: Lookup,
	plans: RecoverablePlan[],
	worked: (reads: string[]) => string[],
) {
	const here = plans.flatMap((p) => {
		const rule = p.endpoint.job?.recover;
		if (rule?.by !== 'list' && rule?.by !== 'record') return [];
		return [JSON.stringify({ ...rule, path: fillPath(rule.path, '', p.request.params) })];
	});
	const reads = lookup.repeats ? worked(here) : here;
	if (!lookup.ranBefore || (lookup.repeats && loopEnds(lookup.ctx) !== true)) return [];
	const since = await new Lookups(lookup).clock.band();
	const untaken = new Map<string, IDataObject>();
	for (const read of reads) {
		const rule = JSON.parse(read) as Read;
		const { records } = await foundElsewhere(lookup, rule, rule.path, since);
		for (const r of records) if (!lookup.claimed.has(String(r.id))) untaken.set(String(r.id), r);
	}
	return [...untaken.values()];
}

/**
 * The jobs of the lost try that may belong to no item, less what this run's positions took: this
 * position's (in a sub-execution of a retried parent, also those of the parent's lost try's
 * sub-executions); in Loop Over Items (not in a sub-execution of a retried parent, whose iterations
 * take no other position's jobs), at its last iteration every position's (before it, none: a
 * later iteration may take them), each given as asked by no item (`request` set to ORPHAN) when
 * not this position's.
 */
async function lostJobs(
	lookup: Lookup,
	records: IDataObject[],
): Promise<Array<{ record: IDataObject; p: Provenance }>> {
	const ends = lookup.repeats ? loopEnds(lookup.ctx) : undefined;
	const untaken = (list: Array<{ record: IDataObject; p: Provenance }>) =>
		list.filter(({ record }) => !lookup.claimed.has(String(record.id)));
	// a sub-execution of a retried parent takes no other position's jobs; its lost try ran in
	// the sub-executions of the parent's lost try: theirs are named too (every call's of the same
	// parent run, since which call made which cannot be told once the parent's rows changed)
	if (lookup.subOfRetried) {
		const others = otherExecutions(lookup, records);
		const call = await sameCallJobs(
			lookup.ctx,
			others.map((c) => c.record),
		);
		const lost = new Set([...call.jobs, ...call.unsure].map((r) => String(r.id)));
		const fromParent = others.filter((c) => lost.has(String(c.record.id)));
		return untaken([...(await ownProvenance(lookup, records)), ...fromParent]);
	}
	// not in a loop: this position's jobs are claimed by what the node context kept of its earlier
	// try, whatever their request; one for a request no item asks for now is no item's
	if (ends === undefined) return await ownProvenance(lookup, records);
	if (ends === false) return [];
	return untaken(await otherPositions(lookup, records, true)).map((c) =>
		c.p.runIndex === lookup.position ? c : { ...c, p: { ...c.p, request: ORPHAN } },
	);
}

/** The request of a job no item of the run can ask for any more (another iteration's, unclaimed). */
const ORPHAN = 'orphan';

/** The fields of a record rule's match that name the record (a path parameter), not a value. */
const recordPart = (match: Record<string, string>) =>
	Object.fromEntries(Object.entries(match).filter(([, t]) => !t.includes('{body.')));
