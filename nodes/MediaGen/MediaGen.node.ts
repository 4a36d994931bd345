import type { INodeTypeBaseDescription } from 'n8n-workflow';
import { VersionedNodeType } from 'n8n-workflow';

import { mediaGenGroups } from '../shared/catalog';
import { catalogBaseDescription, catalogNodeVersions } from '../shared/node/versions';

const baseDescription: INodeTypeBaseDescription = {
	displayName: 'MediaGen',
	name: 'mediaGen',
	icon: { light: 'file:../../icons/mediagen.svg', dark: 'file:../../icons/mediagen.dark.svg' },
	description:
		'Generate images, video and audio with MediaGen, and manage assets, projects, collections, credits and webhooks',
	...catalogBaseDescription,
};

/**
 * MediaGen: version 1 as released; version 2 opens on generation → create.
 */
export class MediaGen extends VersionedNodeType {
	constructor() {
		super(
			catalogNodeVersions(baseDescription, mediaGenGroups, {
				resource: 'generation',
				operation: 'create',
			}),
			baseDescription,
		);
	}
}
