/**
 * A node run's start and its phase 2, recover: the run's identity and position, its memory, and
 * the lookups at MediaGen for the work an earlier try of the run did without a record of it (a
 * retry after n8n died, an answer lost, Stop while a create was in flight). docs/batches.md.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import type { ItemPlan, RunState } from '../behaviours/behaviour';
import { optionsOf } from '../behaviours/behaviour';
import { pendingJobsOf } from '../behaviours/job';
import type { JobSettings } from '../jobs/output';
import type { PendingJob } from '../jobs/poller';
import { asNodeError } from '../transport/errors';
import type { Lookup } from '../durable/recovery';
import { recoverAnswers, recoverStartedJobs } from '../durable/recovery';
import { orphansOf } from '../durable/orphans';
import {
	jobsOfEarlierCalls,
	jobsOfRenamedRuns,
	jobsOutputBefore,
	viewsOfEarlierCalls,
} from '../durable/calls';
import { establishRun } from '../durable/identity';
import { repeatsInExecution } from '../durable/loops';
import { parentIsRetry } from '../durable/parentRun';
import { Lookups } from '../durable/lookups';
import { useKeyOfThisExecution } from '../behaviours/idempotency';
import type { SavedView } from '../durable/memory';
import { runMemory } from '../durable/memory';

/** What the start and the recover phase need of a node run. */
export interface StartingRun extends RunState {
	ctx: IExecuteFunctions;
	plans: ItemPlan[];
	/** What this execution's saved data says of earlier tries (runs with an identity). */
	view?: SavedView;
}

/**
 * The run's identity and position (what n8n saved of the execution: ../durable/identity.ts), its memory
 * at that position, and what a lookup for an earlier try's work needs: the lost try began after
 * the latest of the position's first send in an earlier try, the end of what n8n saved of this
 * node's runs (or the start of the run its crash recovery made up), and the execution's start.
 */
export async function establish(run: StartingRun): Promise<void> {
	const { ctx } = run;
	const { identity, position, view } = await establishRun(ctx, run.position, {
		parentRetried: (self, parent) => parentIsRetry(ctx, self, parent),
		earlierCalls: (self, parent) => viewsOfEarlierCalls(ctx, self, parent),
	});
	run.identity = identity;
	run.position = position;
	run.view = view;
	run.memory = runMemory(ctx, position);
	const retrying = ctx.getMode() === 'retry' || !!view.parentRecovered;
	// in n8n's Retry, a later try of this execution (Retry On Fail after an item was refused)
	// repeats the lost try too, which began before this execution's first try: that bounds nothing
	const began = retrying && run.memory.beganHere() ? undefined : run.memory.began();
	const bounds = [began, view.lostAfter, identity.since].filter(
		(t): t is number => t !== undefined,
	);
	const ranBefore = !!view.ranBefore || !!view.parentRecovered || run.memory.began() !== undefined;
	run.lookup = {
		ctx,
		identity,
		position,
		after: bounds.length ? Math.max(...bounds) : undefined,
		// what the package's nodes before this one output is theirs (read only where a lookup may run)
		claimed: new Set([
			...run.memory.claimed(),
			...(retrying || ranBefore ? jobsOutputBefore(ctx) : []),
			// and what its finished iterations output before it was renamed (restored by the Retry)
			...(retrying ? await jobsOfRenamedRuns(ctx) : []),
		]),
		retrying,
		ranBefore,
		repeats: repeatsInExecution(ctx),
		refusedBefore: (itemIndex, request) => run.memory.wasRefused(itemIndex, request),
		subOfRetried: !!view.parentRecovered,
	};
}

/** Whether the item asked to be sent although its lookup could not tell (Send Again When Unsure). */
const sendsWhenUnsure = (run: StartingRun, itemIndex: number) =>
	!!optionsOf(run.ctx, itemIndex).sendWhenUnsure;

