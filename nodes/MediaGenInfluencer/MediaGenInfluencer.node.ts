import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { influencerGroups } from '../shared/catalog/influencer';
import { catalogProperties } from '../shared/fields';
import { listSearch } from '../shared/listSearch';
import { catalogNodeBase } from '../shared/node';
import { executeCatalog } from '../shared/router';

export class MediaGenInfluencer implements INodeType {
	description: INodeTypeDescription = {
		...catalogNodeBase,
		icon: { light: 'file:../../icons/mediagen.svg', dark: 'file:../../icons/mediagen.dark.svg' },
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		displayName: 'MediaGen Influencer',
		name: 'mediaGenInfluencer',
		description: 'Create AI influencer characters, presets and content series with MediaGen',
		defaults: { name: 'MediaGen Influencer' },
		usableAsTool: true,
		properties: catalogProperties(influencerGroups),
	};

	methods = { listSearch };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await executeCatalog(this, influencerGroups);
	}
}
