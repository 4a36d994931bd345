import { assets } from './assets';
import { collections } from './collections';
import { credits } from './credits';
import type { Group } from './dsl';
import { generations } from './generations';
import { analytics, prompts, voices } from './misc';
import { projects } from './projects';
import { webhooks } from './webhooks';
import { workspace } from './workspace';

/** Resources of the MediaGen node (spec doc 1). */
export const mediaGenGroups: Group[] = [
	analytics,
	assets,
	collections,
	credits,
	generations,
	projects,
	prompts,
	voices,
	webhooks,
	workspace,
];

/** Every node's groups, for the coverage test and the README table. */
export const catalog: Record<string, Group[]> = {
	mediaGen: mediaGenGroups,
};
