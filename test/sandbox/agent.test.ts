import { useSandbox } from '../harness/sandbox/helpers';

const { pro, other, readOnly } = useSandbox();

describe('agent', () => {
	it('reports its status and tools', async () => {
		const s = await readOnly('GET', '/agent/status');
		expect(s.status).toBe(200);
		expect(s.body.configured).toBe(true);
		expect(s.body.tools).toEqual(
			expect.arrayContaining([
				expect.objectContaining({ name: 'search_assets', paid: false, credits: 0 }),
				expect.objectContaining({ name: 'generate_image', paid: true, credits: 4 }),
				expect.objectContaining({ name: 'generate_video', paid: true, credits: 40 }),
			]),
		);
	});

	it('sessions: create, list (the caller’s, active), get, archive', async () => {
		const a = await pro('POST', '/agent/sessions', { title: 'Launch' });
		expect(a.status).toBe(201);
		expect(a.body).toMatchObject({ title: 'Launch', status: 'active', messages: [], actions: [] });
		const b = await pro('POST', '/agent/sessions', {});
		expect(b.body.title).toBe('New conversation');
		expect((await pro('POST', '/agent/sessions', { title: 'x'.repeat(121) })).status).toBe(422);
		expect((await readOnly('POST', '/agent/sessions', {})).status).toBe(403);

		const list = await pro('GET', '/agent/sessions?limit=1');
		expect(list.body.data.map((s: { id: string }) => s.id)).toEqual([b.body.id]);
		expect(list.body.nextCursor).toEqual(expect.any(String));
		expect((await readOnly('GET', '/agent/sessions')).body.data).toEqual([]);
		expect((await readOnly('GET', `/agent/sessions/${a.body.id}`)).status).toBe(200);
		expect((await other('GET', `/agent/sessions/${a.body.id}`)).status).toBe(404);

		const archived = await pro('DELETE', `/agent/sessions/${a.body.id}`);
		expect(archived.status).toBe(200);
		expect(archived.body).toMatchObject({ id: a.body.id, status: 'archived' });
		expect((await pro('GET', '/agent/sessions')).body.data).toHaveLength(1);
		expect((await pro('GET', `/agent/sessions/${a.body.id}`)).body.status).toBe('archived');
		const late = await pro('POST', `/agent/sessions/${a.body.id}/messages`, { text: 'hi' });
		expect(late.status).toBe(409);
	});

	it('a message runs free tools and proposes a paid action; reject marks it rejected', async () => {
		const s = (await pro('POST', '/agent/sessions', {})).body;
		const m = await pro('POST', `/agent/sessions/${s.id}/messages`, {
			text: 'Check my credits and make a video of a fox',
		});
		expect(m.status).toBe(200);
		expect(m.body.toolCalls).toEqual([
			{ tool: 'get_credits', input: {}, output: { balance: 1000, reserved: 0 } },
		]);
		expect(m.body.actions).toEqual([
			expect.objectContaining({ tool: 'generate_video', status: 'proposed', credits: 40 }),
		]);
		expect(m.body.messages.map((x: { role: string }) => x.role)).toEqual(['user', 'assistant']);
		expect((await pro('GET', '/credits')).body.balance).toBe(1000);

		const q = await pro('POST', `/agent/sessions/${s.id}/messages`, { text: 'list my projects' });
		expect(q.body.actions).toEqual([]);
		expect(q.body.toolCalls[0].tool).toBe('list_projects');

		const full = await pro('GET', `/agent/sessions/${s.id}`);
		expect(full.body.title).toBe('Check my credits and make a video of a fox');
		expect(full.body.messages).toHaveLength(4);
		expect(full.body.actions).toHaveLength(1);

		const actionId = m.body.actions[0].id;
		expect((await other('POST', `/agent/actions/${actionId}/reject`)).status).toBe(404);
		const r = await pro('POST', `/agent/actions/${actionId}/reject`);
		expect(r.body).toMatchObject({ id: actionId, status: 'rejected' });
		expect((await pro('POST', `/agent/actions/${actionId}/reject`)).status).toBe(409);
		expect((await pro('POST', `/agent/sessions/${s.id}/messages`, { text: '' })).status).toBe(200);
		const long = await pro('POST', `/agent/sessions/${s.id}/messages`, { text: 'x'.repeat(8001) });
		expect(long.status).toBe(422);
		expect((await pro('POST', `/agent/sessions/${s.id}/messages`, {})).status).toBe(422);
	});
});
