import type { Group } from '../dsl';

/** Resources of the MediaGen Cinema node. */
export const cinemaGroups: Group[] = [];
