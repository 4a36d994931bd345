/**
 * MediaGen Canvas through n8n-core's engine against the sandbox: templates, workflows (graph
 * validated field by field before any request, versions), share and import, estimate, runs
 * (wait, Max Credits, expected credits from the estimate, a failing node then retry, cancel).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { MediaGenCanvas } from '../../nodes/MediaGenCanvas/MediaGenCanvas.node';
import type { TestNode } from '../harness/engine/harness';
import { chain, startWorkflow } from '../harness/engine/harness';
import { until } from '../harness/sandbox/helpers';
import { fastJobs, nodeFactory, rl, useSandbox } from '../harness/engine/setup';

const canvas = nodeFactory(new MediaGenCanvas());
const { sb, creds, flow, runOne } = useSandbox();
fastJobs();

const run = (parameters: INodeParameters, node: Partial<TestNode> = {}, items?: IDataObject[]) =>
	runOne(canvas('Canvas', parameters, node), items);

const balance = () => sb.control.credits('main').balance;

const node = (id: string, type: string, data: IDataObject = {}) => ({
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
/** prompt → image a → video b → output; b fails when asked. */
const graph = (failB = false) => ({
	nodes: [
		node('p', 'prompt', { text: 'a fox in the snow' }),
		node('a', 'image_gen'),
		node('b', 'video_gen', {
			params: { duration: 2 },
			...(failB ? { sandbox: { fail: 'model overloaded' } } : {}),
		}),
		node('out', 'output'),
	],
	edges: [edge('e1', 'p', 'a'), edge('e2', 'a', 'b'), edge('e3', 'b', 'out')],
	viewport: { x: 0, y: 0, zoom: 1 },
});

async function workflowWith(g: IDataObject): Promise<string> {
	const { out, error } = await flow([
		canvas('Create', { resource: 'workflow', operation: 'create', name: 'Flow' }),
		canvas('Save', {
			resource: 'workflow',
			operation: 'update',
			canvasWorkflowId: rl('={{ $json.id }}'),
			updateFields: { graph: JSON.stringify(g), version: '={{ $json.version }}' },
		}),
	]).then((r) => ({ out: r.json('Save'), error: r.error }));
	expect(error).toBeUndefined();
	return String(out[0].id);
}

