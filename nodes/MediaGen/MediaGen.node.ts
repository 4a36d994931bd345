import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { mediaGenGroups } from '../shared/catalog';
import { catalogProperties } from '../shared/fields';
import { listSearch } from '../shared/listSearch';
import { executeCatalog } from '../shared/router';

export class MediaGen implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'MediaGen',
		name: 'mediaGen',
		icon: { light: 'file:../../icons/mediagen.svg', dark: 'file:../../icons/mediagen.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description:
			'Generate images, video and audio with MediaGen, and manage assets, projects, collections and credits',
		defaults: { name: 'MediaGen' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'mediaGenApi', required: true }],
		properties: catalogProperties(mediaGenGroups),
	};

	methods = { listSearch };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await executeCatalog(this, mediaGenGroups);
	}
}
