// Version 3's sources without code (#25), resolved by n8n-workflow's own getNodeParameters (what
// n8n does to a saved node before running it): Run Matrix opens on its input items in a workflow
// and on its JSON as a tool; the attributes of a character preset open on name/value pairs; the
// released versions have none of it.
import type { INodeParameters, INodeTypeDescription } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { MediaGenAds } from '../../nodes/MediaGenAds/MediaGenAds.node';
import { MediaGenInfluencer } from '../../nodes/MediaGenInfluencer/MediaGenInfluencer.node';

/** A node's parameters as n8n resolves them, in a workflow or (`tool`) as n8n's tool variant. */
function resolved(
	description: INodeTypeDescription,
	version: number,
	parameters: INodeParameters,
	tool = false,
): INodeParameters {
	const d = tool ? { ...description, name: `${description.name}Tool` } : description;
	const node = {
		id: 'n',
		name: 'Node',
		type: `n8n-nodes-mediagen.${d.name}`,
		typeVersion: version,
		position: [0, 0] as [number, number],
		parameters,
	};
	return NodeHelpers.getNodeParameters(d.properties, parameters, true, false, node, d)!;
}

const runMatrix = { resource: 'adProject', operation: 'runMatrix' };
const ads = new MediaGenAds();

test('Run Matrix version 3: the input items in a workflow, the JSON field as a tool', () => {
	const v3 = ads.getNodeType(3).description;
	expect(resolved(v3, 3, runMatrix)).toMatchObject({ combosSource: 'items' });
	expect(resolved(v3, 3, runMatrix)).not.toHaveProperty('combos');
	expect(resolved(v3, 3, { ...runMatrix, combosSource: 'json' })).toMatchObject({ combos: '[]' });
	// a model has no input items to give: the tool variant has no choice, its list is the JSON
	const tool = resolved(v3, 3, runMatrix, true);
	expect(tool).toMatchObject({ combosSource: 'json', combos: '[]' });
});

test('Run Matrix and Preview Matrix in versions 1 and 2: as released, the JSON field only', () => {
	for (const v of [1, 2]) {
		const d = ads.getNodeType(v).description;
		expect(resolved(d, v, runMatrix)).toMatchObject({ combos: '[]' });
		expect(resolved(d, v, runMatrix)).not.toHaveProperty('combosSource');
		expect(d.properties.some((p) => p.name === 'combosSource')).toBe(false);
	}
});

test('Character Preset → Create version 3: name/value pairs by default, JSON on request; 1 and 2 JSON', () => {
	const influencer = new MediaGenInfluencer();
	const create = { resource: 'characterPreset', operation: 'create' };
	const v3 = influencer.getNodeType(3).description;
	expect(resolved(v3, 3, create)).toMatchObject({
		attributesSource: 'fields',
		attributesFields: {},
	});
	expect(resolved(v3, 3, create)).not.toHaveProperty('attributes');
	expect(resolved(v3, 3, { ...create, attributesSource: 'json' })).toMatchObject({
		attributes: '{}',
	});
	for (const v of [1, 2]) {
		const d = influencer.getNodeType(v).description;
		expect(resolved(d, v, create)).toMatchObject({ attributes: '{}' });
		expect(d.properties.some((p) => p.name === 'attributesSource')).toBe(false);
	}
});
