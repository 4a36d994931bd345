/**
 * The credit budget of the MediaGen API credential (issue #30), in n8n-core's engine against the
 * sandbox: every test counts what the sandbox charged around the limit. Refusals before anything
 * is sent (Continue On Fail error items naming budget, spent, reserved and estimate), what was
 * spent earlier in the period, the floor, the period's time zone, several executions started
 * together (the race), a key without billing.view, n8n's Retry (recovered jobs are not refused),
 * and a run without a budget (no request for it).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { MediaGenCanvas } from '../../nodes/MediaGenCanvas/MediaGenCanvas.node';
import { MediaGenEditor } from '../../nodes/MediaGenEditor/MediaGenEditor.node';
import { BUDGET } from '../../nodes/shared/budget/run';
import { forgetLedgers } from '../../nodes/shared/budget/ledgerRead';
import { client, until } from '../harness/sandbox/helpers';
import type { RunResult, TestNode } from '../harness/engine/harness';
import {
	chain,
	mediaGen,
	retryCrashed,
	retryExecution,
	runWorkflow,
	SavedExecutions,
	startWorkflow,
} from '../harness/engine/harness';
import { fastJobs, generationCreate, nodeFactory, rl, useSandbox } from '../harness/engine/setup';

const { sb, creds } = useSandbox({ timeScale: 0.01 });
fastJobs();
beforeEach(() => forgetLedgers());
const canvas = nodeFactory(new MediaGenCanvas());
const editor = nodeFactory(new MediaGenEditor());

const COST = 4;
const api = () => client(sb, sb.keys.pro);
const balance = () => sb.control.credits('main').balance;
const creates = () => sb.control.requests({ method: 'POST', path: '/generations$' });
const ledgerReads = () => sb.control.requests({ method: 'GET', path: '/credits/ledger' });

/** Credentials with a budget (per day in UTC unless told). */
const budget = (fields: IDataObject, key = sb.keys.pro) => {
	const c = creds(key);
	Object.assign(c.mediaGenApi, { budgetPeriod: 'day', budgetTimeZone: 'UTC', ...fields });
	return c;
};

const generation = (extra: INodeParameters = {}, durationMs = 30_000) =>
	generationCreate(extra, durationMs, '={{ "a lighthouse, row " + $json.row }}');
const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ row: i + 1 }));
const node = (extra: Partial<TestNode> = {}, params: INodeParameters = {}) =>
	mediaGen('Generate', generation(params), { typeVersion: 2, ...extra });

/** Every job of the workspace ended (charged or returned). */
const settledJobs = () =>
	until(async () => {
		const all = (await api()('GET', '/generations?status=all&limit=100')).body
			.data as IDataObject[];
		return all.every((g) => !['queued', 'running'].includes(String(g.status)));
	});

async function run(items: IDataObject[], n: TestNode, credentials = creds()): Promise<RunResult> {
	const r = await runWorkflow(chain(items, [n]), { credentials });
	await settledJobs();
	return r;
}

