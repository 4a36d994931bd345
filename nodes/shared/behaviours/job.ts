/**
 * Operations that start jobs (Generation → Create and the other job operations), and the node's
 * own Wait and Collect operations: their form, their keys and provenance, their credits guard,
 * their create. The waiting is the run's poller (../jobs/poller.ts); docs/batches.md.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Endpoint } from '../catalog/dsl';
import type { CollectQuery } from '../durable/collect';
import { collectByProvenance } from '../durable/collect';
import { PROVENANCE_KEY, provenanceOf } from '../durable/identity';
import { jobOfReusedKey } from '../durable/recovery';
import type { PreparedRequest } from '../fields/request';
import { checkMaxCredits, estimateCredits } from '../jobs/credits';
import type { JobSettings, ReturnAs } from '../jobs/output';
import { startedJobs } from '../jobs/output';
import { fillPath } from '../jobs/paths';
import type { PendingJob } from '../jobs/poller';
import { pendingJob } from '../jobs/poller';
import { asNodeError, isReusedKey } from '../transport/errors';
import type { Behaviour, BehaviourProperties, ItemPlan, RunState } from './behaviour';
import { useKeyOfThisExecution } from './idempotency';
import {
	binaryProperty,
	identifyRequest,
	optionsOf,
	outputs,
	requestPlan,
	SEND_WHEN_UNSURE,
	sendMarked,
	sendRequest,
} from './behaviour';

const isWait = (endpoint: Endpoint) => endpoint.nodeOperation?.kind === 'wait';

// ---------------------------------------------------------------------------------------------
// The form

function jobProperties(endpoint: Endpoint): BehaviourProperties {
	const waits = isWait(endpoint);
	/** Shown only while the node waits (a Wait operation always does). */
	const whileWaiting = (show: Record<string, string[]>) =>
		waits ? { show } : { show: { waitForCompletion: [true], ...show } };
	const afterOptional: INodeProperties[] = [];
	if (!waits) {
		afterOptional.push({
			displayName: 'Wait for Completion',
			name: 'waitForCompletion',
			type: 'boolean',
			default: true,
			description:
				'Whether to wait until the job has finished and return its outputs; otherwise return the started job at once',
		});
	}
	afterOptional.push(
		{
			displayName: 'Return As',
			name: 'returnAs',
			type: 'options',
			default: 'json',
			...(waits ? {} : { displayOptions: whileWaiting({}) }),
			options: [
				{ name: 'JSON', value: 'json', description: 'The job record with its output asset IDs' },
				{ name: 'Binary', value: 'binary', description: 'The output files, with a short summary' },
				{ name: 'Both', value: 'both', description: 'The job record and the output files' },
			],
		},
		{
			...binaryProperty(
				'Put Output Files in Field',
				'Name of the binary property for the first output; further outputs get _1, _2, …',
			),
			displayOptions: whileWaiting({ returnAs: ['binary', 'both'] }),
		},
	);
	return { afterOptional, options: jobOptions(endpoint) };
}

function jobOptions(endpoint: Endpoint): INodeProperties[] {
	const options: INodeProperties[] = [];
	if (endpoint.job?.estimate) {
		options.push(
			{
				displayName: 'Max Credits',
				name: 'maxCredits',
				type: 'number',
				default: 0,
				typeOptions: { minValue: 0, numberPrecision: 0 },
				description:
					'Per item: estimate first and refuse the item, without starting or charging anything, when its cost is higher. 0 means no limit.',
			},
			{
				displayName: 'Max Credits per Run',
				name: 'maxCreditsPerRun',
				type: 'number',
				default: 0,
				typeOptions: { minValue: 0, numberPrecision: 0 },
				description:
					'For all items of this run of the node together: every item is estimated before the first job starts, and nothing starts when the total is higher. 0 means no limit.',
			},
		);
	}
	if (!endpoint.nodeOperation) options.push(SEND_WHEN_UNSURE);
	options.push({
		displayName: 'Timeout (Minutes)',
		name: 'timeoutMinutes',
		type: 'number',
		default: 10,
		typeOptions: { minValue: 1, maxValue: 1440 },
		description:
			"How long each job may run while the node waits, counted from when it leaves MediaGen's queue (time queued behind the run's own jobs does not count). The job keeps running at MediaGen after a timeout and may still be charged; for long jobs consider the MediaGen Trigger.",
	});
	return options;
}

// ---------------------------------------------------------------------------------------------
// Prepare: settings, idempotency key, provenance