/** The error of an item whose lookup could not tell whether an earlier try did its work. */
function unsureError(run: StartingRun, itemIndex: number, why: string): NodeOperationError {
	return new NodeOperationError(
		run.ctx.getNode(),
		`Cannot tell whether an earlier try of this run already started or charged item ${itemIndex + 1}`,
		{
			itemIndex,
			description: `${why}. Check the item's work at MediaGen (its jobs, or the record it changes) and use it, or turn on the option Send Again When Unsure to send it anyway (it may then be charged twice).`,
		},
	);
}

/**
 * Phase 2, recover: in a run that may repeat a lost try (n8n's Retry, or a sub-execution of a
 * retried parent) every create and charged call this run has no record of, and in any run those
 * an earlier try sent without an answer, are looked up at MediaGen (../durable/recovery.ts): found jobs are
 * waited for, found answers output; the items the lookup cannot clear are returned, to be refused
 * unless told otherwise (Send Again When Unsure).
 */
export async function recoverAll(run: StartingRun): Promise<Map<number, unknown>> {
	const { lookup } = run;
	const refused = new Map<number, unknown>();
	if (!lookup) return refused;
	await keysOfOtherCalls(run, lookup);
	const ask = (p: ItemPlan) => lookup.retrying || run.memory.isUnsure(p.itemIndex);
	const creating = run.plans.filter(
		(p) => p.job && !p.job.known && !p.endpoint.nodeOperation && ask(p),
	);
	const charging = run.plans.filter((p) => p.charged && !p.charged.answer && ask(p));
	if (!creating.length && !charging.length) {
		await nameOrphans(run);
		return refused;
	}
	const jobs = await recoverStartedJobs(lookup, creating);
	const answers = await recoverAnswers(lookup, charging);
	run.memory.claim(lookup.claimed);
	for (const plan of creating) {
		if (jobs.rekey.has(plan.itemIndex)) useKeyOfThisExecution(run.ctx, plan, run);
		const found = jobs.found.get(plan.itemIndex);
		if (!found || !plan.job) continue;
		plan.job.known = { jobs: found, whole: true };
		run.memory.add(plan.itemIndex, found, !plan.job.settings.waitForCompletion, plan.requestId);
	}
	for (const plan of charging) {
		const found = answers.found.get(plan.itemIndex);
		if (!found || !plan.charged) continue;
		plan.charged.answer = found;
		run.memory.answer(plan.itemIndex, found, plan.requestId);
	}
	for (const [itemIndex, why] of [...jobs.unsure, ...answers.unsure]) {
		if (!sendsWhenUnsure(run, itemIndex)) refused.set(itemIndex, unsureError(run, itemIndex, why));
	}
	// after the lookups: in a loop, what this and earlier positions took is claimed by now
	await nameOrphans(run);
	return refused;
}

/**
 * A sub-execution (Execute Workflow) derives its default Idempotency-Keys from its parent's run
 * and its items: every call of the sub-workflow with the same items (two branches, a loop)
 * derives the same ones. For a kind whose body carries no provenance, MediaGen answers a key
 * another call sent with that call's job (the same key and body: no 409, spec credit rule 6).
 * So in a new sub-execution a key MediaGen holds a generation under, made since the parent run
 * began, is another call's; in a sub-execution of a retried parent, a key held by a job that an
 * earlier call of this parent run output (jobsOfEarlierCalls; those jobs are claimed too). The
 * item is sent under a key of this execution, as after a 409 (../behaviours/job.ts). Items this
 * execution sent before (Retry On Fail) keep their key.
 */
