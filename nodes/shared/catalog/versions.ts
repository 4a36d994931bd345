/**
 * Which node version has what: the versions of every action node, the newest, the version from
 * which inputs have a source without code, and the operations a version has (node operations
 * exist from their `since`). What each version changed: CHANGELOG.md.
 */
import type { Endpoint, Group } from './dsl';

/** The node versions of every action node; the newest is the default for new nodes. */
export const CATALOG_VERSIONS = [1, 2] as const;

export type CatalogVersion = (typeof CATALOG_VERSIONS)[number] | typeof INPUT_SOURCES_VERSION;

export const LATEST_CATALOG_VERSION: CatalogVersion = 2;

/**
 * The node version from which inputs that were JSON only have a source without code:
 * `fromItems`, `namedValues` and `answerList` below (MediaGen Ads and MediaGen Influencer).
 */
export const INPUT_SOURCES_VERSION = 3;

/** The operations of a resource in a node version (node operations exist from their `since`). */
export function endpointsOf(g: Group, version: number): Endpoint[] {
	return g.endpoints.filter((e) => (e.nodeOperation?.since ?? 1) <= version);
}
