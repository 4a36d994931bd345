/**
 * MediaGen Trigger end to end: the real node, driven through n8n-core's HookContext and
 * WebhookContext by a stand-in for n8n's webhook side (triggerHarness.ts), against the sandbox,
 * which registers endpoints and delivers real signed webhooks over HTTP.
 */
import type { IDataObject, INode, INodeParameters } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { EVENT_TYPES as SPEC_EVENT_TYPES } from '../../sandbox/hooks';
import { TRIGGER_DOWNLOADS } from '../../nodes/MediaGenTrigger/enrichment';
import { MediaGenTrigger } from '../../nodes/MediaGenTrigger/MediaGenTrigger.node';
import { EVENT_TYPES } from '../../nodes/MediaGenTrigger/properties';
import { SECRET_REPAIR } from '../../nodes/MediaGenTrigger/secretRepair';
import type { FakeN8n, ReceivedRequest } from '../harness/engine/triggerHarness';
import { useTriggerKit } from '../harness/engine/triggerKit';

const kit = useTriggerKit({ timeScale: 0.001 });
const { sb, logs, api, endpoints, allEndpoints, afterGrace, sleep, until, fakeN8n, automatic } =
	kit;
const { stored, generate, signed, eventBody, post } = kit;

describe('description', () => {
	const trigger = new MediaGenTrigger();
	// versions 1 and 2 share one description (as released); version 3 has its own
	const { description } = trigger.getNodeType(2);
	const v3 = trigger.getNodeType(3).description;

	test("a trigger with the spec's events, answering as soon as the execution starts", () => {
		expect(description).toMatchObject({
			name: 'mediaGenTrigger',
			displayName: 'MediaGen Trigger',
			group: ['trigger'],
			inputs: [],
		});
		// onReceived: n8n answers when the execution starts, never after downstream nodes
		expect(description.webhooks).toEqual([
			expect.objectContaining({
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				responseData: 'noData',
			}),
		]);
		const events = description.properties.find((p) => p.name === 'events');
		expect(events?.options?.map((o) => (o as { value: string }).value).sort()).toEqual(
			[...EVENT_TYPES, '*'].sort(),
		);
		expect([...EVENT_TYPES].sort()).toEqual([...SPEC_EVENT_TYPES].sort());
		const api = {
			name: 'mediaGenApi',
			required: true,
			displayOptions: { show: { registration: ['automatic'] } },
		};
		expect(description.credentials).toEqual([api]);
		expect(v3.credentials).toEqual([
			api,
			{
				name: 'mediaGenWebhookSecretApi',
				required: true,
				testedBy: 'webhookSecretTest',
				displayOptions: { show: { registration: ['manual'] } },
			},
		]);
		// versions 1 and 2 keep their pasted secret parameter; version 3 (default) has none
		expect(description.version).toEqual([1, 2]);
		expect(v3.version).toBe(3);
		expect(trigger.description.defaultVersion).toBe(4);
		// version 4: version 3's parameters; its secret credential shown by hide (below)
		const v4 = trigger.getNodeType(4).description;
		expect(v4.properties).toEqual(v3.properties);
		expect(v4.credentials).toEqual([
			api,
			{ ...v3.credentials![1], displayOptions: { hide: { registration: ['automatic'] } } },
		]);
		expect(v3.webhooks).toEqual(description.webhooks);
		const secret = description.properties.find((p) => p.name === 'signingSecret');
		expect(secret).toMatchObject({
			type: 'string',
			default: '',
			required: true,
			typeOptions: { password: true },
			displayOptions: { show: { registration: ['manual'] } },
		});
	});

	test("n8n's editor sees no authentication field in version 4: the node panel's event is kept", () => {
		// n8n's editor (editor-ui, utils/nodeTypesUtils.ts getMainAuthField and
		// findAlternativeAuthField): a parameter the credentials' `show` depends on, every value of
		// which shows a credential, is the node's authentication field. When the editor selects a
		// credential for a new node (NodeCredentials), it writes that field with the form's copy of
		// the parameters, made before the node panel's action set Events: "On export failed" gave a
		// trigger on generation.completed (#37, finding 9; test/e2e/editor.e2e.test.ts).
		const mainAuthField = (version: number) => {
			const d = trigger.getNodeType(version).description;
			const shown: Record<string, string[]> = {};
			for (const c of d.credentials ?? [])
				for (const [name, values] of Object.entries(c.displayOptions?.show ?? {}))
					shown[name] = [...(shown[name] ?? []), ...(values ?? []).map(String)];
			return d.properties
				.filter((p) => p.name in shown && p.options)
				.find((p) =>
					(p.options as Array<{ value: string }>).every((o) => shown[p.name].includes(o.value)),
				)?.name;
		};
		expect(mainAuthField(3)).toBe('registration');
		expect(mainAuthField(4)).toBeUndefined();
		// the credentials still follow Registration
		const d = trigger.getNodeType(4).description;
		const credentialsFor = (registration: string) =>
			(d.credentials ?? [])
				.filter((c) =>
					NodeHelpers.displayParameter({ registration }, c, { typeVersion: 4 } as INode, d),
				)
				.map((c) => c.name);
		expect(credentialsFor('automatic')).toEqual(['mediaGenApi']);
		expect(credentialsFor('manual')).toEqual(['mediaGenWebhookSecretApi']);
	});

	test('every event is described, and the panel says what happens to events while n8n is down', () => {
		const d = trigger.getNodeType(4).description;
		const events = d.properties.find((p) => p.name === 'events')!;
		for (const o of events.options as Array<{ name: string; description?: string }>)
			expect({ event: o.name, described: (o.description ?? '').length > 10 }).toEqual({
				event: o.name,
				described: true,
			});
		const notices = (registration: string) =>
			d.properties
				.filter(
					(p) =>
						p.type === 'notice' &&
						NodeHelpers.displayParameter({ registration }, p, { typeVersion: 4 } as INode, d),
				)
				.map((p) => p.displayName)
				.join(' ');
		expect(notices('automatic')).toMatch(/n8n is down.*11 hours.*Webhook → Get Deliveries/s);
		// a workflow published before the update is told where it gets the checks (#37, finding 8)
		expect(notices('automatic')).toMatch(/published before n8n-nodes-mediagen was updated.*published again/s);
		expect(notices('manual')).toMatch(/n8n is down.*Webhook → Retry Failed Deliveries/s);
	});

	test('the MediaGen Webhook Secret credential test checks the form of both secrets', async () => {
		const check = (data: IDataObject) =>
			(
				trigger.getNodeType(3) as unknown as {
					methods: { credentialTest: Record<string, (...args: unknown[]) => Promise<unknown>> };
				}
			).methods.credentialTest.webhookSecretTest.call(
				{} as never,
				{ id: 'c', name: 'c', type: 'mediaGenWebhookSecretApi', data } as never,
			);
		const good = `whsec_${Buffer.alloc(24, 3).toString('base64')}`;
		expect(await check({ productionSecret: good })).toMatchObject({ status: 'OK' });
		expect(await check({ productionSecret: good, testSecret: good })).toMatchObject({
			status: 'OK',
		});
		expect(await check({ productionSecret: '', testSecret: 'whsec_' })).toEqual({
			status: 'Error',
			message:
				'The Production Signing Secret is not a whsec_ secret; The Test Signing Secret is not a whsec_ secret',
		});
	});

	test('which parameters each version shows (n8n saves only those): v3 manual has no secret', () => {
		const shown = (typeVersion: number, parameters: INodeParameters) => {
			const d = trigger.getNodeType(typeVersion).description;
			return d.properties
				.filter((p) => NodeHelpers.displayParameter(parameters, p, { typeVersion } as INode, d))
				.map((p) => p.name);
		};
		for (const v of [1, 2])
			expect(shown(v, { registration: 'manual' })).toEqual([
				'registration',
				'manualNotice',
				'signingSecret',
				'manualOutageNotice',
				'options',
			]);
		for (const v of [3, 4])
			expect(shown(v, { registration: 'manual' })).toEqual([
				'registration',
				'manualCredentialNotice',
				'manualOutageNotice',
				'options',
			]);
		for (const v of [1, 2, 3, 4])
			expect(shown(v, { registration: 'automatic' })).toEqual([
				'registration',
				'events',
				'outageNotice',
				'options',
			]);
	});
});

