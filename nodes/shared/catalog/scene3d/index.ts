import type { Group } from '../dsl';

/** Resources of the MediaGen 3D node. */
export const scene3dGroups: Group[] = [];
