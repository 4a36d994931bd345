/** Generation → Get Subtitles: a text answer as JSON and as a file (a tool gets the text). */
import { isToolCall } from '../jobs/toolCall';
import type { Behaviour } from './behaviour';
import { binaryProperty, binaryPropertyOf, outputs, requestPlan, sendRequest } from './behaviour';

export const textResult: Behaviour = {
	properties: () => ({
		afterOptional: [
			binaryProperty(
				'Put Output File in Field',
				'Name of the binary property to write the file to',
			),
		],
	}),
	prepare: async (ctx, endpoint, itemIndex, _run, values) =>
		requestPlan(ctx, endpoint, itemIndex, values),
	async send(ctx, { request, itemIndex }) {
		const text = String(await sendRequest(ctx, request, itemIndex));
		const format = String(request.qs.format ?? 'srt');
		const json = { id: request.params.id, format, text };
		// a tool's answer cannot carry the file: the text is in the JSON already
		if (isToolCall(ctx)) return outputs([json], itemIndex);
		const binary = await ctx.helpers.prepareBinaryData(
			Buffer.from(text, 'utf8'),
			`${request.params.id ?? 'file'}.${format}`,
			format === 'vtt' ? 'text/vtt' : 'application/x-subrip',
		);
		const files = { [binaryPropertyOf(ctx, itemIndex)]: binary };
		return { kind: 'items', items: [{ json, binary: files, pairedItem: { item: itemIndex } }] };
	},
};
