/**
 * Finds at MediaGen what an earlier try of a node run did without a record of it (n8n died, an
 * answer was lost), so a retry waits for those jobs and outputs those answers instead of starting
 * or charging them again, by each endpoint's `recover` rule or `charged` evidence; where the lists
 * cannot prove that nothing was done, the item is refused and named (docs/batches.md).
 */
import type { IDataObject } from 'n8n-workflow';

import type { ChargedRule, RecoverRule } from '../catalog/dsl';
import { fillPath } from '../jobs/paths';
import { mediaGenRequest } from '../transport/request';
import { sameCallJobs } from './calls';
import { unprovenHit, unprovenRuns } from './unproven';
import type { Provenance } from './identity';
import { provenanceIn, tokenProvesLostTry } from './identity';
import { otherExecutions, otherPositions } from './orphans';
import type { Found, Lookup, RecoverablePlan } from './lookups';
import {
	boundHit,
	fieldOf,
	foundElsewhere,
	groupMatches,
	groupsOf,
	Lookups,
	matches,
	otherCallHit,
	ownProvenance,
	pick,
	unshownTry,
} from './lookups';

export type { Found, Lookup, RecoverablePlan } from './lookups';
export { RECOVERY } from './lookups';

const provenByKey = (jobs: IDataObject[], key: string | undefined) =>
	!!key && jobs.every((j) => j.idempotency_key === key);
const refusedBefore = (lookups: Lookups, plan: RecoverablePlan) =>
	!!lookups.lookup.refusedBefore?.(plan.itemIndex, plan.requestId);
/**
 * The reason a job found by its record in n8n's Retry whose saved data shows no try of the node
 * (`unshownTry`) is unsure: a Retry that Stop canceled without progress saving leaves the data it
 * started from (a crashed execution's, amended), so the next Retry reads what that one read and
 * not what it did.
 */
const unshownThen = (jobs: IDataObject[]) =>
	`n8n's saved data shows no earlier try of this node, yet MediaGen holds ${jobs.map((j) => String(j.id)).join(', ')} for this item's request, made since this run began: a Retry that Stop canceled (its progress not saved), or another execution, made it, and the node cannot tell which`;

const refusedThen = (jobs: IDataObject[]) =>
	`An earlier try of this run had this item's request refused by MediaGen (nothing was made then), and MediaGen now holds ${jobs.map((j) => String(j.id)).join(', ')} for the same request, made since: a later try that n8n lost, or another execution, made it, and the node cannot tell which`;

/** Finds one plan's jobs by its rule: the oldest group not taken yet, or unsure, or nothing. */
async function findByRule(
	lookups: Lookups,
	plan: RecoverablePlan,
	rule: Exclude<RecoverRule, { by: 'provenance' }>,
	claimed: Set<string>,
): Promise<{ jobs?: IDataObject[]; unsure?: string; replays?: true }> {
	const key = plan.request.idempotencyKey;
	let read: { records: IDataObject[]; complete: boolean };
	let groups: IDataObject[][];
	const unshown = unshownTry(lookups.lookup);
	const byRecord = lookups.lookup.ranBefore || unshown;
	const asks = lookups.left(plan, rule);
	let found: { jobs?: IDataObject[]; unsure?: string };
	let taken = false;
	if (rule.by === 'generations') {
		const window = lookups.generations('lostTry');
		read = await window.records();
		const sameKey = key ? read.records.filter((r) => r.idempotency_key === key) : [];
		// the key proves whose they are, whatever their time
		const jobs = groupsOf(sameKey.reverse(), !!rule.batch).find((g) =>
			g.every((r) => !claimed.has(String(r.id))),
		);
		// all taken: an earlier iteration of a loop took the lost try's job for this request (its
		// row moved before the Retry), or another item of this run did; or Stop cancelled the job
		// under the key (MediaGen answers the key with its first answer, not as cancelled)
		const cancelled = cancelledUnder(window, key);
		taken = !jobs && (sameKey.length > 0 || (cancelled && !plan.ownKey));
		if (jobs) found = { jobs };
		else if (!byRecord) found = {};
		else {
			// the groups each create started, kept when the whole group is this request's work
			groups = groupsOf([...read.records].reverse(), !!rule.batch).filter((g) =>
				groupMatches(g, rule.match, plan.request),
			);
			found = await pick(lookups, groups, claimed, asks);
		}
	} else if (!byRecord) {
		return {};
	} else {
		const since = await lookups.clock.band();
		read = await foundElsewhere(lookups.lookup, rule, plan.request, since);
		found = await pick(
			lookups,
			read.records.map((r) => [r]),
			claimed,
			asks,
		);
	}
	if (found.jobs && unshown && !provenByKey(found.jobs, key))
		return { unsure: unshownThen(found.jobs) };
	if (found.jobs && byRecord && !provenByKey(found.jobs, key) && refusedBefore(lookups, plan))
		return { unsure: refusedThen(found.jobs) };
	if (found.jobs || found.unsure) return found;
	// the key's job taken: MediaGen would answer the key with it (spec: credit rule 6), so the
	// item is sent under a key of this execution (../run/start.ts recoverAll)
	if (read.complete) return taken ? { replays: true } : {};
	return {
		unsure: boundHit(
			rule.by === 'generations' ? '/generations' : plan.request.path,
			await lookups.clock.band(),
		),
	};
}

