import type { INodeTypeBaseDescription } from 'n8n-workflow';
import { VersionedNodeType } from 'n8n-workflow';

import { influencerGroups } from '../shared/catalog/influencer';
import { INPUT_SOURCES_VERSION } from '../shared/catalog/versions';
import { catalogBaseDescription, catalogNodeVersions } from '../shared/node/versions';

const baseDescription: INodeTypeBaseDescription = {
	displayName: 'MediaGen Influencer',
	name: 'mediaGenInfluencer',
	icon: { light: 'file:../../icons/mediagen.svg', dark: 'file:../../icons/mediagen.dark.svg' },
	description: 'Create AI influencer characters, presets and content series with MediaGen',
	...catalogBaseDescription,
	defaultVersion: INPUT_SOURCES_VERSION,
};

/**
 * MediaGen Influencer: version 1 as released; version 2 opens on character → generate; version 3
 * (the default) lets Character Preset → Create's attributes be typed as name/value pairs
 * (../shared/fields/namedValues.ts).
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
