/**
 * What every catalog node shares: connections, credential, tool use, and its node versions.
 *
 * Version 1 is the released form: its parameters, types, defaults and display conditions never
 * change (test/surface/<node>@1.json). Version 2 (the default for new nodes) opens on the node's
 * main job and may add parameters and stricter checks of its own; see CHANGELOG.md.
 */
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeBaseDescription,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import type { Group, MainOperation } from './catalog/dsl';
import { catalogProperties } from './fields';
import { listSearch } from './listSearch';
import { executeCatalog } from './router';

/** The node versions of every action node; the newest is the default for new nodes. */
export const CATALOG_VERSIONS = [1, 2] as const;
export type CatalogVersion = (typeof CATALOG_VERSIONS)[number];
export const LATEST_CATALOG_VERSION: CatalogVersion = 2;

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
	credentials: [{ name: 'mediaGenApi', required: true }],
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
			properties: catalogProperties(groups, version, main),
		},
		methods: { listSearch },
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			return await executeCatalog(this, groups);
		},
	};
}

/** Every node version of a catalog node, for VersionedNodeType. */
export function catalogNodeVersions(
	base: INodeTypeBaseDescription,
	groups: Group[],
	main: MainOperation,
): Record<number, INodeType> {
	return Object.fromEntries(
		CATALOG_VERSIONS.map((v) => [v, catalogNodeVersion(base, groups, v, main)]),
	);
}