describe('one run against the budget', () => {
	test('no budget set: not one request more (no ledger read)', async () => {
		const r = await run(rows(2), node());
		expect(r.error).toBeUndefined();
		expect(ledgerReads()).toHaveLength(0);
		expect(sb.control.requests({ method: 'POST', path: '/estimate' })).toHaveLength(0);
	});

	test('items that differ only in their Idempotency-Key and provenance share one estimate; others have their own', async () => {
		const same = await run(
			rows(3),
			node({}, { prompt: 'the same' }),
			budget({ budgetCredits: 100 }),
		);
		expect(same.error).toBeUndefined();
		expect(sb.control.requests({ method: 'POST', path: '/estimate$' })).toHaveLength(1);
		sb.control.clearRequests();
		await run(rows(3), node(), budget({ budgetCredits: 100 }));
		expect(sb.control.requests({ method: 'POST', path: '/estimate$' })).toHaveLength(3);
	});

	test('refused before anything is sent, without Continue On Fail: nothing created or charged', async () => {
		const before = balance();
		const r = await run(rows(3), node(), budget({ budgetCredits: 2 * COST }));
		expect(r.error?.message).toMatch(/^Credit budget: item 3 \(Create\) was refused/);
		expect(r.error?.message).toMatch(
			/needs an estimated 4 credits, 0 credits left of the budget of 8 credits per day/,
		);
		expect(r.error?.description).toMatch(
			/^Item 3 of 3\. Nothing was started or charged for any item/,
		);
		expect(creates()).toHaveLength(0);
		expect(balance()).toBe(before);
	});

	test('with Continue On Fail the items past the budget are error items naming budget, spent, reserved and estimate; the rest are charged', async () => {
		// spent earlier today: one job
		await run([{ row: 0 }], node());
		const before = balance();
		const r = await run(
			rows(4),
			node({ continueOnFail: true }),
			budget({ budgetCredits: 3 * COST }),
		);
		expect(r.error).toBeUndefined();
		const out = r.json('Generate');
		expect(out.map((o) => o.status ?? 'error')).toEqual([
			'completed',
			'completed',
			'error',
			'error',
		]);
		expect(String(out[2].error)).toMatch(
			/Credit budget: item 3 \(Create\) was refused; it needs an estimated 4 credits, 0 credits left of the budget of 12 credits per day: spent 4, reserved 0 this day, this run's earlier items 8/,
		);
		expect(String(out[2].description)).toMatch(
			/^Item 3 of 4\. Nothing was started or charged for this item\./,
		);
		expect(String(out[2].description)).toMatch(
			/run it again after \d{4}-\d\d-\d\d 00:00 UTC, when the budget starts again/,
		);
		expect(creates()).toHaveLength(3);
		expect(before - balance()).toBe(2 * COST);
		expect(r.taskData('Generate')?.hints).toEqual([
			{
				message: expect.stringMatching(
					/^2 jobs, 8 credits charged; credit budget: 12 of 12 used this day \(12 charged, 0 reserved, as this run last saw it; starts again \d{4}-\d\d-\d\d 00:00 UTC\); 2 items refused by the budget$/,
				),
				type: 'warning',
				location: 'outputPane',
			},
		]);
	});

	test('the floor: no work that would take the balance below Keep Balance Above', async () => {
		sb.control.setCredits('main', 5 * COST + 1);
		const r = await run(
			rows(5),
			node({ continueOnFail: true }),
			budget({ budgetPeriod: 'off', budgetFloor: 3 * COST }),
		);
		const out = r.json('Generate');
		expect(out.filter((o) => o.status === 'completed')).toHaveLength(2);
		expect(String(out[2].error)).toMatch(
			/1 credit left above the balance floor of 12: balance 21, this run's earlier items 8/,
		);
		expect(balance()).toBe(3 * COST + 1);
	});

	test('a key without billing.view: a clear error, nothing sent', async () => {
		const r = await run(rows(2), node(), budget({ budgetCredits: 100 }, sb.keys.noBilling));
		expect(r.error?.message).toMatch(/needs the scope billing\.view/);
		expect(r.error?.description).toMatch(/Nothing was started or charged for any item/);
		expect(creates()).toHaveLength(0);
	});

	test('a ledger MediaGen cannot answer (500, past the retries): the charging items are refused, nothing sent', async () => {
		sb.control.addFault({ kind: 'fail', method: 'GET', path: '/credits/ledger', count: 10 });
		const r = await run(
			[{ row: 1 }],
			node({ continueOnFail: true }),
			budget({ budgetCredits: 100 }),
		);
		const [out] = r.json('Generate');
		expect(String(out.error)).toMatch(
			/^The credit budget could not be checked: MediaGen server error \(500\)/,
		);
		expect(String(out.description)).toMatch(/Nothing was started or charged for this item/);
		expect(creates()).toHaveLength(0);
	});

	test('an unknown time zone: a clear error naming it, nothing sent', async () => {
		const r = await run(
			rows(1),
			node(),
			budget({ budgetCredits: 100, budgetTimeZone: 'Mars/Base' }),
		);
		expect(r.error?.message).toBe("The time zone of the credit budget is not known: 'Mars/Base'");
		expect(ledgerReads()).toHaveLength(0);
		expect(creates()).toHaveLength(0);
	});
});

