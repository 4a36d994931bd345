import type { INodeTypeBaseDescription } from 'n8n-workflow';
import { VersionedNodeType } from 'n8n-workflow';

import { adsGroups } from '../shared/catalog/ads';
import { catalogBaseDescription, catalogNodeVersions } from '../shared/node';

const baseDescription: INodeTypeBaseDescription = {
	displayName: 'MediaGen Ads',
	name: 'mediaGenAds',
	icon: { light: 'file:../../icons/mediagen.svg', dark: 'file:../../icons/mediagen.dark.svg' },
	description:
		'Brand kits, products, ad projects, ad copy, creative matrices and marketing templates with MediaGen',
	...catalogBaseDescription,
};

/**
 * MediaGen Ads: version 1 as released; version 2 opens on adProject → runMatrix.
 */
export class MediaGenAds extends VersionedNodeType {
	constructor() {
		super(
			catalogNodeVersions(baseDescription, adsGroups, {
				resource: 'adProject',
				operation: 'runMatrix',
			}),
			baseDescription,
		);
	}
}
