/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only code (tests): never published, see package.json "files" */
/**
 * The credit budget of the MediaGen API credential (issue #30) in a real n8n 2.40.7 with the
 * packed package, against the sandbox: credentials with a budget imported as a user saves them;
 * a run past the budget (Continue On Fail: the items past it are error items naming budget,
 * spent, reserved and estimate; the rest charged), a run once the budget is used up (refused,
 * nothing sent), executions started together through webhooks (exactly the budget charged), a
 * key without billing.view (the run's error, and n8n's credential test say what the budget needs).
 *
 * Skipped unless MEDIAGEN_E2E=1. Needs a build (`npm run build`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import { BUDGET_SCOPE_MESSAGE } from '../../nodes/shared/budget/settings';
import type { DemoContext } from '../../scripts/demoSetup';
import { setupDemo } from '../../scripts/demoSetup';
import { until } from '../harness/sandbox/helpers';
import type { N8nInstance, N8nOwner } from '../harness/e2e/n8n';
import {
	describeE2E,
	executeWorkflow,
	hasBuiltPackage,
	importCredentials,
	importWorkflows,
	nodeItems,
	publishWorkflow,
	restOf,
	setupOwner,
	startN8n,
} from '../harness/e2e/n8n';
import { e2eDemoOptions, MIN, mg, node, workflow } from '../harness/e2e/workflows';

type Json = Record<string, unknown>;
const COST = 4;
const BUDGET = { id: 'mgBudgetCred0001', name: 'MediaGen with a budget' };
const NO_BILLING = { id: 'mgBudgetCred0002', name: 'MediaGen budget, key without billing.view' };

const generate = (credential: { id: string; name: string }, extra: Json = {}) =>
	mg(
		'Generate',
		{
			resource: 'generation',
			operation: 'create',
			modelId: 'flux-pro',
			tool: 'image',
			prompt: '={{ "e2e budget: a kite, row " + $json.row }}',
			additionalFields: { params: JSON.stringify({ sandbox: { durationMs: 20_000 } }) },
		},
		{ typeVersion: 2, credentials: { mediaGenApi: credential }, ...extra },
	);
const rows = (n: number) =>
	node(
		'Rows',
		'n8n-nodes-base.code',
		{ jsCode: `return Array.from({ length: ${n} }, (_, i) => ({ json: { row: i + 1 } }));` },
		{ typeVersion: 2 },
	);

const PAST = workflow('e2eBudgetPast001', 'e2e budget: five items, room for three', [
	rows(5),
	generate(BUDGET, { continueOnFail: true }),
]);
const USED_UP = workflow('e2eBudgetUsedUp1', 'e2e budget: used up, no Continue On Fail', [
	rows(2),
	generate(BUDGET),
]);
const NO_SCOPE = workflow('e2eBudgetNoScope', 'e2e budget: a key without billing.view', [
	rows(1),
	generate(NO_BILLING),
]);
const HOOK = 'e2e-budget-race';
const RACE = {
	id: 'e2eBudgetRace001',
	name: 'e2e budget: started together',
	nodes: [
		node(
			'Webhook',
			'n8n-nodes-base.webhook',
			{
				httpMethod: 'POST',
				path: HOOK,
				responseMode: 'lastNode',
				responseData: 'allEntries',
				options: {},
			},
			{ typeVersion: 2, webhookId: '00000000-0000-4000-8000-0000000b0d9e' },
		),
		rows(5),
		generate(BUDGET, { continueOnFail: true }),
	],
	connections: {
		Webhook: { main: [[{ node: 'Rows', type: 'main', index: 0 }]] },
		Rows: { main: [[{ node: 'Generate', type: 'main', index: 0 }]] },
	},
	settings: { executionOrder: 'v1' },
};

describeE2E('the credit budget in a real n8n', () => {
	let ctx: DemoContext;
	let workDir: string;
	let n8n: N8nInstance | undefined;
	let owner: N8nOwner;
	const rest = restOf(
		() => n8n!,
		() => owner,
	);

	beforeAll(async () => {
		if (!hasBuiltPackage()) throw new Error('dist/ is not built: run `npm run build` first');
		workDir = mkdtempSync(path.join(tmpdir(), 'mediagen-e2e-budget-'));
		ctx = await setupDemo(e2eDemoOptions(workDir));
		const { keys, baseUrl } = ctx.sandbox;
		const day = { budgetPeriod: 'day', budgetTimeZone: 'Europe/Berlin' };
		await importCredentials(ctx.home, [
			{
				...BUDGET,
				type: 'mediaGenApi',
				data: { apiKey: keys.pro, baseUrl, ...day, budgetCredits: 3 * COST },
			},
			{
				...NO_BILLING,
				type: 'mediaGenApi',
				data: { apiKey: keys.noBilling, baseUrl, ...day, budgetCredits: 100 },
			},
		]);
		await importWorkflows(ctx.home, [PAST, USED_UP, NO_SCOPE, RACE]);
		await publishWorkflow(ctx.home, RACE.id);
	}, 30 * MIN);

	afterAll(async () => {
		await n8n?.stop();
		await ctx?.close();
		if (workDir) rmSync(workDir, { recursive: true, force: true });
	});

	const sb = () => ctx.sandbox;
	const balance = () => sb().control.credits('main').balance;
	const creates = () => sb().control.requests({ method: 'POST', path: '/generations$' });
	const settled = () =>
		until(
			async () => {
				const res = await fetch(`${sb().baseUrl}/generations?status=active`, {
					headers: { authorization: `Bearer ${sb().keys.pro}` },
				});
				return ((await res.json()) as { data: unknown[] }).data.length === 0;
			},
			2 * MIN,
			200,
		);

	test(
		'five items with room for three: three charged, two error items naming budget, spent, reserved and estimate',
		async () => {
			const before = balance();
			const r = await executeWorkflow(ctx.home, PAST.id, { timeoutMs: 5 * MIN });
			expect(r.status).toBe('success');
			await settled();
			const out = nodeItems(r, 'Generate').map((i) => i.json as Json);
			expect(out.map((o) => o.status ?? 'error')).toEqual([
				'completed',
				'completed',
				'completed',
				'error',
				'error',
			]);
			expect(String(out[3].error)).toMatch(
				/^Credit budget: item 4 \(Create\) was refused; it needs an estimated 4 credits, 0 credits left of the budget of 12 credits per day: spent 0, reserved 0 this day, this run's earlier items 12$/,
			);
			expect(String(out[3].description)).toMatch(
				/run it again after \d{4}-\d\d-\d\d 00:00 Europe\/Berlin, when the budget starts again/,
			);
			expect(creates()).toHaveLength(3);
			expect(before - balance()).toBe(3 * COST);
			const hints = (r.runData.Generate[0] as unknown as { hints?: Json[] }).hints ?? [];
			expect(hints.map((h) => h.message)).toEqual([
				expect.stringMatching(
					/^3 jobs, 12 credits charged; credit budget: 12 of 12 used this day \(12 charged, 0 reserved, as this run last saw it; starts again \d{4}-\d\d-\d\d 00:00 Europe\/Berlin\); 2 items refused by the budget$/,
				),
			]);
			// eslint-disable-next-line no-console
			console.log(
				`[e2e budget] past the budget: ${out.length} items, hints ${JSON.stringify(hints)}`,
			);
		},
		10 * MIN,
	);

	test(
		'the budget used up, no Continue On Fail: the execution fails naming the budget, nothing sent or charged',
		async () => {
			const before = balance();
			sb().control.clearRequests();
			const r = await executeWorkflow(ctx.home, USED_UP.id, { timeoutMs: 5 * MIN });
			expect(r.status).not.toBe('success');
			expect(r.error?.message).toMatch(
				/^Credit budget: item 1 \(Create\) was refused; nothing is left for it, 0 credits left of the budget of 12 credits per day: spent 12, reserved 0 this day/,
			);
			expect(r.error?.description).toMatch(
				/^Item 1 of 2\. Nothing was started or charged for any item/,
			);
			expect(creates()).toHaveLength(0);
			expect(balance()).toBe(before);
		},
		10 * MIN,
	);

	test(
		'a key without billing.view: the run says what the budget needs, and so does the credential test',
		async () => {
			sb().control.clearRequests();
			const r = await executeWorkflow(ctx.home, NO_SCOPE.id, { timeoutMs: 5 * MIN });
			expect(r.error?.message).toBe(BUDGET_SCOPE_MESSAGE);
			expect(creates()).toHaveLength(0);
			n8n = await startN8n(ctx.home);
			owner = await setupOwner(n8n);
			const test = (cred: { id: string; name: string }, data: Json) =>
				rest<Json>('POST', '/credentials/test', {
					credentials: { ...cred, type: 'mediaGenApi', data },
				});
			const { keys, baseUrl } = sb();
			const day = { budgetPeriod: 'day', budgetTimeZone: 'Europe/Berlin', budgetCredits: 100 };
			expect(await test(NO_BILLING, { apiKey: keys.noBilling, baseUrl, ...day })).toEqual({
				status: 'Error',
				message: BUDGET_SCOPE_MESSAGE,
			});
			expect(await test(BUDGET, { apiKey: keys.pro, baseUrl, ...day })).toMatchObject({
				status: 'OK',
			});
			// without a budget the key needs no billing.view
			expect(
				await test(NO_BILLING, { apiKey: keys.noBilling, baseUrl, budgetPeriod: 'off' }),
			).toMatchObject({ status: 'OK' });
			const ledger = sb().control.requests({ path: '/credits/ledger' });
			expect(ledger.map((q) => q.status)).toEqual([403, 403, 200]);
		},
		10 * MIN,
	);

	test(
		'four executions of five items started together through a webhook, a budget of 3 jobs: exactly 3 charged, 17 items refused and named',
		async () => {
			await n8n?.stop();
			// a new ledger: the day's budget is whole again
			sb().control.reset();
			n8n = await startN8n(ctx.home);
			await n8n.waitForWebhook(HOOK);
			const before = balance();
			sb().control.clearRequests();
			const bodies = await Promise.all(
				Array.from({ length: 4 }, async () => {
					const res = await fetch(n8n!.webhookUrl(HOOK), { method: 'POST', body: '{}' });
					return (await res.json()) as Json[];
				}),
			);
			await settled();
			const all = bodies.flat();
			const delivered = all.filter((o) => o.status === 'completed');
			const refused = all.filter((o) => /^Credit budget: item \d \(Create\)/.test(String(o.error)));
			expect(before - balance()).toBe(3 * COST);
			expect(delivered).toHaveLength(3);
			expect(refused).toHaveLength(17);
			// eslint-disable-next-line no-console
			console.log(
				`[e2e budget] 4 executions × 5 items together, budget 3 jobs: charged ${before - balance()}, delivered ${delivered.length}, refused ${refused.length}, creates ${creates().length}, cancels ${sb().control.requests({ method: 'POST', path: '/cancel$' }).length}`,
			);
		},
		10 * MIN,
	);
});
