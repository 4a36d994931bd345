/**
 * The Idempotency-Key of a create that takes one: the user's own (the Idempotency Key option),
 * else the key of its own execution an earlier try sent the item's request under (the run
 * memory), else derived from the run's identity, node, run and item (the same in n8n's retries).
 */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { defaultIdempotencyKey } from '../durable/identity';
import type { ItemPlan, RunState } from './behaviour';
import { identifyRequest, optionsOf } from './behaviour';

export const IDEMPOTENCY_OPTION: INodeProperties = {
	displayName: 'Idempotency Key',
	name: 'idempotencyKey',
	type: 'string',
	default: '',
	description:
		"At most 120 characters, one per item. By default a key derived from the execution, node, run and item is sent (the same in n8n's Retry of a failed execution), so that retries never start a job twice; set one to control it yourself.",
};

/** The Idempotency Key option as typed (a number from an expression counts), or ''. */
function ownIdempotencyKey(ctx: IExecuteFunctions, itemIndex: number): string {
	const raw = optionsOf(ctx, itemIndex).idempotencyKey;
	const own = typeof raw === 'string' || typeof raw === 'number' ? String(raw).trim() : '';
	if (own.length > 120) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Idempotency Key must be at most 120 characters, got ${own.length}`,
			{ itemIndex },
		);
	}
	return own;
}

/** Sets the key of an item's request, where its endpoint takes one. */
export function addIdempotencyKey(ctx: IExecuteFunctions, plan: ItemPlan, run: RunState): void {
	const { endpoint, itemIndex } = plan;
	if (!endpoint.idempotent || !run.identity) return;
	const own = ownIdempotencyKey(ctx, itemIndex);
	plan.ownKey = !!own;
	if (own) return setIdempotencyKey(plan, own);
	const request = identifyRequest(plan, run);
	// a request an earlier try sent under a key of its execution keeps that key: MediaGen holds
	// the item's job under it, and the default key may replay another call's (seed 1208252)
	setIdempotencyKey(
		plan,
		run.memory.keyOf(request) ??
			defaultIdempotencyKey({
				token: run.identity.token,
				nodeId: ctx.getNode().id,
				position: run.position,
				request,
			}),
	);
}

/**
 * Sets an item's default key to one of this execution alone (its execution id in the material):
 * another run of the same identity (a sub-workflow's other call, an earlier iteration that took
 * the job under the shared key) holds the shared one. No-op with the user's own key.
 */
export function useKeyOfThisExecution(
	ctx: IExecuteFunctions,
	plan: ItemPlan,
	run: RunState,
): boolean {
	if (plan.ownKey || !run.identity || !plan.requestId) return false;
	const key = defaultIdempotencyKey({
		token: run.identity.token,
		nodeId: ctx.getNode().id,
		position: run.position,
		request: plan.requestId,
		execution: String(ctx.getExecutionId() ?? ''),
	});
	setIdempotencyKey(plan, key);
	run.memory.keyed(plan.itemIndex, plan.requestId, key);
	return true;
}

/** Sets the key of an item's request, in the header and where the spec names a body key. */
export function setIdempotencyKey(plan: ItemPlan, key: string): void {
	const { endpoint, request } = plan;
	request.idempotencyKey = key;
	for (const [name, field] of Object.entries(endpoint.body)) {
		if (field.derived === 'idempotencyKey' && request.body) request.body[name] = key;
	}
}
