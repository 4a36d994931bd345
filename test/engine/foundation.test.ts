/**
 * Foundation resources (Workspace, Project, Collection, Credit) through n8n-core's engine, the
 * real node and credential, over real HTTP to the sandbox.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { TestNode } from '../harness/engine/harness';
import { mediaGen } from '../harness/engine/harness';
import { READS_IN_FLIGHT } from '../../nodes/shared/run/execute';
import { rl, useSandbox } from '../harness/engine/setup';
import { until } from '../harness/sandbox/helpers';

const { sb, runOne } = useSandbox({ timeScale: 0.001 });

/** Runs one MediaGen node over the given items and returns its result. */
const run = (
	parameters: INodeParameters,
	items: IDataObject[] = [{}],
	opts: { key?: string; node?: Partial<TestNode> } = {},
) => runOne(mediaGen('MediaGen', parameters, opts.node), items, opts.key);

const posts = (path: string) => sb.control.requests({ method: 'POST', path });

async function createProject(name: string, extra: IDataObject = {}) {
	const { out, error } = await run({
		resource: 'project',
		operation: 'create',
		name,
		additionalFields: extra as INodeParameters,
	});
	expect(error).toBeUndefined();
	return out[0];
}

describe('workspace', () => {
	test('get returns the workspace of the key', async () => {
		const { out, error } = await run({ resource: 'workspace', operation: 'get' });
		expect(error).toBeUndefined();
		expect(out[0]).toMatchObject({ id: expect.any(String), plan: expect.any(String) });
		const [req] = sb.control.requests({ path: '/workspace' });
		expect(req.keyName).toBe('pro');
	});
});

describe('project: all 8 endpoints', () => {
	test('create, get, update (archive and unarchive), duplicate, delete', async () => {
		const p = await createProject('Launch', { description: 'Spring launch' });
		expect(p).toMatchObject({ name: 'Launch', description: 'Spring launch', status: 'active' });

		const got = await run({ resource: 'project', operation: 'get', projectId: rl(String(p.id)) });
		expect(got.out[0].id).toBe(p.id);

		const archived = await run({
			resource: 'project',
			operation: 'update',
			projectId: rl(String(p.id)),
			updateFields: { status: 'archived', name: 'Launch 2' },
		});
		expect(archived.out[0]).toMatchObject({ status: 'archived', name: 'Launch 2' });
		const active = await run({
			resource: 'project',
			operation: 'update',
			projectId: { __rl: true, mode: 'list', value: String(p.id) },
			updateFields: { status: 'active' },
		});
		expect(active.out[0].status).toBe('active');

		const dup = await run({
			resource: 'project',
			operation: 'duplicate',
			projectId: rl(String(p.id)),
		});
		expect(dup.out[0].id).not.toBe(p.id);

		const del = await run({
			resource: 'project',
			operation: 'delete',
			projectId: rl(String(p.id)),
		});
		expect(del.out[0]).toMatchObject({ id: p.id, deleted: true });
		const gone = await run({ resource: 'project', operation: 'get', projectId: rl(String(p.id)) });
		expect(gone.error?.message).toMatch(/^Not found/);
	});

	test('add and remove assets; delete with and without its assets', async () => {
		const keep = await createProject('Keep assets');
		const drop = await createProject('Drop assets');
		const a1 = sb.control.createLargeAsset({ size: 1000 });
		const a2 = sb.control.createLargeAsset({ size: 1000 });

		const added = await run({
			resource: 'project',
			operation: 'addAssets',
			projectId: rl(String(keep.id)),
			assetIds: `${a1.id}, ${a2.id}`,
		});
		expect(added.error).toBeUndefined();
		const removed = await run({
			resource: 'project',
			operation: 'removeAssets',
			projectId: rl(String(keep.id)),
			assetIds: [a2.id],
		});
		expect(removed.error).toBeUndefined();
		await run({
			resource: 'project',
			operation: 'addAssets',
			projectId: rl(String(drop.id)),
			assetIds: a2.id,
		});

		await run({
			resource: 'project',
			operation: 'delete',
			projectId: rl(String(keep.id)),
			additionalFields: { deleteAssets: false },
		});
		await run({
			resource: 'project',
			operation: 'delete',
			projectId: rl(String(drop.id)),
			additionalFields: { deleteAssets: true },
		});
		const del = sb.control.requests({ method: 'DELETE', path: '/projects/' });
		expect(del.map((r) => r.query.deleteAssets)).toEqual(['false', 'true']);

		const list = await run({ resource: 'asset', operation: 'getAll', returnAll: true });
		const ids = list.out.map((a) => a.id);
		expect(ids).toContain(a1.id);
		expect(ids).not.toContain(a2.id);
	});

	test('Get Many: Return All walks every page; Limit stops early; filters are sent', async () => {
		for (let i = 0; i < 5; i++) await createProject(`Seed ${i}`);
		// 230 more in one execution: one node run over 230 items
		const { error } = await run(
			{ resource: 'project', operation: 'create', name: '={{ $json.name }}' },
			Array.from({ length: 230 }, (_, i) => ({ name: `Bulk ${i}` })),
		);
		expect(error).toBeUndefined();
		sb.control.clearRequests();

		const all = await run({ resource: 'project', operation: 'getAll', returnAll: true });
		expect(all.out).toHaveLength(235);
		expect(new Set(all.out.map((p) => p.id)).size).toBe(235);
		const pages = sb.control.requests({ method: 'GET', path: '/projects$' });
		expect(pages).toHaveLength(3);
		expect(pages[1].query.before).toBeTruthy();

		sb.control.clearRequests();
		const some = await run({
			resource: 'project',
			operation: 'getAll',
			returnAll: false,
			limit: 7,
		});
		expect(some.out).toHaveLength(7);
		expect(sb.control.requests({ path: '/projects$' })[0].query.limit).toBe('7');

		const filtered = await run({
			resource: 'project',
			operation: 'getAll',
			returnAll: true,
			filters: { q: 'Seed 3' },
		});
		expect(filtered.out.map((p) => p.name)).toEqual(['Seed 3']);
	});
});

