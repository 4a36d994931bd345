/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only code (tests): never published, see package.json "files" */
/**
 * The MediaGen Trigger loses no event when n8n is down (issue #32), in a real n8n (`n8n start` on
 * a fixed port, regular mode, sqlite) with the packed package, against the sandbox, whose
 * delivery schedule (7 retries over 11 hours) is time-scaled. The workflow: MediaGen Trigger
 * (automatic, Generation Completed, Download Files) → HTTP Request, which posts the event's id to
 * a counter in this test: each event must reach it exactly once.
 *
 * - short outage: n8n killed (kill -9) while 20 events happen, started again 20 s later; MediaGen's
 *   own retries reach it;
 * - long outage: n8n killed while 20 events happen, started again after MediaGen gave up on all of
 *   them and disabled the endpoint (11 h scaled to 40 s): on start the trigger enables
 *   the endpoint again and has MediaGen send the 20 deliveries again, with no user action;
 * - bodies n8n cannot hand over (multipart, gzip that is not gzip): 4xx, no execution;
 * - n8n killed while the trigger downloads an event's file: the execution is recorded (crashed);
 *   n8n's Retry finishes it.
 *
 * Runs the same on n8n 1.123.81 (the compatibility matrix). Skipped unless MEDIAGEN_E2E=1; needs
 * a build (`npm run build`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import type { DemoContext } from '../../scripts/demoSetup';
import { PACKAGE_NAME, SANDBOX_CREDENTIAL, setupDemo } from '../../scripts/demoSetup';
import { until } from '../harness/sandbox/helpers';
import type { N8nInstance, N8nOwner, N8nWorkflow } from '../harness/e2e/n8n';
import {
	describeE2E,
	freePort,
	hasBuiltPackage,
	importWorkflows,
	publishWorkflow,
	restOf,
	setupOwner,
	startN8n,
} from '../harness/e2e/n8n';
import { activate } from '../harness/e2e/shapes';
import { triggerSandbox } from '../harness/e2e/triggerSandbox';
import { e2eDemoOptions, MIN } from '../harness/e2e/workflows';

const EVENTS = 20;
/** The sandbox's time scale while the long outage lasts: 11 h of retries in about 40 s. */
const LONG_OUTAGE_SCALE = 0.001;
const TRIGGER_WEBHOOK_ID = '00000000-0000-4000-8000-0000000032a1';

