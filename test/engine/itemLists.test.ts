/**
 * MediaGen Ads version 3 through n8n-core's engine against the sandbox: Preview Matrix gives one
 * item per combination, and Run Matrix (Source for Combinations: Input Items) sends all its input
 * items' combinations as one matrix run (nodes/shared/behaviours/itemLists.ts). Counted at the sandbox:
 * requests, jobs and credits charged.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeParameters,
	INodeType,
} from 'n8n-workflow';

import { MediaGenAds } from '../../nodes/MediaGenAds/MediaGenAds.node';
import { client, until } from '../harness/sandbox/helpers';
import type { TestNode } from '../harness/engine/harness';
import { chain, NODE_TYPES, retryExecution, runWorkflow } from '../harness/engine/harness';
import { fastJobs, nodeFactory, rl, useSandbox } from '../harness/engine/setup';

/** Test-only stand-in for n8n's Limit node: keeps the first `maxItems` items. */
class Limit implements INodeType {
	description = {
		displayName: 'Limit',
		name: 'limit',
		group: ['transform'],
		version: 1,
		description: 'Keeps the first items',
		defaults: { name: 'Limit' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [{ displayName: 'Max Items', name: 'maxItems', type: 'number', default: 1 }],
	} as unknown as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const max = this.getNodeParameter('maxItems', 0) as number;
		return [
			this.getInputData()
				.slice(0, max)
				.map((item, i) => ({ json: item.json, pairedItem: { item: i } })),
		];
	}
}
NODE_TYPES['test.limit'] = new Limit();

const { sb, creds } = useSandbox({ timeScale: 0.01 });
fastJobs();
const ads = nodeFactory(new MediaGenAds());
const v3 = (name: string, parameters: INodeParameters, extra: Partial<TestNode> = {}) =>
	ads(name, parameters, { typeVersion: 3, ...extra });

const balance = () => sb.control.credits('main').balance;
const runs = () => sb.control.requests({ method: 'POST', path: '/matrix/run$' });
const api = () => client(sb, sb.keys.pro);

/** An ad project with 2 hooks, 2 scripts and 2 CTAs: 8 combinations in one aspect ratio. */
async function project(): Promise<string> {
	const ad = await api()('POST', '/ads', { name: 'No-code matrix' });
	await api()('PATCH', `/ads/${ad.body.id}`, {
		settings: { params: { sandbox: { durationMs: 300 } } },
	});
	await api()('POST', `/ads/${ad.body.id}/copy/generate`, {
		kinds: ['hook', 'script', 'cta'],
		count: 2,
	});
	sb.control.clearRequests();
	return String(ad.body.id);
}

const preview = (adProjectId: string) =>
	v3('Preview', {
		resource: 'adProject',
		operation: 'previewMatrix',
		adProjectId: rl(adProjectId),
		additionalFields: {
			languages: 'en',
			presenters: 'none',
			styles: 'ugc',
			aspects: '9:16',
			durations: '5',
		},
	});

const runMatrix = (adProjectId: string, extra: INodeParameters = {}) => ({
	resource: 'adProject',
	operation: 'runMatrix',
	adProjectId: rl(adProjectId),
	...extra,
});

/** The 8 combinations of the project, as the sandbox previews them (credits included). */
async function combinations(adProjectId: string): Promise<IDataObject[]> {
	const res = await api()('POST', `/ads/${adProjectId}/matrix/preview`, {
		languages: ['en'],
		presenters: ['none'],
		styles: ['ugc'],
		aspects: ['9:16'],
		durations: [5],
	});
	sb.control.clearRequests();
	return res.body.combinations as IDataObject[];
}

const withoutCredits = (c: IDataObject) =>
	Object.fromEntries(Object.entries(c).filter(([key]) => key !== 'credits'));

