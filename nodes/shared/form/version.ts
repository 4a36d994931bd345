/** The form of a catalog node version: resources, operations, and each operation's parameters. */
import type { INodeProperties } from 'n8n-workflow';

import { behaviourProperties } from '../behaviours';
import type { Endpoint, Group, MainOperation } from '../catalog/dsl';
import { endpointsOf } from '../catalog/versions';
import { needOf } from '../fields/help';
import { namedValuesProperties } from '../fields/namedValues';
import { layoutOf, optionalCollectionOf, pathParamName } from '../fields/names';
import { fieldProperty, sortedProperties } from '../fields/properties';
import { OUTPUT_PROPERTY } from './output';
import { toolDescription, toolDescriptionProperty } from './tool';

/** Every property of one operation, in form order. */
export function endpointProperties(resource: string, e: Endpoint, version = 1): INodeProperties[] {
	const show = { show: { resource: [resource], operation: [e.operation] } };
	const props: INodeProperties[] = [];
	/** What a model must fill in, for the tool description (version 2). */
	const needs: string[] = [];
	for (const [key, f] of Object.entries(e.pathParams)) {
		const p: INodeProperties = { ...fieldProperty(pathParamName(key, f), f), required: true };
		props.push(p);
		needs.push(needOf(key, f, p.displayName));
	}
	for (const [key, f] of layoutOf(e).top) {
		const p: INodeProperties = {
			...fieldProperty(key, f),
			...(f.required ? { required: true } : {}),
		};
		props.push(...(namedValuesProperties(key, f, p, version) ?? [p]));
		if (f.required) needs.push(needOf(key, f, p.displayName));
	}
	const behaviour = behaviourProperties(e);
	props.push(...behaviour.beforeOptional);
	const optional = layoutOf(e).optional;
	if (Object.keys(optional).length) {
		const { name, displayName } = optionalCollectionOf(e);
		props.push({
			displayName,
			name,
			type: 'collection',
			placeholder: e.paginate ? 'Add Filter' : 'Add Field',
			default: {},
			options: sortedProperties(optional, false),
		});
	}
	if (version >= 2 && hasLargeRecords(resource, e)) props.push(OUTPUT_PROPERTY);
	props.push(...behaviour.afterOptional);
	if (version >= 2) props.push(toolDescriptionProperty(toolDescription(e, needs)));
	return props.map((p) => ({ ...p, displayOptions: mergeShow(show, p.displayOptions) }));
}

/**
 * Records with more than ten fields, where version 2 offers Output: Simplified | Raw (n8n's UX
 * guideline for AI-facing nodes): generations (25 fields), assets, and every job's record.
 */
function hasLargeRecords(resource: string, e: Endpoint): boolean {
	if (e.binary === 'download' || e.binary === 'text' || e.binary === 'upload') return false;
	return !!e.job || resource === 'generation' || resource === 'asset';
}

function mergeShow(
	show: { show: Record<string, string[]> },
	own: INodeProperties['displayOptions'],
): INodeProperties['displayOptions'] {
	return { ...own, show: { ...show.show, ...(own?.show ?? {}) } };
}

/** Operations a form never opens on: they remove, stop or refuse something. */
const DESTRUCTIVE = /^(delete|cancel|reject|archive|remove|discard)/i;

/**
 * The operation a resource's selector opens on. Version 1 (as released): Get Many, else the first
 * declared. From version 2: the node's main operation on its main resource; on the others Create,
 * else Get Many, else Get, else the first one that is not destructive.
 */
export function defaultOperationOf(g: Group, version: number, main?: MainOperation): string {
	if (version < 2) {
		return (g.endpoints.find((e) => e.operation === 'getAll') ?? g.endpoints[0]).operation;
	}
	const endpoints = endpointsOf(g, version);
	if (main && main.resource === g.resource) return main.operation;
	const has = (op: string) => endpoints.some((e) => e.operation === op);
	const preferred = ['create', 'getAll', 'get'].find(has);
	return (
		preferred ?? (endpoints.find((e) => !DESTRUCTIVE.test(e.operation)) ?? endpoints[0]).operation
	);
}

/**
 * The resource selector, the operation selectors and every operation's properties, for one node
 * version. Version 1 opens on the first resource in alphabetical order; version 2 on `main`.
 */
export function catalogProperties(
	groups: Group[],
	version = 1,
	main?: MainOperation,
): INodeProperties[] {
	if (!groups.length) return [];
	const sorted = [...groups].sort((a, b) => a.name.localeCompare(b.name));
	const firstResource =
		version >= 2 && main && groups.some((g) => g.resource === main.resource)
			? main.resource
			: sorted[0].resource;
	const props: INodeProperties[] = [
		{
			displayName: 'Resource',
			name: 'resource',
			type: 'options',
			noDataExpression: true,
			options: sorted.map((g) => ({ name: g.name, value: g.resource })),
			default: firstResource,
		},
	];
	for (const g of sorted) {
		const ops = [...endpointsOf(g, version)].sort((a, b) => a.name.localeCompare(b.name));
		props.push({
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
			displayOptions: { show: { resource: [g.resource] } },
			options: ops.map((e) => ({
				name: e.name,
				value: e.operation,
				description: e.description,
				action: e.action,
			})),
			default: defaultOperationOf(g, version, main),
		});
	}
	for (const g of sorted) {
		for (const e of endpointsOf(g, version))
			props.push(...endpointProperties(g.resource, e, version));
	}
	return props;
}