/**
 * In a sub-execution of a retried parent, the jobs made since the lost try may have begun for a
 * keyed item's request (by its record rule) under its key or a key no item of this run derives,
 * when the key alone cannot tell which is this call's: more than one (another call of the
 * sub-workflow made one under a key of its own execution: ../run/start.ts keysOfOtherCalls), or
 * one under another key (the lost try's call had other items, a row removed before the Retry, so
 * its keys derive from another identity; or another execution's). Empty: the key replays it.
 */
async function callsJobs(
	lookups: Lookups,
	plan: RecoverablePlan,
	rule: Exclude<RecoverRule, { by: 'provenance' }>,
	plans: RecoverablePlan[],
): Promise<string[]> {
	const { lookup } = lookups;
	if (!lookup.subOfRetried || rule.by !== 'generations') return [];
	const key = plan.request.idempotencyKey;
	const runKeys = new Set(plans.map((p) => p.request.idempotencyKey));
	const { records } = await lookups.generations('lostTry').records();
	const found = records.filter(
		(r) =>
			matches(r, rule.match, plan.request) &&
			!lookup.claimed.has(String(r.id)) &&
			(r.idempotency_key === key || !runKeys.has(String(r.idempotency_key ?? ''))),
	);
	const unsure = found.length > 1 || found.some((r) => r.idempotency_key !== key);
	return unsure ? found.map((r) => String(r.id)) : [];
}

/**
 * What recoverStartedJobs found, and the items whose key MediaGen holds a job under that this
 * run took for another item or iteration (rekey: sent under a key of this execution).
 */
export interface Started extends Found {
	rekey: Set<number>;
}

/**
 * Whether the item's key alone gives it the lost try's job (MediaGen replays a key within a day:
 * spec, credit rule 6), so no lookup by record runs. Not in Loop Over Items under n8n's Retry: a
 * row moved to another iteration (rows added, removed or swapped before the Retry) derives
 * another key, and its lost try's job is looked up there by its record too. Nor with a token an
 * earlier Retry kept that n8n saved nothing to derive (`blind`, n8n 1.x): the lost try before that
 * Retry sent under a token of its own, so this run's keys replay only what that Retry sent.
 */
function keyReplays(lookups: Lookups, plan: RecoverablePlan): boolean {
	const { lookup } = lookups;
	const keyed =
		plan.endpoint.idempotent && tokenProvesLostTry(lookup.identity) && plan.request.idempotencyKey;
	return (
		!!keyed && lookups.keysReplay() && !lookup.findKeyed && !(lookup.repeats && lookup.retrying)
	);
}

/**
 * Whether Stop cancelled the job the item's key holds (among the generations since the lost try
 * may have begun): MediaGen answers that key with the job's first answer, not as cancelled, so the
 * item is looked up by its rule (findByRule: the key taken, the item sent under a key of this
 * execution, or unsure). The adversary's seed 1208233: Stop while a Character → Generate job ran,
 * Retry: the key took the cancelled job back and the item failed with "Job … cancelled".
 */
async function stopCancelledKey(lookups: Lookups, plan: RecoverablePlan): Promise<boolean> {
	const window = lookups.generations('lostTry');
	await window.records();
	return cancelledUnder(window, plan.request.idempotencyKey);
}

/** Where a provenance record's job goes: to the item with its request, else with its index. */
const slotOfRecord = (p: Provenance) => p.request ?? `item:${p.itemIndex}`;

