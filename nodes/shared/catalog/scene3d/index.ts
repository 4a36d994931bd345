import type { Group } from '../dsl';
import { scenes3d } from './scenes';

/** Resources of the MediaGen 3D node. */
export const scene3dGroups: Group[] = [scenes3d];
