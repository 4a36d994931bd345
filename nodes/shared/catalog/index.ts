import { assets } from './assets';
import { collections } from './collections';
import { credits } from './credits';
import type { Group } from './dsl';
import { generations } from './generations';
import { analytics, prompts, voices } from './misc';
import { projects } from './projects';
import { webhooks } from './webhooks';
import { workspace } from './workspace';
import { influencerGroups } from './influencer';
import { adsGroups } from './ads';
import { editorGroups } from './editor';
import { cinemaGroups } from './cinema';
import { canvasGroups } from './canvas';
import { scene3dGroups } from './scene3d';
import { agentGroups } from './agent';

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
	mediaGenInfluencer: influencerGroups,
	mediaGenAds: adsGroups,
	mediaGenEditor: editorGroups,
	mediaGenCinema: cinemaGroups,
	mediaGenCanvas: canvasGroups,
	mediaGen3d: scene3dGroups,
	mediaGenAgent: agentGroups,
};