function jobSettings(ctx: IExecuteFunctions, itemIndex: number): JobSettings {
	const opts = optionsOf(ctx, itemIndex);
	const wait = ctx.getNodeParameter('waitForCompletion', itemIndex, true) as boolean;
	const returnAs = (
		wait ? ctx.getNodeParameter('returnAs', itemIndex, 'json') : 'json'
	) as ReturnAs;
	return {
		waitForCompletion: wait,
		returnAs,
		binaryPropertyName:
			returnAs === 'json'
				? 'data'
				: (ctx.getNodeParameter('binaryPropertyName', itemIndex, 'data') as string),
		maxCredits: Number(opts.maxCredits ?? 0),
		timeoutMinutes: Number(opts.timeoutMinutes ?? 10),
	};
}

/** Where the job came from, beside the user's own context fields (a create taking `context`). */
function addProvenance(ctx: IExecuteFunctions, plan: ItemPlan, run: RunState): void {
	const { endpoint, request, itemIndex } = plan;
	const takesContext = !endpoint.nodeOperation && endpoint.body.context?.kind === 'json';
	if (!takesContext || !request.body || !run.identity) return;
	const own = (request.body.context ?? {}) as IDataObject;
	const where = provenanceOf(ctx, run.identity, run.position, itemIndex, plan.requestId);
	request.body.context = { ...own, [PROVENANCE_KEY]: { ...where } };
}

/** The id of the job a Wait operation waits for: its path parameter or field `jobId`. */
function waitedJob(endpoint: Endpoint, request: PreparedRequest): IDataObject[] {
	const name = endpoint.nodeOperation?.jobId ?? 'id';
	return [{ id: String(request.params[name] ?? request.qs[name]), status: 'queued' }];
}

/** Generation → Collect's query, checked before anything is sent. */
function collectQueryOf(
	ctx: IExecuteFunctions,
	request: PreparedRequest,
	itemIndex: number,
): CollectQuery {
	const text = (key: string) => String(request.qs[key] ?? '').trim();
	const query = {
		executionId: text('executionId'),
		workflowId: text('workflowId'),
		node: text('node'),
		hours: Number(request.qs.hours ?? 24),
	};
	if (!query.executionId && !query.workflowId) {
		throw new NodeOperationError(ctx.getNode(), 'Execution ID or Workflow ID is needed', {
			itemIndex,
			description:
				'Give the ID of the n8n execution whose generations to collect (as the Executions list shows it), or a workflow ID (and a node name). Nothing was sent to MediaGen.',
		});
	}
	return query;
}

// ---------------------------------------------------------------------------------------------
// Guard: the estimates a run needs before anything is created

/** Whether the guard phase must estimate this item before anything is created. */
export function needsEstimate(plan: ItemPlan, runLimit: number): boolean {
	const { endpoint, request, job } = plan;
	if (!job || job.known) return false;
	const intoEmpty =
		!!endpoint.estimateInto && request.body?.[endpoint.estimateInto.field] === undefined;
	return intoEmpty || (!!endpoint.job?.estimate && (job.settings.maxCredits > 0 || runLimit > 0));
}

/**
 * One item's estimates (free), sent before the run creates anything: a canvas run's
 * confirmation (`estimateInto`, written into the body) and, where Max Credits or Max Credits per
 * Run is set, the job's cost (kept in `plan.job.estimate`); Max Credits checked.
 */
export async function guard(ctx: IExecuteFunctions, plan: ItemPlan, runLimit: number) {
	const { endpoint, request, itemIndex, job } = plan;
	const into = endpoint.estimateInto;
	let estimated: number | undefined;
	if (into && request.body && request.body[into.field] === undefined) {
		const path = fillPath(into.path, '', request.params);
		estimated = await estimateCredits(ctx, path, {}, itemIndex);
		request.body[into.field] = estimated;
	}
	const estimatePath = endpoint.job?.estimate;
	if (!job || !estimatePath || (job.settings.maxCredits <= 0 && runLimit <= 0)) return;
	job.estimate =
		estimated !== undefined && estimatePath === into?.path
			? estimated
			: await estimateCredits(
					ctx,
					fillPath(estimatePath, '', request.params),
					request.body,
					itemIndex,
				);
	const max = job.settings.maxCredits;
	if (max > 0) checkMaxCredits(ctx, job.estimate, max, itemIndex);
}

// ---------------------------------------------------------------------------------------------
// Send

/**
 * The create, marked in the run's memory until answered. A 409 `idempotency_key_reused` (the key
 * was sent before with another body) means:
 * - in n8n's Retry (or a sub-execution of a retried parent): an earlier try of this run made the
 *   item's job (a retry after a lost answer): it is found at MediaGen and waited for, when its
 *   recorded request is this item's (jobOfReusedKey);
 * - in a new execution with the run's default key: ANOTHER execution derived the same key (a
 *   sub-workflow called twice with the same items): its job is never taken; this run's own job
 *   is started under a key of this execution; the same in a sub-execution of a retried parent
 *   for Generation → Create when the job under the key is another call's (../durable/calls.ts),
 *   not its own call's in the parent's lost try (made after this run looked: its answer lost);
 * - with the user's own Idempotency Key: the job made under it, as the user asked.
 */
