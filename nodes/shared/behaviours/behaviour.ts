/**
 * What every operation behaviour (list, job, upload, download, text result, result asset, plain)
 * is: its form parameters, its prepare step and its send step. docs/architecture.md.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import type { Endpoint } from '../catalog/dsl';
import type { CollectQuery } from '../durable/collect';
import type { RunIdentity } from '../durable/identity';
import { requestFingerprint, requestIdOf } from '../durable/identity';
import type { RunMemory } from '../durable/memory';
import type { Lookup } from '../durable/recovery';
import type { PreparedRequest } from '../fields/request';
import { prepareRequest } from '../fields/request';
import type { BinaryFileInfo } from '../files/file';
import type { JobSettings } from '../jobs/output';
import type { PendingJob } from '../jobs/poller';
import { asNodeError, isReusedKey, statusOf } from '../transport/errors';
import { mediaGenRequest } from '../transport/request';

/** What every item of a node run shares: its position, identity and memory. */
export interface RunState {
	/** The run's position: n8n's run index of the node less the runs its crash recovery added. */
	position: number;
	identity?: RunIdentity;
	memory: RunMemory;
	/** What a lookup at MediaGen for an earlier try's work needs (runs that have an identity). */
	lookup?: Lookup;
	/** How many items of the run asked for each request fingerprint so far (requestIdOf). */
	requests?: Map<string, number>;
}

/** Where a list walk starts, how far it goes, and whether the next cursor goes to the output. */
export interface ListSettings {
	max: number;
	startCursor?: string | number;
	includeNextCursor: boolean;
}

/** Jobs known before sending: `whole` when they are MediaGen's records (else read them first). */
export interface KnownJobs {
	jobs: IDataObject[];
	whole: boolean;
}

/** A job operation's item: how it waits, and the jobs known before sending anything. */
export interface JobPlan {
	settings: JobSettings;
	/** Max Credits per Run as set on this item (0: no limit). */
	maxCreditsPerRun: number;
	/** The estimate of the guard phase, when one was needed. */
	estimate?: number;
	/**
	 * The item's jobs known before anything is sent, which are waited for and never created: those
	 * an earlier try recorded in the node context, those a lookup found at MediaGen, or the job a
	 * Wait operation names.
	 */
	known?: KnownJobs;
	/** Generation → Collect: what it looks for. */
	collect?: CollectQuery;
}

/** A charged call's item (it answers at once): the answer an earlier try got, if any. */
export interface ChargedPlan {
	answer?: IDataObject[];
}

/** One item's work, decided in the prepare phase without any request. */
export interface ItemPlan {
	itemIndex: number;
	endpoint: Endpoint;
	request: PreparedRequest;
	/** One request for these input items, one entry of its list each (itemLists.ts). */
	items?: number[];
	/** Asset → Upload: the binary property and its file, checked in the prepare step. */
	upload?: { propertyName: string; file: BinaryFileInfo };
	list?: ListSettings;
	job?: JobPlan;
	charged?: ChargedPlan;
	/**
	 * What the item asks for and which of the run's equal requests it is (requestIdOf): its key,
	 * its provenance and its memory follow it, not its position.
	 */
	requestId?: string;
	/** The key is the user's own (the Idempotency Key option), not the run's default. */
	ownKey?: boolean;
}

/** What the send phase gives for an item: its output items, or the jobs to wait for. */
export type SendResult =
	| { kind: 'items'; items: INodeExecutionData[] }
	| { kind: 'jobs'; jobs: PendingJob[] };

/** A behaviour's parameters: on the form before and after the optional fields, and options. */
export interface BehaviourProperties {
	beforeOptional?: INodeProperties[];
	afterOptional?: INodeProperties[];
	options?: INodeProperties[];
}

