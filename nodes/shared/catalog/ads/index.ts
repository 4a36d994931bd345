import type { Group } from '../dsl';

/** Resources of the MediaGen Ads node. */
export const adsGroups: Group[] = [];
