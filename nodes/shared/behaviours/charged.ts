/**
 * Calls that MediaGen charges and answers at once (captions, translation, cleanup, highlights,
 * analysis, AI edit): each answer is remembered for n8n's Retry as it arrives, and an item whose
 * call was sent without an answer is marked, so that a retry outputs the remembered answer, or
 * looks for the work at MediaGen (../durable/recovery.ts, `recoverAnswers`), instead of charging twice.
 */

import { claimEvidence } from '../durable/recovery';
import type { Behaviour, ItemPlan } from './behaviour';
import {
	identifyRequest,
	outputs,
	requestPlan,
	SEND_WHEN_UNSURE,
	sendMarked,
	sendRequest,
} from './behaviour';
import { toItems } from './plain';

export const charged: Behaviour = {
	properties: () => ({ options: [SEND_WHEN_UNSURE] }),
	async prepare(ctx, endpoint, itemIndex, run, values) {
		const plan: ItemPlan = requestPlan(ctx, endpoint, itemIndex, values);
		plan.charged = { answer: run.memory.answerOf(itemIndex, identifyRequest(plan, run)) };
		return plan;
	},
	async send(ctx, plan, run) {
		const { itemIndex, request } = plan;
		let answer = plan.charged?.answer;
		if (!answer) {
			const body = await sendMarked(
				ctx,
				run,
				itemIndex,
				() => sendRequest(ctx, request, itemIndex),
				plan.requestId,
			);
			answer = toItems(body);
			run.memory.answer(itemIndex, answer, plan.requestId);
			if (run.lookup?.retrying) {
				await claimEvidence(run.lookup, plan);
				run.memory.claim(run.lookup.claimed);
			}
		}
		return outputs(answer, itemIndex);
	},
};