describe('Preview Matrix → Limit → Run Matrix (version 3, no code)', () => {
	test('8 previewed, a Limit keeps 3: one matrix run, exactly 3 jobs, charged their preview price once', async () => {
		const id = await project();
		const before = balance();
		const result = await runWorkflow(
			chain(
				[{}],
				[
					preview(id),
					{ name: 'Limit', type: 'test.limit', parameters: { maxItems: 3 } },
					v3('Run', runMatrix(id, { output: 'raw' })),
				],
			),
			{ credentials: creds() },
		);
		expect(result.error).toBeUndefined();
		const previewed = result.json('Preview');
		expect(previewed).toHaveLength(8);
		expect(previewed.every((c) => c.credits === 40 && c.aspect === '9:16')).toBe(true);

		const out = result.items('Run');
		expect(out).toHaveLength(3);
		expect(out.map((o) => o.json.status)).toEqual(['completed', 'completed', 'completed']);
		// each job is paired with the item its combination came from
		expect(out.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		for (const [k, o] of out.entries()) {
			expect((o.json.context as IDataObject).combo).toEqual(withoutCredits(previewed[k]));
		}
		expect(runs()).toHaveLength(1);
		expect(new Set(out.map((o) => o.json.batch_id)).size).toBe(1);
		const charged = out.reduce((n, o) => n + Number(o.json.credits_charged), 0);
		expect(charged).toBe(3 * 40);
		expect(before - balance()).toBe(3 * 40);
		const variants = await api()('GET', `/ads/${id}/variants?limit=100`);
		expect(variants.body.data).toHaveLength(3);
	});

	test('Preview Matrix in version 2 is one item holding the answer, as released', async () => {
		const id = await project();
		const result = await runWorkflow(chain([{}], [{ ...preview(id), typeVersion: 2 }]), {
			credentials: creds(),
		});
		const [answer] = result.json('Preview');
		expect(result.json('Preview')).toHaveLength(1);
		expect(answer).toMatchObject({ count: 8, credits: 8 * 40 });
	});
});

describe('every combination is checked before anything is sent', () => {
	test('an invalid combination at item 2: no request at all, nothing charged, the error names item 2 and the field', async () => {
		const id = await project();
		const [a, b, c] = await combinations(id);
		const before = balance();
		const result = await runWorkflow(
			chain([a, { ...b, hook: 'not-a-copy-id' }, c], [v3('Run', runMatrix(id))]),
			{ credentials: creds() },
		);
		expect(result.error?.message).toBe("Item 2: hook must be a UUID, got 'not-a-copy-id'");
		expect(result.error?.description).toMatch(
			/^Item 2 of 3\. Nothing was sent to MediaGen for any item: fix the value and run again\. With Source for Combinations: Input Items, each input item is one entry with the fields language, hook, script, cta, presenter, style, aspect, duration/,
		);
		expect(sb.control.requests()).toHaveLength(0);
		expect(balance()).toBe(before);

		const missing = await runWorkflow(
			chain([a, { ...b, presenter: null }], [v3('Run', runMatrix(id))]),
			{ credentials: creds() },
		);
		expect(missing.error?.message).toBe('Item 2: presenter is required');
		const long = await runWorkflow(
			chain([{ ...a, aspect: '16:9-wide' }], [v3('Run', runMatrix(id))]),
			{
				credentials: creds(),
			},
		);
		expect(long.error?.message).toBe('Item 1: aspect must be at most 8 characters, got 9');
		expect(sb.control.requests()).toHaveLength(0);
		expect(balance()).toBe(before);
	});

	test('items that name another ad project are refused by name: one request serves one project', async () => {
		const id = await project();
		const other = await project();
		const [a, b, c] = await combinations(id);
		const before = balance();
		const result = await runWorkflow(
			chain(
				[
					{ ...a, project: id },
					{ ...b, project: id },
					{ ...c, project: other },
				],
				[v3('Run', runMatrix('={{ $json.project }}'))],
			),
			{ credentials: creds() },
		);
		expect(result.error?.message).toBe(`Item 3: Ad Project ID is '${other}', item 1's is '${id}'`);
		expect(result.error?.description).toMatch(/^Item 3 of 3\. Nothing was sent to MediaGen/);
		expect(sb.control.requests()).toHaveLength(0);
		expect(balance()).toBe(before);
	});

	test('with Continue On Fail the invalid item is an error item and the others run as one batch', async () => {
		const id = await project();
		const [a, b, c] = await combinations(id);
		const before = balance();
		const result = await runWorkflow(
			chain(
				[a, { ...b, duration: 'long' }, c],
				[v3('Run', runMatrix(id), { continueOnFail: true })],
			),
			{ credentials: creds() },
		);
		expect(result.error).toBeUndefined();
		const out = result.items('Run');
		expect(out.map((o) => [o.pairedItem, o.json.status ?? o.json.error])).toEqual([
			[{ item: 0 }, 'completed'],
			[{ item: 1 }, "Item 2: duration must be a number, got 'long'"],
			[{ item: 2 }, 'completed'],
		]);
		expect(runs()).toHaveLength(1);
		expect(before - balance()).toBe(2 * 40);
	});
});

describe('jobs started from items go through the run’s usual machinery', () => {
	test('without Wait for Completion: the started jobs, each paired with its item; charged once when done', async () => {
		const id = await project();
		const combos = (await combinations(id)).slice(0, 3);
		const before = balance();
		const result = await runWorkflow(
			chain(combos, [v3('Run', runMatrix(id, { waitForCompletion: false }))]),
			{ credentials: creds() },
		);
		expect(result.error).toBeUndefined();
		const out = result.items('Run');
		expect(out.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(out.map((o) => o.json.status)).toEqual(['queued', 'queued', 'queued']);
		expect(runs()).toHaveLength(1);
		await until(async () => {
			const list = await api()('GET', '/generations?status=completed&limit=100');
			return list.body.data.length === 3;
		});
		expect(before - balance()).toBe(3 * 40);
	});

	test("n8n's Retry after the wait failed: the same jobs are collected, no second matrix run, charged once", async () => {
		const id = await project();
		const combos = (await combinations(id)).slice(0, 3);
		const workflow = chain(combos, [v3('Run', runMatrix(id))]);
		// every read of the jobs fails: the wait gives up, the execution fails naming the jobs
		sb.control.addFault({ kind: 'fail', method: 'GET', path: '/generations', count: 10_000 });
		const before = balance();
		const failed = await runWorkflow(workflow, { credentials: creds() });
		expect(failed.error?.description).toMatch(
			/Jobs this run had already started \(3\): item 1: [\w-]+ .*; item 2: [\w-]+ .*; item 3: [\w-]+ /,
		);
		expect(runs()).toHaveLength(1);
		sb.control.clearFaults();

		const retried = await retryExecution(workflow, failed.run, { credentials: creds() });
		expect(retried.error).toBeUndefined();
		const out = retried.items('Run');
		expect(out.map((o) => o.json.status)).toEqual(['completed', 'completed', 'completed']);
		expect(out.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(runs()).toHaveLength(1);
		expect(before - balance()).toBe(3 * 40);
	});

	test('Source for Combinations: JSON in version 3 works as version 2 does (one request per item)', async () => {
		const id = await project();
		const [a] = await combinations(id);
		const result = await runWorkflow(
			chain(
				[{}, {}],
				[
					v3(
						'Run',
						runMatrix(id, { combosSource: 'json', combos: JSON.stringify([withoutCredits(a)]) }),
					),
				],
			),
			{ credentials: creds() },
		);
		expect(result.error).toBeUndefined();
		expect(result.items('Run').map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(runs()).toHaveLength(2);
	});
});
