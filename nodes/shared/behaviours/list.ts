/** A list operation: Return All or Limit, walked page by page, Start Cursor and Next Cursor. */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Endpoint } from '../catalog/dsl';
import type { PreparedRequest } from '../fields/request';
import { listPages } from '../transport/pages';
import type { Behaviour, ListSettings } from './behaviour';
import { optionsOf, requestPlan } from './behaviour';

/** Page size used when the node walks a list; the service treats more than 100 as 100. */
export const PAGE_SIZE = 100;

/**
 * Walks a list, handing each record to `emit` as its page arrives (nothing is gathered twice),
 * until `max` records or the end of the list. Returns the cursor after the last record emitted,
 * undefined at the end.
 */
export async function walkPages(
	ctx: IExecuteFunctions,
	endpoint: Endpoint,
	request: PreparedRequest,
	list: ListSettings,
	itemIndex: number,
	emit: (record: IDataObject) => void,
): Promise<string | number | undefined> {
	let count = 0;
	const pages = listPages(ctx, {
		path: request.path,
		qs: request.qs,
		pageSize: PAGE_SIZE,
		max: list.max,
		start: list.startCursor,
		itemIndex,
		onRepeat:
			'The list repeats itself. Get fewer records with Limit, or page by hand with the Start Cursor option.',
	});
	for await (const { records, next, response } of pages) {
		const extras: IDataObject = {};
		for (const key of endpoint.listExtras ?? []) extras[key] = (response as IDataObject)?.[key];
		for (const record of records.slice(0, list.max - count)) {
			emit(endpoint.listExtras?.length ? { ...record, ...extras } : record);
			count++;
		}
		if (count >= list.max && records.length && next !== undefined) return next;
	}
	return undefined;
}

function listSettings(ctx: IExecuteFunctions, endpoint: Endpoint, itemIndex: number): ListSettings {
	const returnAll = ctx.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const opts = optionsOf(ctx, itemIndex);
	const raw = opts.startCursor;
	const start = typeof raw === 'number' || typeof raw === 'string' ? String(raw).trim() : '';
	let startCursor: string | number | undefined = start || undefined;
	if (startCursor !== undefined && endpoint.paginate === 'integer') {
		startCursor = Number(start);
		if (!Number.isInteger(startCursor)) {
			throw new NodeOperationError(
				ctx.getNode(),
				`Start Cursor must be a whole number for this list, got '${start}'`,
				{ itemIndex },
			);
		}
	}
	return {
		max: returnAll ? Infinity : (ctx.getNodeParameter('limit', itemIndex, 50) as number),
		startCursor,
		includeNextCursor: opts.includeNextCursor === true,
	};
}

export const list: Behaviour = {
	properties: () => ({
		beforeOptional: [
			{
				displayName: 'Return All',
				name: 'returnAll',
				type: 'boolean',
				default: false,
				description: 'Whether to return all results or only up to a given limit',
			},
			{
				displayName: 'Limit',
				name: 'limit',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 50,
				description: 'Max number of results to return',
				displayOptions: { show: { returnAll: [false] } },
			},
		],
		options: [
			{
				displayName: 'Start Cursor',
				name: 'startCursor',
				type: 'string',
				default: '',
				description:
					'Start after this cursor (the nextCursor of an earlier page) instead of at the newest record',
			},
			{
				displayName: 'Include Next Cursor',
				name: 'includeNextCursor',
				type: 'boolean',
				default: false,
				description:
					'Whether to add nextCursor to every output item: the Start Cursor of the records after the last one returned, null at the end of the list',
			},
		],
	}),
	async prepare(ctx, endpoint, itemIndex, _run, values) {
		const plan = requestPlan(ctx, endpoint, itemIndex, values);
		plan.list = listSettings(ctx, endpoint, itemIndex);
		return plan;
	},
	async send(ctx, { endpoint, request, itemIndex, list: settings }) {
		const items: INodeExecutionData[] = [];
		if (!settings) return { kind: 'items', items };
		const cursor = await walkPages(ctx, endpoint, request, settings, itemIndex, (record) =>
			items.push({ json: record, pairedItem: { item: itemIndex } }),
		);
		if (settings.includeNextCursor) for (const item of items) item.json.nextCursor = cursor ?? null;
		return { kind: 'items', items };
	},
};
