import type { INodeTypeBaseDescription } from 'n8n-workflow';
import { VersionedNodeType } from 'n8n-workflow';

import { cinemaGroups } from '../shared/catalog/cinema';
import { catalogBaseDescription, catalogNodeVersions } from '../shared/node/versions';

const baseDescription: INodeTypeBaseDescription = {
	displayName: 'MediaGen Cinema',
	name: 'mediaGenCinema',
	icon: { light: 'file:../../icons/mediagen.svg', dark: 'file:../../icons/mediagen.dark.svg' },
	description: 'Plan and generate cinema projects with scenes and shots in MediaGen',
	...catalogBaseDescription,
};

/**
 * MediaGen Cinema: version 1 as released; version 2 opens on cinemaProject → generate.
 */
export class MediaGenCinema extends VersionedNodeType {
	constructor() {
		super(
			catalogNodeVersions(baseDescription, cinemaGroups, {
				resource: 'cinemaProject',
				operation: 'generate',
			}),
			baseDescription,
		);
	}
}