/**
 * For every plan whose endpoint starts jobs, the jobs an earlier try of this run and position
 * started (by item index), and the items whose lookup could not be completed (unsure: not to be
 * sent). A plan in neither had started nothing that can be found: it is sent (once). Keyed
 * endpoints within a day of the lost try need no lookup by record: the same key returns the
 * original job (spec: credit rule 6), and the key derives from the item's request (identity.ts),
 * unless Stop cancelled that job (one read of the generations since the lost try: stopCancelledKey).
 */
export async function recoverStartedJobs(
	lookup: Lookup,
	plans: RecoverablePlan[],
): Promise<Started> {
	const result: Started = { found: new Map(), unsure: new Map(), rekey: new Set() };
	const lookups = new Lookups(lookup, plans);
	const claimed = lookup.claimed;
	const claim = (itemIndex: number, jobs: IDataObject[]) => {
		for (const j of jobs) claimed.add(String(j.id));
		result.found.set(itemIndex, jobs);
	};

	let own: Map<string, IDataObject[]> | undefined;
	let others: Map<string, IDataObject[]> | undefined;
	let unproven = new Map<string, IDataObject[]>();
	let elsewhere: Array<[string, IDataObject[]]> = [];
	const free = (list: IDataObject[] | undefined) =>
		list?.length && notClaimed(claimed, list).length === list.length ? list : undefined;
	const untaken = (list?: IDataObject[]) => notClaimed(claimed, list).map((j) => String(j.id));
	for (const plan of plans) {
		const rule = plan.endpoint.job?.recover;
		if (!rule) continue;
		if (rule.by === 'provenance') {
			const window = lookups.generations('lostTry');
			if (!own || !others) {
				const { records } = await window.records();
				// a run that repeats no lost try (Retry On Fail's next try, a lost answer looked up)
				// takes only this execution's jobs: a sub-workflow called twice with the same items
				// derives one identity, so the other call's job carries this run's provenance too
				const self = String(lookup.ctx.getExecutionId() ?? '');
				const mine = (await ownProvenance(lookup, records)).filter(
					({ p }) => lookup.retrying || lookup.subOfRetried || p.executionId === self,
				);
				own = bySlot(mine);
				others = bySlot(lookup.subOfRetried ? otherExecutions(lookup, records) : []);
				elsewhere = [...bySlot(await otherPositions(lookup, records), true)];
				// in a loop, such a try's job for this request at another position too (a row added,
				// removed or moved before the Retry shifted the iterations); by item index only here
				const maybe = await unprovenRuns(lookup, records, mine, lookup.repeats);
				unproven = bySlot(maybe.filter(({ p }) => p.request || p.runIndex === lookup.position));
			}
			// in a loop, the lost try's job for this request at another position (rows added,
			// removed or moved before the Retry shift the iterations), the earliest not taken
			const moved = () =>
				elsewhere.find(([slot, list]) => slot.endsWith(`|${plan.requestId}`) && free(list))?.[1];
			// the slot's jobs no item took: a node renamed before the Retry counts its runs from 0
			// again, so an earlier iteration's job (output under the old name) may share the slot
			const jobs =
				free(notClaimed(claimed, slotJobs(own, plan))) ?? (plan.requestId ? moved() : undefined);
			// a sub-execution of a retried parent: the jobs its call made in the parent's lost try
			const call = jobs ? undefined : await sameCallJobs(lookup.ctx, slotJobs(others, plan));
			if (jobs) claim(plan.itemIndex, jobs);
			else if (call?.unsure.length)
				result.unsure.set(plan.itemIndex, otherCallHit(call.unsure.map((j) => String(j.id))));
			else if (free(call?.jobs)) claim(plan.itemIndex, call!.jobs);
			else if (untaken(slotJobs(unproven, plan)).length)
				result.unsure.set(plan.itemIndex, unprovenHit(untaken(slotJobs(unproven, plan))));
			else if (!(await window.records()).complete)
				result.unsure.set(plan.itemIndex, boundHit('/generations', await lookups.clock.band()));
			continue;
		}
		if (keyReplays(lookups, plan)) {
			// the key replays this item's job, unless another call of the sub-workflow made one too,
			// or Stop cancelled it (then looked up by its rule)
			const calls = await callsJobs(lookups, plan, rule, plans);
			if (calls.length) result.unsure.set(plan.itemIndex, otherCallHit(calls));
			if (calls.length || !(await stopCancelledKey(lookups, plan))) continue;
		}
		const { jobs, unsure, replays } = await findByRule(lookups, plan, rule, claimed);
		if (replays) result.rekey.add(plan.itemIndex);
		// named with every other job for the request no item of this run takes (another call's)
		if (jobs && lookup.subOfRetried) {
			const ids = jobs.map((j) => String(j.id));
			const calls = await callsJobs(lookups, plan, rule, plans);
			result.unsure.set(plan.itemIndex, otherCallHit([...new Set([...ids, ...calls])]));
		} else if (jobs) claim(plan.itemIndex, jobs);
		else if (unsure) result.unsure.set(plan.itemIndex, unsure);
	}
	return result;
}

