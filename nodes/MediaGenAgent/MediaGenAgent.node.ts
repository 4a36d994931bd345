import type { INodeTypeBaseDescription } from 'n8n-workflow';
import { VersionedNodeType } from 'n8n-workflow';

import { agentGroups } from '../shared/catalog/agent';
import { catalogNodeVersions, LATEST_CATALOG_VERSION } from '../shared/node';

const baseDescription: INodeTypeBaseDescription = {
	displayName: 'MediaGen Agent',
	name: 'mediaGenAgent',
	icon: { light: 'file:../../icons/mediagen.svg', dark: 'file:../../icons/mediagen.dark.svg' },
	group: ['transform'],
	subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
	description: 'Talk to the MediaGen agent and handle its proposed actions',
	usableAsTool: true,
	defaultVersion: LATEST_CATALOG_VERSION,
};

/**
 * MediaGen Agent: version 1 as released; version 2 opens on session → sendMessage.
 */
export class MediaGenAgent extends VersionedNodeType {
	constructor() {
		super(
			catalogNodeVersions(baseDescription, agentGroups, {
				resource: 'session',
				operation: 'sendMessage',
			}),
			baseDescription,
		);
	}
}