describe('several executions started together on one key (the race)', () => {
	test.each([
		[4, 6, 10, true],
		[6, 5, 7, true],
		[4, 6, 10, false],
	])(
		'%i executions of %i items, budget of %i jobs (Wait for Completion %s): exactly the budget charged, every refused item named, no execution failed',
		async (executions, items, jobs, wait) => {
			const before = balance();
			// A job that ends before its run looks at the ledger again is charged (docs/budget.md), so
			// no job may end before then, however slow the machine: without waiting, every job is held
			// until all runs ended; a run that waits polls its jobs, so they run 6 s (the runs' looks
			// took at most 0.6 s on a loaded machine: jobs of 0.6 s failed this test, of 6 s never).
			if (!wait) sb.control.holdJobs();
			const started = Array.from({ length: executions }, (_, k) =>
				startWorkflow(
					chain(
						rows(items).map((r) => ({ ...r, run: k })),
						[
							mediaGen(
								'Generate',
								generation({ waitForCompletion: wait }, wait ? 600_000 : 30_000),
								{
									typeVersion: 2,
									continueOnFail: true,
								},
							),
						],
					),
					{
						credentials: budget({ budgetCredits: jobs * COST }),
					},
				),
			);
			const results = await Promise.all(started.map((s) => s.done));
			sb.control.releaseJobs();
			sb.control.stepJobs(); // the held jobs start now, and end on their own time
			await settledJobs();
			const outs = results.map((r) => r.json('Generate'));
			expect(results.map((r) => r.error)).toEqual(Array(executions).fill(undefined));
			const delivered = outs.flat().filter((o) => o.id && !o.error);
			const refused = outs
				.flat()
				.filter((o) => /^Credit budget: item \d+ \(Create\)/.test(String(o.error)));
			expect(before - balance()).toBe(jobs * COST);
			expect(delivered).toHaveLength(jobs);
			expect(refused).toHaveLength(executions * items - jobs);
			// eslint-disable-next-line no-console
			console.log(
				`[budget race] ${executions}×${items} items, budget ${jobs} jobs: creates ${creates().length}, cancels ${sb.control.requests({ method: 'POST', path: '/cancel$' }).length}, ledger reads ${ledgerReads().length}, estimates ${sb.control.requests({ method: 'POST', path: '/estimate$' }).length}, requests ${sb.control.requests().length}`,
			);
		},
	);
});

describe("n8n's Retry", () => {
	test('the jobs an earlier try started are not refused although the budget is used up now; the item never sent is', async () => {
		const credentials = budget({ budgetCredits: 3 * COST });
		const workflow = chain(rows(3), [node()]);
		sb.control.setCredits('main', 2 * COST + 3); // the third create gets 402
		const failed = await runWorkflow(workflow, { credentials });
		expect(failed.error?.message).toMatch(/Not enough credits/);
		expect(creates().filter((c) => c.status === 201)).toHaveLength(2);
		await settledJobs();
		sb.control.setCredits('main', 100);
		// another execution takes the rest of the day's budget meanwhile
		await run([{ row: 9 }], node(), credentials);
		const before = balance();
		sb.control.clearRequests();
		const retried = await retryExecution(workflow, failed.run, { credentials });
		await settledJobs();
		expect(retried.error?.message).toMatch(/^Credit budget: item 3 \(Create\) was refused/);
		expect(retried.error?.message).toMatch(/spent 12, reserved 0 this day/);
		expect(creates()).toHaveLength(0);
		expect(balance()).toBe(before);
	});

	test('after n8n died, the jobs found again are output and not refused; with Continue On Fail the item the budget refused is again an error item', async () => {
		const credentials = budget({ budgetCredits: 3 * COST });
		const workflow = chain(rows(4), [node({ continueOnFail: true })]);
		const saved = new SavedExecutions();
		const startedAt = Date.now();
		const first = await runWorkflow(workflow, { credentials, executionId: 'x1', saved });
		expect(first.json('Generate').map((o) => o.status ?? 'error')).toEqual([
			'completed',
			'completed',
			'completed',
			'error',
		]);
		await settledJobs();
		const before = balance();
		sb.control.clearRequests();
		// n8n died while the node ran: its Retry on what n8n saved when the execution started
		const retried = await retryCrashed(
			workflow,
			{ executionId: 'x1', startedAt },
			['Items'],
			'Generate',
			{
				credentials,
				executionId: 'x1-retry',
				saved,
			},
		);
		await settledJobs();
		expect(retried.error).toBeUndefined();
		const out = retried.json('Generate');
		expect(out.map((o) => o.status ?? 'error')).toEqual([
			'completed',
			'completed',
			'completed',
			'error',
		]);
		expect(out.slice(0, 3).map((o) => o.id)).toEqual(
			first
				.json('Generate')
				.slice(0, 3)
				.map((o) => o.id),
		);
		expect(String(out[3].error)).toMatch(
			/^Credit budget: item 4 \(Create\) was refused.*spent 12, reserved 0/,
		);
		expect(creates()).toHaveLength(0);
		expect(balance()).toBe(before);
	});
});

