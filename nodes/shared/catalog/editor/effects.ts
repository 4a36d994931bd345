import type { FieldMap } from '../dsl';
import { bool, endpoint, startsGenerations, group, json, matching, ref, str } from '../dsl';

const collectionId = { id: ref('effectCollection') };
const effectId = { id: str({ displayName: 'Effect ID' }) };

/** Body of POST /effects/{id}/estimate and POST /effects/{id}/run ("same body"). */
const effectBody: FieldMap = {
	modelId: str({ max: 80, displayName: 'Model ID' }),
	inputs: json({ default: {}, description: 'Inputs of the effect as a JSON object' }),
	params: json({ default: {}, description: 'Settings of the effect as a JSON object' }),
	projectId: ref('project'),
	idempotencyKey: str({ max: 120, derived: 'idempotencyKey' }),
};

/** Spec doc 3, "Effects". */
export const effects = group('effect', 'Effect', { doc: 3, section: 'Effects' }, [
	endpoint('getCollections', 'GET /effects/collections', 'content.read', {
		name: 'Get Many Collections',
		action: 'Get many effect collections',
		paginate: 'string',
	}),
	endpoint('createCollection', 'POST /effects/collections', 'content.create', {
		name: 'Create Collection',
		action: 'Create an effect collection',
		body: { name: str({ required: true, max: 60 }) },
	}),
	endpoint('deleteCollection', 'DELETE /effects/collections/{id}', 'content.create', {
		name: 'Delete Collection',
		action: 'Delete an effect collection',
		path: collectionId,
	}),
	endpoint('toggleItem', 'POST /effects/collections/{id}/items', 'content.create', {
		name: 'Toggle Item',
		action: 'Toggle an effect in a collection',
		description: 'Put an effect in a collection (On) or take it out',
		path: collectionId,
		body: {
			effectId: str({ required: true, max: 60, displayName: 'Effect ID' }),
			on: bool({ required: true, description: 'Whether the effect is in the collection' }),
		},
	}),
	endpoint('estimate', 'POST /effects/{id}/estimate', 'content.create', {
		name: 'Estimate',
		action: 'Estimate the cost of an effect',
		path: effectId,
		body: effectBody,
	}),
	endpoint('run', 'POST /effects/{id}/run', 'content.create', {
		name: 'Run',
		action: 'Run an effect',
		description:
			'Apply an effect and, by default, wait for its outputs. Credits are charged only on success.',
		toolText:
			'Apply an effect; by default waits for the job and returns its outputs. Credits are charged only on success.',
		path: effectId,
		body: effectBody,
		idempotent: true,
		job: startsGenerations(matching({ 'context.effectId': '{id}' }), '/effects/{id}/estimate'),
	}),
]);
