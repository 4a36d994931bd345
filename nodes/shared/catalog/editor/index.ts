import type { Group } from '../dsl';

/** Resources of the MediaGen Editor node. */
export const editorGroups: Group[] = [];