describe('what the budget can and cannot cancel', () => {
	test('a canvas run reserves step by step: once its later step no longer fits it is cancelled with its run, nothing over the budget', async () => {
		const flow = (await api()('POST', '/canvas', { name: 'Two steps' })).body as IDataObject;
		const step = (id: string, x: number) => ({
			id,
			type: 'image_gen',
			position: { x, y: 0 },
			data: { prompt: 'a fox', sandbox: { durationMs: 40_000 } },
		});
		const graph = {
			nodes: [step('a', 0), { ...step('b', 200), data: { sandbox: { durationMs: 40_000 } } }],
			edges: [{ id: 'e', source: 'a', target: 'b', targetHandle: 'in' }],
			viewport: { x: 0, y: 0, zoom: 1 },
		};
		expect((await api()('PATCH', `/canvas/${String(flow.id)}`, { graph, version: 1 })).status).toBe(
			200,
		);
		const before = balance();
		// held: step a cannot end before the other work below has reserved, however slow the machine
		sb.control.holdJobs();
		const started = startWorkflow(
			chain(
				[{}],
				[
					canvas(
						'Canvas',
						{ resource: 'run', operation: 'start', canvasWorkflowId: rl(flow.id) },
						{ typeVersion: 2, continueOnFail: true },
					),
				],
			),
			{ credentials: budget({ budgetCredits: 2 * COST }) },
		);
		// while step a runs, other work takes the rest of the budget: step b will be over
		await until(
			() => sb.control.credits('main').reserved === COST || (sb.control.stepJobs(), false),
		);
		const other = (
			await api()('POST', '/generations', {
				modelId: 'flux-pro',
				params: { sandbox: { durationMs: 100 } },
			})
		).body as IDataObject;
		// step on until the node cancelled the run (b no longer fits) or step b has reserved (a, the
		// other work and b), then hold: b cannot end before the node has looked at it
		let ended = false;
		void started.done.then(() => (ended = true));
		const reserves = async () =>
			(
				(await api()('GET', '/credits/ledger?all=true&limit=100')).body.data as IDataObject[]
			).filter((e) => e.type === 'reserve').length;
		await until(async () => ended || (await reserves()) >= 3 || (sb.control.stepJobs(), false));
		const r = await started.done;
		sb.control.releaseJobs();
		await settledJobs();
		const [out] = r.json('Canvas');
		expect(String(out.error)).toMatch(
			/^Credit budget: item 1 \(Start\) was cancelled once it showed in the credit ledger; its job reserved 4 credits, 0 credits left/,
		);
		const run = (
			await api()(
				'GET',
				`/canvas/runs/${String((await api()('GET', `/canvas/${String(flow.id)}/runs`)).body.data[0].id)}`,
			)
		).body as IDataObject;
		expect(run.status).toBe('cancelled');
		// step a ended first (charged), or was running when the node saw that step b no longer
		// fits (cancelled with the run: its reservation returned); step b never charged
		const [a, b] = (run.nodes as IDataObject[]).map((n) => n.status);
		expect(['succeeded', 'cancelled']).toContain(a);
		expect(b).toBe('cancelled');
		expect(other.status).toBe('queued');
		expect(before - balance()).toBe(COST + (a === 'succeeded' ? COST : 0));
	});
});