describe('lifecycle: the service ends with exactly the endpoints that should exist', () => {
	test('activate / deactivate 20 times', async () => {
		const n8n = await fakeN8n(automatic(['generation.completed', 'generation.failed']));
		const ids = new Set<string>();
		for (let i = 0; i < 20; i++) {
			await n8n.activate();
			const list = await endpoints();
			expect(list).toHaveLength(1);
			expect(list[0]).toMatchObject({
				url: n8n.productionUrl,
				status: 'active',
				events: expect.arrayContaining(['generation.completed', 'generation.failed']),
			});
			expect(list[0].events).toHaveLength(2);
			expect(stored(n8n)).toMatchObject({ id: list[0].id, url: n8n.productionUrl });
			expect(String(stored(n8n)?.secret)).toMatch(/^whsec_/);
			ids.add(list[0].id);
			expect(await n8n.deactivate()).toBe(true);
			// kept for a re-publish, then deleted
			expect(await endpoints()).toHaveLength(1);
			expect(await afterGrace()).toHaveLength(0);
		}
		expect(ids.size).toBe(20);
	});

	test('activating again (n8n restart) finds the endpoint and keeps it', async () => {
		const n8n = await fakeN8n(automatic());
		await n8n.activate();
		const [first] = await endpoints();
		for (let i = 0; i < 3; i++) await n8n.activate('init');
		expect(await endpoints()).toEqual([expect.objectContaining({ id: first.id })]);
		expect(sb.control.requests({ method: 'POST', path: '/webhooks$' })).toHaveLength(1);
		await n8n.deactivate();
		expect(await afterGrace()).toHaveLength(0);
	});

	test('changed events are set on the same endpoint (with and without a deactivation first)', async () => {
		const n8n = await fakeN8n(automatic(['generation.completed']));
		await n8n.activate();
		const [first] = await endpoints();
		const secret = stored(n8n)?.secret;

		// restart with changed parameters: checkExists notices
		n8n.setParameters(automatic(['generation.failed', 'export.completed']));
		await n8n.activate('init');
		const second = await endpoints();
		expect(second).toHaveLength(1);
		expect(second[0].id).toBe(first.id);
		expect([...second[0].events].sort()).toEqual(['export.completed', 'generation.failed']);
		expect(stored(n8n)).toMatchObject({ id: first.id, secret });

		// the way n8n 2.x publishes a changed trigger: remove it, then add the new version
		await n8n.deactivate();
		n8n.setParameters(automatic(['*']));
		await n8n.activate('update');
		const third = await afterGrace();
		expect(third).toEqual([expect.objectContaining({ id: first.id, events: ['*'] })]);
		expect(stored(n8n)).toMatchObject({ id: first.id, secret });
		expect(sb.control.requests({ method: 'POST', path: '/webhooks$' })).toHaveLength(1);
		await n8n.deactivate();
		expect(await afterGrace()).toHaveLength(0);
	});

	test('an endpoint deleted behind the node is recreated; deactivation then still works', async () => {
		const n8n = await fakeN8n(automatic());
		await n8n.activate();
		const [first] = await endpoints();
		await api('DELETE', `/webhooks/${first.id}`);
		await n8n.activate('init');
		const list = await endpoints();
		expect(list).toHaveLength(1);
		expect(list[0].id).not.toBe(first.id);
		// deleted again, then deactivated: nothing left, no error
		await api('DELETE', `/webhooks/${list[0].id}`);
		expect(await n8n.deactivate()).toBe(true);
		expect(await afterGrace()).toHaveLength(0);
	});

	test('an endpoint a user disabled is kept as it is (#37): same id, URL and secret, still disabled', async () => {
		const n8n = await fakeN8n(automatic());
		await n8n.activate();
		const [first] = await endpoints();
		const secret = stored(n8n)?.secret;
		await api('PATCH', `/webhooks/${first.id}`, { status: 'disabled' });
		await n8n.activate('init');
		const list = await endpoints();
		expect(list).toEqual([
			expect.objectContaining({ id: first.id, status: 'disabled', url: n8n.productionUrl }),
		]);
		expect(stored(n8n)).toMatchObject({ id: first.id, secret });
		expect(sb.control.requests({ method: 'POST', path: '/webhooks$' })).toHaveLength(1);
		await n8n.deactivate();
		expect(await afterGrace()).toHaveLength(0);
	});

	test('a registration whose answer was lost leaves nothing behind', async () => {
		const n8n = await fakeN8n(automatic());
		sb.control.addFault({ kind: 'drop', method: 'POST', path: '/webhooks$' });
		await expect(n8n.activate()).rejects.toThrow(/Could not reach MediaGen/);
		expect(await endpoints()).toHaveLength(0);
		await n8n.activate();
		expect(await endpoints()).toHaveLength(1);
		await n8n.deactivate();
		expect(await afterGrace()).toHaveLength(0);
	});

	test('endpoints at the node URL that the node does not know: the newest is taken over, the others deleted', async () => {
		const n8n = await fakeN8n(automatic());
		// e.g. static data lost after a registration
		const older = await api('POST', '/webhooks', { url: n8n.productionUrl, events: ['*'] });
		await sleep(5);
		const newer = await api('POST', '/webhooks', { url: n8n.productionUrl, events: ['*'] });
		const other = await api('POST', '/webhooks', {
			url: 'https://hooks.example.com/other',
			events: ['*'],
		});
		await n8n.activate();
		const list = await endpoints();
		expect(list.filter((e) => e.url === n8n.productionUrl)).toEqual([
			expect.objectContaining({ id: newer.id, events: ['generation.completed'] }),
		]);
		expect(list.map((e) => e.id)).not.toContain(older.id);
		expect(list.map((e) => e.id)).toContain(other.id);
		// taken over with a new secret of its own (POST /webhooks/{id}/rotate-secret)
		expect(stored(n8n)).toMatchObject({ id: newer.id });
		expect(stored(n8n)?.secret).not.toBe(newer.secret);
		expect(sb.control.requests({ method: 'POST', path: '/webhooks$' })).toHaveLength(3);
		await n8n.deactivate();
		expect((await afterGrace()).map((e) => e.id)).toEqual([other.id]);
	});

	test('the endpoint lookup reads every page of GET /webhooks (100 a page)', async () => {
		const n8n = await fakeN8n(automatic());
		const addOthers = async (count: number) => {
			for (let i = 0; i < count; i++)
				await api('POST', '/webhooks', { url: `https://hooks.example.com/${i}`, events: ['*'] });
		};
		const ours = async () =>
			(await allEndpoints()).filter((e) => e.url === n8n.productionUrl).map((e) => e.id);
		// a stray at the node's URL, then 150 newer endpoints: the stray is on the second page
		const stray = await api('POST', '/webhooks', { url: n8n.productionUrl, events: ['*'] });
		await addOthers(150);
		await n8n.activate();
		const registered = String(stored(n8n)?.id);
		expect(registered).toBe(stray.id); // found and taken over
		expect(await ours()).toEqual([registered]);
		// the registered endpoint moves to the second page: a restart still finds and keeps it
		await addOthers(150);
		await n8n.activate();
		expect(stored(n8n)?.id).toBe(registered);
		expect(await ours()).toEqual([registered]);
		await n8n.deactivate();
		await afterGrace();
		expect(await ours()).toEqual([]);
	});

	test('a failed deletion keeps the id; the next activation and deactivation clean up', async () => {
		const n8n = await fakeN8n(automatic());
		await n8n.activate();
		const [first] = await endpoints();
		sb.control.addFault({ kind: 'fail', method: 'DELETE', path: '/webhooks/', status: 403 });
		logs.length = 0;
		expect(await n8n.deactivate()).toBe(true);
		expect(await afterGrace()).toHaveLength(1);
		expect(logs.filter((l) => l.includes('could not delete the webhook endpoint'))).toHaveLength(1);
		expect(stored(n8n)?.id).toBe(first.id);
		sb.control.clearFaults();
		await n8n.activate();
		expect(await endpoints()).toEqual([expect.objectContaining({ id: first.id })]);
		await n8n.deactivate();
		expect(await afterGrace()).toHaveLength(0);
	});

	test("the test URL gets its own endpoint and never touches production's", async () => {
		const n8n = await fakeN8n(automatic());
		await n8n.activate();
		const [production] = await endpoints();
		await n8n.listen();
		const both = await endpoints();
		expect(both).toHaveLength(2);
		expect(both.map((e) => e.url).sort()).toEqual([n8n.productionUrl, n8n.testUrl].sort());
		await n8n.stopListening();
		expect(await endpoints()).toEqual([expect.objectContaining({ id: production.id })]);

		// a failing test registration: n8n removes the test webhooks, production stays
		sb.control.addFault({ kind: 'fail', method: 'POST', path: '/webhooks$', status: 403 });
		await expect(n8n.listen()).rejects.toThrow();
		expect(await endpoints()).toEqual([expect.objectContaining({ id: production.id })]);
		await n8n.deactivate();
		expect(await afterGrace()).toHaveLength(0);
	});

	test('test mode alone: registered on listen, removed after the test event', async () => {
		const n8n = await fakeN8n(automatic());
		await n8n.listen();
		expect(await endpoints()).toEqual([expect.objectContaining({ url: n8n.testUrl })]);
		await generate();
		await until(() => n8n.runs.length === 1);
		await n8n.settle();
		expect(n8n.requests[0].test).toBe(true);
		expect(await endpoints()).toHaveLength(0);
	});

	test('errors say what to do: plan or scope (403), URL not public https (422)', async () => {
		const starter = await fakeN8n(automatic(), false, sb.keys.starter);
		await expect(starter.activate()).rejects.toMatchObject({
			description: expect.stringContaining('webhooks.manage scope'),
		});
		const n8n = await fakeN8n(automatic());
		sb.control.setConfig({ allowHttpWebhooks: false });
		await expect(n8n.activate()).rejects.toMatchObject({
			description: expect.stringContaining('public https'),
		});
		sb.control.setConfig({ allowHttpWebhooks: true });
		expect(await endpoints()).toHaveLength(0);
	});

	test('manual mode refuses to activate with an unusable secret (without echoing it)', async () => {
		const n8n = await fakeN8n({ registration: 'manual', signingSecret: 'not-a-secret-value' });
		const error = await n8n.activate().catch((e: Error) => e);
		expect(error).toBeInstanceOf(Error);
		expect((error as Error).message).toMatch(/whsec_/);
		expect(JSON.stringify(error)).not.toContain('not-a-secret-value');
	});

	test('manual mode registers nothing and deletes nothing', async () => {
		const made = await api('POST', '/webhooks', { url: 'https://example.com/x', events: ['*'] });
		const n8n = await fakeN8n({ registration: 'manual', signingSecret: made.secret });
		sb.control.clearRequests();
		await n8n.activate();
		await n8n.deactivate();
		await n8n.activate();
		await n8n.listen();
		await n8n.stopListening();
		expect(sb.control.requests({})).toHaveLength(0);
		expect((await endpoints()).map((e) => e.id)).toEqual([made.id]);
	});
});