describe('template and workflow', () => {
	test('templates; create from a template, get, update the graph, get many', async () => {
		const t = await run({ resource: 'template', operation: 'getAll', returnAll: true });
		expect(t.out.map((x) => x.id)).toEqual(['text-to-image', 'image-to-video', 'voiceover']);

		const r = await flow([
			canvas('Create', {
				resource: 'workflow',
				operation: 'create',
				name: 'Launch',
				additionalFields: { templateId: 'text-to-image', description: 'Spring launch' },
			}),
			canvas('Get', {
				resource: 'workflow',
				operation: 'get',
				canvasWorkflowId: rl('={{ $json.id }}'),
			}),
			canvas('Update', {
				resource: 'workflow',
				operation: 'update',
				canvasWorkflowId: rl('={{ $json.id }}'),
				updateFields: {
					name: 'Launch v2',
					visibility: 'workspace',
					version: '={{ $json.version }}',
					graph: JSON.stringify({
						nodes: [
							{ id: 'p', type: 'prompt', position: { x: 0, y: 0 } },
							{ id: 'a', type: 'image_gen', position: { x: 300, y: 0 } },
						],
						edges: [{ id: 'e', source: 'p', target: 'a', targetHandle: 'prompt' }],
					}),
				},
			}),
		]);
		expect(r.error).toBeUndefined();
		expect(r.json('Create')[0]).toMatchObject({
			name: 'Launch',
			description: 'Spring launch',
			templateId: 'text-to-image',
			version: 1,
		});
		expect((r.json('Get')[0].validation as IDataObject).valid).toBe(true);
		const updated = r.json('Update')[0];
		expect(updated).toMatchObject({ name: 'Launch v2', visibility: 'workspace', version: 2 });
		// The spec default data = {} is filled in for each node.
		expect((updated.graph as { nodes: IDataObject[] }).nodes[0].data).toEqual({});
		const [saveRequest] = sb.control.requests({ method: 'PATCH' });
		expect(saveRequest.status).toBe(200);

		const list = await run({ resource: 'workflow', operation: 'getAll', limit: 5 });
		expect(list.out.map((w) => w.name)).toEqual(['Launch v2']);
	});

	test('a bad graph is refused before any request, naming the field', async () => {
		const bad = async (g: unknown, version = 1) => {
			sb.control.clearRequests();
			const { error } = await run({
				resource: 'workflow',
				operation: 'update',
				canvasWorkflowId: rl('0b6e8a4c-1f0d-4d5e-9a7b-2c3d4e5f6a7b'),
				updateFields: { graph: JSON.stringify(g), version },
			});
			expect(sb.control.requests()).toHaveLength(0);
			return error?.message;
		};
		expect(await bad({ nodes: [node('a', 'robot')], edges: [edge('e', 'a', 'a')] })).toMatch(
			/^Graph\.nodes\[0\]\.type must be one of .*got 'robot'/,
		);
		expect(
			await bad({ nodes: [node('x'.repeat(61), 'prompt')], edges: [edge('e', 'a', 'a')] }),
		).toMatch(/^Graph\.nodes\[0\]\.id must be at most 60 characters, got 61/);
		expect(
			await bad({ nodes: [{ id: 'a', type: 'prompt' }], edges: [edge('e', 'a', 'a')] }),
		).toMatch(/Graph\.nodes\[0\]\.position is required/);
		expect(
			await bad({ nodes: [node('a', 'prompt')], edges: [{ id: 'e', source: 'a', target: 'b' }] }),
		).toMatch(/Graph\.edges\[0\]\.targetHandle is required/);
		const one = { nodes: [node('a', 'prompt')], edges: [edge('e', 'a', 'a')] };
		expect(await bad({ ...one, viewport: { x: 0, y: 0 } })).toMatch(
			/Graph\.viewport\.zoom is required/,
		);
		expect(await bad({ edges: [] })).toMatch(/Graph\.nodes is required/);
		expect(await bad(one, 0)).toMatch(/^Version must be .*1/);
		// `*` on a list asks for the list, not for entries: an empty graph is sent (the id is unknown: 404)
		const empty = await run({
			resource: 'workflow',
			operation: 'update',
			canvasWorkflowId: rl('0b6e8a4c-1f0d-4d5e-9a7b-2c3d4e5f6a7b'),
			updateFields: { graph: JSON.stringify({ nodes: [], edges: [] }), version: 1 },
		});
		expect(empty.error?.message).toMatch(/^Not found/);
	});

	test('edge rules the form cannot check come back from the service as a 422', async () => {
		const id = await workflowWith(graph());
		const { error } = await run({
			resource: 'workflow',
			operation: 'update',
			canvasWorkflowId: rl(id),
			updateFields: {
				version: 2,
				graph: JSON.stringify({ nodes: [node('a', 'prompt')], edges: [edge('e', 'a', 'ghost')] }),
			},
		});
		expect(error?.description ?? error?.message).toMatch(/graph\.edges\.0\.target/);
	});

	test('a stale version is a conflict', async () => {
		const id = await workflowWith(graph());
		const { error } = await run({
			resource: 'workflow',
			operation: 'update',
			canvasWorkflowId: rl(id),
			updateFields: { graph: JSON.stringify(graph()), version: 1 },
		});
		expect(`${error?.message} ${error?.description}`).toMatch(/version/i);
		expect(sb.control.requests({ method: 'PATCH' }).map((r) => r.status)).toEqual([200, 409]);
	});

	test('duplicate, share on, import by token, share off, delete', async () => {
		const id = await workflowWith(graph());
		const r = await flow([
			canvas('Duplicate', {
				resource: 'workflow',
				operation: 'duplicate',
				canvasWorkflowId: rl(id),
			}),
			canvas('Share', {
				resource: 'workflow',
				operation: 'share',
				canvasWorkflowId: rl(id),
				on: true,
			}),
			canvas('Import', {
				resource: 'workflow',
				operation: 'import',
				token: '={{ $json.shareToken }}',
			}),
			canvas('Unshare', {
				resource: 'workflow',
				operation: 'share',
				canvasWorkflowId: rl(id),
				on: false,
			}),
			canvas('Delete', {
				resource: 'workflow',
				operation: 'delete',
				canvasWorkflowId: rl("={{ $('Duplicate').item.json.id }}"),
			}),
		]);
		expect(r.error).toBeUndefined();
		expect(r.json('Duplicate')[0]).toMatchObject({ name: 'Flow (copy)', duplicatedFrom: id });
		expect(r.json('Share')[0]).toMatchObject({ shared: true });
		expect(r.json('Import')[0]).toMatchObject({ name: 'Flow', importedFrom: id, version: 1 });
		expect(r.json('Unshare')[0]).toMatchObject({ shared: false, shareToken: null });
		expect(r.json('Delete')[0]).toMatchObject({ deleted: true });
		const all = await run({ resource: 'workflow', operation: 'getAll', returnAll: true });
		expect(all.out).toHaveLength(2);
	});
});

