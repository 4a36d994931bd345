// Node version 2 refuses requests that would do nothing, before sending (#15); version 1 sends
// them as released. Counted at the sandbox.
import type { INodeParameters } from 'n8n-workflow';

import { MediaGen } from '../../nodes/MediaGen/MediaGen.node';
import { nodeFactory, rl, useSandbox } from '../harness/engine/setup';

const { sb, runOne } = useSandbox({ timeScale: 0.01, allowHttpWebhooks: true });
const mediaGen = nodeFactory(new MediaGen());

const run = async (typeVersion: number, parameters: INodeParameters, items = [{}, {}]) =>
	await runOne(mediaGen('MediaGen', parameters, { typeVersion }), items);

const sent = (method: string, path: string) =>
	sb.control.requests({ method }).filter((r) => r.path.endsWith(path)).length;

const webhookCreate = { resource: 'webhook', operation: 'create', url: 'http://127.0.0.1:9/hook' };

// n8n itself stops a run whose required multi-select is empty on the form; an expression that
// gives an empty list (say, the events of an earlier item) reaches the node.
const noEvents = '={{ [] }}';

test('version 2: Webhook → Create with no events is refused by name, nothing sent', async () => {
	const result = await run(2, { ...webhookCreate, events: noEvents });
	expect(result.error?.message).toBe('Events needs at least one entry: choose one or more');
	expect(result.error?.description).toMatch(/Item 1 of 2.*Nothing was sent to MediaGen/s);
	expect(sent('POST', '/webhooks')).toBe(0);
});

test('version 1 keeps sending it, as released', async () => {
	const result = await run(1, { ...webhookCreate, events: noEvents }, [{}]);
	expect(sent('POST', '/webhooks')).toBe(1);
	expect(result.error?.message ?? '').not.toMatch(/needs at least one entry/);
});

test('version 2: an Update with no field added is refused, nothing sent; version 1 sends the PATCH', async () => {
	const created = await run(2, { resource: 'project', operation: 'create', name: 'P' }, [{}]);
	const projectId = rl(String(created.out[0].id));
	const update = { resource: 'project', operation: 'update', projectId, updateFields: {} };

	const refused = await run(2, update);
	expect(refused.error?.message).toBe(
		'Nothing to update: add at least one field under Update Fields',
	);
	expect(sent('PATCH', `/projects/${created.out[0].id}`)).toBe(0);

	await run(1, update, [{}]);
	expect(sent('PATCH', `/projects/${created.out[0].id}`)).toBe(1);

	const named = await run(2, { ...update, updateFields: { name: 'Renamed' } }, [{}]);
	expect(named.out[0].name).toBe('Renamed');
});
