import { until, useSandbox } from '../harness/sandbox/helpers';

const { sb, pro, other, readOnly } = useSandbox({ timeScale: 0.01, allowHttpWebhooks: true });

const node = (id: string, type: string, data: Record<string, unknown> = {}) => ({
	id,
	type,
	position: { x: 0, y: 0 },
	data,
});
const edge = (id: string, source: string, target: string) => ({
	id,
	source,
	target,
	targetHandle: 'in',
});

/** prompt → image (a) → video (b) → output, plus prompt → image (c) → output. */
const graph = (failB: unknown = undefined) => ({
	nodes: [
		node('p', 'prompt', { text: 'a fox' }),
		node('a', 'image_gen', { modelId: 'flux' }),
		node('b', 'video_gen', {
			params: { duration: 2 },
			...(failB === undefined ? {} : { sandbox: { fail: failB } }),
		}),
		node('c', 'image_gen'),
		node('out', 'output'),
	],
	edges: [
		edge('e1', 'p', 'a'),
		edge('e2', 'a', 'b'),
		edge('e3', 'b', 'out'),
		edge('e4', 'p', 'c'),
		edge('e5', 'c', 'out'),
	],
	viewport: { x: 0, y: 0, zoom: 1 },
});

async function workflow(g = graph()) {
	const c = await pro('POST', '/canvas', { name: 'Flow' });
	expect(c.status).toBe(201);
	const u = await pro('PATCH', `/canvas/${c.body.id}`, { graph: g, version: 1 });
	expect(u.status).toBe(200);
	return u.body;
}

const waitRun = (id: string, statuses = ['completed', 'failed', 'cancelled']) =>
	until(async () => {
		const r = await pro('GET', `/canvas/runs/${id}`);
		return statuses.includes(r.body.status) ? r.body : undefined;
	});

