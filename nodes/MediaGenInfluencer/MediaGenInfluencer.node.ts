import type { INodeTypeBaseDescription } from 'n8n-workflow';
import { VersionedNodeType } from 'n8n-workflow';

import { influencerGroups } from '../shared/catalog/influencer';
import { catalogNodeVersions, LATEST_CATALOG_VERSION } from '../shared/node';

const baseDescription: INodeTypeBaseDescription = {
	displayName: 'MediaGen Influencer',
	name: 'mediaGenInfluencer',
	icon: { light: 'file:../../icons/mediagen.svg', dark: 'file:../../icons/mediagen.dark.svg' },
	group: ['transform'],
	subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
	description: 'Create AI influencer characters, presets and content series with MediaGen',
	usableAsTool: true,
	defaultVersion: LATEST_CATALOG_VERSION,
};

/**
 * MediaGen Influencer: version 1 as released; version 2 opens on character → generate.
 */
export class MediaGenInfluencer extends VersionedNodeType {
	constructor() {
		super(
			catalogNodeVersions(baseDescription, influencerGroups, {
				resource: 'character',
				operation: 'generate',
			}),
			baseDescription,
		);
	}
}
