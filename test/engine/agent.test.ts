/**
 * MediaGen Agent through n8n-core's engine against the sandbox: status, sessions (create, get
 * many, get, archive), send message (free tools run, a paid action proposed), reject action.
 */
import type { IDataObject } from 'n8n-workflow';

import { MediaGenAgent } from '../../nodes/MediaGenAgent/MediaGenAgent.node';
import { nodeFactory, rl, useSandbox } from '../harness/engine/setup';

const agent = nodeFactory(new MediaGenAgent());
const { sb, flow } = useSandbox();

test('status lists the tools', async () => {
	const r = await flow([agent('Status', { resource: 'agent', operation: 'getStatus' })]);
	expect(r.error).toBeUndefined();
	expect(r.json('Status')[0]).toMatchObject({ configured: true });
	expect((r.json('Status')[0].tools as IDataObject[]).some((t) => t.paid === true)).toBe(true);
});

test('create a session, send a message, reject the proposed action, get, archive, get many', async () => {
	const r = await flow([
		agent('Create', {
			resource: 'session',
			operation: 'create',
			additionalFields: { title: 'Spring launch' },
		}),
		agent('Message', {
			resource: 'session',
			operation: 'sendMessage',
			agentSessionId: rl('={{ $json.id }}'),
			text: 'How many credits do I have? Then make a poster image of a fox.',
		}),
		agent('Reject', { resource: 'action', operation: 'reject', id: '={{ $json.actions[0].id }}' }),
		agent('Get', {
			resource: 'session',
			operation: 'get',
			agentSessionId: rl('={{ $json.sessionId }}'),
		}),
		agent('Many', { resource: 'session', operation: 'getAll', returnAll: true }),
		agent('Archive', {
			resource: 'session',
			operation: 'archive',
			agentSessionId: rl("={{ $('Create').item.json.id }}"),
		}),
		agent('After', { resource: 'session', operation: 'getAll', returnAll: true }),
	]);
	expect(r.error).toBeUndefined();
	const sessionId = r.json('Create')[0].id;
	expect(r.json('Create')[0]).toMatchObject({ title: 'Spring launch', status: 'active' });
	const message = r.json('Message')[0];
	expect(message.toolCalls).toEqual([
		{ tool: 'get_credits', input: {}, output: { balance: 1000, reserved: 0 } },
	]);
	expect(message.actions).toEqual([
		expect.objectContaining({ tool: 'generate_image', status: 'proposed', credits: 4 }),
	]);
	expect(r.json('Reject')[0]).toMatchObject({ status: 'rejected', sessionId });
	const got = r.json('Get')[0];
	expect(got.messages).toHaveLength(2);
	expect((got.actions as IDataObject[])[0].status).toBe('rejected');
	expect(r.json('Many').map((s) => s.id)).toEqual([sessionId]);
	expect(r.json('Archive')[0]).toMatchObject({ id: sessionId, status: 'archived' });
	// An empty page gives no items, so the chain stops there.
	expect(r.json('After')).toEqual([]);
	expect(sb.control.credits('main').balance).toBe(1000);
});

test('a message over 8000 characters is refused before any request', async () => {
	const r = await flow([
		agent('Message', {
			resource: 'session',
			operation: 'sendMessage',
			agentSessionId: rl('0b6e8a4c-1f0d-4d5e-9a7b-2c3d4e5f6a7b'),
			text: 'x'.repeat(8001),
		}),
	]);
	expect(r.error?.message).toBe('Text must be at most 8000 characters, got 8001');
	expect(sb.control.requests()).toHaveLength(0);
});

test('continue on fail: an unknown action gives an error item, the others go on', async () => {
	const s = await flow([agent('Create', { resource: 'session', operation: 'create' })]);
	const r = await flow(
		[
			agent(
				'Message',
				{
					resource: 'session',
					operation: 'sendMessage',
					agentSessionId: rl(s.json('Create')[0].id),
					text: '={{ $json.text }}',
				},
				{ continueOnFail: true },
			),
		],
		[{ text: 'render a video clip' }, { text: '' }, { text: 'find my assets' }],
	);
	const out = r.json('Message');
	expect(out[0].actions).toEqual([expect.objectContaining({ tool: 'generate_video' })]);
	expect(out[1].error).toMatch(/required/i);
	expect(out[2].toolCalls).toEqual([expect.objectContaining({ tool: 'search_assets' })]);

	const rejected = await flow(
		[
			agent(
				'Reject',
				{ resource: 'action', operation: 'reject', id: '={{ $json.id }}' },
				{ continueOnFail: true },
			),
		],
		[{ id: (out[0].actions as IDataObject[])[0].id }, { id: 'no-such-action' }],
	);
	const rej = rejected.json('Reject');
	expect(rej[0]).toMatchObject({ status: 'rejected' });
	expect(rej[1].error).toBeDefined();
	expect(rej[1].httpCode).toBe('404');
});
