/**
 * What automatic mode adds to an event, in the execution (the trigger's `execute` method, after
 * n8n answered the request): the generation's context (Include Generation Context) and the event's
 * files as binary data (Download Files), at most 10 files of 100 MB (docs/trigger-internals.md,
 * Enrichment).
 */
import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { downloadAssetToBinary } from '../shared/files/download';
import { assetIdIn } from '../shared/jobs/output';
import { mediaGenRequest } from '../shared/transport/request';
import type { TriggerOptions } from './properties';
import { hintEarlierPublication } from './publication';
import { isAutomatic } from './slots';

/** The files the trigger downloads per event and their largest size; exported so tests can lower them. */
export const TRIGGER_DOWNLOADS = { maxBytes: 100 * 1024 * 1024, maxFiles: 10 };

/** What to add to one event. */
export interface Enrichment {
	withContext: boolean;
	assetIds: string[];
	/** The Binary Property option as set (the first file's field; `data` when empty). */
	binaryPropertyName?: string;
}

/** The asset ids a downloadable event refers to. */
export function assetIdsOf(event: IDataObject): string[] {
	const data = (event.data ?? {}) as IDataObject;
	if (event.type === 'generation.completed') {
		const outputs = Array.isArray(data.outputs) ? (data.outputs as IDataObject[]) : [];
		return outputs.map(assetIdIn).filter((id): id is string => id !== undefined);
	}
	if (event.type === 'export.completed') {
		// the spec says the event "includes the new asset id"; its field name is not shown
		const id = assetIdIn(data) ?? assetIdIn(data.output as IDataObject | undefined);
		return id ? [id] : [];
	}
	return [];
}

/** What the options ask to add to this event; undefined when nothing. */
export function plannedEnrichment(
	event: IDataObject,
	options: TriggerOptions,
	automatic: boolean,
): Enrichment | undefined {
	const type = String(event.type ?? '');
	const withContext =
		automatic && options.includeContext === true && type.startsWith('generation.');
	const assetIds = automatic && options.downloadFiles ? assetIdsOf(event) : [];
	if (!withContext && assetIds.length === 0) return undefined;
	return { withContext, assetIds, binaryPropertyName: options.binaryPropertyName };
}

/** Adds the generation's `context` (GET /generations/{id}); a failed read says why instead. */
async function addGenerationContext(ctx: IExecuteFunctions, item: INodeExecutionData) {
	const id = String(((item.json.data ?? {}) as IDataObject).id ?? '');
	try {
		const record = await mediaGenRequest<IDataObject>(ctx, {
			method: 'GET',
			path: `/generations/${encodeURIComponent(id)}`,
		});
		item.json.context = (record?.context ?? {}) as IDataObject;
	} catch (error) {
		item.json.context = null;
		item.json.contextError = (error as Error).message;
	}
}

function binaryPropertyName(prefix: string, index: number): string {
	return index === 0 ? prefix : `${prefix}_${index}`;
}

/** Downloads the files into the item's binary data; a failed one is listed in `downloadErrors`. */
async function addFiles(
	ctx: IExecuteFunctions,
	item: INodeExecutionData,
	assetIds: string[],
	prefix: string,
	itemIndex: number,
) {
	const binary: Record<string, IBinaryData> = { ...(item.binary ?? {}) };
	const downloadErrors: IDataObject[] = [];
	for (const [index, assetId] of assetIds.entries()) {
		if (index >= TRIGGER_DOWNLOADS.maxFiles) {
			downloadErrors.push({
				asset_id: assetId,
				message: `Not downloaded: the trigger downloads at most ${TRIGGER_DOWNLOADS.maxFiles} files per event. Add MediaGen → Asset → Download after the trigger for the others.`,
			});
			continue;
		}
		try {
			const result = await downloadAssetToBinary(ctx, assetId, {
				propertyName: binaryPropertyName(prefix, index),
				maxBytes: TRIGGER_DOWNLOADS.maxBytes,
				itemIndex,
				tooLargeHint:
					'The trigger downloads files up to this size only. Turn Download Files off and add MediaGen → Asset → Download after the trigger: it streams any size.',
			});
			binary[result.propertyName] = result.binary;
		} catch (error) {
			// keep the event, say what is missing
			downloadErrors.push({ asset_id: assetId, message: (error as Error).message });
		}
	}
	if (Object.keys(binary).length) item.binary = binary;
	if (downloadErrors.length) item.json.downloadErrors = downloadErrors;
}

/** Adds to the item what the plan asks for: first the context, then the files. */
async function enrich(
	ctx: IExecuteFunctions,
	item: INodeExecutionData,
	enrichment: Enrichment,
	itemIndex: number,
): Promise<void> {
	if (enrichment.withContext) await addGenerationContext(ctx, item);
	const prefix = (enrichment.binaryPropertyName ?? '').trim() || 'data';
	await addFiles(ctx, item, enrichment.assetIds, prefix, itemIndex);
}

/**
 * The trigger's `execute` method: n8n runs it with the items the webhook returned, as the
 * execution's first node (in every mode, so also for a test event). Each event gets what the
 * options ask for; the items are passed on otherwise as they are.
 */
export async function enrichEvents(ctx: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = ctx.getInputData();
	const automatic = isAutomatic(ctx);
	if (automatic) hintEarlierPublication(ctx); // publication.ts
	const output: INodeExecutionData[] = [];
	for (const [itemIndex, input] of items.entries()) {
		const item: INodeExecutionData = {
			...input,
			json: { ...input.json },
			pairedItem: { item: itemIndex },
		};
		const options = ctx.getNodeParameter('options', itemIndex, {}) as TriggerOptions;
		const enrichment = plannedEnrichment(item.json, options, automatic);
		if (enrichment) await enrich(ctx, item, enrichment, itemIndex);
		output.push(item);
	}
	return [output];
}