describe('collection: all 4 endpoints', () => {
	test('create, list, add/remove items, delete', async () => {
		const a1 = sb.control.createLargeAsset({ size: 10 });
		const c = await run({ resource: 'collection', operation: 'create', name: 'Moodboard' });
		expect(c.out[0]).toMatchObject({ name: 'Moodboard' });
		const id = String(c.out[0].id);

		const items = await run({
			resource: 'collection',
			operation: 'updateItems',
			collectionId: rl(id),
			additionalFields: { add: a1.id },
		});
		expect(items.error).toBeUndefined();
		const inCollection = await run({
			resource: 'asset',
			operation: 'getAll',
			returnAll: true,
			filters: { collectionId: rl(id) },
		});
		expect(inCollection.out.map((a) => a.id)).toEqual([a1.id]);

		await run({
			resource: 'collection',
			operation: 'updateItems',
			collectionId: rl(id),
			additionalFields: { remove: a1.id },
		});
		const list = await run({ resource: 'collection', operation: 'getAll', returnAll: true });
		expect(list.out.map((x) => x.id)).toEqual([id]);
		const del = await run({ resource: 'collection', operation: 'delete', collectionId: rl(id) });
		expect(del.out[0]).toMatchObject({ deleted: true });
	});
});

describe('credit', () => {
	test('balance and ledger (integer cursor, all)', async () => {
		const bal = await run({ resource: 'credit', operation: 'getBalance' });
		expect(bal.out[0]).toMatchObject({ balance: 1000 });
		for (let i = 0; i < 3; i++) sb.control.setCredits('main', 900 - i);
		const ledger = await run({
			resource: 'credit',
			operation: 'getLedger',
			returnAll: false,
			limit: 2,
			filters: { all: true },
		});
		expect(ledger.out).toHaveLength(2);
		const page = await run({ resource: 'credit', operation: 'getLedger', returnAll: true });
		expect(page.out.length).toBeGreaterThanOrEqual(4);
		expect(typeof page.out[0].id).toBe('number');
		expect(
			sb.control.requests({ path: '/credits/ledger' }).some((r) => r.query.all === 'true'),
		).toBe(true);
	});
	test('ledger needs billing.view: a read-only key gets 403 with the meaning', async () => {
		const { error } = await run(
			{ resource: 'credit', operation: 'getLedger', returnAll: true },
			[{}],
			{
				key: sb.keys.readOnly,
			},
		);
		expect(error?.message).toMatch(/scope/);
		expect(error?.description).toMatch(/billing\.view/);
		expect(error?.description).toMatch(/Request ID: /);
	});
});

