import { collections } from './collections';
import { credits } from './credits';
import type { Group } from './dsl';
import { projects } from './projects';
import { workspace } from './workspace';

/** Resources of the MediaGen node (spec doc 1). */
export const mediaGenGroups: Group[] = [collections, credits, projects, workspace];

/** Every node's groups, for the coverage test and the README table. */
export const catalog: Record<string, Group[]> = {
	mediaGen: mediaGenGroups,
};
