import type { Group } from '../dsl';

/** Resources of the MediaGen Influencer node. */
export const influencerGroups: Group[] = [];