describe('deliveries: verified before anything runs', () => {
	test('a generation completes in the sandbox, the signed event arrives, the workflow runs', async () => {
		const n8n = await fakeN8n(automatic(['generation.completed']));
		await n8n.activate();
		const generation = await generate();
		await until(() => n8n.runs.length === 1);
		const [item] = n8n.outputs()[0];
		expect(item.json).toMatchObject({
			type: 'generation.completed',
			workspace_id: expect.any(String),
			id: expect.stringMatching(/^evt_/),
			created_at: expect.any(String),
			data: {
				id: generation.id,
				status: 'completed',
				outputs: [{ asset_id: expect.any(String), kind: 'image' }],
				error: null,
			},
		});
		const headers = item.json.headers as IDataObject;
		expect(Object.keys(headers).sort()).toEqual(
			['content-type', 'user-agent', 'webhook-id', 'webhook-timestamp'].sort(),
		);
		expect(headers['webhook-id']).toBe(item.json.id);
		expect(n8n.runs[0].status).toBe('success');
		await until(() => sb.control.deliveries().length === 1);
		expect(sb.control.deliveries()[0]).toMatchObject({ responseStatus: 200, error: null });
	});

	test('tamper matrix over HTTP: every bad request is 401 and starts nothing', async () => {
		const n8n = await fakeN8n(automatic(['*']));
		await n8n.activate();
		const secret = String(stored(n8n)?.secret);
		const url = n8n.productionUrl;
		const now = Math.floor(Date.now() / 1000);
		const other = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
		const good = () => signed(secret, eventBody('evt_good'), { id: 'evt_good' });
		const flipByte = (text: string) => {
			const bytes = Buffer.from(text);
			bytes[10] ^= 0x01;
			return bytes;
		};
		const without = (name: string) => {
			const g = good();
			const rest = Object.fromEntries(Object.entries(g.headers).filter(([k]) => k !== name));
			return [rest, g.body] as const;
		};
		const cases: Array<[string, Record<string, string>, string | Buffer]> = [
			['changed body byte', good().headers, flipByte(good().body)],
			['changed id', { ...good().headers, 'webhook-id': 'evt_other' }, good().body],
			[
				'changed timestamp',
				{ ...good().headers, 'webhook-timestamp': String(now + 1) },
				good().body,
			],
			[
				'stale timestamp',
				signed(secret, good().body, { timestamp: now - 301 }).headers,
				good().body,
			],
			[
				// an hour ahead, not just past the 300 s window: the clock moves on while the cases are
				// sent, and a loaded machine can take seconds (the window's edges: the unit tests)
				'future timestamp',
				signed(secret, good().body, { timestamp: now + 3600 }).headers,
				good().body,
			],
			['missing webhook-id', ...without('webhook-id')],
			['missing webhook-timestamp', ...without('webhook-timestamp')],
			['missing webhook-signature', ...without('webhook-signature')],
			['wrong secret', signed(other, good().body, { id: 'evt_good' }).headers, good().body],
			[
				'only bad entries',
				{
					...good().headers,
					'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')} ${signed(other, good().body, { id: 'evt_good' }).headers['webhook-signature']}`,
				},
				good().body,
			],
		];
		for (const [name, headers, body] of cases) {
			const res = await post(url, headers, body);
			expect({ name, status: res.status }).toEqual({ name, status: 401 });
			expect(JSON.parse(res.body)).toMatchObject({ error: 'invalid_signature' });
		}
		expect(n8n.requests.every((r) => !r.started && r.result?.noWebhookResponse === true)).toBe(
			true,
		);
		await n8n.settle();
		expect(n8n.runs).toHaveLength(0);

		// one good entry among bad ones (a rotated secret): accepted, runs once
		const g = good();
		const rotated = {
			...g.headers,
			'webhook-signature': `${signed(other, g.body, { id: g.id }).headers['webhook-signature']} ${g.headers['webhook-signature']}`,
		};
		expect((await post(url, rotated, g.body)).status).toBe(200);
		// replayed: answered 2xx, not run twice
		const replay = await post(url, rotated, g.body);
		expect(replay.status).toBe(200);
		expect(JSON.parse(replay.body)).toEqual({ received: true, duplicate: true });
		// the same event re-sent by the service (new timestamp and signature, same id): dropped too
		const resent = signed(secret, g.body, { id: g.id, timestamp: now + 5 });
		expect((await post(url, resent.headers, resent.body)).status).toBe(200);
		await n8n.settle();
		expect(n8n.runs).toHaveLength(1);
		expect(n8n.requests.filter((r) => r.started)).toHaveLength(1);
	});

	test('a signed body that is not a JSON object is refused (4xx) and starts nothing', async () => {
		const n8n = await fakeN8n(automatic(['*']));
		await n8n.activate();
		const secret = String(stored(n8n)?.secret);
		// not JSON: n8n's body parser refuses it (422) before the node runs; JSON but not an
		// object: the node refuses it (400)
		for (const [body, status] of [
			['not json', 422],
			['[1,2]', 400],
			['null', 400],
		] as const) {
			const d = signed(secret, body);
			expect((await post(n8n.productionUrl, d.headers, d.body)).status).toBe(status);
		}
		await n8n.settle();
		expect(n8n.runs).toHaveLength(0);
	});

	test('duplicates arriving at once start one execution', async () => {
		const n8n = await fakeN8n(automatic(['*']));
		await n8n.activate();
		const d = signed(String(stored(n8n)?.secret), eventBody('evt_twice'), { id: 'evt_twice' });
		const results = await Promise.all(
			Array.from({ length: 5 }, async () => await post(n8n.productionUrl, d.headers, d.body)),
		);
		expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
		await n8n.settle();
		expect(n8n.runs).toHaveLength(1);
	});

	test('n8n 1.x queue mode: a duplicate reaching another webhook process is dropped (static data)', async () => {
		const n8n = await fakeN8n(automatic(['*']), true, sb.keys.pro, { n8nMajor: 1 });
		await n8n.activate();
		const d = signed(String(stored(n8n)?.secret), eventBody('evt_x'), { id: 'evt_x' });
		expect((await post(n8n.productionUrl, d.headers, d.body)).status).toBe(200);
		await n8n.settle();
		expect(
			Object.keys((n8n.staticData['node:MediaGen Trigger'] as IDataObject).seen as object),
		).toEqual(['evt_x']);

		// a second webhook process: the node's module loaded afresh (its own, empty memory)
		let Fresh: (new () => MediaGenTrigger) | undefined;
		jest.isolateModules(() => {
			// eslint-disable-next-line @typescript-eslint/no-require-imports
			Fresh = require('../../nodes/MediaGenTrigger/MediaGenTrigger.node').MediaGenTrigger;
		});
		n8n.webhookProcess = new Fresh!().getNodeType(n8n.node.typeVersion);
		const again = await post(n8n.productionUrl, d.headers, d.body);
		expect(JSON.parse(again.body)).toEqual({ received: true, duplicate: true });
		// and a new event still runs in that process
		const e = signed(String(stored(n8n)?.secret), eventBody('evt_y'), { id: 'evt_y' });
		expect((await post(n8n.productionUrl, e.headers, e.body)).status).toBe(200);
		await n8n.settle();
		expect(n8n.runs).toHaveLength(2);
	});

	test('pings are acknowledged without a run unless included', async () => {
		const n8n = await fakeN8n(automatic(['*']));
		await n8n.activate();
		const [endpoint] = await endpoints();
		const delivery = await api('POST', `/webhooks/${endpoint.id}/test`);
		expect(delivery.response_status).toBe(200);
		await n8n.settle();
		expect(n8n.runs).toHaveLength(0);

		n8n.setParameters(automatic(['*'], { includePings: true }));
		await api('POST', `/webhooks/${endpoint.id}/test`);
		await until(() => n8n.runs.length === 1);
		expect(n8n.outputs()[0][0].json.type).toBe('webhook.test');
	});

	test('"Only Event Types" keeps the chosen types; others are acknowledged', async () => {
		const n8n = await fakeN8n(automatic(['*'], { onlyEventTypes: ['generation.failed'] }));
		await n8n.activate();
		await generate();
		await until(() => sb.control.deliveries().length === 1);
		await n8n.settle();
		expect(n8n.runs).toHaveLength(0);
		expect(sb.control.deliveries()[0].responseStatus).toBe(200);
		await generate({ sandbox: { durationMs: 20, fail: 'model overloaded' } });
		await until(() => n8n.runs.length === 1);
		expect(n8n.outputs()[0][0].json).toMatchObject({
			type: 'generation.failed',
			data: { status: 'failed', error: expect.objectContaining({ message: 'model overloaded' }) },
		});
	});

	test('manual mode: an endpoint made by hand and a pasted secret', async () => {
		const n8n = await fakeN8n({ registration: 'manual', signingSecret: 'whsec_placeholder' });
		const made = await api('POST', '/webhooks', {
			url: n8n.productionUrl,
			events: ['generation.completed'],
		});
		n8n.setParameters({ registration: 'manual', signingSecret: made.secret });
		await n8n.activate();
		await generate();
		await until(() => n8n.runs.length === 1);
		expect(n8n.outputs()[0][0].json.type).toBe('generation.completed');

		// a wrong pasted secret: refused with 401 (the service retries, nothing runs)
		n8n.setParameters({
			registration: 'manual',
			signingSecret: `whsec_${Buffer.alloc(24, 1).toString('base64')}`,
		});
		await generate();
		await until(() => sb.control.deliveries().some((d) => d.responseStatus === 401));
		await n8n.settle();
		expect(n8n.runs).toHaveLength(1);
		expect((await endpoints()).map((e) => e.id)).toEqual([made.id]);
	});

	test('the secret never appears in outputs, answers or logs', async () => {
		const n8n = await fakeN8n(automatic(['*']));
		await n8n.activate();
		const secret = String(stored(n8n)?.secret);
		const key = secret.slice('whsec_'.length);
		await generate();
		await generate({ sandbox: { durationMs: 20, fail: true } });
		const bad = signed(`whsec_${Buffer.alloc(24, 9).toString('base64')}`, eventBody('evt_b'));
		await post(n8n.productionUrl, bad.headers, bad.body);
		await until(() => n8n.runs.length === 2);
		await n8n.settle();
		const everything = JSON.stringify({
			runs: n8n.runs,
			answers: n8n.requests.map((r: ReceivedRequest) => r.response),
			logs,
		});
		expect(everything).not.toContain(key);
		expect(logs.some((line) => line.includes('refused a request (401)'))).toBe(true);
	});

	// how fast answers are is benchmark B6's business (bench/README.md), not a test's
	test('200 verified events in a row: each answered 200, each runs once', async () => {
		const n8n = await fakeN8n(automatic(['*']));
		await n8n.activate();
		const secret = String(stored(n8n)?.secret);
		for (let i = 0; i < 200; i++) {
			const d = signed(secret, eventBody(`evt_perf_${i}`), { id: `evt_perf_${i}` });
			const res = await fetch(n8n.productionUrl, {
				method: 'POST',
				headers: d.headers,
				body: d.body,
			});
			await res.text();
			expect(res.status).toBe(200);
		}
		await n8n.settle();
		expect(n8n.runs).toHaveLength(200);
		expect(n8n.requests.map((r) => r.status)).toEqual(Array(200).fill(200));
	});
});

/**
 * Signs and posts an export.completed event for `assetId` (the sandbox does not run editor
 * exports: the event is signed here, as the service would), and returns the run's item.
 */
async function deliverExport(n8n: FakeN8n, assetId: string, id: string) {
	const d = signed(
		String(stored(n8n)?.secret),
		JSON.stringify({
			id,
			type: 'export.completed',
			created_at: new Date().toISOString(),
			workspace_id: 'ws',
			data: { asset_id: assetId },
		}),
		{ id },
	);
	expect((await post(n8n.productionUrl, d.headers, d.body)).status).toBe(200);
	await until(() => n8n.runs.length === 1);
	return n8n.outputs()[0][0];
}

describe('binary outputs', () => {
	test('generation outputs arrive as binary; the answer does not wait for the download', async () => {
		const n8n = await fakeN8n(automatic(['generation.completed'], { downloadFiles: true }));
		await n8n.activate();
		// slow file server: the downloads are held until the trigger has answered (the answer must
		// not wait for them), then let go
		sb.control.addFault({
			kind: 'delay',
			method: 'GET',
			path: '^/files/',
			delayMs: 600_000,
			count: 10,
		});
		const generation = await generate({ count: 2 });
		await until(() => n8n.requests.length === 1 && n8n.requests[0].answeredAt > 0);
		sb.control.clearFaults(); // downloads not started yet go at once,
		sb.control.releaseDelays(); // and the held ones now
		await until(() => n8n.runs.length === 1);
		const [item] = n8n.outputs()[0];
		expect(item.json.downloadErrors).toBeUndefined();
		expect(Object.keys(item.binary ?? {}).sort()).toEqual(['data', 'data_1']);
		expect(item.binary?.data).toMatchObject({ mimeType: 'image/png' });
		const outputs = (item.json.data as IDataObject).outputs as IDataObject[];
		expect(outputs).toHaveLength(2);
		expect((item.json.data as IDataObject).id).toBe(generation.id);
		const request = n8n.requests[0];
		expect(request.status).toBe(200);
		// answered while the downloads were held: an order, not a time bound
		const [download] = sb.control.requests({ method: 'GET', path: '^/files/' });
		expect(request.answeredAt).toBeLessThan(Date.parse(download.time));
		// the bytes are the asset's bytes
		sb.control.clearFaults();
		for (const [index, output] of outputs.entries()) {
			const link = await api('GET', `/assets/${String(output.asset_id)}/download`);
			const bytes = Buffer.from(await (await fetch(link.url)).arrayBuffer());
			const property = index === 0 ? 'data' : `data_${index}`;
			const binary = item.binary![property];
			const stored = binary.id
				? bytes // filesystem mode would keep an id; the harness runs n8n's in-memory mode
				: Buffer.from(binary.data, 'base64');
			expect(stored.equals(bytes)).toBe(true);
			expect(binary.fileName).toBe(link.filename);
		}
	});

	test('export.completed: the new asset is downloaded too', async () => {
		const n8n = await fakeN8n(
			automatic(['export.completed'], { downloadFiles: true, binaryPropertyName: 'video' }),
		);
		await n8n.activate();
		const asset = sb.control.createLargeAsset({
			size: 4096,
			filename: 'export.mp4',
			mimeType: 'video/mp4',
			workspace: 'main',
		});
		const item = await deliverExport(n8n, asset.id, 'evt_export');
		expect(Object.keys(item.binary ?? {})).toEqual(['video']);
		expect(item.binary?.video).toMatchObject({ fileName: 'export.mp4', mimeType: 'video/mp4' });
	});

	test('a failed download keeps the event and says what is missing', async () => {
		const n8n = await fakeN8n(automatic(['*'], { downloadFiles: true }));
		await n8n.activate();
		const missing = '00000000-0000-4000-8000-000000000000';
		const d = signed(
			String(stored(n8n)?.secret),
			eventBody('evt_missing', 'generation.completed', {
				outputs: [{ asset_id: missing, kind: 'image' }],
			}),
			{ id: 'evt_missing' },
		);
		expect((await post(n8n.productionUrl, d.headers, d.body)).status).toBe(200);
		await until(() => n8n.runs.length === 1);
		const [item] = n8n.outputs()[0];
		expect(item.binary).toBeUndefined();
		expect(item.json.downloadErrors).toEqual([
			{ asset_id: missing, message: expect.stringMatching(/not found/i) },
		]);
	});
});

describe("Include Generation Context: the generation's context comes back with its event", () => {
	const start = (context: IDataObject, params: IDataObject = {}) =>
		api('POST', '/generations', {
			modelId: 'sandbox-image',
			prompt: 'a lighthouse at dusk',
			params: { sandbox: { durationMs: 20 }, ...params },
			context,
		});
	const reads = (id: string) => sb.control.requests({ method: 'GET', path: `/generations/${id}$` });

	test.each([1, 2, 3])(
		'version %s: completed and failed events carry the context as it is; the event data is unchanged',
		async (typeVersion) => {
			const n8n = await fakeN8n(
				automatic(['generation.completed', 'generation.failed'], { includeContext: true }),
				false,
				sb.keys.pro,
				{ typeVersion },
			);
			await n8n.activate();
			const context = { reference: 'row-7', sheet: { name: 'Renders', row: 7 } };
			const done = await start(context);
			const failed = await start(
				{ reference: 'row-8' },
				{ sandbox: { durationMs: 20, fail: 'no' } },
			);
			await until(() => n8n.runs.length === 2);
			const items = n8n.outputs().map((o) => o[0].json);
			const byId = (id: string) => items.find((i) => (i.data as IDataObject).id === id)!;
			expect(byId(done.id)).toMatchObject({ type: 'generation.completed', context });
			expect(byId(failed.id)).toMatchObject({
				type: 'generation.failed',
				context: { reference: 'row-8' },
				data: { status: 'failed', error: { code: 'generation_failed', message: 'no' } },
			});
			// the event's data is the 9-field record as signed, without the context
			expect(Object.keys(byId(done.id).data as IDataObject).sort()).toEqual(
				[
					'credits_charged',
					'error',
					'id',
					'mode',
					'model_id',
					'outputs',
					'project_id',
					'status',
					'tool',
				].sort(),
			);
			expect(reads(done.id)).toHaveLength(1);
			expect(reads(failed.id)).toHaveLength(1);
			// answered before the read, as for downloads
			for (const r of n8n.requests) expect(r.status).toBe(200);
		},
	);

	test('off (the default): no context and no read of the generation', async () => {
		const n8n = await fakeN8n(automatic(['generation.completed']));
		await n8n.activate();
		const g = await start({ reference: 'row-1' });
		await until(() => n8n.runs.length === 1);
		expect(n8n.outputs()[0][0].json).not.toHaveProperty('context');
		expect(reads(g.id)).toHaveLength(0);
	});

	test('a generation without context gives {}; a failed read keeps the event and says why', async () => {
		const n8n = await fakeN8n(automatic(['generation.completed'], { includeContext: true }));
		await n8n.activate();
		await generate();
		await until(() => n8n.runs.length === 1);
		expect(n8n.outputs()[0][0].json.context).toEqual({});

		sb.control.addFault({
			kind: 'fail',
			method: 'GET',
			path: '/generations/[^/]+$',
			status: 404,
			count: 1,
		});
		await generate();
		await until(() => n8n.runs.length === 2);
		const item = n8n.outputs()[1][0].json;
		expect(item.context).toBeNull();
		expect(String(item.contextError)).toMatch(/not found/i);
		expect(item.data).toMatchObject({ status: 'completed' });
	});

	test('other events get no context', async () => {
		const n8n = await fakeN8n(automatic(['export.completed'], { includeContext: true }));
		await n8n.activate();
		const asset = sb.control.createLargeAsset({ size: 16, workspace: 'main' });
		const item = await deliverExport(n8n, asset.id, 'evt_ctx_export');
		expect(item.json).not.toHaveProperty('context');
		expect(sb.control.requests({ method: 'GET', path: '/generations' })).toHaveLength(0);
	});
});

describe('version 3: manual mode reads its secrets from the MediaGen Webhook Secret credential', () => {
	const manual = { registration: 'manual' };

	test('production secret for the Production URL, test secret for the Test URL; none in the workflow', async () => {
		const production = await api('POST', '/webhooks', {
			url: 'https://example.com/p',
			events: ['*'],
		});
		const test = await api('POST', '/webhooks', { url: 'https://example.com/t', events: ['*'] });
		const n8n = await fakeN8n(manual, false, sb.keys.pro, {
			typeVersion: 3,
			secrets: { productionSecret: production.secret, testSecret: test.secret },
		});
		sb.control.clearRequests();
		await n8n.activate();
		await n8n.listen();

		const deliver = async (url: string, secret: string) => {
			const d = signed(secret, eventBody(`evt_${Math.random().toString(16).slice(2)}`));
			return (await post(url, d.headers, d.body)).status;
		};
		// each URL accepts only its own secret (n8n stops listening after the first test execution)
		expect(await deliver(n8n.productionUrl, test.secret)).toBe(401);
		expect(await deliver(n8n.testUrl, production.secret)).toBe(401);
		expect(await deliver(n8n.productionUrl, production.secret)).toBe(200);
		expect(await deliver(n8n.testUrl, test.secret)).toBe(200);
		await n8n.settle();
		expect(n8n.runs).toHaveLength(2);
		expect(n8n.requests.map((r) => [r.test, r.status, r.started])).toEqual([
			[false, 401, false],
			[true, 401, false],
			[false, 200, true],
			[true, 200, true],
		]);
		// nothing registered, and no secret in what n8n saves of the workflow
		expect(sb.control.requests({})).toHaveLength(0);
		const saved = JSON.stringify({ workflow: n8n.workflowData(), staticData: n8n.staticData });
		expect(saved).not.toContain('whsec_');
	});

	test('no test secret: listening for a test event is refused with a clear message', async () => {
		const production = await api('POST', '/webhooks', {
			url: 'https://example.com/p',
			events: ['*'],
		});
		const n8n = await fakeN8n(manual, false, sb.keys.pro, {
			typeVersion: 3,
			secrets: { productionSecret: production.secret },
		});
		await n8n.activate();
		const error = await n8n.listen().catch((e: Error) => e);
		expect((error as Error).message).toBe(
			'The Test Signing Secret of the credential must be the whsec_ secret MediaGen showed when the endpoint was created',
		);
	});

	test('an unusable production secret stops activation without echoing it', async () => {
		const n8n = await fakeN8n(manual, false, sb.keys.pro, {
			typeVersion: 3,
			secrets: { productionSecret: 'not-a-secret-value' },
		});
		const error = await n8n.activate().catch((e: Error) => e);
		expect((error as Error).message).toMatch(/^The Production Signing Secret of the credential/);
		expect(JSON.stringify(error)).not.toContain('not-a-secret-value');
	});

	test('version 1 keeps working with the pasted secret (as version 2 does above)', async () => {
		const made = await api('POST', '/webhooks', { url: 'https://example.com/v1', events: ['*'] });
		const n8n = await fakeN8n({ ...manual, signingSecret: made.secret }, false, sb.keys.pro, {
			typeVersion: 1,
		});
		await n8n.activate();
		const d = signed(made.secret, eventBody('evt_v1'), { id: 'evt_v1' });
		expect((await post(n8n.productionUrl, d.headers, d.body)).status).toBe(200);
		const bad = signed(`whsec_${Buffer.alloc(24, 2).toString('base64')}`, eventBody('evt_v1b'));
		expect((await post(n8n.productionUrl, bad.headers, bad.body)).status).toBe(401);
		await n8n.settle();
		expect(n8n.runs).toHaveLength(1);
	});
});

describe('trigger downloads are capped (they run in the webhook request)', () => {
	const saved = TRIGGER_DOWNLOADS.maxBytes;
	afterEach(() => {
		TRIGGER_DOWNLOADS.maxBytes = saved;
	});

	test('a file above the cap is not fetched; the item says why and what to do', async () => {
		TRIGGER_DOWNLOADS.maxBytes = 1000;
		const n8n = await fakeN8n(automatic(['export.completed'], { downloadFiles: true }));
		await n8n.activate();
		const asset = sb.control.createLargeAsset({
			size: 4096,
			filename: 'big.mp4',
			workspace: 'main',
		});
		sb.control.clearRequests();
		const item = await deliverExport(n8n, asset.id, 'evt_big');
		expect(item.binary).toBeUndefined();
		expect(item.json.downloadErrors).toEqual([
			{
				asset_id: asset.id,
				message: `Download of asset ${asset.id} refused: the file is 4096 bytes, 1000 allowed`,
			},
		]);
		expect(sb.control.requests({ path: '^/files/' })).toHaveLength(0);
	});
});

describe('a managed endpoint whose secret was rotated elsewhere is repaired', () => {
	// each test has an endpoint of its own, so the once-a-minute check applies per test
	expect(SECRET_REPAIR.minIntervalMs).toBe(60_000);

	test("MediaGen's retry of the failed delivery verifies after the node sets a new secret", async () => {
		const n8n = await fakeN8n(automatic(['generation.completed']));
		await n8n.activate();
		const id = String(stored(n8n)?.id);
		const mine = String(stored(n8n)?.secret);
		// Webhook → Rotate Secret, done elsewhere: the node's secret is now wrong
		const elsewhere = String((await api('POST', `/webhooks/${id}/rotate-secret`)).secret);
		logs.length = 0;
		sb.control.clearRequests();

		await generate();
		await until(() => n8n.runs.length === 1);
		expect(n8n.outputs()[0][0].json.type).toBe('generation.completed');
		// the first attempt was refused, the node rotated once, a later attempt was accepted
		// refused until the node has stored its new secret (the sandbox retries after 30 ms here),
		// then accepted; one check, one rotation
		const attempts = await until(() => {
			const sent = sb.control.deliveries().filter((d) => d.webhookId === id);
			return sent.some((d) => d.responseStatus === 200) ? sent : undefined;
		});
		const statuses = attempts?.map((d) => d.responseStatus) ?? [];
		expect(statuses[0]).toBe(401);
		expect(statuses.slice(1)).toEqual([...Array(statuses.length - 2).fill(401), 200]);
		// one check (a second look when the refused attempt was not in the log yet), one rotation
		const looks = sb.control.requests({ method: 'GET', path: '/deliveries$' }).length;
		expect(looks === 1 || looks === 2).toBe(true);
		expect(sb.control.requests({ method: 'POST', path: '/rotate-secret$' })).toHaveLength(1);
		const now = String(stored(n8n)?.secret);
		expect([mine, elsewhere]).not.toContain(now);
		expect(logs.filter((l) => l.includes('a secret the node did not have'))).toHaveLength(1);
		for (const secret of [mine, elsewhere, now])
			expect(logs.join('\n')).not.toContain(secret.slice(6));
	});

	test('a forged request (its id is not a MediaGen delivery) rotates nothing', async () => {
		const n8n = await fakeN8n(automatic(['generation.completed']));
		await n8n.activate();
		const secret = String(stored(n8n)?.secret);
		sb.control.clearRequests();
		const forged = signed(
			`whsec_${Buffer.alloc(24, 9).toString('base64')}`,
			eventBody('evt_forged'),
			{
				id: 'evt_forged',
			},
		);
		expect((await post(n8n.productionUrl, forged.headers, forged.body)).status).toBe(401);
		await n8n.settle();
		expect(n8n.runs).toHaveLength(0);
		expect(sb.control.requests({ method: 'GET', path: '/deliveries$' })).toHaveLength(1);
		expect(sb.control.requests({ method: 'POST', path: '/rotate-secret$' })).toHaveLength(0);
		expect(stored(n8n)?.secret).toBe(secret);
	});

	test('forged requests cost at most one check per interval', async () => {
		const n8n = await fakeN8n(automatic(['generation.completed']));
		await n8n.activate();
		sb.control.clearRequests();
		for (let i = 0; i < 5; i++) {
			const forged = signed(
				`whsec_${Buffer.alloc(24, 9).toString('base64')}`,
				eventBody(`evt_f${i}`),
			);
			expect((await post(n8n.productionUrl, forged.headers, forged.body)).status).toBe(401);
		}
		await n8n.settle();
		expect(sb.control.requests({ method: 'GET', path: '/deliveries$' })).toHaveLength(1);
	});
});
