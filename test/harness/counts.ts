/**
 * The package's counts, derived and never typed: the endpoints from the spec documents' text
 * (scripts/extract-spec.ts, writtenEndpoints), the operations from the catalog and the node
 * versions each node has, the output schema files from those. The tests compare the generated
 * files, the catalog and the prose of the README and docs/ with these
 * (test/unit/counts.test.ts).
 */
import { MediaGenTrigger } from '../../nodes/MediaGenTrigger/MediaGenTrigger.node';
import { catalog } from '../../nodes/shared/catalog';
import { endpointsOf } from '../../nodes/shared/catalog/versions';
import { readSpecDocuments, writtenEndpoints } from '../../scripts/extract-spec';
import { versionsOf } from './actionNodes';

export interface Counts {
	/** The endpoints the spec documents write (every `- METHOD /path` line, POST /characters). */
	specEndpoints: number;
	/** The same, by spec document. */
	specEndpointsByDocument: Record<number, number>;
	/** The spec's endpoints the catalog declares (node operations such as Wait not counted). */
	catalogEndpoints: number;
	/** Every operation of the catalog: the spec's endpoints and the node operations. */
	operations: number;
	/** The operations without a file upload (what the fuzz test gives invalid values). */
	operationsWithoutUpload: number;
	/** Operations by node version, over the action nodes that have the version. */
	operationsByVersion: Record<number, number>;
	/** Operations by action node (its name, e.g. `mediaGen`), then by its node version. */
	operationsByNode: Record<string, Record<number, number>>;
	/** Runs of every operation over the node versions it is in (the operation tours). */
	operationRuns: number;
	/** Versions of the MediaGen Trigger (one output schema file each). */
	triggerVersions: number;
	/** Output schema files: one per operation of each action node version, one per trigger version. */
	schemaFiles: number;
}

export function derivedCounts(): Counts {
	const written = writtenEndpoints(readSpecDocuments());
	const specEndpointsByDocument = Object.fromEntries(
		[...written].map(([doc, keys]) => [doc, keys.length]),
	);
	const all = Object.values(catalog).flatMap((groups) => groups.flatMap((g) => g.endpoints));
	const operationsByNode: Record<string, Record<number, number>> = {};
	const operationsByVersion: Record<number, number> = {};
	for (const [node, groups] of Object.entries(catalog)) {
		operationsByNode[node] = {};
		for (const version of versionsOf(node)) {
			const count = groups.reduce((n, g) => n + endpointsOf(g, version).length, 0);
			operationsByNode[node][version] = count;
			operationsByVersion[version] = (operationsByVersion[version] ?? 0) + count;
		}
	}
	const operationRuns = Object.values(operationsByVersion).reduce((a, b) => a + b, 0);
	const triggerVersions = Object.keys(new MediaGenTrigger().nodeVersions).length;
	return {
		specEndpoints: Object.values(specEndpointsByDocument).reduce((a, b) => a + b, 0),
		specEndpointsByDocument,
		catalogEndpoints: all.filter((e) => !e.nodeOperation).length,
		operations: all.length,
		operationsWithoutUpload: all.filter((e) => e.binary !== 'upload').length,
		operationsByVersion,
		operationsByNode,
		operationRuns,
		triggerVersions,
		schemaFiles: operationRuns + triggerVersions,
	};
}
