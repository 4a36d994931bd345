import type { INodeTypeBaseDescription } from 'n8n-workflow';
import { VersionedNodeType } from 'n8n-workflow';

import { adsGroups } from '../shared/catalog/ads';
import { INPUT_SOURCES_VERSION } from '../shared/catalog/versions';
import { catalogBaseDescription, catalogNodeVersions } from '../shared/node/versions';

const baseDescription: INodeTypeBaseDescription = {
	displayName: 'MediaGen Ads',
	name: 'mediaGenAds',
	icon: { light: 'file:../../icons/mediagen.svg', dark: 'file:../../icons/mediagen.dark.svg' },
	description:
		'Brand kits, products, ad projects, ad copy, creative matrices and marketing templates with MediaGen',
	...catalogBaseDescription,
	defaultVersion: INPUT_SOURCES_VERSION,
};

/**
 * MediaGen Ads: version 1 as released; version 2 opens on adProject → runMatrix; version 3 (the
 * default) takes Run Matrix's combinations from the input items and gives Preview Matrix's
 * combinations as items (../shared/behaviours/itemLists.ts).
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