export interface Behaviour {
	properties(endpoint: Endpoint): BehaviourProperties;
	/** Reads and checks the item's parameters (`values`: given ones) into its plan. No request. */
	prepare(
		ctx: IExecuteFunctions,
		endpoint: Endpoint,
		itemIndex: number,
		run: RunState,
		values: IDataObject,
	): Promise<ItemPlan>;
	/** Sends the item's request(s). */
	send(ctx: IExecuteFunctions, plan: ItemPlan, run: RunState): Promise<SendResult>;
}

/** The plan of an item with nothing but its request. */
export function requestPlan(
	ctx: IExecuteFunctions,
	endpoint: Endpoint,
	itemIndex: number,
	values: IDataObject,
): ItemPlan {
	return { itemIndex, endpoint, request: prepareRequest(ctx, endpoint, itemIndex, values) };
}

/** Sets the plan's request id (once), counting it among the run's requests. */
export function identifyRequest(plan: ItemPlan, run: RunState): string {
	if (plan.requestId) return plan.requestId;
	const derived = Object.entries(plan.endpoint.body)
		.filter(([, field]) => field.derived === 'idempotencyKey')
		.map(([key]) => key);
	const fingerprint = requestFingerprint(plan.request, derived);
	plan.requestId = requestIdOf(fingerprint, (run.requests ??= new Map()));
	return plan.requestId;
}

/** JSON records as output items of one input item. */
export function outputs(records: IDataObject[], itemIndex: number): SendResult {
	return {
		kind: 'items',
		items: records.map((json) => ({ json, pairedItem: { item: itemIndex } })),
	};
}

/** Sends an item's prepared request. */
export async function sendRequest(
	ctx: IExecuteFunctions,
	request: PreparedRequest,
	itemIndex: number,
): Promise<unknown> {
	return await mediaGenRequest(ctx, {
		method: request.method,
		path: request.path,
		qs: request.qs,
		body: request.body,
		idempotencyKey: request.idempotencyKey,
		itemIndex,
	});
}

/** The item's Options collection (empty when the operation has none). */
export function optionsOf(ctx: IExecuteFunctions, itemIndex: number): IDataObject {
	return ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
}

/** The binary property an operation reads a file from or writes files to. */
export const binaryProperty = (displayName: string, description: string): INodeProperties => ({
	displayName,
	name: 'binaryPropertyName',
	type: 'string',
	default: 'data',
	required: true,
	description,
});

/** The binary property an item names (`data` by default). */
export function binaryPropertyOf(ctx: IExecuteFunctions, itemIndex: number): string {
	return ctx.getNodeParameter('binaryPropertyName', itemIndex, 'data') as string;
}

/** Items an earlier try could not be proven not to have done are refused unless this is on. */
export const SEND_WHEN_UNSURE: INodeProperties = {
	displayName: 'Send Again When Unsure',
	name: 'sendWhenUnsure',
	type: 'boolean',
	default: false,
	description:
		"Whether to send an item again in n8n's Retry when the node cannot tell whether an earlier try of the run already started or charged it (MediaGen's lists did not reach back far enough, n8n's clock moved, or MediaGen holds work for the item's request that another execution may have made). Off: such an item is refused and named, nothing is sent for it. On: it is sent, and may be charged twice.",
};

/**
 * Sends a create or charged call with a mark in the run's memory until it is answered: an answer
 * clears the mark; a refusal (a 4xx answer: MediaGen did nothing; but a 409
 * `idempotency_key_reused`, whose work an earlier try did; a 409 of any other code, `conflict`, is
 * a refusal too) clears it and is remembered (`request`: the item's request id); no answer
 * (a 5xx, a dropped connection, Stop) leaves the item unsure for a retry to look up.
 */
export async function sendMarked<T>(
	ctx: IExecuteFunctions,
	run: RunState,
	itemIndex: number,
	send: () => Promise<T>,
	request?: string,
): Promise<T> {
	run.memory.sending(itemIndex);
	try {
		return await send();
	} catch (error) {
		const status = statusOf(error);
		if (status !== undefined && status >= 400 && status < 500 && !isReusedKey(error))
			run.memory.notDone(itemIndex, request);
		throw asNodeError(ctx, error, itemIndex);
	}
}
