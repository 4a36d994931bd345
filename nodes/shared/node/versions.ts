/**
 * Every action node's node versions, from its catalog: its description, list searches and
 * execute() (run/execute.ts) per version (which version has what: catalog/versions.ts).
 */
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeBaseDescription,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import type { Group, MainOperation } from '../catalog/dsl';
import {
	CATALOG_VERSIONS,
	CatalogVersion,
	INPUT_SOURCES_VERSION,
	LATEST_CATALOG_VERSION,
} from '../catalog/versions';
import { listSearch } from '../fields/listSearch';
import { catalogProperties } from '../form/version';
import { executeCatalog } from '../run/execute';
import { withListSources } from '../behaviours/itemLists';
import { CREDENTIAL } from '../transport/context';

/**
 * The part of every catalog node's base description that is the same for all of them (the icon
 * stays in each node file, where n8n's lint checks its files).
 */
export const catalogBaseDescription = {
	group: ['transform'],
	subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
	usableAsTool: true,
	defaultVersion: LATEST_CATALOG_VERSION,
} satisfies Partial<INodeTypeBaseDescription>;

export const catalogNodeBase = {
	group: ['transform'],
	usableAsTool: true,
	inputs: [NodeConnectionTypes.Main],
	outputs: [NodeConnectionTypes.Main],
	credentials: [{ name: CREDENTIAL, required: true }],
} satisfies Partial<INodeTypeDescription>;

/** One node version of a catalog node: its description, list searches and execution. */
export function catalogNodeVersion(
	base: INodeTypeBaseDescription,
	groups: Group[],
	version: CatalogVersion,
	main: MainOperation,
): INodeType {
	return {
		description: {
			...catalogNodeBase,
			...base,
			version,
			defaults: { name: base.displayName },
			properties: withListSources(catalogProperties(groups, version, main), groups, version),
		},
		methods: { listSearch },
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			return await executeCatalog(this, groups);
		},
	};
}

/**
 * Every node version of a catalog node, for VersionedNodeType: CATALOG_VERSIONS, and version 3
 * for a node whose base description makes it the default (INPUT_SOURCES_VERSION).
 */
export function catalogNodeVersions(
	base: INodeTypeBaseDescription,
	groups: Group[],
	main: MainOperation,
): Record<number, INodeType> {
	const versions: CatalogVersion[] = [...CATALOG_VERSIONS];
	if (base.defaultVersion === INPUT_SOURCES_VERSION) versions.push(INPUT_SOURCES_VERSION);
	return Object.fromEntries(versions.map((v) => [v, catalogNodeVersion(base, groups, v, main)]));
}
