import type { INodeTypeBaseDescription } from 'n8n-workflow';
import { VersionedNodeType } from 'n8n-workflow';

import { editorGroups } from '../shared/catalog/editor';
import { catalogBaseDescription, catalogNodeVersions } from '../shared/node/versions';

const baseDescription: INodeTypeBaseDescription = {
	displayName: 'MediaGen Editor',
	name: 'mediaGenEditor',
	icon: { light: 'file:../../icons/mediagen.svg', dark: 'file:../../icons/mediagen.dark.svg' },
	description: 'Edit video timelines, run effects and mix audio with MediaGen',
	...catalogBaseDescription,
};

/**
 * MediaGen Editor: version 1 as released; version 2 opens on edit → render.
 */
export class MediaGenEditor extends VersionedNodeType {
	constructor() {
		super(
			catalogNodeVersions(baseDescription, editorGroups, { resource: 'edit', operation: 'render' }),
			baseDescription,
		);
	}
}
