/**
 * The eight action nodes by name (`mediaGen`, …), as n8n loads them (versioned node types), and
 * the node versions each one has. (The explicit .ts: under tsx, e.g. in the crash harness's child
 * process, X.node would resolve to the codex .json beside it.)
 */
import type { IVersionedNodeType } from 'n8n-workflow';

import { MediaGen } from '../../nodes/MediaGen/MediaGen.node.ts';
import { MediaGen3d } from '../../nodes/MediaGen3d/MediaGen3d.node.ts';
import { MediaGenAds } from '../../nodes/MediaGenAds/MediaGenAds.node.ts';
import { MediaGenAgent } from '../../nodes/MediaGenAgent/MediaGenAgent.node.ts';
import { MediaGenCanvas } from '../../nodes/MediaGenCanvas/MediaGenCanvas.node.ts';
import { MediaGenCinema } from '../../nodes/MediaGenCinema/MediaGenCinema.node.ts';
import { MediaGenEditor } from '../../nodes/MediaGenEditor/MediaGenEditor.node.ts';
import { MediaGenInfluencer } from '../../nodes/MediaGenInfluencer/MediaGenInfluencer.node.ts';

export const ACTION_NODES: Record<string, IVersionedNodeType> = {
	mediaGen: new MediaGen(),
	mediaGenInfluencer: new MediaGenInfluencer(),
	mediaGenAds: new MediaGenAds(),
	mediaGenEditor: new MediaGenEditor(),
	mediaGenCinema: new MediaGenCinema(),
	mediaGenCanvas: new MediaGenCanvas(),
	mediaGen3d: new MediaGen3d(),
	mediaGenAgent: new MediaGenAgent(),
};

/** A node's versions, oldest first. */
export const versionsOf = (node: string): number[] =>
	Object.keys(ACTION_NODES[node].nodeVersions)
		.map(Number)
		.sort((a, b) => a - b);