async function keysOfOtherCalls(run: StartingRun, lookup: Lookup): Promise<void> {
	const { ctx, identity } = run;
	if ((lookup.retrying && !lookup.subOfRetried) || !identity?.sub) return;
	const earlier = lookup.subOfRetried ? new Set(await jobsOfEarlierCalls(ctx)) : undefined;
	for (const id of earlier ?? []) lookup.claimed.add(id);
	if (earlier && !earlier.size) return;
	const plans = run.plans.filter(
		(p) =>
			p.job &&
			!p.job.known &&
			!p.ownKey &&
			p.requestId &&
			p.request.idempotencyKey &&
			p.endpoint.job?.recover &&
			p.endpoint.job.recover.by !== 'provenance' &&
			!run.memory.isUnsure(p.itemIndex),
	);
	if (!plans.length) return;
	const read = await new Lookups(lookup)
		.generations('lostTry')
		.records()
		.catch(() => undefined);
	const held = new Set(
		read?.records
			.filter((r) => !earlier || earlier.has(String(r.id)))
			.map((r) => String(r.idempotency_key ?? '')),
	);
	for (const plan of plans) {
		if (held.has(String(plan.request.idempotencyKey))) useKeyOfThisExecution(ctx, plan, run);
	}
}

/**
 * In n8n's Retry, the jobs the lost try started for requests no item asks for now (the input or
 * the node changed before the Retry): charged, delivered to no item, named in a warning hint. In
 * Loop Over Items they are named at its last iteration (an earlier one cannot know whether a
 * later iteration takes them).
 */
async function nameOrphans(run: StartingRun): Promise<void> {
	const { ctx, lookup } = run;
	if (!lookup || typeof ctx.addExecutionHints !== 'function') return;
	const plans = run.plans.filter((p) => p.job && !p.endpoint.nodeOperation);
	const found = await orphansOf(lookup, plans, (reads) => run.memory.worked(reads)).catch(() => ({
		lost: [] as IDataObject[],
		maybe: [],
		sameRecord: [],
	}));
	const { maybe, sameRecord } = found;
	// and what the node context kept of the lost try's jobs for requests no item asks for now
	const kept = run.memory.unasked(new Set(run.plans.map((p) => p.requestId)));
	const named = new Set([...found.lost, ...sameRecord].map((j) => String(j.id)));
	const lost = [...found.lost, ...kept.filter((j) => !named.has(String(j.id)))];
	const list = (jobs: IDataObject[]) =>
		jobs.map((o) => `${String(o.id)} (${String(o.status)})`).join(', ');
	const n = (jobs: IDataObject[]) => `${jobs.length} job${jobs.length === 1 ? '' : 's'}`;
	const hint = (message: string) =>
		ctx.addExecutionHints({ message, type: 'warning', location: 'outputPane' });
	if (lost.length)
		hint(
			`The lost try of this run started ${n(lost)} for requests no item asks for now (the input or the node changed before the Retry): ${list(lost)}. ${lost.length === 1 ? 'It is' : 'They are'} charged when ${lost.length === 1 ? 'it succeeds' : 'they succeed'}, and not in this output (Generation → Wait gets a generation by its ID).`,
		);
	if (maybe.length)
		hint(
			`MediaGen holds ${n(maybe)} of this node for requests no item asks for now, made by an execution n8n saved nothing of (n8n 1.x without Save Execution Progress: a Stop, a queue-mode worker lost): the lost try's, or another execution's, and the node cannot tell: ${list(maybe)}. Charged when they succeed, and not in this output (Generation → Wait gets one by its ID).`,
		);
	if (sameRecord.length)
		hint(
			`MediaGen holds ${n(sameRecord)} on the records of this run, made since its lost try may have begun, that no item of this run asks for or took: ${list(sameRecord)}. The lost try's for a row changed or removed before the Retry, another execution's, or older: charged, and not in this output (Generation → Wait gets one by its ID).`,
		);
}

/**
 * The creates and charged calls of `items` sent without an answer (in flight when Stop came, or
 * answered by a 5xx or a dropped connection after MediaGen may have done the work): looked up at
 * MediaGen a second later, the jobs found returned (to cancel them with the others after Stop, to
 * wait for them with Continue On Fail); the rest named by item, as possibly started or charged.
 */