function triggerWorkflow(counterUrl: string): N8nWorkflow & { id: string } {
	return {
		id: 'e2eOutageTrig001',
		name: 'e2e: the trigger through an outage',
		nodes: [
			{
				id: 'e2e-outage-trigger',
				name: 'MediaGen Trigger',
				type: `${PACKAGE_NAME}.mediaGenTrigger`,
				typeVersion: 3,
				position: [0, 0],
				webhookId: TRIGGER_WEBHOOK_ID,
				parameters: {
					registration: 'automatic',
					events: ['generation.completed'],
					options: { downloadFiles: true },
				},
				credentials: { mediaGenApi: SANDBOX_CREDENTIAL },
			},
			{
				id: 'e2e-outage-count',
				name: 'Count',
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				position: [240, 0],
				parameters: {
					method: 'POST',
					url: counterUrl,
					sendBody: true,
					contentType: 'json',
					specifyBody: 'keypair',
					bodyParameters: {
						parameters: [
							{ name: 'event', value: '={{ $json.id }}' },
							{ name: 'files', value: '={{ Object.keys($binary ?? {}).length }}' },
						],
					},
					options: {},
				},
			},
		],
		connections: {
			'MediaGen Trigger': { main: [[{ node: 'Count', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

interface Execution {
	id: string;
	status: string;
	mode: string;
}

describeE2E('the MediaGen Trigger through an outage of n8n (real n8n)', () => {
	let ctx: DemoContext;
	let workDir: string;
	let n8n: N8nInstance | undefined;
	let owner: N8nOwner;
	let port = 0;
	let counter: Server;
	/** Event id → how many executions reached the Count node with it (and its file count). */
	const seen = new Map<string, number[]>();
	const figures: string[] = [];
	const WF = { id: '' };
	let republishedOnce = false;

	beforeAll(async () => {
		if (!hasBuiltPackage())
			throw new Error('dist/ is not built: run `npm run build` first (npm run test:e2e does)');
		counter = createServer((req, res) => {
			let body = '';
			req.on('data', (c: Buffer) => (body += c.toString('utf8')));
			req.on('end', () => {
				const { event, files } = JSON.parse(body || '{}') as { event?: string; files?: number };
				seen.set(String(event), [...(seen.get(String(event)) ?? []), Number(files)]);
				res.end('{}');
			});
		});
		await new Promise<void>((resolve) => counter.listen(0, '127.0.0.1', resolve));
		const counterUrl = `http://127.0.0.1:${(counter.address() as AddressInfo).port}/seen`;
		workDir = mkdtempSync(path.join(tmpdir(), 'mediagen-e2e-outage-'));
		ctx = await setupDemo(e2eDemoOptions(workDir));
		const wf = triggerWorkflow(counterUrl);
		WF.id = wf.id;
		await importWorkflows(ctx.home, [wf]);
		await publishWorkflow(ctx.home, wf.id);
		port = await freePort();
		n8n = await startN8n(ctx.home, port);
		owner = await setupOwner(n8n);
		await until(async () => (await endpoint()) !== undefined, MIN, 1000);
	}, 30 * MIN);

	afterAll(async () => {
		await n8n?.stop();
		await ctx?.close();
		await new Promise<void>((resolve) => (counter ? counter.close(() => resolve()) : resolve()));
		if (workDir) rmSync(workDir, { recursive: true, force: true });
		if (figures.length) {
			// eslint-disable-next-line no-console
			console.log(`[e2e outage] n8n ${ctx?.home.runtime.version}\n${figures.join('\n')}`);
		}
	});

	const sb = () => ctx.sandbox;
	const rest = restOf(
		() => n8n!,
		() => owner,
	);
	const filter = () => encodeURIComponent(JSON.stringify({ workflowId: WF.id }));
	/** The workflow's newest executions (a page of them). */
	const executions = async () =>
		(await rest<{ results: Execution[] }>('GET', `/executions?filter=${filter()}`)).results;
	/** How many executions of the workflow n8n recorded (all of them). */
	const executionCount = async () =>
		(await rest<{ count: number }>('GET', `/executions?filter=${filter()}`)).count;

	const { api, endpoint, deliveries, events } = triggerSandbox(
		sb,
		TRIGGER_WEBHOOK_ID,
		'e2e outage',
	);
	/** Waits until each event reached the counter; then they must have reached it once each. */
	async function reachedOnce(ids: string[], timeoutMs: number) {
		await until(() => ids.every((id) => seen.has(id)), timeoutMs, 250);
		await new Promise((r) => setTimeout(r, 2000)); // a second copy would come now
		expect(ids.map((id) => seen.get(id)?.length)).toEqual(ids.map(() => 1));
	}

	test(
		'short outage: n8n down 20 s, MediaGen’s retries reach it: every event runs once',
		async () => {
			const ep = (await endpoint())!;
			const known = new Set((await deliveries(String(ep.id))).map((d) => String(d.id)));
			const t0 = Date.now();
			await n8n!.kill('SIGKILL');
			const ids = await events(EVENTS, String(ep.id), known);
			await new Promise((r) => setTimeout(r, Math.max(0, 20_000 - (Date.now() - t0))));
			n8n = await startN8n(ctx.home, port);
			const down = Date.now() - t0;
			await reachedOnce(ids, 3 * MIN);
			const back = Date.now() - t0;
			// and one after the restart
			const [next] = await events(1, String(ep.id), known);
			await reachedOnce([next], MIN);
			expect((await endpoint())?.id).toBe(ep.id);
			figures.push(
				`short outage: n8n down ${(down / 1000).toFixed(0)} s, ${EVENTS} events meanwhile, all ${EVENTS} ran once ${(back / 1000).toFixed(0)} s after the kill; 1 event after the restart ran once`,
			);
		},
		10 * MIN,
	);

	test(
		'long outage: past MediaGen’s retries, the endpoint disabled; back up, every event runs once, with no user action',
		async () => {
			const ep = (await endpoint())!;
			const known = new Set((await deliveries(String(ep.id))).map((d) => String(d.id)));
			const t0 = Date.now();
			await n8n!.kill('SIGKILL');
			sb().control.setConfig({ timeScale: LONG_OUTAGE_SCALE });
			const ids = await events(EVENTS, String(ep.id), known);
			await until(
				async () => {
					const all = await deliveries(String(ep.id));
					const mine = all.filter((d) => ids.includes(String(d.event_id)));
					return mine.every((d) => d.status === 'failed');
				},
				3 * MIN,
				2000,
			);
			expect(await endpoint()).toMatchObject({ id: ep.id, status: 'disabled' });
			sb().control.setConfig({ timeScale: 0.02 });
			sb().control.clearRequests();
			const gaveUp = Date.now() - t0;
			n8n = await startN8n(ctx.home, port);
			await reachedOnce(ids, 3 * MIN);
			const back = Date.now() - t0;
			expect(await endpoint()).toMatchObject({ id: ep.id, status: 'active' });
			expect(sb().control.requests({ method: 'PATCH', path: '/webhooks/' })).toHaveLength(1);
			expect(sb().control.requests({ method: 'POST', path: '/retry$' })).toHaveLength(EVENTS);
			expect(sb().control.requests({ method: 'POST', path: '/webhooks$' })).toHaveLength(0);
			const [next] = await events(1, String(ep.id), known);
			await reachedOnce([next], MIN);
			figures.push(
				`long outage: MediaGen gave up on ${EVENTS} events and disabled the endpoint ${(gaveUp / 1000).toFixed(0)} s after the kill (11 h scaled); n8n started again: the endpoint enabled (same id), ${EVENTS} deliveries retried, each event ran once, ${((back - gaveUp) / 1000).toFixed(0)} s after the start; 1 event after it ran once`,
			);
		},
		10 * MIN,
	);

	test('bodies n8n cannot hand over are answered 4xx and start nothing', async () => {
		const before = await executionCount();
		const url = String((await endpoint())!.url);
		const form = new FormData();
		form.append('payload', '{"id":"evt_x"}');
		const multipart = await fetch(url, {
			method: 'POST',
			headers: { 'webhook-id': 'evt_x', 'webhook-timestamp': '1', 'webhook-signature': 'v1,x' },
			body: form,
		});
		const gzip = await fetch(url, {
			method: 'POST',
			headers: { 'content-type': 'application/octet-stream', 'content-encoding': 'gzip' },
			body: 'not gzip at all',
		});
		for (const r of [multipart, gzip]) {
			expect(r.status).toBeGreaterThanOrEqual(400);
			expect(r.status).toBeLessThan(500);
		}
		await new Promise((r) => setTimeout(r, 2000));
		const after = await executionCount();
		expect(after).toBe(before);
		figures.push(
			`hostile bodies: multipart ${multipart.status}, gzip garbage ${gzip.status}; executions before ${before}, after ${after}`,
		);
	});

	test(
		'n8n killed while the trigger downloads an event’s file: the execution is kept, Retry finishes it',
		async () => {
			const ep = (await endpoint())!;
			if (ep.status !== 'active') await api('PATCH', `/webhooks/${ep.id}`, { status: 'active' });
			const known = new Set((await deliveries(String(ep.id))).map((d) => String(d.id)));
			const earlier = new Set((await executions()).map((e) => e.id));
			sb().control.clearRequests();
			sb().control.addFault({ kind: 'delay', method: 'GET', path: '^/files/', delayMs: 2 * MIN });
			const [id] = await events(1, String(ep.id), known);
			// the file's link was read: the file itself is on its way (held back)
			await until(
				() => sb().control.requests({ method: 'GET', path: '/download$' }).length > 0,
				MIN,
				100,
			);
			await new Promise((r) => setTimeout(r, 1000));
			await n8n!.kill('SIGKILL');
			sb().control.clearFaults();
			expect(seen.has(id)).toBe(false);
			n8n = await startN8n(ctx.home, port);
			owner = await setupOwner(n8n);
			const crashed = await until(
				async () => (await executions()).find((e) => !earlier.has(e.id) && e.status === 'crashed'),
				2 * MIN,
				500,
			);
			const retried = await rest<Execution>('POST', `/executions/${crashed!.id}/retry`, {
				loadWorkflow: false,
			});
			expect(retried.status).toBe('success');
			await reachedOnce([id], MIN);
			expect(seen.get(id)).toEqual([1]); // one file, downloaded by the retry
			figures.push(
				`killed mid-download: execution ${crashed!.id} crashed, its Retry downloaded the file and ran once`,
			);
		},
		10 * MIN,
	);
	/** Waits until MediaGen gave up on each of these events (its 7 retries, time-scaled). */
	async function givenUp(endpointId: string, ids: string[]) {
		sb().control.setConfig({ timeScale: LONG_OUTAGE_SCALE });
		await until(
			async () =>
				(await deliveries(endpointId))
					.filter((d) => ids.includes(String(d.event_id)))
					.every((d) => d.status === 'failed'),
			3 * MIN,
			2000,
		);
		sb().control.setConfig({ timeScale: 0.02 });
	}
	/** How many lines of n8n's log match. */
	const logged = (re: RegExp) => n8n!.logs().filter((l) => re.test(l.message)).length;
	const NOT_DELETED = /could not delete the webhook endpoint/;
	const KEPT = /could not check webhook endpoint .*kept as it is/;
	const activeEndpoint = async () => {
		const ep = (await endpoint())!;
		if (ep.status !== 'active') await api('PATCH', `/webhooks/${ep.id}`, { status: 'active' });
		return ep;
	};

	test(
		'switched off while MediaGen could not delete the endpoint, events meanwhile, switched on: none of them runs, the next one runs once',
		async () => {
			const ep = await activeEndpoint();
			const known = new Set((await deliveries(String(ep.id))).map((d) => String(d.id)));
			sb().control.clearRequests();
			// MediaGen unreachable for the deletion after the grace period (15 s) and its retries
			sb().control.addFault({ kind: 'fail', method: 'DELETE', path: '/webhooks/', count: 1000 });
			const failed = logged(NOT_DELETED);
			await rest('POST', `/workflows/${WF.id}/deactivate`);
			await until(() => logged(NOT_DELETED) > failed, 2 * MIN, 500);
			sb().control.clearFaults();
			expect(await endpoint()).toMatchObject({ id: ep.id });
			// the week switched off: every event fails against n8n's 404 until MediaGen gives up
			const stale = await events(3, String(ep.id), known);
			await givenUp(String(ep.id), stale);
			sb().control.clearRequests();
			const t0 = Date.now();
			await activate(rest, WF.id, ctx.home.runtime.major);
			await n8n!.waitForWebhook(String(ep.url).split('/webhook/')[1] ?? '', 'POST', MIN);
			const [next] = await events(1, String(ep.id), known);
			await reachedOnce([next], MIN);
			await new Promise((r) => setTimeout(r, 5000)); // a replay would come by now
			expect(stale.filter((id) => seen.has(id))).toEqual([]);
			expect(sb().control.requests({ method: 'POST', path: '/retry$' })).toHaveLength(0);
			expect(await endpoint()).toMatchObject({ id: ep.id, status: 'active' });
			figures.push(
				`switched off, the deletion failed (endpoint kept), ${stale.length} events failed meanwhile; switched on: 0 of them ran, 0 retried, the next event ran once ${((Date.now() - t0) / 1000).toFixed(0)} s after`,
			);
		},
		10 * MIN,
	);

	test.each([
		['switched off and on again within the grace period', false],
		['re-published with a changed trigger', true],
	])(
		'%s while MediaGen answers 503 for a moment: the endpoint stays, the next event runs once',
		async (_name, republish) => {
			const ep = await activeEndpoint();
			const known = new Set((await deliveries(String(ep.id))).map((d) => String(d.id)));
			sb().control.clearRequests();
			const fault = {
				kind: 'fail' as const,
				method: 'GET',
				path: '/webhooks$',
				status: 503,
				count: 30,
			};
			if (republish) {
				const wf = await rest<N8nWorkflow & { versionId: string }>('GET', `/workflows/${WF.id}`);
				const nodes = wf.nodes.map((n) =>
					n.name === 'MediaGen Trigger'
						? {
								...n,
								parameters: {
									...(n.parameters as Record<string, unknown>),
									options: { downloadFiles: true, includePings: !republishedOnce },
								},
							}
						: n,
				);
				republishedOnce = !republishedOnce;
				await rest('PATCH', `/workflows/${WF.id}`, { nodes, versionId: wf.versionId });
				// the removal's own listing passes; the re-added trigger's check meets the 503s
				sb().control.addFault({ ...fault, skip: 1 });
			} else {
				await rest('POST', `/workflows/${WF.id}/deactivate`);
				sb().control.addFault(fault);
			}
			const kept = logged(KEPT);
			const t0 = Date.now();
			// the re-added trigger's check: every attempt (the transport's 4 retries) answered 503
			await activate(rest, WF.id, ctx.home.runtime.major);
			await until(() => logged(KEPT) > kept, MIN, 200);
			sb().control.clearFaults();
			// past the grace period of the removal (15 s)
			await new Promise((r) => setTimeout(r, Math.max(0, 25_000 - (Date.now() - t0))));
			expect(await endpoint()).toMatchObject({ id: ep.id, status: 'active' });
			expect(sb().control.requests({ method: 'DELETE', path: '/webhooks/' })).toHaveLength(0);
			const [next] = await events(1, String(ep.id), known);
			await reachedOnce([next], MIN);
			const refused = sb()
				.control.requests({ method: 'GET', path: '/webhooks$' })
				.filter((r) => r.status === 503).length;
			expect(refused).toBeGreaterThanOrEqual(5);
			figures.push(
				`${_name}, ${refused} listings answered 503: endpoint ${String(ep.id).slice(0, 8)} kept and active after the grace period, 0 deletions, the next event ran once`,
			);
		},
		5 * MIN,
	);
});
