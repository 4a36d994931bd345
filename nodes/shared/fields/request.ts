/** One item's parameters read, checked and assembled into its request. No request is sent. */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Endpoint, Field, JsonValue } from '../catalog/dsl';
import { asNodeError } from '../transport/errors';
import { namedValuesOf } from './namedValues';
import { displayNameOf, layoutOf, optionalCollectionOf, pathParamName } from './names';
import { coerce, fail, FieldError, isBlank, readFields } from './validation';

export interface PreparedRequest {
	method: Endpoint['method'];
	/** Path with parameters filled in and encoded, relative to the base URL. */
	path: string;
	qs: IDataObject;
	body?: { [key: string]: JsonValue };
	idempotencyKey?: string;
	/** Path parameter values by placeholder name. */
	params: Record<string, string>;
}

/** A UTF-16 surrogate without its pair: text that cannot be encoded into a URL. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Node version 2 on: a request that would do nothing is refused before sending. A required
 * multi-select left empty (Webhook → Create with no events subscribes to nothing), and an Update
 * with no field added (an empty PATCH). Version 1 sends them, as released.
 */
function refuseEmpty(e: Endpoint, body: { [key: string]: JsonValue }): void {
	for (const [key, f] of Object.entries(e.body)) {
		const value = body[key];
		if (f.kind === 'multiOptions' && f.required && Array.isArray(value) && !value.length) {
			fail(`${displayNameOf(key, f)} needs at least one entry: choose one or more`);
		}
	}
	const collection = optionalCollectionOf(e);
	const optional = Object.keys(layoutOf(e).optional);
	if (collection.name === 'updateFields' && !optional.some((key) => body[key] !== undefined)) {
		fail(`Nothing to update: add at least one field under ${collection.displayName}`);
	}
}

/** Reads one item's parameters, validates them all, and assembles the request. */
export function prepareRequest(
	ctx: IExecuteFunctions,
	e: Endpoint,
	itemIndex: number,
	derivedValues: IDataObject = {},
): PreparedRequest {
	try {
		const optional = optionalCollectionOf(e);
		const collected = (
			Object.keys(layoutOf(e).optional).length
				? ctx.getNodeParameter(optional.name, itemIndex, {})
				: {}
		) as IDataObject;
		const values: IDataObject = { ...derivedValues };
		for (const [key, v] of Object.entries(collected)) {
			if (!(isBlank(v) && key in derivedValues)) values[key] = v;
		}
		for (const [key, f] of layoutOf(e).top) {
			if (key in derivedValues) continue; // e.g. a list from the input items (../behaviours/itemLists.ts)
			values[key] =
				namedValuesOf(ctx, key, f, itemIndex, displayNameOf(key, f)) ??
				(ctx.getNodeParameter(key, itemIndex, '') as IDataObject[string]);
		}
		const labelOf = (key: string, f: Field) => displayNameOf(key, f);

		let path = e.path;
		const params: Record<string, string> = {};
		for (const [key, f] of Object.entries(e.pathParams)) {
			const name = pathParamName(key, f);
			const raw = ctx.getNodeParameter(name, itemIndex, undefined, { extractValue: true });
			params[key] = String(
				coerce(f, typeof raw === 'string' ? raw.trim() : raw, displayNameOf(name, f)),
			);
			if (LONE_SURROGATE.test(params[key]))
				fail(`${displayNameOf(name, f)} contains a broken character (a lone UTF-16 surrogate)`);
			path = path.replace(`{${key}}`, encodeURIComponent(params[key]));
		}
		const qs = readFields(e.query, values, labelOf) as IDataObject;
		const body = readFields(e.body, values, labelOf);
		for (const [key, f] of Object.entries(e.body)) {
			if (f.kind === 'json' && f.spread && body[key] !== undefined) {
				const inner = body[key] as { [k: string]: JsonValue };
				delete body[key];
				Object.assign(body, inner);
			}
		}
		const hasBody = e.method !== 'GET' && e.method !== 'DELETE';
		// a read sends no body (and reads no node: n8n's getNode copies it on every call)
		if (hasBody && ctx.getNode().typeVersion >= 2) refuseEmpty(e, body);
		return { method: e.method, path, qs, body: hasBody ? body : undefined, params };
	} catch (error) {
		if (error instanceof FieldError) {
			throw new NodeOperationError(ctx.getNode(), error.message, {
				itemIndex,
				description: 'Nothing was sent to MediaGen: fix the value and run again.',
			});
		}
		throw asNodeError(ctx, error, itemIndex);
	}
}