export async function inFlight(
	run: StartingRun,
	items: number[],
	answered: PendingJob[],
): Promise<{ jobs: PendingJob[]; unknown: Map<number, string> }> {
	const plans = run.plans.filter(
		(p) => items.includes(p.itemIndex) && run.memory.isUnsure(p.itemIndex),
	);
	const result = { jobs: [] as PendingJob[], unknown: new Map<number, string>() };
	if (!plans.length || !run.lookup) return result;
	await sleep(STOP_LOOKUP_DELAY_MS);
	// this run sent them: a record-matched kind may be found by its record (ranBefore), which the
	// run's lookup, made before anything was sent, does not allow; the jobs its other items got
	// answers for are theirs (the same work asked twice: duplicate rows)
	const claimed = new Set([...run.lookup.claimed, ...answered.map((j) => j.id)]);
	const lookup: Lookup = {
		...run.lookup,
		claimed,
		ignoreCancel: true,
		findKeyed: true,
		ranBefore: true,
	};
	const creating = plans.filter((p) => p.job && !p.job.known);
	const found = await recoverStartedJobs(lookup, creating).catch(() => undefined);
	for (const plan of plans) {
		const jobs = found?.found.get(plan.itemIndex);
		// this item's now: a later position of the run (Loop Over Items) never takes them
		if (jobs && plan.job)
			run.memory.add(plan.itemIndex, jobs, !plan.job.settings.waitForCompletion, plan.requestId);
		if (jobs && plan.job?.settings.waitForCompletion)
			result.jobs.push(...pendingJobsOf(plan, jobs));
		else {
			const key = plan.request.idempotencyKey
				? `, Idempotency-Key ${plan.request.idempotencyKey}`
				: '';
			const unsure = found?.unsure.get(plan.itemIndex);
			const what = jobs
				? `started ${jobs.map((j) => String(j.id)).join(', ')}`
				: unsure
					? `may have started a job; the lookup cannot tell which: ${unsure}`
					: plan.job
						? 'may have started a job that MediaGen does not list yet'
						: 'may have been charged';
			result.unknown.set(
				plan.itemIndex,
				`item ${plan.itemIndex + 1} (${plan.endpoint.name}${key}) ${what}`,
			);
		}
	}
	return result;
}

/**
 * With Continue On Fail the execution goes on, so no Retry looks for the work of a create or
 * charged call sent without an answer (a 5xx or a dropped connection after MediaGen may have done
 * it): it is looked up now, as after Stop (inFlight). A job found joins `waiting` (it is waited
 * for and output with its item, which no longer fails); what is not found is named in the item's
 * error in `failed`.
 */
export async function continueAfterLostAnswers(
	run: StartingRun,
	failed: Map<number, unknown>,
	waiting: Array<{ job: PendingJob; settings: JobSettings }>,
): Promise<void> {
	const lost = await inFlight(
		run,
		[...failed.keys()],
		waiting.map((w) => w.job),
	);
	for (const job of lost.jobs) {
		const settings = run.plans.find((p) => p.itemIndex === job.itemIndex)?.job?.settings;
		if (!settings) continue;
		failed.delete(job.itemIndex);
		waiting.push({ job, settings });
	}
	waiting.sort((a, b) => a.job.itemIndex - b.job.itemIndex);
	for (const [itemIndex, what] of lost.unknown) {
		const error = asNodeError(run.ctx, failed.get(itemIndex), itemIndex);
		error.description = [
			error.description,
			`Sent without an answer, and the execution went on (On Error): ${what}. Check it at MediaGen: it may be charged.`,
		]
			.filter(Boolean)
			.join('\n');
		failed.set(itemIndex, error);
	}
}

/** How long after Stop the in-flight creates are looked for (MediaGen finishes what it received). */
export const STOP_LOOKUP_DELAY_MS = 1_000;