/** A slot's jobs: those for the plan's request, else for its item index. */
const slotJobs = (map: Map<string, IDataObject[]>, plan: RecoverablePlan) =>
	(plan.requestId ? map.get(plan.requestId) : undefined) ?? map.get(`item:${plan.itemIndex}`);

/** The jobs of `list` that no item of the run took. */
const notClaimed = (claimed: Set<string>, list: IDataObject[] | undefined) =>
	(list ?? []).filter((j) => !claimed.has(String(j.id)));

/**
 * Provenance records by the item slot they belong to (slotOfRecord), oldest first; with
 * `byPosition`, by run position and slot (`<position>|<slot>`), positions in order.
 */
function bySlot(
	list: Array<{ record: IDataObject; p: Provenance }>,
	byPosition = false,
): Map<string, IDataObject[]> {
	const map = new Map<string, IDataObject[]>();
	const sorted = [...list].reverse();
	if (byPosition) sorted.sort((a, b) => a.p.runIndex - b.p.runIndex);
	for (const { record, p } of sorted) {
		const slot = byPosition ? `${p.runIndex}|${slotOfRecord(p)}` : slotOfRecord(p);
		map.set(slot, [...(map.get(slot) ?? []), record]);
	}
	return map;
}

/**
 * A create of n8n's Retry refused with 409 `idempotency_key_reused` (an earlier try sent the key
 * with another body): the job found by the key or by provenance, if made for this item's request;
 * unsure when the run's identity made more than one job for that request (a sub-workflow called
 * twice with the same items: each call's retry derives the same key).
 */
export async function jobOfReusedKey(
	lookup: Lookup,
	plan: RecoverablePlan,
): Promise<{ jobs: IDataObject[] } | { unsure: string } | { taken: true } | undefined> {
	const lookups = new Lookups(lookup);
	const window = lookups.generations('keyLifetime');
	const { records } = await window.records();
	const key = plan.request.idempotencyKey;
	const underKey = records.filter((r) => key && r.idempotency_key === key);
	// not this item's: a job this run took or output (an earlier iteration of a loop whose rows
	// changed, or whose node was renamed, before the Retry), or one cancelled by Stop
	const free = (r: IDataObject) => !!plan.ownKey || !lookup.claimed.has(String(r.id));
	const sameKey = underKey.filter(free);
	const cancelled = cancelledUnder(window, key);
	if (!plan.ownKey && (underKey.length || cancelled) && !sameKey.length) return { taken: true };
	const mine = (await ownProvenance(lookup, records)).filter(
		({ record, p }) =>
			free(record) &&
			(plan.requestId && p.request ? p.request === plan.requestId : p.itemIndex === plan.itemIndex),
	);
	const ids = (list: IDataObject[]) => list.map((r) => String(r.id)).join(', ');
	const recorded = sameKey.map((r) => provenanceIn(r)?.request).find((r) => r !== undefined);
	if (sameKey.length && plan.requestId && recorded && recorded !== plan.requestId)
		return {
			unsure: `MediaGen's job ${ids(sameKey)} under this Idempotency-Key was made for another request (other values than this item's)`,
		};
	// a sub-execution of a retried parent: its call's job in the parent's lost try (made after this
	// run looked, its answer lost) or another call's (the same items, the same key): by rank
	const byProvenance = lookup.subOfRetried && plan.endpoint.job?.recover?.by === 'provenance';
	if (byProvenance && !plan.ownKey && sameKey.length) {
		const call = await sameCallJobs(lookup.ctx, sameKey);
		if (call.unsure.length) return { unsure: otherCallHit(call.unsure.map((r) => String(r.id))) };
		const jobs = call.jobs.filter((r) => !lookup.claimed.has(String(r.id)));
		return jobs.length ? { jobs } : { taken: true };
	}
	const others = plan.ownKey ? [] : mine.filter(({ record }) => record.idempotency_key !== key);
	if (sameKey.length && others.length)
		return {
			unsure: `This run's identity made more than one job for this item's request (${ids([...sameKey, ...others.map((m) => m.record)])}, in other executions: a sub-workflow called more than once with the same items)`,
		};
	if (sameKey.length) return { jobs: sameKey };
	const jobs = mine.map((m) => m.record);
	return jobs.length ? { jobs } : undefined;
}