describe('templates and workflows', () => {
	it('lists templates and creates blank or from a template', async () => {
		const t = await pro('GET', '/canvas/templates');
		expect(t.status).toBe(200);
		expect(t.body.data.map((x: { id: string }) => x.id)).toEqual([
			'text-to-image',
			'image-to-video',
			'voiceover',
		]);
		expect(t.body.nextCursor).toBeNull();
		const blank = await pro('POST', '/canvas', { name: 'Blank' });
		expect(blank.status).toBe(201);
		expect(blank.body).toMatchObject({
			name: 'Blank',
			description: '',
			version: 1,
			visibility: 'private',
			graph: { nodes: [], edges: [] },
			validation: { valid: false },
			shared: false,
		});
		const fromT = await pro('POST', '/canvas', { name: 'T', templateId: 'text-to-image' });
		expect(fromT.body.graph.nodes).toHaveLength(3);
		expect(fromT.body.validation).toEqual({ valid: true, issues: [] });
		expect((await pro('POST', '/canvas', { name: 'T', templateId: 'nope' })).status).toBe(404);
		const bad = await pro('POST', '/canvas', { name: 'x'.repeat(121), projectId: 'nope' });
		expect(bad.status).toBe(422);
		expect(bad.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual([
			'name',
			'projectId',
		]);
		const list = await pro('GET', '/canvas?limit=1');
		expect(list.body.data).toHaveLength(1);
		expect(list.body.nextCursor).toEqual(expect.any(String));
		expect((await other('GET', `/canvas/${blank.body.id}`)).status).toBe(404);
		expect((await readOnly('POST', '/canvas', { name: 'x' })).status).toBe(403);
	});

	it('validates the graph field by field and by its edge rules; saves need the current version', async () => {
		const w = (await pro('POST', '/canvas', { name: 'G' })).body;
		const bad = await pro('PATCH', `/canvas/${w.id}`, {
			graph: {
				nodes: [{ id: 'x'.repeat(61), type: 'robot', data: {} }],
				edges: [{ id: 'e', source: 'a' }],
				viewport: { x: 0, y: 0 },
			},
			version: 0,
		});
		expect(bad.status).toBe(422);
		expect(bad.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(
			expect.arrayContaining([
				'graph.nodes.0.id',
				'graph.nodes.0.type',
				'graph.nodes.0.position',
				'graph.edges.0.target',
				'graph.edges.0.targetHandle',
				'graph.viewport.zoom',
				'version',
			]),
		);
		const rules = await pro('PATCH', `/canvas/${w.id}`, {
			graph: {
				nodes: [
					node('a', 'prompt'),
					node('a', 'image_gen'),
					{ ...node('b', 'text'), parentId: 'a' },
				],
				edges: [edge('e1', 'a', 'zzz'), edge('e1', 'b', 'b')],
			},
			version: 1,
		});
		expect(rules.status).toBe(422);
		expect(rules.body.error.details.issues.map((i: { code: string }) => i.code)).toEqual([
			'duplicate_id',
			'invalid_parent',
			'unknown_node',
			'duplicate_id',
			'invalid_edge',
		]);
		const cyc = await pro('PATCH', `/canvas/${w.id}`, {
			graph: {
				nodes: [node('a', 'image_gen'), node('b', 'image_gen')],
				edges: [edge('e1', 'a', 'b'), edge('e2', 'b', 'a')],
			},
			version: 1,
		});
		expect(cyc.body.error.details.issues[0].code).toBe('cycle');
		const noVersion = await pro('PATCH', `/canvas/${w.id}`, { graph: graph() });
		expect(noVersion.status).toBe(422);
		expect(noVersion.body.error.details.issues[0].path).toBe('version');

		const saved = await pro('PATCH', `/canvas/${w.id}`, { graph: graph(), version: 1 });
		expect(saved.body.version).toBe(2);
		expect(saved.body.graph.nodes[0].data).toEqual({ text: 'a fox' });
		const stale = await pro('PATCH', `/canvas/${w.id}`, { graph: graph(), version: 1 });
		expect(stale.status).toBe(409);
		expect(stale.body.error).toMatchObject({
			code: 'version_conflict',
			details: { currentVersion: 2 },
		});
		const renamed = await pro('PATCH', `/canvas/${w.id}`, {
			name: 'Renamed',
			visibility: 'workspace',
		});
		expect(renamed.body).toMatchObject({ name: 'Renamed', visibility: 'workspace', version: 2 });
		expect((await pro('GET', `/canvas/${w.id}`)).body.validation.valid).toBe(true);
	});

	it('duplicates, shares, imports by token and deletes', async () => {
		const w = await workflow();
		const dup = await pro('POST', `/canvas/${w.id}/duplicate`);
		expect(dup.status).toBe(201);
		expect(dup.body).toMatchObject({ name: 'Flow (copy)', version: 1, duplicatedFrom: w.id });
		expect(dup.body.graph).toEqual(w.graph);

		const on = await pro('POST', `/canvas/${w.id}/share`, { on: true });
		expect(on.body).toMatchObject({ shared: true, shareToken: expect.stringMatching(/^cvs_/) });
		expect((await pro('POST', `/canvas/${w.id}/share`, {})).status).toBe(422);
		const imported = await other('POST', '/canvas/import', { token: on.body.shareToken });
		expect(imported.status).toBe(201);
		expect(imported.body).toMatchObject({ name: 'Flow', version: 1, shared: false });
		expect(imported.body.graph).toEqual(w.graph);
		await pro('POST', `/canvas/${w.id}/share`, { on: false });
		expect((await other('POST', '/canvas/import', { token: on.body.shareToken })).status).toBe(404);
		expect((await other('POST', '/canvas/import', { token: 'x'.repeat(65) })).status).toBe(422);

		const del = await pro('DELETE', `/canvas/${w.id}`);
		expect(del.body).toEqual({ id: w.id, deleted: true });
		expect((await pro('GET', `/canvas/${w.id}`)).status).toBe(404);
		expect((await readOnly('DELETE', `/canvas/${dup.body.id}`)).status).toBe(403);
	});
});

describe('estimate and runs', () => {
	it('estimates per node and refuses graphs that cannot run', async () => {
		const w = await workflow();
		const e = await pro('POST', `/canvas/${w.id}/estimate`);
		expect(e.status).toBe(200);
		expect(e.body.credits).toBe(4 + 28 + 4);
		expect(e.body.nodes).toEqual([
			{ nodeId: 'p', type: 'prompt', credits: 0 },
			{ nodeId: 'a', type: 'image_gen', credits: 4 },
			{ nodeId: 'b', type: 'video_gen', credits: 28 },
			{ nodeId: 'c', type: 'image_gen', credits: 4 },
			{ nodeId: 'out', type: 'output', credits: 0 },
		]);
		const blank = (await pro('POST', '/canvas', { name: 'B' })).body;
		const bad = await pro('POST', `/canvas/${blank.id}/estimate`);
		expect(bad.status).toBe(422);
		expect(bad.body.error.details.issues[0].code).toBe('empty_graph');
		expect((await pro('GET', '/credits')).body.balance).toBe(1000);
	});

	it('runs every node, charges the generating ones and emits workflow.completed', async () => {
		const hook = await pro('POST', '/webhooks', {
			url: `${sb.origin}/__sandbox/keys`,
			events: ['workflow.completed', 'workflow.failed'],
		});
		expect(hook.status).toBe(201);
		const w = await workflow();
		const run = await pro('POST', `/canvas/${w.id}/runs`, { expectedCredits: 36 });
		expect(run.status).toBe(201);
		expect(run.body).toMatchObject({ workflowId: w.id, status: 'queued', credits_charged: 0 });
		const done = await waitRun(run.body.id);
		expect(done.status).toBe('completed');
		expect(done.nodes.map((n: { status: string }) => n.status)).toEqual(Array(5).fill('succeeded'));
		expect(done.credits_charged).toBe(36);
		expect(done.outputs).toHaveLength(2);
		expect(done.outputs.map((o: { kind: string }) => o.kind).sort()).toEqual(['image', 'video']);
		expect((await pro('GET', '/credits')).body).toMatchObject({ balance: 964, reserved: 0 });
		const gen = await pro('GET', `/generations/${done.nodes[1].generationId}`);
		expect(gen.body).toMatchObject({ tool: 'canvas', prompt: 'a fox', model_id: 'flux' });
		const b = await pro('GET', `/generations/${done.nodes[3].generationId}`);
		expect(b.body.inputs[0].assetIds).toEqual([gen.body.outputs[0].asset_id]);
		const sent = await until(() =>
			sb.control.deliveries().find((d) => d.body.includes('workflow.completed')),
		);
		expect(JSON.parse(sent?.body ?? '{}').data).toMatchObject({
			id: run.body.id,
			status: 'completed',
		});
		const history = await pro('GET', `/canvas/${w.id}/runs`);
		expect(history.body.data.map((r: { id: string }) => r.id)).toEqual([run.body.id]);
	});

	it('checks expectedCredits and the balance before starting', async () => {
		const w = await workflow();
		const wrong = await pro('POST', `/canvas/${w.id}/runs`, { expectedCredits: 5 });
		expect(wrong.status).toBe(409);
		expect(wrong.body.error).toMatchObject({
			code: 'estimate_changed',
			details: { expectedCredits: 5, credits: 36 },
		});
		expect((await pro('POST', `/canvas/${w.id}/runs`, { expectedCredits: -1 })).status).toBe(422);
		sb.control.setCredits('main', 10);
		const poor = await pro('POST', `/canvas/${w.id}/runs`, {});
		expect(poor.status).toBe(402);
		expect(poor.body.error.details).toEqual({ balance: 10, required: 36 });
		expect((await pro('GET', `/canvas/${w.id}/runs`)).body.data).toEqual([]);
	});

	it('a failing node: not charged, its dependants skipped, workflow.failed; retry keeps the rest', async () => {
		await pro('POST', '/webhooks', {
			url: `${sb.origin}/__sandbox/keys`,
			events: ['workflow.failed'],
		});
		const w = await workflow(graph('model overloaded'));
		const run = (await pro('POST', `/canvas/${w.id}/runs`)).body;
		const failed = await waitRun(run.id);
		expect(failed.status).toBe('failed');
		expect(failed.error).toEqual({
			code: 'step_failed',
			message: 'Node b failed: model overloaded',
		});
		const byNode = Object.fromEntries(
			failed.nodes.map((n: { nodeId: string }) => [n.nodeId, n]),
		) as Record<string, { status: string; credits: number; generationId: string }>;
		expect(byNode.a).toMatchObject({ status: 'succeeded', credits: 4 });
		expect(byNode.c).toMatchObject({ status: 'succeeded', credits: 4 });
		expect(byNode.b).toMatchObject({ status: 'failed', credits: 0 });
		expect(byNode.out.status).toBe('skipped');
		expect(failed.credits_charged).toBe(8);
		expect((await pro('GET', '/credits')).body).toMatchObject({ balance: 992, reserved: 0 });
		await until(() => sb.control.deliveries().find((d) => d.body.includes('workflow.failed')));

		expect((await pro('POST', `/canvas/runs/${run.id}/cancel`)).status).toBe(409);
		const again = await pro('POST', `/canvas/runs/${run.id}/retry`);
		expect(again.status).toBe(200);
		expect(again.body).toMatchObject({ status: 'queued', attempts: 2, error: null });
		const done = await waitRun(run.id);
		expect(done.status).toBe('completed');
		const after = Object.fromEntries(
			done.nodes.map((n: { nodeId: string }) => [n.nodeId, n]),
		) as typeof byNode;
		expect(after.a.generationId).toBe(byNode.a.generationId);
		expect(after.b.generationId).toBe(byNode.b.generationId);
		expect(after.b).toMatchObject({ status: 'succeeded', credits: 28 });
		expect(done.credits_charged).toBe(36);
		expect((await pro('GET', '/credits')).body.balance).toBe(964);
		expect((await pro('GET', `/generations/${after.b.generationId}`)).body.attempts).toBe(2);
		expect((await pro('POST', `/canvas/runs/${run.id}/retry`)).status).toBe(409);
	});

	it('cancel stops running steps and returns their reservations', async () => {
		const w = await workflow({
			nodes: [node('a', 'image_gen', { prompt: 'x' })],
			edges: [],
			viewport: { x: 0, y: 0, zoom: 1 },
		});
		sb.control.holdJobs();
		const run = (await pro('POST', `/canvas/${w.id}/runs`)).body;
		sb.control.stepJobs(); // the run starts its step: one generation, reserved, not done
		expect((await pro('GET', `/canvas/runs/${run.id}`)).body.status).toBe('running');
		expect((await pro('GET', '/credits')).body.reserved).toBe(4);
		const c = await pro('POST', `/canvas/runs/${run.id}/cancel`);
		expect(c.body).toMatchObject({ status: 'cancelled', credits_charged: 0 });
		expect(c.body.nodes[0].status).toBe('cancelled');
		expect((await pro('GET', '/credits')).body).toMatchObject({ balance: 1000, reserved: 0 });
		expect((await other('GET', `/canvas/runs/${run.id}`)).status).toBe(404);
		expect((await pro('GET', '/canvas/runs/nope')).status).toBe(404);
	});

	it('a failing free node fails the run without charging anything downstream', async () => {
		const w = await workflow({
			nodes: [
				node('t', 'text', { text: 'hello', sandbox: { fail: true } }),
				node('a', 'audio_gen'),
			],
			edges: [edge('e', 't', 'a')],
			viewport: { x: 0, y: 0, zoom: 1 },
		});
		const done = await waitRun((await pro('POST', `/canvas/${w.id}/runs`)).body.id);
		expect(done.status).toBe('failed');
		expect(done.nodes.map((n: { status: string }) => n.status)).toEqual(['failed', 'skipped']);
		expect((await pro('GET', '/credits')).body.balance).toBe(1000);
	});
});
