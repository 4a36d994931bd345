/** An operation whose answer is an asset (a thumbnail, an export): its file downloaded too. */
import type { IDataObject } from 'n8n-workflow';

import { downloadAssetToBinary } from '../files/download';
import { fileAsLink, isToolCall } from '../jobs/toolCall';
import type { Behaviour } from './behaviour';
import { binaryProperty, binaryPropertyOf, outputs, requestPlan, sendRequest } from './behaviour';

export const resultAsset: Behaviour = {
	properties: () => ({
		afterOptional: [
			{
				displayName: 'Download File',
				name: 'downloadFile',
				type: 'boolean',
				default: true,
				description: 'Whether to download the resulting file into a binary property',
			},
			{
				...binaryProperty(
					'Put Output File in Field',
					'Name of the binary property to write the file to',
				),
				displayOptions: { show: { downloadFile: [true] } },
			},
		],
	}),
	prepare: async (ctx, endpoint, itemIndex, _run, values) =>
		requestPlan(ctx, endpoint, itemIndex, values),
	async send(ctx, { request, itemIndex }) {
		const asset = (await sendRequest(ctx, request, itemIndex)) as IDataObject;
		if (!ctx.getNodeParameter('downloadFile', itemIndex, true)) return outputs([asset], itemIndex);
		const assetId = String(asset.id);
		if (isToolCall(ctx)) {
			return outputs([{ ...asset, file: await fileAsLink(ctx, assetId, itemIndex) }], itemIndex);
		}
		const propertyName = binaryPropertyOf(ctx, itemIndex);
		const file = await downloadAssetToBinary(ctx, assetId, { propertyName, itemIndex });
		const binary = { [file.propertyName]: file.binary };
		return { kind: 'items', items: [{ json: asset, binary, pairedItem: { item: itemIndex } }] };
	},
};
