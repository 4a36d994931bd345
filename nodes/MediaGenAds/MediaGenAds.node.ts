import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { adsGroups } from '../shared/catalog/ads';
import { catalogProperties } from '../shared/fields';
import { listSearch } from '../shared/listSearch';
import { catalogNodeBase } from '../shared/node';
import { executeCatalog } from '../shared/router';

export class MediaGenAds implements INodeType {
	description: INodeTypeDescription = {
		...catalogNodeBase,
		icon: { light: 'file:../../icons/mediagen.svg', dark: 'file:../../icons/mediagen.dark.svg' },
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		displayName: 'MediaGen Ads',
		name: 'mediaGenAds',
		description:
			'Brand kits, products, ad projects, ad copy, creative matrices and marketing templates with MediaGen',
		defaults: { name: 'MediaGen Ads' },
		usableAsTool: true,
		properties: catalogProperties(adsGroups),
	};

	methods = { listSearch };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await executeCatalog(this, adsGroups);
	}
}
