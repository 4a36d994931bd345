/**
 * Every charged operation of every action node against the credit budget (issue #30), around the
 * limit: each node's tour (./operationTour.ts) makes what the operations need; each operation
 * that starts a job or charges at once runs three times: without a budget (what it costs: C),
 * with one credit too few left (refused before sending, or its jobs cancelled once they show in
 * the ledger: nothing over the budget is charged; a charged call without an estimate is sent while
 * something is left, and may go over by its own cost), and with exactly C left (charged C).
 */
import type { IDataObject } from 'n8n-workflow';

import { catalog } from '../../nodes/shared/catalog';
import type { Endpoint } from '../../nodes/shared/catalog/dsl';
import { forgetLedgers } from '../../nodes/shared/budget/ledgerRead';
import { ACTION_NODES } from '../harness/actionNodes';
import { client, until } from '../harness/sandbox/helpers';
import { TestBinarySource } from '../harness/engine/binaryData';
import { chain, NODE_TYPES, runWorkflow } from '../harness/engine/harness';
import type { TourContext } from '../harness/engine/operationTour';
import { TOURS } from '../harness/engine/operationTour';
import { fastJobs, nodeFactory, useSandbox } from '../harness/engine/setup';

jest.setTimeout(300_000);
NODE_TYPES['test.binarySource'] = new TestBinarySource();

const SCALE = 0.001;
const { sb, creds } = useSandbox({
	timeScale: SCALE,
	allowHttpWebhooks: true,
	binaryData: 'default',
});
fastJobs();
beforeEach(() => forgetLedgers());

/** Operations that charge: job creates, charged calls answering at once, a generation retried. */
const charging = (e: Endpoint) => (!!e.job || !!e.charged || !!e.reserves) && !e.nodeOperation;
const chargingOps = (node: string) =>
	new Map<string, Endpoint>(
		catalog[node].flatMap((g) =>
			g.endpoints.filter(charging).map((e) => [`${g.resource}.${e.operation}`, e] as const),
		),
	);
const NODES = Object.keys(ACTION_NODES).filter((node) => chargingOps(node).size);

const api = () => client(sb, sb.keys.pro);
const balance = () => sb.control.credits('main').balance;

/** Every job ended and every canvas run too (charged or returned). */
const settled = () =>
	until(
		async () => {
			const gens = (await api()('GET', '/generations?status=all&limit=100')).body
				.data as IDataObject[];
			return gens.every((g) => !['queued', 'running'].includes(String(g.status)));
		},
		20_000,
		20,
	);

/** What the budget counts today (UTC): every charge of the day; nothing is reserved when settled. */
async function usedToday(): Promise<number> {
	const since = new Date(new Date().toISOString().slice(0, 10)).getTime();
	let used = 0;
	let before: unknown;
	for (;;) {
		const page = (
			await api()(
				'GET',
				`/credits/ledger?all=true&limit=100${before ? `&before=${String(before)}` : ''}`,
			)
		).body as { data: IDataObject[]; nextCursor: unknown };
		for (const e of page.data) {
			if (Date.parse(String(e.created_at)) < since) return used;
			if (e.type === 'charge') used -= Number(e.amount);
		}
		if (!page.nextCursor) return used;
		before = page.nextCursor;
	}
}

const errorsOf = (out: IDataObject[]) => out.filter((o) => o.error).map((o) => String(o.error));

test.each(NODES)('%s: every charged operation around the limit of the budget', async (node) => {
	const factory = nodeFactory(ACTION_NODES[node]);
	const ops = chargingOps(node);
	const t: TourContext = { sb, api: api(), kept: {} };
	const problems: string[] = [];
	const report: string[] = [];
	const checked: string[] = [];
	for (const step of TOURS[node]) {
		const [resource, operation] = step.op.split('.') as [string, string];
		const e = ops.get(step.op);
		const once = async (budgetCredits?: number) => {
			const params = typeof step.params === 'function' ? await step.params(t) : (step.params ?? {});
			const credentials = creds();
			if (budgetCredits !== undefined)
				Object.assign(credentials.mediaGenApi, { budgetPeriod: 'day', budgetCredits });
			const workflow = chain(step.items?.(t) ?? [{}], [
				...(step.before ?? []),
				factory(
					'Operation',
					{ resource, operation, ...params },
					{ typeVersion: 2, continueOnFail: true },
				),
			]);
			const before = balance();
			const x = await runWorkflow(workflow, { credentials });
			await step.after?.(t);
			await settled();
			return { x, out: x.json('Operation'), charged: before - balance() };
		};
		const first = await once();
		if (first.x.error) throw new Error(`${step.op}: ${first.x.error.message}`);
		if (step.keep) t.kept[step.keep] = first.out[0] as TourContext['kept'][string];
		if (!e) continue;
		const cost = first.charged;
		if (cost <= 0) {
			report.push(`${step.op}: free here`);
			checked.push(step.op);
			continue;
		}
		const unknownImmediate = !!e.charged && !e.charged.estimate;
		// one credit too few: jobs made slow enough to be looked at before they end (a job that
		// ends before the node cancels it is charged, by design: docs/budget.md). At scale 1 a
		// canvas retry's step ended first once, at load average ~10 (npm test beside a stress
		// run): scale 5, five times that margin; refused and cancelled runs do not wait for it
		sb.control.setConfig({ timeScale: 5 });
		const used = await usedToday();
		const short = await once(used + cost - 1);
		sb.control.setConfig({ timeScale: SCALE });
		const over = (await usedToday()) - (used + cost - 1);
		if (unknownImmediate && cost > 1) {
			if (short.charged !== cost)
				problems.push(`${step.op}: one short: charged ${short.charged}, not ${cost}`);
			report.push(`${step.op}: no estimate, sent with ${cost - 1} left: over by ${over}`);
		} else {
			if (over > 0) problems.push(`${step.op}: one short: ${over} over the budget`);
			if (!errorsOf(short.out).some((m) => /^Credit budget: item 1 /.test(m)))
				problems.push(
					`${step.op}: one short: no refusal (${JSON.stringify(short.out).slice(0, 200)})`,
				);
			report.push(
				`${step.op}: one short: charged ${short.charged} of ${cost}, ${errorsOf(short.out).length} refused: ${errorsOf(short.out)[0]}`,
			);
		}
		// exactly enough
		const fits = await once((await usedToday()) + cost);
		if (fits.charged !== cost || errorsOf(fits.out).length)
			problems.push(
				`${step.op}: exactly enough: charged ${fits.charged} of ${cost}, errors ${errorsOf(fits.out)}`,
			);
		checked.push(step.op);
	}
	// eslint-disable-next-line no-console
	console.log(`[budget tour] ${node}\n${report.join('\n')}`);
	expect(problems).toEqual([]);
	expect(checked.sort()).toEqual([...ops.keys()].sort());
});
