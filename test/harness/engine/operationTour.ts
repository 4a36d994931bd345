/**
 * A tour of every operation of every action node, in an order where each operation finds what it
 * needs (a project to get, a failed generation to retry, a proposal to apply…), against the
 * sandbox. Each step is one operation with its parameters as a user would set them, everything
 * else left at the node's defaults. Records a step needs that no earlier step made come from the
 * sandbox's own API (`t.api`) or its control calls, so each step runs exactly one node.
 *
 * test/engine/outputSchemas.test.ts runs the tour and checks each step's output against the
 * output schema the package ships for that operation.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { Sandbox } from '../../../sandbox';
import type { Call } from '../sandbox/helpers';
import { until } from '../sandbox/helpers';
import type { TestNode } from './harness';
import { rl } from './setup';

/** A record the API answered. */
type Rec = IDataObject & { id: string };

/** What a step's parameters can use: the sandbox, its API with the Pro key, earlier outputs. */
export interface TourContext {
	sb: Sandbox;
	api: Call;
	/** Outputs kept by earlier steps (`keep`), by name: the first output item. */
	kept: Record<string, Rec>;
}

export interface TourStep {
	/** `resource.operation` */
	op: string;
	/** The operation's parameters (resource and operation are added). */
	params?: INodeParameters | ((t: TourContext) => INodeParameters | Promise<INodeParameters>);
	/** Nodes the operation's node follows (e.g. one that makes a binary file); default: none. */
	before?: TestNode[];
	/** The input items of the run (default: one empty item). */
	items?: (t: TourContext) => IDataObject[];
	/** Keeps the first output item under this name for later steps. */
	keep?: string;
	/** Runs after the step (e.g. releases held jobs). */
	after?: (t: TourContext) => void | Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Records made through the sandbox

const files = {
	image: { mimeType: 'image/png', filename: 'tour.png' },
	video: { mimeType: 'video/mp4', filename: 'tour.mp4' },
	audio: { mimeType: 'audio/mpeg', filename: 'tour.mp3' },
};

/** A new asset of the sandbox (source `sandbox`), by kind. */
export const asset = (t: TourContext, kind: keyof typeof files = 'image'): string =>
	t.sb.control.createLargeAsset({ size: 512, title: `Tour ${kind}`, ...files[kind] }).id;

/** Sends a request that must succeed; returns its body. */
export async function call(
	t: TourContext,
	method: string,
	path: string,
	body?: unknown,
): Promise<Rec> {
	const res = await t.api(method, path, body);
	if (res.status >= 300) {
		throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
	}
	return res.body as Rec;
}

/** Waits until GET `path` answers a record whose status is one of `statuses`. */
export async function settled(
	t: TourContext,
	path: string,
	statuses = ['completed'],
): Promise<Rec> {
	return await (until(async () => {
		const r = await call(t, 'GET', path);
		return statuses.includes(String(r.status)) ? r : undefined;
	}) as Promise<Rec>);
}

/** A generation made with POST /generations, waited for until it completed (or failed). */
export async function generation(t: TourContext, body: IDataObject = {}, fail = false) {
	const g = await call(t, 'POST', '/generations', {
		modelId: 'tour-model',
		prompt: 'a lighthouse at dusk',
		params: { sandbox: { durationMs: 20, ...(fail ? { fail: true } : {}) } },
		...body,
	});
	return await settled(t, `/generations/${g.id}`, [fail ? 'failed' : 'completed']);
}

/** A character with a generated image as its primary reference. */
async function character(t: TourContext) {
	const c = await call(t, 'POST', '/characters', { name: 'Tour Ava' });
	const look = await generation(t, { tool: 'influencer' });
	const assetId = (look.outputs as IDataObject[])[0].asset_id;
	await call(t, 'POST', `/characters/${c.id}/references`, { assetId });
	return c;
}

const quick = JSON.stringify({ sandbox: { durationMs: 20 } });
const id = (t: TourContext, name: string) => rl(t.kept[name].id);

/**
 * Create (its output kept as `name`), Get Many, Get and, with `updateFields`, Update of a
 * resource whose records the node picks with the parameter `param`.
 */
function records(
	resource: string,
	param: string,
	name: string,
	create: TourStep['params'],
	updateFields?: INodeParameters,
): TourStep[] {
	const update: TourStep[] = updateFields
		? [{ op: `${resource}.update`, params: (t) => ({ [param]: id(t, name), updateFields }) }]
		: [];
	return [
		{ op: `${resource}.create`, params: create, keep: name },
		{ op: `${resource}.getAll` },
		{ op: `${resource}.get`, params: (t) => ({ [param]: id(t, name) }) },
		...update,
	];
}

// ---------------------------------------------------------------------------------------------
// The tours, one per node (catalog key)

const mediaGen: TourStep[] = [
	{ op: 'workspace.get' },
	{ op: 'credit.getBalance' },
	{ op: 'credit.getLedger' },
	{ op: 'voice.getAll' },
	{ op: 'analytics.overview' },
	{ op: 'analytics.compare', params: { dimension: 'hook' } },
	{ op: 'analytics.creative', params: (t) => ({ assetId: rl(asset(t)) }) },
	...records(
		'project',
		'projectId',
		'project',
		{ name: 'Tour', additionalFields: { description: 'Every operation once' } },
		{ status: 'archived' },
	),
	{
		op: 'project.addAssets',
		params: (t) => ({ projectId: id(t, 'project'), assetIds: asset(t) }),
	},
	{
		op: 'project.removeAssets',
		params: (t) => {
			const a = asset(t);
			t.sb.control.createLargeAsset({ size: 8, projectId: t.kept.project.id });
			return { projectId: id(t, 'project'), assetIds: a };
		},
	},
	{ op: 'project.duplicate', params: (t) => ({ projectId: id(t, 'project') }), keep: 'copy' },
	{ op: 'project.delete', params: (t) => ({ projectId: id(t, 'copy') }) },
	{ op: 'collection.create', params: { name: 'Favourites' }, keep: 'collection' },
	{ op: 'collection.getAll' },
	{
		op: 'collection.updateItems',
		params: (t) => ({ collectionId: id(t, 'collection'), additionalFields: { add: asset(t) } }),
	},
	{ op: 'collection.delete', params: (t) => ({ collectionId: id(t, 'collection') }) },
	{ op: 'asset.getAll', params: (t) => (asset(t), {}) },
	{ op: 'asset.get', params: (t) => ({ assetId: rl(asset(t)) }) },
	{
		op: 'asset.update',
		params: (t) => ({ assetId: rl(asset(t)), updateFields: { favorite: true } }),
	},
	{ op: 'asset.duplicate', params: (t) => ({ assetId: rl(asset(t)) }) },
	{ op: 'asset.getVersions', params: (t) => ({ assetId: rl(asset(t, 'video')) }) },
	{ op: 'asset.download', params: (t) => ({ assetId: rl(asset(t)) }) },
	{
		op: 'asset.upload',
		before: [
			{
				name: 'File',
				type: 'test.binarySource',
				parameters: { fileName: 'notes.txt', mimeType: 'text/plain', size: 64, seed: 1 },
			},
		],
	},
	{
		op: 'asset.completeUpload',
		params: async (t) => {
			const bytes = Buffer.from('tour upload');
			const up = await call(t, 'POST', '/uploads', {
				filename: 'tour.txt',
				mimeType: 'text/plain',
				size: bytes.length,
			});
			const [part] = up.parts as Array<{ partNumber: number; url: string }>;
			const put = await fetch(part.url, { method: 'PUT', body: bytes });
			const etag = String(put.headers.get('etag'));
			return {
				id: up.id,
				additionalFields: { parts: { values: [{ partNumber: 1, etag }] } },
			};
		},
	},
	{ op: 'asset.delete', params: (t) => ({ ids: asset(t) }) },
	{
		op: 'generation.estimate',
		params: { modelId: 'tour-model', prompt: 'a lighthouse at dusk' },
	},
	{
		op: 'generation.create',
		params: {
			modelId: 'tour-model',
			prompt: 'a lighthouse at dusk',
			additionalFields: { params: quick },
		},
		keep: 'generation',
	},
	{ op: 'generation.getAll' },
	{ op: 'generation.get', params: (t) => ({ generationId: id(t, 'generation') }) },
	{ op: 'generation.wait', params: (t) => ({ generationId: id(t, 'generation') }) },
	// the engine's workflows are `wf-test`: what Generation → Create started there
	{ op: 'generation.collect', params: { workflowId: 'wf-test', hours: 1 } },
	{
		op: 'generation.cancel',
		params: async (t) => {
			t.sb.control.holdJobs();
			const g = await call(t, 'POST', '/generations', { modelId: 'tour-model' });
			return { generationId: rl(g.id) };
		},
		after: (t) => void t.sb.control.releaseJobs(),
	},
	{
		op: 'generation.retry',
		params: async (t) => ({ generationId: rl((await generation(t, {}, true)).id) }),
	},
	{
		op: 'generation.getSubtitles',
		params: async (t) => ({ generationId: rl((await generation(t, { tool: 'audio' })).id) }),
	},
	{ op: 'prompt.assist', params: { action: 'improve', prompt: 'a cat' } },
	{
		op: 'webhook.create',
		params: { url: 'http://127.0.0.1:9/hook', events: ['generation.completed'] },
		keep: 'webhook',
	},
	{ op: 'webhook.getAll' },
	{
		op: 'webhook.update',
		params: (t) => ({ webhookId: id(t, 'webhook'), updateFields: { description: 'Tour' } }),
	},
	{ op: 'webhook.rotateSecret', params: (t) => ({ webhookId: id(t, 'webhook') }) },
	{ op: 'webhook.test', params: (t) => ({ webhookId: id(t, 'webhook') }), keep: 'delivery' },
	{ op: 'webhook.getDeliveries', params: (t) => ({ webhookId: id(t, 'webhook') }) },
	{ op: 'webhook.retryDelivery', params: (t) => ({ id: t.kept.delivery.id }) },
	{ op: 'webhook.retryFailedDeliveries', params: (t) => ({ webhookId: id(t, 'webhook') }) },
	{ op: 'webhook.delete', params: (t) => ({ webhookId: id(t, 'webhook') }) },
];

const mediaGenInfluencer: TourStep[] = [
	{ op: 'characterPreset.getAll' },
	{
		op: 'characterPreset.create',
		params: { name: 'Bold', type: 'distinctive', attributes: '{"hair": "red"}' },
		keep: 'preset',
	},
	{ op: 'characterPreset.delete', params: (t) => ({ characterPresetId: id(t, 'preset') }) },
	{ op: 'character.create', params: { name: 'Mia' }, keep: 'plain' },
	{ op: 'character.getAll' },
	{
		op: 'character.get',
		params: async (t) => {
			t.kept.character = await character(t);
			return { characterId: id(t, 'character') };
		},
	},
	{
		op: 'character.update',
		params: (t) => ({ characterId: id(t, 'plain'), updateFields: { favorite: true } }),
	},
	{ op: 'character.duplicate', params: (t) => ({ characterId: id(t, 'plain') }) },
	{
		op: 'character.addReference',
		params: (t) => ({
			characterId: id(t, 'plain'),
			assetId: rl((t.kept.reference = { id: asset(t) }).id),
			confirmRights: true,
		}),
	},
	{
		op: 'character.removeReference',
		params: (t) => ({ characterId: id(t, 'plain'), assetId: id(t, 'reference') }),
	},
	{
		op: 'character.generateLooks',
		params: (t) => ({ characterId: id(t, 'character'), additionalFields: { count: 1 } }),
	},
	{
		op: 'character.estimateReferenceSet',
		params: (t) => ({ characterId: id(t, 'character'), kinds: ['portrait'] }),
	},
	{
		op: 'character.generateReferenceSet',
		params: (t) => ({ characterId: id(t, 'character'), kinds: ['portrait'] }),
	},
	{
		op: 'character.estimate',
		params: (t) => ({ characterId: id(t, 'character'), modelId: 'tour-model' }),
	},
	{
		op: 'character.generate',
		params: (t) => ({
			characterId: id(t, 'character'),
			modelId: 'tour-model',
			prompt: 'at the beach',
			additionalFields: { params: quick },
		}),
	},
	{
		op: 'character.estimateFormat',
		params: (t) => ({ characterId: id(t, 'character'), formatId: 'mirror-dance' }),
	},
	{
		op: 'character.runFormat',
		params: (t) => ({ characterId: id(t, 'character'), formatId: 'mirror-dance' }),
	},
	{ op: 'character.getGenerations', params: (t) => ({ characterId: id(t, 'character') }) },
	{
		op: 'series.plan',
		params: (t) => ({ characterId: id(t, 'character'), title: 'Mornings', count: 2 }),
		keep: 'series',
	},
	{ op: 'series.getAll', params: (t) => ({ characterId: id(t, 'character') }) },
	{ op: 'series.get', params: (t) => ({ id: t.kept.series.id }) },
	{ op: 'series.addIdeas', params: (t) => ({ id: t.kept.series.id, count: 1 }), keep: 'item' },
	{
		op: 'seriesItem.update',
		params: (t) => ({ id: t.kept.item.id, updateFields: { hook: 'Wake up' } }),
	},
	{ op: 'seriesItem.generateDraft', params: (t) => ({ id: t.kept.item.id }) },
	{ op: 'seriesItem.delete', params: (t) => ({ id: t.kept.item.id }) },
	{ op: 'series.delete', params: (t) => ({ id: t.kept.series.id }) },
	{ op: 'character.delete', params: (t) => ({ characterId: id(t, 'plain') }) },
];

/** An ad project with a product and one copy item of each kind a combination needs. */
async function adProject(t: TourContext) {
	const product = await call(t, 'POST', '/products', { name: 'Bottle', imageAssetIds: [asset(t)] });
	const ad = await call(t, 'POST', '/ads', { name: 'Launch', productId: product.id });
	await call(t, 'PATCH', `/ads/${ad.id}`, {
		settings: { params: { sandbox: { durationMs: 20 } } },
	});
	const copy = await call(t, 'POST', `/ads/${ad.id}/copy/generate`, {
		kinds: ['hook', 'script', 'cta'],
		count: 1,
	});
	const of = (kind: string) => (copy.data as IDataObject[]).find((c) => c.kind === kind)?.id;
	t.kept.product = product;
	// the ad project, with a combination of its copy for Run Matrix
	t.kept.ad = {
		...ad,
		combo: {
			language: 'en',
			hook: of('hook'),
			script: of('script'),
			cta: of('cta'),
			presenter: 'none',
			style: 'ugc',
			aspect: '9:16',
			duration: 5,
		},
	};
	return ad;
}

const mediaGenAds: TourStep[] = [
	...records('brandKit', 'brandKitId', 'kit', { name: 'Acme' }, { tone: 'Warm' }),
	{
		op: 'brandKit.setAsset',
		params: (t) => ({ brandKitId: id(t, 'kit'), assetId: rl(asset(t)), role: 'logo' }),
	},
	{ op: 'product.import', params: { url: 'https://shop.example.com/p/lamp' } },
	{ op: 'product.describe', params: (t) => ({ assetId: rl(asset(t)) }) },
	...records('product', 'productId', 'lamp', { name: 'Lamp' }, { price: '19.90' }),
	{ op: 'adProject.create', params: { name: 'Spring' }, keep: 'spring' },
	{ op: 'adProject.getAll' },
	{
		op: 'adProject.get',
		params: async (t) => ({ adProjectId: rl((await adProject(t)).id) }),
	},
	{
		op: 'adProject.update',
		params: (t) => ({ adProjectId: id(t, 'spring'), updateFields: { step: 2 } }),
	},
	{ op: 'adProject.previewMatrix', params: (t) => ({ adProjectId: id(t, 'ad') }) },
	{
		op: 'adProject.runMatrix',
		// versions 1 and 2: Combinations as JSON; version 3: from the input items (its default)
		params: (t) => ({ adProjectId: id(t, 'ad'), combos: JSON.stringify([t.kept.ad.combo]) }),
		items: (t) => [t.kept.ad.combo as IDataObject],
	},
	{
		op: 'adCopy.generate',
		params: (t) => ({ adProjectId: id(t, 'spring'), kinds: ['headline'] }),
	},
	{
		op: 'adCopy.create',
		params: (t) => ({ adProjectId: id(t, 'spring'), kind: 'hook', content: 'Look up' }),
		keep: 'copy',
	},
	{
		op: 'adCopy.update',
		params: (t) => ({ id: t.kept.copy.id, updateFields: { selected: true } }),
	},
	{ op: 'adCopy.delete', params: (t) => ({ id: t.kept.copy.id }) },
	{ op: 'adVariant.getAll', params: (t) => ({ adProjectId: id(t, 'ad') }), keep: 'variant' },
	{
		op: 'adVariant.markWinner',
		params: async (t) => {
			await settled(t, `/generations/${String(t.kept.variant.generationId)}`);
			return { id: t.kept.variant.id, winner: true };
		},
	},
	{
		op: 'adVariant.export',
		params: (t) => ({ adProjectId: id(t, 'ad'), variantIds: t.kept.variant.id }),
	},
	{
		op: 'marketingTemplate.estimate',
		params: (t) => ({ id: 'product-spotlight', productId: id(t, 'product') }),
	},
	{
		op: 'marketingTemplate.run',
		params: (t) => ({
			id: 'product-spotlight',
			productId: id(t, 'product'),
			additionalFields: { params: quick },
		}),
	},
	{ op: 'adProject.delete', params: (t) => ({ adProjectId: id(t, 'spring') }) },
	{ op: 'product.delete', params: (t) => ({ productId: id(t, 'lamp') }) },
	{ op: 'brandKit.delete', params: (t) => ({ brandKitId: id(t, 'kit') }) },
];

/** The edit's version now (AI edits and restores name the version they start from). */
const currentVersion = async (t: TourContext) =>
	Number((await call(t, 'GET', `/edits/${t.kept.edit.id}`)).version);

const mediaGenEditor: TourStep[] = [
	{
		op: 'edit.create',
		params: (t) => ({ sourceAssetId: rl((t.kept.video = { id: asset(t, 'video') }).id) }),
		keep: 'edit',
	},
	{ op: 'edit.getAll' },
	{ op: 'edit.get', params: (t) => ({ editId: id(t, 'edit') }) },
	{
		op: 'edit.saveTimeline',
		params: (t) => ({
			editId: id(t, 'edit'),
			version: 1,
			timeline: JSON.stringify({
				clips: [{ id: 'c1', assetId: t.kept.video.id, kind: 'video', in: 0, out: 4 }],
			}),
		}),
	},
	{ op: 'edit.duplicate', params: (t) => ({ editId: id(t, 'edit') }), keep: 'variation' },
	{ op: 'edit.render', params: (t) => ({ editId: id(t, 'edit') }), keep: 'export' },
	{
		op: 'edit.waitForExport',
		params: (t) => ({ editId: id(t, 'edit'), exportId: t.kept.export.id }),
	},
	{ op: 'edit.thumbnail', params: (t) => ({ editId: id(t, 'edit'), time: 1 }) },
	{ op: 'edit.smartCrop', params: (t) => ({ editId: id(t, 'edit'), preset: 'shortclip' }) },
	{ op: 'edit.estimateCaptions', params: (t) => ({ editId: id(t, 'edit') }) },
	{ op: 'edit.createCaptions', params: (t) => ({ editId: id(t, 'edit') }) },
	{
		op: 'edit.translateCaptions',
		params: (t) => ({ editId: id(t, 'edit'), language: 'de' }),
	},
	{ op: 'edit.cleanup', params: (t) => ({ editId: id(t, 'edit') }) },
	{ op: 'edit.highlights', params: (t) => ({ editId: id(t, 'edit') }) },
	{ op: 'edit.analyze', params: (t) => ({ editId: id(t, 'edit') }) },
	{ op: 'edit.getAnalysis', params: (t) => ({ editId: id(t, 'edit') }) },
	{ op: 'edit.estimateAiEdit', params: (t) => ({ editId: id(t, 'edit') }) },
	{
		op: 'edit.aiEdit',
		params: async (t) => ({
			editId: id(t, 'edit'),
			instruction: 'make it shorter',
			baseVersion: await currentVersion(t),
		}),
	},
	{ op: 'edit.getAiConversation', params: (t) => ({ editId: id(t, 'edit') }) },
	{ op: 'edit.getVersions', params: (t) => ({ editId: id(t, 'edit') }) },
	{
		op: 'edit.restoreVersion',
		params: async (t) => ({
			editId: id(t, 'edit'),
			number: '1',
			baseVersion: await currentVersion(t),
		}),
	},
	{ op: 'edit.dub', params: (t) => ({ editId: id(t, 'edit'), language: 'de' }) },
	{ op: 'edit.delete', params: (t) => ({ editId: id(t, 'variation') }) },
	{ op: 'effect.createCollection', params: { name: 'Looks' }, keep: 'effects' },
	{ op: 'effect.getCollections' },
	{
		op: 'effect.toggleItem',
		params: (t) => ({ effectCollectionId: id(t, 'effects'), effectId: 'glitch', on: true }),
	},
	{ op: 'effect.deleteCollection', params: (t) => ({ effectCollectionId: id(t, 'effects') }) },
	{ op: 'effect.estimate', params: { id: 'glitch' } },
	{ op: 'effect.run', params: { id: 'glitch', additionalFields: { params: quick } } },
	{
		op: 'audioMix.create',
		params: (t) => ({ name: 'Voice over', additionalFields: { assetIds: asset(t, 'audio') } }),
		keep: 'mix',
	},
	{ op: 'audioMix.getAll' },
	{ op: 'audioMix.get', params: (t) => ({ audioMixId: id(t, 'mix') }) },
	{
		op: 'audioMix.save',
		params: (t) => ({ audioMixId: id(t, 'mix'), version: 1, additionalFields: { name: 'VO' } }),
	},
	{ op: 'audioMix.export', params: (t) => ({ audioMixId: id(t, 'mix') }), keep: 'mixExport' },
	{
		op: 'audioMix.waitForExport',
		params: (t) => ({ audioMixId: id(t, 'mix'), exportId: t.kept.mixExport.id }),
	},
	{ op: 'audioMix.delete', params: (t) => ({ audioMixId: id(t, 'mix') }) },
];

const mediaGenCinema: TourStep[] = [
	...records(
		'cinemaProject',
		'cinemaProjectId',
		'film',
		{ name: 'Night Train' },
		{ style: 'noir' },
	),
	{
		op: 'scene.add',
		params: (t) => ({ cinemaProjectId: id(t, 'film'), title: 'Platform' }),
		keep: 'scene',
	},
	{
		op: 'scene.update',
		params: (t) => ({ id: t.kept.scene.id, updateFields: { mood: 'tense' } }),
	},
	{
		op: 'shot.add',
		params: (t) => ({ id: t.kept.scene.id, additionalFields: { action: 'A train arrives' } }),
		keep: 'shot',
	},
	{
		op: 'shot.update',
		params: (t) => ({ id: t.kept.shot.id, updateFields: { duration: 2 } }),
	},
	{
		op: 'shot.move',
		params: (t) => ({ id: t.kept.shot.id, sceneId: t.kept.scene.id, position: 0 }),
	},
	{ op: 'shot.setFrame', params: (t) => ({ id: t.kept.shot.id, assetId: rl(asset(t)) }) },
	{
		op: 'cinemaProject.estimate',
		params: (t) => ({ cinemaProjectId: id(t, 'film'), kind: 'storyboard' }),
	},
	{
		op: 'cinemaProject.generate',
		params: (t) => ({ cinemaProjectId: id(t, 'film'), kind: 'storyboard' }),
	},
	{ op: 'cinemaProject.exportSequence', params: (t) => ({ cinemaProjectId: id(t, 'film') }) },
	{ op: 'cinemaProject.exportStoryboard', params: (t) => ({ cinemaProjectId: id(t, 'film') }) },
	{ op: 'cinemaProject.getMetadata', params: (t) => ({ cinemaProjectId: id(t, 'film') }) },
	{
		op: 'cinemaProject.propose',
		params: (t) => ({ cinemaProjectId: id(t, 'film'), brief: 'Two strangers meet on a train.' }),
	},
	{ op: 'cinemaProject.discardProposal', params: (t) => ({ cinemaProjectId: id(t, 'film') }) },
	{
		op: 'cinemaProject.applyProposal',
		params: async (t) => {
			await call(t, 'POST', `/cinema/${t.kept.film.id}/director`, { brief: 'A long night.' });
			return { cinemaProjectId: id(t, 'film') };
		},
	},
	{ op: 'shot.delete', params: (t) => ({ id: t.kept.shot.id }) },
	{ op: 'scene.delete', params: (t) => ({ id: t.kept.scene.id }) },
	{ op: 'cinemaProject.delete', params: (t) => ({ cinemaProjectId: id(t, 'film') }) },
];

/** prompt → image → output: one charged step. */
export const runnableGraph = {
	nodes: [
		{ id: 'p', type: 'prompt', position: { x: 0, y: 0 }, data: { text: 'a fox' } },
		{
			id: 'a',
			type: 'image_gen',
			position: { x: 300, y: 0 },
			data: { sandbox: { durationMs: 20 } },
		},
		{ id: 'out', type: 'output', position: { x: 600, y: 0 } },
	],
	edges: [
		{ id: 'e1', source: 'p', target: 'a', targetHandle: 'in' },
		{ id: 'e2', source: 'a', target: 'out', targetHandle: 'in' },
	],
	viewport: { x: 0, y: 0, zoom: 1 },
};

const mediaGenCanvas: TourStep[] = [
	{ op: 'template.getAll' },
	...records(
		'workflow',
		'canvasWorkflowId',
		'flow',
		{ name: 'Fox' },
		{
			graph: JSON.stringify(runnableGraph),
			version: 1,
		},
	),
	{ op: 'workflow.duplicate', params: (t) => ({ canvasWorkflowId: id(t, 'flow') }), keep: 'dup' },
	{
		op: 'workflow.share',
		params: (t) => ({ canvasWorkflowId: id(t, 'flow'), on: true }),
		keep: 'shared',
	},
	{ op: 'workflow.import', params: (t) => ({ token: String(t.kept.shared.shareToken) }) },
	{ op: 'workflow.estimate', params: (t) => ({ canvasWorkflowId: id(t, 'flow') }) },
	{ op: 'run.start', params: (t) => ({ canvasWorkflowId: id(t, 'flow') }), keep: 'run' },
	{ op: 'run.getAll', params: (t) => ({ canvasWorkflowId: id(t, 'flow') }) },
	{ op: 'run.get', params: (t) => ({ runId: t.kept.run.id }) },
	{ op: 'run.wait', params: (t) => ({ runId: t.kept.run.id }) },
	{
		op: 'run.cancel',
		params: async (t) => {
			t.sb.control.holdJobs();
			const run = await call(t, 'POST', `/canvas/${t.kept.flow.id}/runs`, {});
			return { runId: run.id };
		},
		after: (t) => void t.sb.control.releaseJobs(),
	},
	{
		op: 'run.retry',
		params: async (t) => {
			const failing = {
				...runnableGraph,
				nodes: runnableGraph.nodes.map((n) =>
					n.id === 'a' ? { ...n, data: { sandbox: { durationMs: 20, fail: true } } } : n,
				),
			};
			const flow = await call(t, 'POST', '/canvas', { name: 'Failing' });
			await call(t, 'PATCH', `/canvas/${flow.id}`, { graph: failing, version: 1 });
			const run = await call(t, 'POST', `/canvas/${flow.id}/runs`, {});
			await settled(t, `/canvas/runs/${run.id}`, ['failed']);
			return { runId: run.id };
		},
	},
	{ op: 'workflow.delete', params: (t) => ({ canvasWorkflowId: id(t, 'dup') }) },
];

const mediaGen3d: TourStep[] = [
	{ op: 'scene.aiScene', params: { prompt: 'two red boxes' } },
	...records('scene', 'scene3dId', 'room', { name: 'Room' }, { name: 'Hall' }),
	{
		op: 'scene.save',
		params: (t) => ({
			scene3dId: id(t, 'room'),
			version: 1,
			scene: JSON.stringify({ objects: [{ id: 'box-1', type: 'box' }] }),
		}),
	},
	{ op: 'scene.duplicate', params: (t) => ({ scene3dId: id(t, 'room') }) },
	{
		op: 'scene.registerRender',
		params: (t) => ({ scene3dId: id(t, 'room'), assetId: rl(asset(t)), kind: 'image' }),
	},
	{ op: 'scene.delete', params: (t) => ({ scene3dId: id(t, 'room') }) },
];

const mediaGenAgent: TourStep[] = [
	{ op: 'agent.getStatus' },
	{ op: 'session.create', keep: 'session' },
	{ op: 'session.getAll' },
	{
		op: 'session.sendMessage',
		params: (t) => ({ agentSessionId: id(t, 'session'), text: 'Make a picture of a fox' }),
		keep: 'answer',
	},
	{ op: 'session.get', params: (t) => ({ agentSessionId: id(t, 'session') }) },
	{
		op: 'action.reject',
		params: (t) => ({ id: (t.kept.answer.actions as IDataObject[])[0].id as string }),
	},
	{ op: 'session.archive', params: (t) => ({ agentSessionId: id(t, 'session') }) },
];

/** Every node's tour, by the node's catalog key. */
export const TOURS: Record<string, TourStep[]> = {
	mediaGen,
	mediaGenInfluencer,
	mediaGenAds,
	mediaGenEditor,
	mediaGenCinema,
	mediaGenCanvas,
	mediaGen3d,
	mediaGenAgent,
};
