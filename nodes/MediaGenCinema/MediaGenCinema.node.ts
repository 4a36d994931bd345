import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { cinemaGroups } from '../shared/catalog/cinema';
import { catalogProperties } from '../shared/fields';
import { listSearch } from '../shared/listSearch';
import { catalogNodeBase } from '../shared/node';
import { executeCatalog } from '../shared/router';

export class MediaGenCinema implements INodeType {
	description: INodeTypeDescription = {
		...catalogNodeBase,
		icon: { light: 'file:../../icons/mediagen.svg', dark: 'file:../../icons/mediagen.dark.svg' },
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		displayName: 'MediaGen Cinema',
		name: 'mediaGenCinema',
		description: 'Plan and generate cinema projects with scenes and shots in MediaGen',
		defaults: { name: 'MediaGen Cinema' },
		usableAsTool: true,
		properties: catalogProperties(cinemaGroups),
	};

	methods = { listSearch };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await executeCatalog(this, cinemaGroups);
	}
}