describe('errors carry the spec meaning and the request id', () => {
	test('401 wrong key', async () => {
		const { error } = await run({ resource: 'workspace', operation: 'get' }, [{}], { key: 'nope' });
		expect(error?.message).toMatch(/API key/);
		expect(error?.description).toMatch(/Request ID: /);
	});
	test('403 read-only key cannot create', async () => {
		const { error } = await run({ resource: 'project', operation: 'create', name: 'x' }, [{}], {
			key: sb.keys.readOnly,
		});
		expect(error?.message).toMatch(/scope/);
	});
	test('404 for another workspace', async () => {
		const p = await createProject('Mine');
		const { error } = await run(
			{ resource: 'project', operation: 'get', projectId: rl(String(p.id)) },
			[{}],
			{ key: sb.keys.otherWorkspace },
		);
		expect(error?.message).toMatch(/another workspace/);
	});
	test('422 lists every issue the service found', async () => {
		const { error } = await run({
			resource: 'webhook',
			operation: 'create',
			url: 'http://example.com/hook',
			events: ['generation.completed'],
		});
		expect(error?.message).toBe('MediaGen rejected the values sent');
		expect(error?.description).toMatch(/- url: /);
	});
	test('429 is absorbed: Retry-After honoured, then the call succeeds', async () => {
		sb.control.addFault({ kind: 'fail', status: 429, count: 2, path: '/workspace' });
		const started = Date.now();
		const { out, error } = await run({ resource: 'workspace', operation: 'get' });
		expect(error).toBeUndefined();
		expect(out[0].id).toBeTruthy();
		expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
		expect(sb.control.requests({ path: '/workspace' }).map((r) => r.status)).toEqual([
			429, 429, 200,
		]);
	});
	test('5xx: a GET is retried, a POST without idempotency key is not', async () => {
		sb.control.addFault({ kind: 'fail', status: 503, count: 1, path: '/workspace' });
		const get = await run({ resource: 'workspace', operation: 'get' });
		expect(get.error).toBeUndefined();
		sb.control.addFault({
			kind: 'fail',
			status: 503,
			count: 1,
			method: 'POST',
			path: '/projects$',
		});
		const post = await run({ resource: 'project', operation: 'create', name: 'once' });
		expect(post.error?.message).toBe('MediaGen server error (503)');
		expect(posts('/projects$')).toHaveLength(1);
	});
	test('a lost response to a POST is not resent (it could create twice)', async () => {
		sb.control.addFault({ kind: 'drop', method: 'POST', path: '/projects$' });
		const { error } = await run({ resource: 'project', operation: 'create', name: 'lost' });
		expect(error?.message).toMatch(/^Could not reach MediaGen/);
		expect(posts('/projects$')).toHaveLength(1);
	});
});

describe('bad input is refused before any request', () => {
	test('a too long name names the field and the limit, and nothing is sent', async () => {
		sb.control.clearRequests();
		const { error } = await run({
			resource: 'project',
			operation: 'create',
			name: 'x'.repeat(121),
		});
		expect(error?.message).toBe('Name must be at most 120 characters, got 121');
		expect(error?.description).toMatch(/Nothing was sent/);
		expect(sb.control.requests()).toHaveLength(0);
	});
	test('a bad UUID in a list names the entry', async () => {
		const p = await createProject('p');
		sb.control.clearRequests();
		const { error } = await run({
			resource: 'project',
			operation: 'addAssets',
			projectId: rl(String(p.id)),
			assetIds: '0b6e8a4c-1f0d-4d5e-9a7b-2c3d4e5f6a7b, nope',
		});
		expect(error?.message).toBe("Asset IDs[1] must be a UUID, got 'nope'");
		expect(sb.control.requests()).toHaveLength(0);
	});
});

