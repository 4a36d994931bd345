/** Asset → Download: the file streamed into a binary property (a tool gets a signed URL). */
import { downloadAssetToBinary } from '../files/download';
import { fileAsLink, isToolCall } from '../jobs/toolCall';
import type { Behaviour } from './behaviour';
import { binaryProperty, binaryPropertyOf, optionsOf, outputs, requestPlan } from './behaviour';

export const download: Behaviour = {
	properties: () => ({
		afterOptional: [
			binaryProperty(
				'Put Output File in Field',
				'Name of the binary property to write the file to',
			),
		],
		options: [
			{
				displayName: 'Include Download URL',
				name: 'includeDownloadUrl',
				type: 'boolean',
				default: false,
				description: 'Whether to put the short-lived signed download URL in the output too',
			},
		],
	}),
	prepare: async (ctx, endpoint, itemIndex, _run, values) =>
		requestPlan(ctx, endpoint, itemIndex, values),
	async send(ctx, { request, itemIndex }) {
		const assetId = request.params.id;
		if (isToolCall(ctx)) return outputs([await fileAsLink(ctx, assetId, itemIndex)], itemIndex);
		const propertyName = binaryPropertyOf(ctx, itemIndex);
		const file = await downloadAssetToBinary(ctx, assetId, { propertyName, itemIndex });
		const { url, ...info } = file.asset;
		const withUrl = optionsOf(ctx, itemIndex).includeDownloadUrl === true;
		const json = { assetId, ...info, ...(withUrl ? { url } : {}) };
		const binary = { [file.propertyName]: file.binary };
		return { kind: 'items', items: [{ json, binary, pairedItem: { item: itemIndex } }] };
	},
};
