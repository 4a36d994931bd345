/**
 * What automatic mode adds to an event after the request is answered: the generation's context
 * (Include Generation Context) and the event's files as binary data (Download Files), capped in
 * size because they run inside the webhook request (docs/trigger-internals.md, Enrichment).
 */
import type { IBinaryData, IDataObject, INodeExecutionData, IWebhookFunctions } from 'n8n-workflow';

import { downloadAssetToBinary } from '../shared/binaryDownload';
import { assetIdIn } from '../shared/jobs';
import { mediaGenRequest } from '../shared/transport';
import type { TriggerOptions } from './properties';

/** Largest file the trigger downloads; exported so tests can lower it. */
export const TRIGGER_DOWNLOADS = { maxBytes: 100 * 1024 * 1024 };

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
async function addGenerationContext(ctx: IWebhookFunctions, item: INodeExecutionData) {
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
	ctx: IWebhookFunctions,
	item: INodeExecutionData,
	assetIds: string[],
	prefix: string,
) {
	const binary: Record<string, IBinaryData> = {};
	const downloadErrors: IDataObject[] = [];
	for (const [index, assetId] of assetIds.entries()) {
		try {
			const result = await downloadAssetToBinary(ctx, assetId, {
				propertyName: binaryPropertyName(prefix, index),
				maxBytes: TRIGGER_DOWNLOADS.maxBytes,
				tooLargeHint:
					'The trigger downloads files up to this size only. Turn Download Files off and add MediaGen → Asset → Download after the trigger: it streams any size inside the execution.',
			});
			binary[result.propertyName] = result.binary;
		} catch (error) {
			// the request is answered already: keep the event, say what is missing
			downloadErrors.push({ asset_id: assetId, message: (error as Error).message });
		}
	}
	if (Object.keys(binary).length) item.binary = binary;
	if (downloadErrors.length) item.json.downloadErrors = downloadErrors;
}

/** Adds to the item what the plan asks for: first the context, then the files. */
export async function enrich(
	ctx: IWebhookFunctions,
	item: INodeExecutionData,
	enrichment: Enrichment,
): Promise<void> {
	if (enrichment.withContext) await addGenerationContext(ctx, item);
	const prefix = (enrichment.binaryPropertyName ?? '').trim() || 'data';
	await addFiles(ctx, item, enrichment.assetIds, prefix);
}
