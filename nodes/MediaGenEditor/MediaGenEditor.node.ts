import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { editorGroups } from '../shared/catalog/editor';
import { catalogProperties } from '../shared/fields';
import { listSearch } from '../shared/listSearch';
import { catalogNodeBase } from '../shared/node';
import { executeCatalog } from '../shared/router';

export class MediaGenEditor implements INodeType {
	description: INodeTypeDescription = {
		...catalogNodeBase,
		icon: { light: 'file:../../icons/mediagen.svg', dark: 'file:../../icons/mediagen.dark.svg' },
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		displayName: 'MediaGen Editor',
		name: 'mediaGenEditor',
		description: 'Edit video timelines, run effects and mix audio with MediaGen',
		defaults: { name: 'MediaGen Editor' },
		usableAsTool: true,
		properties: catalogProperties(editorGroups),
	};

	methods = { listSearch };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await executeCatalog(this, editorGroups);
	}
}
