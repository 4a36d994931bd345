/**
 * Calls that MediaGen charges and answers at once (captions, translation, cleanup, highlights,
 * analysis, AI edit): each answer is remembered for n8n's Retry as it arrives, and an item whose
 * call was sent without an answer is marked, so that a retry outputs the remembered answer, or
 * looks for the work at MediaGen (../durable/recovery.ts, `recoverAnswers`), instead of charging twice.
 */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { claimEvidence } from '../durable/recovery';
import { asNodeError, statusOf } from '../transport/errors';
import type { Behaviour, ItemPlan, RunState } from './behaviour';
import { outputs, requestPlan, sendRequest } from './behaviour';
import { toItems } from './plain';

/** Items an earlier try could not be proven not to have done are refused unless this is on. */
export const SEND_WHEN_UNSURE: INodeProperties = {
	displayName: 'Send Again When Unsure',
	name: 'sendWhenUnsure',
	type: 'boolean',
	default: false,
	description:
		"Whether to send an item again in n8n's Retry when the node cannot tell whether an earlier try of the run already started or charged it (MediaGen's lists did not reach back far enough). Off: such an item is refused and named, nothing is sent for it. On: it is sent, and may be charged twice.",
};

/**
 * Sends a create or charged call with a mark in the run's memory until it is answered: an answer
 * clears the mark; a refusal (a 4xx answer: MediaGen did nothing) clears it too; no answer (a
 * 5xx, a dropped connection, Stop) leaves the item unsure for a retry to look up.
 */
export async function sendMarked<T>(
	ctx: IExecuteFunctions,
	run: RunState,
	itemIndex: number,
	send: () => Promise<T>,
): Promise<T> {
	run.memory.sending(itemIndex);
	try {
		return await send();
	} catch (error) {
		const status = statusOf(error);
		if (status !== undefined && status >= 400 && status < 500) run.memory.notDone(itemIndex);
		throw asNodeError(ctx, error, itemIndex);
	}
}

export const charged: Behaviour = {
	properties: () => ({ options: [SEND_WHEN_UNSURE] }),
	async prepare(ctx, endpoint, itemIndex, run, values) {
		const plan: ItemPlan = requestPlan(ctx, endpoint, itemIndex, values);
		plan.charged = { answer: run.memory.answerOf(itemIndex) };
		return plan;
	},
	async send(ctx, plan, run) {
		const { itemIndex, request } = plan;
		let answer = plan.charged?.answer;
		if (!answer) {
			const body = await sendMarked(ctx, run, itemIndex, () =>
				sendRequest(ctx, request, itemIndex),
			);
			answer = toItems(body);
			run.memory.answer(itemIndex, answer);
			if (run.lookup?.retrying) {
				await claimEvidence(run.lookup, plan);
				run.memory.claim(run.lookup.claimed);
			}
		}
		return outputs(answer, itemIndex);
	},
};