describe('overshoot where nothing can be cancelled, measured', () => {
	test('charged calls that answer at once, started together: each run saw room, each was charged (at most the other runs’ calls over)', async () => {
		const video = sb.control.createLargeAsset({
			size: 512,
			mimeType: 'video/mp4',
			filename: 'v.mp4',
		});
		const edit = (await api()('POST', '/edits', { sourceAssetId: video.id })).body as IDataObject;
		const cost = Number(
			((await api()('POST', `/edits/${String(edit.id)}/captions/estimate`, {})).body as IDataObject)
				.credits,
		);
		const executions = 4;
		const before = balance();
		const runs = Array.from({ length: executions }, () =>
			startWorkflow(
				chain(
					[{}],
					[
						editor(
							'Captions',
							{ resource: 'edit', operation: 'createCaptions', editId: rl(edit.id) },
							{
								typeVersion: 2,
								continueOnFail: true,
							},
						),
					],
				),
				{ credentials: budget({ budgetCredits: cost }) },
			),
		);
		const results = await Promise.all(runs.map((s) => s.done));
		const charged = before - balance();
		const over = charged - cost;
		const refused = results.filter((r) =>
			/^Credit budget/.test(String(r.json('Captions')[0]?.error)),
		).length;
		// eslint-disable-next-line no-console
		console.log(
			`[budget] ${executions} Create Captions (${cost} credits each) together, budget ${cost}: charged ${charged}, over by ${over}, refused ${refused}`,
		);
		expect(charged).toBe((executions - refused) * cost);
		expect(over).toBeLessThanOrEqual((executions - 1) * cost);
		// afterwards the budget is used up: the next call is refused, nothing charged
		const after = balance();
		const next = await run(
			[{}],
			editor(
				'Captions',
				{ resource: 'edit', operation: 'createCaptions', editId: rl(edit.id) },
				{ typeVersion: 2, continueOnFail: true },
			),
			budget({ budgetCredits: cost }),
		);
		expect(String(next.json('Captions')[0].error)).toMatch(
			/^Credit budget: item 1 \(Create Captions\) was refused/,
		);
		expect(balance()).toBe(after);
	});

	test('generations that end before their run looks at the ledger again are charged: the overshoot is bounded by the items sent before that look', async () => {
		const executions = 4;
		const before = balance();
		const started = Array.from({ length: executions }, (_, k) =>
			startWorkflow(
				chain(
					rows(6).map((r) => ({ ...r, run: k })),
					[
						node(
							{ continueOnFail: true },
							{
								additionalFields: { params: JSON.stringify({ sandbox: { durationMs: 100 } }) },
							},
						),
					],
				),
				{ credentials: budget({ budgetCredits: 10 * COST }) },
			),
		);
		await Promise.all(started.map((s) => s.done));
		await settledJobs();
		const over = before - balance() - 10 * COST;
		// eslint-disable-next-line no-console
		console.log(
			`[budget] ${executions}×6 generations of 1 ms, budget 10 jobs: over by ${over} credits (${over / COST} jobs ended before their run looked again)`,
		);
		expect(over).toBeLessThanOrEqual(executions * BUDGET.firstChunk * COST);
	});
});

