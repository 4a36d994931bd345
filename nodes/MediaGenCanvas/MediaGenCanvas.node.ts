import type { INodeTypeBaseDescription } from 'n8n-workflow';
import { VersionedNodeType } from 'n8n-workflow';

import { canvasGroups } from '../shared/catalog/canvas';
import { catalogBaseDescription, catalogNodeVersions } from '../shared/node/versions';

const baseDescription: INodeTypeBaseDescription = {
	displayName: 'MediaGen Canvas',
	name: 'mediaGenCanvas',
	icon: { light: 'file:../../icons/mediagen.svg', dark: 'file:../../icons/mediagen.dark.svg' },
	description: 'Build and run MediaGen canvas node workflows',
	...catalogBaseDescription,
};

/**
 * MediaGen Canvas: version 1 as released; version 2 opens on run → start.
 */
export class MediaGenCanvas extends VersionedNodeType {
	constructor() {
		super(
			catalogNodeVersions(baseDescription, canvasGroups, { resource: 'run', operation: 'start' }),
			baseDescription,
		);
	}
}
