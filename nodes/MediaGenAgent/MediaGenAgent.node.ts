import type { INodeTypeBaseDescription } from 'n8n-workflow';
import { VersionedNodeType } from 'n8n-workflow';

import { agentGroups } from '../shared/catalog/agent';
import { catalogBaseDescription, catalogNodeVersions } from '../shared/node/versions';

const baseDescription: INodeTypeBaseDescription = {
	displayName: 'MediaGen Agent',
	name: 'mediaGenAgent',
	icon: { light: 'file:../../icons/mediagen.svg', dark: 'file:../../icons/mediagen.dark.svg' },
	description: 'Talk to the MediaGen agent and handle its proposed actions',
	...catalogBaseDescription,
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