describe('continue on fail', () => {
	test('a failed item keeps the others, each paired with its input', async () => {
		const { out, items, error } = await run(
			{ resource: 'project', operation: 'create', name: '={{ $json.name }}' },
			[{ name: 'first' }, { name: 'y'.repeat(200) }, { name: 'third' }],
			{ node: { continueOnFail: true } },
		);
		expect(error).toBeUndefined();
		expect(out.map((o) => o.name ?? o.error)).toEqual([
			'first',
			'Name must be at most 120 characters, got 200',
			'third',
		]);
		expect(items('MediaGen').map((i) => i.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
		expect(posts('/projects$')).toHaveLength(2);
	});
	test('an API error on one item keeps the others', async () => {
		const p = await createProject('real');
		const { out } = await run(
			{
				resource: 'project',
				operation: 'get',
				projectId: '={{ { "__rl": true, "mode": "id", "value": $json.id } }}',
			},
			[{ id: p.id }, { id: '0b6e8a4c-1f0d-4d5e-9a7b-2c3d4e5f6a7b' }],
			{ node: { continueOnFail: true } },
		);
		expect(out[0].id).toBe(p.id);
		expect(out[1]).toMatchObject({ httpCode: '404' });
	});
});

describe('plain reads of many items are sent a few at a time, outputs in item order', () => {
	const missing = '0b6e8a4c-1f0d-4d5e-9a7b-2c3d4e5f6a7b';
	const getById = {
		resource: 'project',
		operation: 'get',
		projectId: '={{ { "__rl": true, "mode": "id", "value": $json.id } }}',
	};
	async function projects(n: number): Promise<string[]> {
		const ids: string[] = [];
		for (let i = 0; i < n; i++) ids.push(String((await createProject(`p${i}`)).id));
		return ids;
	}
	const gets = () => sb.control.requests({ method: 'GET', path: '^/v1/projects/' });

	test(`at most ${READS_IN_FLIGHT} in flight; every output paired with its own input`, async () => {
		const ids = await projects(3);
		sb.control.clearRequests();
		// the first answers are held until as many reads as the node allows are open together at
		// the sandbox (a node that sent more would have more open), then let go
		sb.control.addFault({
			kind: 'delay',
			method: 'GET',
			path: '^/v1/projects/',
			count: READS_IN_FLIGHT,
			delayMs: 600_000,
		});
		let held = 0;
		const stop = sb.control.watchRequests((e) => {
			if (e.type === 'held') held++;
		});
		const items = Array.from({ length: 20 }, (_, i) => ({ id: ids[i % 3] }));
		const running = run(getById, items);
		await until(() => held === READS_IN_FLIGHT);
		stop();
		sb.control.releaseDelays();
		const { out, error, items: outItems } = await running;
		expect(error).toBeUndefined();
		expect(out.map((o) => o.id)).toEqual(items.map((i) => i.id));
		expect(out.map((o) => o.name)).toEqual(items.map((_, i) => `p${i % 3}`));
		expect(outItems('MediaGen').map((i) => i.pairedItem)).toEqual(
			items.map((_, i) => ({ item: i })),
		);
		expect(gets()).toHaveLength(20);
		expect(Math.max(...gets().map((r) => r.inFlight))).toBe(READS_IN_FLIGHT);
	});

	test('continue on fail: failed reads stay at their own place among the others', async () => {
		const ids = await projects(2);
		sb.control.addFault({
			kind: 'delay',
			method: 'GET',
			path: `^/v1/projects/${ids[0]}`,
			count: 6,
			delayMs: 30,
		});
		const items = Array.from({ length: 12 }, (_, i) => ({
			id: i % 4 === 1 ? missing : ids[i % 2],
		}));
		const { out, error } = await run(getById, items, { node: { continueOnFail: true } });
		expect(error).toBeUndefined();
		expect(out).toHaveLength(12);
		out.forEach((o, i) => {
			if (i % 4 === 1) expect(o).toMatchObject({ httpCode: '404' });
			else expect(o.id).toBe(ids[i % 2]);
		});
	});

	test('without continue on fail, the first failed item (in item order) stops the node', async () => {
		const ids = await projects(1);
		sb.control.clearRequests();
		// item 2 fails fast, item 1 fails slowly: the error reported is item 1's
		sb.control.addFault({
			kind: 'delay',
			method: 'GET',
			path: `^/v1/projects/${missing}`,
			count: 1,
			delayMs: 80,
		});
		const items = [
			ids[0],
			missing,
			'1b6e8a4c-1f0d-4d5e-9a7b-2c3d4e5f6a7b',
			...Array(30).fill(ids[0]),
		];
		const { error, out } = await run(
			getById,
			items.map((id) => ({ id })),
		);
		expect(error?.message).toMatch(/not found|404/i);
		expect(JSON.stringify(error)).toContain(missing);
		expect(JSON.stringify(error)).not.toContain('1b6e8a4c');
		expect(out).toEqual([]);
		// reading stopped: nowhere near all 33 items were sent
		expect(gets().length).toBeLessThan(items.length);
	});
});
