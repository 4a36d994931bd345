/**
 * A job's output once it has finished: the record, its files as binary or, for a tool, as links.
 * The waiting itself is poller.ts.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { downloadAssetToBinary } from '../files/download';
import { fileAsLink, isToolCall } from './toolCall';

export type ReturnAs = 'json' | 'binary' | 'both';

export interface JobSettings {
	waitForCompletion: boolean;
	timeoutMinutes: number;
	maxCredits: number;
	returnAs: ReturnAs;
	binaryPropertyName: string;
}

/** The jobs an answer started: one record, or several in `{ data: [...] }`. */
export function startedJobs(response: unknown): IDataObject[] {
	const data = (response as IDataObject | undefined)?.data;
	if (Array.isArray(data)) return data as IDataObject[];
	return [response as IDataObject];
}

/** The asset id an output entry or event names (`asset_id`; `assetId` in some answers). */
export function assetIdIn(entry: IDataObject | undefined): string | undefined {
	const id = entry?.asset_id ?? entry?.assetId;
	return typeof id === 'string' && id ? id : undefined;
}

/** The asset id of a job's output entry (`{ asset_id, kind }`, else its `id`). */
export function assetIdOf(output: IDataObject): string {
	return assetIdIn(output) ?? String(output.asset_id ?? output.assetId ?? output.id);
}

/** Output of a finished job, with its outputs downloaded as binary when asked. */
export async function jobOutput(
	ctx: IExecuteFunctions,
	record: IDataObject,
	settings: Pick<JobSettings, 'returnAs' | 'binaryPropertyName'>,
	itemIndex: number,
): Promise<INodeExecutionData> {
	if (settings.returnAs === 'json') return { json: record, pairedItem: { item: itemIndex } };
	const outputs = (Array.isArray(record.outputs) ? record.outputs : []) as IDataObject[];
	if (isToolCall(ctx)) {
		// a tool's answer cannot carry files: their signed URLs instead
		const files: IDataObject[] = [];
		for (const output of outputs) {
			files.push({
				...(await fileAsLink(ctx, assetIdOf(output), itemIndex)),
				kind: output.kind ?? null,
			});
		}
		return { json: { ...record, files }, pairedItem: { item: itemIndex } };
	}
	const binary: INodeExecutionData['binary'] = {};
	const files: IDataObject[] = [];
	for (const [i, output] of outputs.entries()) {
		const propertyName =
			i === 0 ? settings.binaryPropertyName : `${settings.binaryPropertyName}_${i}`;
		const assetId = assetIdOf(output);
		const file = await downloadAssetToBinary(ctx, assetId, { propertyName, itemIndex });
		binary[file.propertyName] = file.binary;
		files.push({ binaryProperty: file.propertyName, asset_id: assetId, kind: output.kind ?? null });
	}
	const json: IDataObject =
		settings.returnAs === 'both'
			? { ...record, files }
			: { id: record.id, status: record.status, credits_charged: record.credits_charged, files };
	return { json, binary, pairedItem: { item: itemIndex } };
}