async function createJobs(ctx: IExecuteFunctions, plan: ItemPlan, run: RunState) {
	const { request, itemIndex } = plan;
	const send = async () =>
		startedJobs(
			await sendMarked(
				ctx,
				run,
				itemIndex,
				() => sendRequest(ctx, request, itemIndex),
				plan.requestId,
			),
		);
	const ownSend = async () => {
		if (!useKeyOfThisExecution(ctx, plan, run)) return undefined;
		return await send().catch((e: unknown) => {
			throw asNodeError(ctx, e, itemIndex);
		});
	};
	try {
		const jobs = await send();
		// MediaGen answered the key with an earlier try's job that Stop cancelled (its credits
		// returned, never a result): this item's job is made under a key of this execution
		if (jobs.some((j) => j.status === 'cancelled')) return (await ownSend()) ?? jobs;
		return jobs;
	} catch (error) {
		if (!isReusedKey(error)) throw asNodeError(ctx, error, itemIndex);
		const lookup = run.lookup;
		if (lookup && !lookup.retrying) {
			const sent = await ownSend();
			if (sent) return sent;
		}
		const found = lookup && (await jobOfReusedKey(lookup, plan));
		if (found && 'taken' in found) {
			const sent = await ownSend();
			if (sent) return sent;
		}
		if (found && 'jobs' in found) return found.jobs;
		if (found && 'unsure' in found)
			throw new NodeOperationError(
				ctx.getNode(),
				`Cannot tell which job an earlier try of this run made for item ${itemIndex + 1}`,
				{
					itemIndex,
					description: `${found.unsure}. Nothing was started or charged now. Check these jobs at MediaGen and use Generation → Wait with the right ID.`,
				},
			);
		throw new NodeOperationError(
			ctx.getNode(),
			`An earlier try of this run made item ${itemIndex + 1}’s job with the same Idempotency-Key`,
			{
				itemIndex,
				description: `MediaGen refused to start it again (409: the key was sent before with other values) and the node did not find that job among the generations of the last day. Nothing was started or charged now. Find it at MediaGen (its idempotency_key is ${request.idempotencyKey ?? ''}) and use Generation → Wait with its ID.`,
			},
		);
	}
}

/** The jobs of an item as the poller waits for them (`idsOnly`: read each record first). */
export function pendingJobsOf(
	plan: ItemPlan,
	records: IDataObject[],
	idsOnly = false,
): PendingJob[] {
	const { endpoint, request, itemIndex, job } = plan;
	const declared = endpoint.job;
	if (!declared || !job) return [];
	return records.map((record) =>
		pendingJob(
			itemIndex,
			idsOnly ? { id: record.id, status: 'queued' } : record,
			declared,
			request.params,
			job.settings.timeoutMinutes,
		),
	);
}

// ---------------------------------------------------------------------------------------------
// The behaviour

export const job: Behaviour = {
	properties: jobProperties,
	async prepare(ctx, endpoint, itemIndex, run, values) {
		const plan = requestPlan(ctx, endpoint, itemIndex, values);
		const requestId = identifyRequest(plan, run);
		addProvenance(ctx, plan, run);
		const collect =
			endpoint.nodeOperation?.kind === 'collect'
				? collectQueryOf(ctx, plan.request, itemIndex)
				: undefined;
		const waits = isWait(endpoint);
		const remembered = waits ? undefined : run.memory.of(itemIndex, requestId);
		const settings = jobSettings(ctx, itemIndex);
		plan.job = {
			settings: waits ? { ...settings, waitForCompletion: true } : settings,
			maxCreditsPerRun: Number(optionsOf(ctx, itemIndex).maxCreditsPerRun ?? 0),
			known: waits
				? { jobs: waitedJob(endpoint, plan.request), whole: false }
				: remembered && { jobs: remembered, whole: false },
			collect,
		};
		return plan;
	},
	async send(ctx, plan, run) {
		const { endpoint, itemIndex } = plan;
		const { settings, known, collect } = plan.job ?? {};
		let started: IDataObject[];
		if (collect) started = await collectByProvenance(ctx, collect);
		else if (known) started = known.jobs;
		else {
			// remembered for n8n's Retry as soon as MediaGen answers
			started = await createJobs(ctx, plan, run);
			run.memory.add(itemIndex, started, !settings?.waitForCompletion, plan.requestId);
		}
		if (!settings?.waitForCompletion || !endpoint.job) return outputs(started, itemIndex);
		// an id known from the node context or a Wait's parameter: the poller reads it first
		const jobs = pendingJobsOf(plan, started, !!known && !known.whole);
		return { kind: 'jobs', jobs };
	},
};
