import type { Group } from '../dsl';

/** Resources of the MediaGen Canvas node. */
export const canvasGroups: Group[] = [];
