/** An operation without a special behaviour: its request, the answer as output items. */
import type { IDataObject } from 'n8n-workflow';

import { answerList } from './itemLists';
import type { Behaviour } from './behaviour';
import { outputs, requestPlan, sendRequest } from './behaviour';

/** Turns an API answer into output JSON items; list envelopes become one item per record. */
export function toItems(response: unknown): IDataObject[] {
	if (Array.isArray(response)) return response as IDataObject[];
	if (response && typeof response === 'object') {
		const data = (response as IDataObject).data;
		if (Array.isArray(data) && 'nextCursor' in (response as IDataObject)) {
			return data as IDataObject[];
		}
		return [response as IDataObject];
	}
	if (response === undefined || response === null || response === '') return [{ success: true }];
	return [{ result: response as string | number | boolean }];
}

export const plain: Behaviour = {
	properties: () => ({}),
	prepare: async (ctx, endpoint, itemIndex, _run, values) =>
		requestPlan(ctx, endpoint, itemIndex, values),
	async send(ctx, { endpoint, request, itemIndex }) {
		const answer = await sendRequest(ctx, request, itemIndex);
		const records = answerList(ctx, endpoint, answer) ?? toItems(answer);
		const notice = endpoint.notice;
		return outputs(notice ? records.map((r) => ({ ...r, notice })) : records, itemIndex);
	},
};