describe('issue #38: one run at the budget', () => {
	test('finding 1: 6 × Highlights (5 credits each, no estimate) with room for 8: the ledger is read again after each call, over by at most one call', async () => {
		const video = sb.control.createLargeAsset({
			size: 512,
			mimeType: 'video/mp4',
			filename: 'v.mp4',
		});
		const edit = (await api()('POST', '/edits', { sourceAssetId: video.id })).body as IDataObject;
		const before = balance();
		const r = await run(
			rows(6),
			editor(
				'Highlights',
				{
					resource: 'edit',
					operation: 'highlights',
					editId: rl(edit.id),
					additionalFields: { count: 5 },
				},
				{ typeVersion: 2, continueOnFail: true },
			),
			budget({ budgetCredits: 8 }),
		);
		const charged = before - balance();
		const out = r.json('Highlights');
		const refused = out.filter((o) =>
			/^Credit budget: item \d \(Highlights\)/.test(String(o.error)),
		);
		// the first call (8 left), the second (3 left, its cost unknown), then nothing left
		expect(charged).toBe(10);
		expect(charged - 8).toBeLessThanOrEqual(5);
		expect(refused).toHaveLength(4);
		expect(sb.control.requests({ method: 'POST', path: '/highlights$' })).toHaveLength(2);
	});

	test('finding 7: nothing left for any item: refused before estimating, one ledger read, no estimate', async () => {
		await run(rows(2), node(), budget({ budgetCredits: 2 * COST }));
		sb.control.clearRequests();
		const r = await run(
			rows(25),
			node({ continueOnFail: true }),
			budget({ budgetCredits: 2 * COST }),
		);
		const out = r.json('Generate');
		expect(
			out.every((o) =>
				/^Credit budget: item \d+ \(Create\) was refused; nothing is left for it, 0 credits left of the budget of 8 credits per day: spent 8, reserved 0 this day/.test(
					String(o.error),
				),
			),
		).toBe(true);
		expect(sb.control.requests({ method: 'POST', path: '/estimate$' })).toHaveLength(0);
		expect(ledgerReads()).toHaveLength(1);
		expect(creates()).toHaveLength(0);
	});

	test('finding 8: a period without an amount is refused before any request, saying what to do', async () => {
		const r = await run(rows(2), node(), budget({ budgetCredits: 0 }));
		expect(r.error?.message).toBe(
			'The credit budget per day has no amount: Credits per Period is 0',
		);
		expect(r.error?.description).toMatch(
			/Enter the most credits your workspace may spend per day \(for example 500\), or set Credit Budget to Off/,
		);
		expect(ledgerReads()).toHaveLength(0);
		expect(sb.control.requests({ method: 'POST', path: '/estimate$' })).toHaveLength(0);
		expect(creates()).toHaveLength(0);
	});

	test('finding 8: a refusal says what to do (raise the budget, or the time it starts again), not "fix the value"', async () => {
		const r = await run(rows(3), node(), budget({ budgetCredits: 2 * COST }));
		expect(r.error?.description).not.toMatch(/fix the value/);
		expect(r.error?.description).toMatch(
			/To run it: raise Credits per Period in the MediaGen API credential, or run it again after \d{4}-\d\d-\d\d 00:00 UTC, when the budget starts again\./,
		);
	});

	test('finding 9: the day turns while the run sends: work booked after midnight counts for the new day, yesterday’s spend does not refuse it', async () => {
		// MediaGen's clock moves on (never back: entries are booked in time order): the midnight two
		// days from now
		const now = new Date();
		const day = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 2);
		const date = (at: number) => new Date(at).toISOString().slice(0, 10);
		sb.control.setClock(day - 60_000); // 23:59 UTC the day before
		let other: Promise<unknown> | undefined;
		const stop = sb.control.watchRequests((e) => {
			if (e.type !== 'answered' || other) return;
			const { method, path, status } = e.entry;
			if (method !== 'POST' || !/\/generations$/.test(path) || status !== 201) return;
			// the run's first job is booked the day before; then it is 00:01 and other work
			// (the MediaGen app, another key) reserves before the run's second item
			sb.control.setClock(day + 60_000);
			other = api()('POST', '/generations', {
				modelId: 'flux-pro',
				params: { sandbox: { durationMs: 100 } },
			});
		});
		try {
			const before = balance();
			const r = await run(
				rows(2),
				node({ continueOnFail: true }),
				budget({ budgetCredits: 2 * COST }),
			);
			await other;
			await settledJobs();
			const out = r.json('Generate');
			// the day before: the run's first job (4 of 8); the day: the other work and the second job (8 of 8)
			expect(out.map((o) => o.error ?? o.status)).toEqual(['completed', 'completed']);
			expect(before - balance()).toBe(3 * COST);
			expect(r.taskData('Generate')?.hints?.[0]?.message).toMatch(
				new RegExp(
					`credit budget: 8 of 8 used this day .*starts again ${date(day + 86_400_000)} 00:00 UTC`,
				),
			);
		} finally {
			stop();
			sb.control.setClock(null);
		}
	});
});
