/**
 * Runs a node's operations from its catalog: one request (or one paginated walk) per item,
 * continue-on-fail per item with pairedItem, nothing sent for an item whose input is invalid.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Endpoint, Group } from './catalog/dsl';
import type { PreparedRequest } from './fields';
import { PAGE_SIZE, prepareRequest } from './fields';
import { pageOf } from './listSearch';
import { asNodeError, defaultIdempotencyKey, mediaGenRequest } from './transport';

/** Finds the endpoint of a resource and operation. */
export function findEndpoint(
	groups: Group[],
	resource: string,
	operation: string,
): Endpoint | undefined {
	return groups
		.find((g) => g.resource === resource)
		?.endpoints.find((e) => e.operation === operation);
}

/** Walks a cursor-paginated list until `max` records (or the end when max is Infinity). */
export async function collectPages(
	ctx: IExecuteFunctions,
	req: PreparedRequest,
	max: number,
	itemIndex: number,
): Promise<IDataObject[]> {
	const out: IDataObject[] = [];
	let before: string | number | undefined;
	do {
		const limit = Math.min(PAGE_SIZE, max - out.length);
		const qs: IDataObject = { ...req.qs, limit };
		if (before !== undefined) qs.before = before;
		const { records, next } = pageOf(
			await mediaGenRequest(ctx, { method: req.method, path: req.path, qs, itemIndex }),
		);
		out.push(...records.slice(0, max - out.length));
		before = records.length ? next : undefined;
	} while (before !== undefined && out.length < max);
	return out;
}

const runIndexes = new WeakMap<IExecuteFunctions, number>();

/** This node's run index in the execution (n8n gives no direct getter to execute()). */
function runIndexOf(ctx: IExecuteFunctions): number {
	let runIndex = runIndexes.get(ctx);
	if (runIndex === undefined) {
		runIndex = ctx.getWorkflowDataProxy(0).$thisRunIndex;
		runIndexes.set(ctx, runIndex);
	}
	return runIndex;
}

function idempotencyKeyFor(ctx: IExecuteFunctions, itemIndex: number): string {
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const own = typeof options.idempotencyKey === 'string' ? options.idempotencyKey.trim() : '';
	if (own.length > 120) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Idempotency Key must be at most 120 characters, got ${own.length}`,
			{ itemIndex, description: 'Nothing was sent to MediaGen: fix the value and run again.' },
		);
	}
	if (own) return own;
	return defaultIdempotencyKey({
		executionId: ctx.getExecutionId() ?? 'manual',
		nodeId: ctx.getNode().id,
		runIndex: runIndexOf(ctx),
		itemIndex,
	});
}

/** Turns an API answer into output JSON items. */
export function toItems(response: unknown): IDataObject[] {
	if (Array.isArray(response)) return response as IDataObject[];
	if (response && typeof response === 'object') return [response as IDataObject];
	if (response === undefined || response === null || response === '') return [{ success: true }];
	return [{ result: response as string | number | boolean }];
}

async function runItem(
	ctx: IExecuteFunctions,
	e: Endpoint,
	itemIndex: number,
): Promise<IDataObject[]> {
	const req = prepareRequest(ctx, e, itemIndex);
	if (e.paginate) {
		const returnAll = ctx.getNodeParameter('returnAll', itemIndex, false) as boolean;
		const max = returnAll ? Infinity : (ctx.getNodeParameter('limit', itemIndex, 50) as number);
		return await collectPages(ctx, req, max, itemIndex);
	}
	if (e.idempotent) req.idempotencyKey = idempotencyKeyFor(ctx, itemIndex);
	const response = await mediaGenRequest(ctx, {
		method: req.method,
		path: req.path,
		qs: req.qs,
		body: req.body,
		idempotencyKey: req.idempotencyKey,
		itemIndex,
	});
	return toItems(response);
}

/** The execute() of every catalog node. */
export async function executeCatalog(
	ctx: IExecuteFunctions,
	groups: Group[],
): Promise<INodeExecutionData[][]> {
	const items = ctx.getInputData();
	const out: INodeExecutionData[] = [];
	for (let i = 0; i < items.length; i++) {
		try {
			const resource = ctx.getNodeParameter('resource', i) as string;
			const operation = ctx.getNodeParameter('operation', i) as string;
			const e = findEndpoint(groups, resource, operation);
			if (!e) {
				throw new NodeOperationError(ctx.getNode(), `Unknown operation ${resource}/${operation}`, {
					itemIndex: i,
				});
			}
			for (const json of await runItem(ctx, e, i)) out.push({ json, pairedItem: { item: i } });
		} catch (error) {
			if (ctx.continueOnFail()) {
				const err = error as Error & { description?: string; httpCode?: string };
				out.push({
					json: {
						error: err.message,
						...(err.description ? { description: err.description } : {}),
						...(err.httpCode ? { httpCode: err.httpCode } : {}),
					},
					pairedItem: { item: i },
				});
				continue;
			}
			throw asNodeError(ctx, error, i);
		}
	}
	return [out];
}
