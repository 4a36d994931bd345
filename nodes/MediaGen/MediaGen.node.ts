import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { mediaGenGroups } from '../shared/catalog';
import { catalogProperties } from '../shared/fields';
import { listSearch } from '../shared/listSearch';
import { catalogNodeBase } from '../shared/node';
import { executeCatalog } from '../shared/router';

export class MediaGen implements INodeType {
	description: INodeTypeDescription = {
		...catalogNodeBase,
		icon: { light: 'file:../../icons/mediagen.svg', dark: 'file:../../icons/mediagen.dark.svg' },
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		displayName: 'MediaGen',
		name: 'mediaGen',
		description:
			'Generate images, video and audio with MediaGen, and manage assets, projects, collections, credits and webhooks',
		defaults: { name: 'MediaGen' },
		usableAsTool: true,
		properties: catalogProperties(mediaGenGroups),
	};

	methods = { listSearch };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await executeCatalog(this, mediaGenGroups);
	}
}
