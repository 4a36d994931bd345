import type { INodeTypeBaseDescription } from 'n8n-workflow';
import { VersionedNodeType } from 'n8n-workflow';

import { scene3dGroups } from '../shared/catalog/scene3d';
import { catalogBaseDescription, catalogNodeVersions } from '../shared/node/versions';

const baseDescription: INodeTypeBaseDescription = {
	displayName: 'MediaGen 3D',
	name: 'mediaGen3d',
	icon: { light: 'file:../../icons/mediagen.svg', dark: 'file:../../icons/mediagen.dark.svg' },
	description: 'Create, save and render MediaGen 3D scenes',
	...catalogBaseDescription,
};

/**
 * MediaGen 3D: version 1 as released; version 2 opens on scene → aiScene.
 */
export class MediaGen3d extends VersionedNodeType {
	constructor() {
		super(
			catalogNodeVersions(baseDescription, scene3dGroups, {
				resource: 'scene',
				operation: 'aiScene',
			}),
			baseDescription,
		);
	}
}