/** The entries of a charged call's evidence that record one call's work, oldest first. */
async function evidenceOf(
	lookups: Lookups,
	rule: ChargedRule,
	plan: RecoverablePlan,
): Promise<IDataObject[]> {
	const since = await lookups.clock.band();
	const path = fillPath(rule.evidence.path, '', plan.request.params);
	const read = await foundElsewhere(
		lookups.lookup,
		{ by: 'record', path, within: rule.evidence.within },
		plan.request,
		since,
	);
	return read.records.filter((r) => matches(r, rule.evidence.match, plan.request));
}

/** The answer a charged call gave, read again: the record it answers with, or each one it made. */
async function answerOf(
	lookup: Lookup,
	rule: ChargedRule,
	plan: RecoverablePlan,
	entry: IDataObject,
): Promise<IDataObject[]> {
	const get = async (path: string) =>
		await mediaGenRequest<IDataObject>(lookup.ctx, {
			method: 'GET',
			path,
			itemIndex: plan.itemIndex,
			ignoreCancel: lookup.ignoreCancel,
		});
	const { each } = rule.answer;
	if (!each) return [await get(fillPath(rule.answer.path, '', plan.request.params))];
	const ids = fieldOf(entry, each);
	const list = Array.isArray(ids) ? ids : [];
	const answers: IDataObject[] = [];
	for (const id of list)
		answers.push(await get(fillPath(rule.answer.path, String(id), plan.request.params)));
	return answers;
}

/**
 * For every plan of a charged call that answers at once (captions, cleanup, …), the answer of the
 * call an earlier try made, found by the work it left at MediaGen (`charged.evidence`) and read
 * again (`charged.answer`). Items without such work were not charged: they are sent.
 */
export async function recoverAnswers(lookup: Lookup, plans: RecoverablePlan[]): Promise<Found> {
	const result: Found = { found: new Map(), unsure: new Map() };
	const lookups = new Lookups(lookup, plans);
	for (const plan of plans) {
		const rule = plan.endpoint.charged;
		if (!rule || !(lookup.ranBefore || unshownTry(lookup))) continue;
		const entries = await evidenceOf(lookups, rule, plan);
		const asks = lookups.left(plan, rule);
		const { jobs, unsure } = await pick(
			lookups,
			entries.map((e) => [e]),
			lookup.claimed,
			asks,
		);
		if (unsure) result.unsure.set(plan.itemIndex, unsure);
		const entry = jobs?.[0];
		if (!entry) continue;
		if (unshownTry(lookup)) {
			result.unsure.set(plan.itemIndex, unshownThen([entry]));
			continue;
		}
		if (lookup.subOfRetried) {
			result.unsure.set(plan.itemIndex, otherCallHit([String(entry.id)]));
			continue;
		}
		lookup.claimed.add(String(entry.id));
		result.found.set(plan.itemIndex, await answerOf(lookup, rule, plan, entry));
	}
	return result;
}

/**
 * After a charged call of a run that may repeat a lost try was sent: its work (the newest entry
 * of its evidence not taken yet) is taken, so that a later position's lookup does not take it for
 * the lost try's.
 */
export async function claimEvidence(lookup: Lookup, plan: RecoverablePlan): Promise<void> {
	const rule = plan.endpoint.charged;
	if (!rule) return;
	const entries = await evidenceOf(new Lookups(lookup), rule, plan);
	const newest = [...entries].reverse().find((e) => !lookup.claimed.has(String(e.id)));
	if (newest) lookup.claimed.add(String(newest.id));
}

/** Whether Stop cancelled a job under `key` in the window (MediaGen answers the key with it). */
const cancelledUnder = (window: { cancelled: IDataObject[] }, key: string | undefined) =>
	!!key && window.cancelled.some((r) => r.idempotency_key === key);
