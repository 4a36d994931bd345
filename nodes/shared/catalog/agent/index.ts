import type { Group } from '../dsl';

/** Resources of the MediaGen Agent node. */
export const agentGroups: Group[] = [];
