/**
 * Binary in and out: streaming download of an asset into n8n binary data, and upload of an n8n
 * binary file through signed part URLs. (Placeholder: being implemented.)
 */
import type { IBinaryData, IDataObject, IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

export interface BinaryFileInfo {
	fileName: string;
	mimeType: string;
	size: number;
}

/** File name, MIME type and exact byte size of an item's binary property. */
export async function binaryFileInfo(
	ctx: IExecuteFunctions,
	itemIndex: number,
	propertyName: string,
): Promise<BinaryFileInfo> {
	throw new NodeOperationError(
		ctx.getNode(),
		`binaryFileInfo(${propertyName}) is not implemented yet`,
		{
			itemIndex,
		},
	);
}

/** Uploads an item's binary property with an already validated POST /uploads body; returns the asset. */
export async function uploadBinary(
	ctx: IExecuteFunctions,
	itemIndex: number,
	propertyName: string,
	startBody: IDataObject,
): Promise<IDataObject> {
	throw new NodeOperationError(
		ctx.getNode(),
		`uploadBinary(${propertyName}, ${Object.keys(startBody).join()}) is not implemented yet`,
		{ itemIndex },
	);
}

/** Streams an asset's file into n8n binary data. */
export async function downloadAssetToBinary(
	ctx: IExecuteFunctions | IWebhookFunctions,
	assetId: string,
	opts: { propertyName?: string; itemIndex?: number } = {},
): Promise<{ propertyName: string; binary: IBinaryData; asset: IDataObject }> {
	throw new NodeOperationError(ctx.getNode(), `download of ${assetId} is not implemented yet`, {
		itemIndex: opts.itemIndex,
	});
}