describe('run', () => {
	test('estimate, then start with the estimate as expected credits: waits and returns the outputs', async () => {
		const id = await workflowWith(graph());
		const before = balance();
		const r = await flow([
			canvas('Estimate', { resource: 'workflow', operation: 'estimate', canvasWorkflowId: rl(id) }),
			canvas('Start', {
				resource: 'run',
				operation: 'start',
				canvasWorkflowId: rl(id),
				additionalFields: { expectedCredits: '={{ $json.credits }}' },
				returnAs: 'both',
			}),
			canvas('Runs', {
				resource: 'run',
				operation: 'getAll',
				canvasWorkflowId: rl(id),
				returnAll: true,
			}),
			canvas('Get', { resource: 'run', operation: 'get', runId: '={{ $json.id }}' }),
		]);
		expect(r.error).toBeUndefined();
		expect(r.json('Estimate')[0].credits).toBe(4 + 28);
		const started = r.items('Start')[0];
		expect(started.json).toMatchObject({ status: 'completed', credits_charged: 32 });
		expect(started.binary?.data).toMatchObject({ mimeType: 'video/mp4' });
		expect(sb.control.requests({ method: 'POST', path: '/runs$' })).toHaveLength(1);
		expect(r.json('Runs').map((x) => x.id)).toEqual([started.json.id]);
		expect(r.json('Get')[0]).toMatchObject({ id: started.json.id, status: 'completed' });
		expect(
			(r.json('Get')[0].nodes as IDataObject[]).map((n) => [n.nodeId, n.status, n.credits]),
		).toEqual([
			['p', 'succeeded', 0],
			['a', 'succeeded', 4],
			['b', 'succeeded', 28],
			['out', 'succeeded', 0],
		]);
		expect(balance()).toBe(before - 32);
	});

	test('without expected credits the node estimates first and confirms the run with it', async () => {
		const id = await workflowWith(graph());
		const r = await run({ resource: 'run', operation: 'start', canvasWorkflowId: rl(id) });
		expect(r.error).toBeUndefined();
		expect(r.out[0]).toMatchObject({ status: 'completed', credits_charged: 32 });
		expect(sb.control.requests({ method: 'POST', path: '/estimate$' })).toHaveLength(1);
		expect(sb.control.requests({ method: 'POST', path: '/runs$' }).map((x) => x.status)).toEqual([
			201,
		]);
	});

	test('a changed estimate is refused; Max Credits refuses before starting', async () => {
		const id = await workflowWith(graph());
		const wrong = await run({
			resource: 'run',
			operation: 'start',
			canvasWorkflowId: rl(id),
			additionalFields: { expectedCredits: 5 },
		});
		expect(`${wrong.error?.message} ${wrong.error?.description}`).toMatch(/32|estimate/);
		const capped = await run({
			resource: 'run',
			operation: 'start',
			canvasWorkflowId: rl(id),
			options: { maxCredits: 10 },
		});
		expect(capped.error?.message).toMatch(
			/^Estimated cost is 32 credits, above Max Credits \(10\)/,
		);
		expect(sb.control.requests({ method: 'POST', path: '/estimate$' })).toHaveLength(1);
		expect(sb.control.requests({ method: 'POST', path: '/runs$' }).map((x) => x.status)).toEqual([
			409,
		]);
		expect(balance()).toBe(1000);
	});

	test('one failing node: the item fails (continue on fail), failed steps are not charged; retry keeps the succeeded ones', async () => {
		const id = await workflowWith(graph(true));
		const r = await flow([
			canvas(
				'Start',
				{ resource: 'run', operation: 'start', canvasWorkflowId: rl(id) },
				{ continueOnFail: true },
			),
			canvas('Runs', {
				resource: 'run',
				operation: 'getAll',
				canvasWorkflowId: rl(id),
				limit: 1,
			}),
		]);
		expect(r.json('Start')[0].error).toMatch(/failed: Node b failed: model overloaded/);
		const failed = r.json('Runs')[0];
		expect(failed).toMatchObject({ status: 'failed', credits_charged: 4 });
		const steps = failed.nodes as IDataObject[];
		expect(steps.map((n) => n.status)).toEqual(['succeeded', 'succeeded', 'failed', 'skipped']);
		expect(balance()).toBe(1000 - 4);

		const retried = await run({ resource: 'run', operation: 'retry', runId: String(failed.id) });
		expect(retried.error).toBeUndefined();
		expect(retried.out[0]).toMatchObject({ id: failed.id, status: 'completed', attempts: 2 });
		const after = retried.out[0].nodes as IDataObject[];
		expect(after[1].generationId).toBe(steps[1].generationId);
		expect(after.map((n) => n.credits)).toEqual([0, 4, 28, 0]);
		expect(balance()).toBe(1000 - 32);
	});

	test('start without waiting, then cancel: reservations come back', async () => {
		const id = await workflowWith({
			nodes: [node('p', 'prompt', { text: 'slow' }), node('a', 'image_gen')],
			edges: [edge('e', 'p', 'a')],
		});
		sb.control.holdJobs(); // still running when the cancel arrives
		const started = await run({
			resource: 'run',
			operation: 'start',
			canvasWorkflowId: rl(id),
			waitForCompletion: false,
		});
		expect(['queued', 'running']).toContain(started.out[0].status);
		// move the held run on until its image step has reserved credits (a tick or two)
		for (let i = 0; i < 5 && sb.control.credits('main').reserved === 0; i++) sb.control.stepJobs();
		expect(sb.control.credits('main').reserved).toBeGreaterThan(0);
		const cancelled = await run({
			resource: 'run',
			operation: 'cancel',
			runId: String(started.out[0].id),
		});
		expect(cancelled.out[0].status).toBe('cancelled');
		sb.control.releaseJobs();
		expect(balance()).toBe(1000);
		const again = await run(
			{ resource: 'run', operation: 'cancel', runId: String(started.out[0].id) },
			{ continueOnFail: true },
		);
		expect(again.out[0].error).toBeDefined();
	});

	test('Stop while a run is waited for cancels the run at the service: nothing charged', async () => {
		const id = await workflowWith({
			nodes: [
				node('p', 'prompt', { text: 'slow' }),
				node('a', 'image_gen', { sandbox: { durationMs: 600_000 } }),
			],
			edges: [edge('e', 'p', 'a')],
		});
		const started = startWorkflow(
			chain(
				[{}],
				[canvas('Canvas', { resource: 'run', operation: 'start', canvasWorkflowId: rl(id) })],
			),
			{ credentials: creds() },
		);
		// the node is waiting: it has read the run at least once
		await until(
			() => sb.control.requests({ method: 'GET', path: '/canvas/runs/[^/]+$' }).length > 0,
			20_000,
		);
		started.cancel();
		const result = await started.done;
		expect(result.run.status).toBe('canceled');
		const cancels = sb.control.requests({ method: 'POST', path: '/canvas/runs/[^/]+/cancel$' });
		expect(cancels.map((r) => r.status)).toEqual([200]);
		expect(balance()).toBe(1000);
		expect(sb.control.credits('main').reserved).toBe(0);
	});
});
