/**
 * Findings of the credit budget's simulation (test/harness/sim/budget.ts, issue #38), each a plain
 * regression test against the sandbox.
 */
import { forgetLedgers } from '../../nodes/shared/budget/ledgerRead';
import { until } from '../harness/sandbox/helpers';
import { chain, mediaGen, runWorkflow, startWorkflow } from '../harness/engine/harness';
import { fastJobs, generationCreate, useSandbox } from '../harness/engine/setup';

const { sb, creds } = useSandbox({ timeScale: 0.01 });
fastJobs();
beforeEach(() => forgetLedgers());

test('MediaGen’s clock a year ahead of n8n’s: a run that waits for jobs queued behind each other ends when they end, not at the Wait timeout', async () => {
	// the simulation found a run of 6 jobs waiting 10 minutes: the poller learned a job's running
	// time as its completed_at (MediaGen's clock) less when this side saw it start (n8n's clock),
	// a year, and looked at the queued jobs only at their deadline
	sb.control.setClock(Date.now() + 365 * 86_400_000);
	sb.control.setConfig({ concurrentJobs: 1 });
	const started = Date.now();
	const r = await runWorkflow(
		chain(
			[1, 2, 3].map((row) => ({ row })),
			[
				mediaGen('Generate', generationCreate({}, 5_000, '={{ "row " + $json.row }}'), {
					typeVersion: 2,
				}),
			],
		),
		{ credentials: creds() },
	);
	expect(r.error).toBeUndefined();
	expect(r.json('Generate').map((o) => o.status)).toEqual(['completed', 'completed', 'completed']);
	expect(Date.now() - started).toBeLessThan(30_000);
}, 120_000);

test('MediaGen’s clock jumping a day while a job runs: the next jobs of the run are looked at when they end, not at the Wait timeout', async () => {
	// the simulation turns MediaGen's clock past the period's end while jobs run: a job then ran a
	// day on MediaGen's clock, and the poller waited for the job after it as long as that, up to
	// its 10-minute deadline; a job cannot have run longer than n8n saw pass from its create
	sb.control.setConfig({ concurrentJobs: 1 });
	sb.control.holdJobs();
	const started = startWorkflow(
		chain(
			[1, 2, 3].map((row) => ({ row })),
			[
				mediaGen('Generate', generationCreate({}, 5_000, '={{ "row " + $json.row }}'), {
					typeVersion: 2,
				}),
			],
		),
		{ credentials: creds() },
	);
	await until(() => sb.control.requests({ method: 'POST', path: '/generations$' }).length === 3);
	sb.control.stepJobs(); // the first job runs
	sb.control.setClock(Date.now() + 86_400_000);
	sb.control.stepJobs(); // it ends a day later on MediaGen's clock; the second runs
	sb.control.releaseJobs();
	const t = Date.now();
	const r = await started.done;
	expect(r.error).toBeUndefined();
	expect(r.json('Generate').map((o) => o.status)).toEqual(['completed', 'completed', 'completed']);
	expect(Date.now() - t).toBeLessThan(30_000);
	sb.control.setClock(null);
}, 120_000);

test('an entry of a type the spec does not list, in the older part of the period, is counted by a first read that reads that part as settled entries only', async () => {
	// the simulation found the sandbox's `all=false` leaving such an entry out (docs/api-
	// assumptions.md says all=false lists every entry but reserve and release): the first read
	// said "spent 1" where 9 were spent, and let two jobs through with 1 credit left
	const day = Date.UTC(2027, 5, 15);
	const now = day + 170 * 60_000;
	sb.control.setClock(now - 60 * 60_000);
	const at = (min: number) => day + min * 60_000;
	sb.control.bookLedger('main', [
		{ type: 'charge', amount: -1, at: at(95) },
		{ type: 'fee' as 'charge', amount: -8, at: at(98) },
		// more than a page of the ledger after them: failed jobs, nothing spent
		...Array.from({ length: 120 }, (_, i) => [
			{ type: 'reserve' as const, amount: -1, generationId: `busy-${i}`, at: at(120) + 2 * i },
			{ type: 'release' as const, amount: 1, generationId: `busy-${i}`, at: at(120) + 2 * i + 1 },
		]).flat(),
	]);
	sb.control.setClock(now);
	const credentials = creds();
	Object.assign(credentials.mediaGenApi, {
		budgetPeriod: 'day',
		budgetTimeZone: 'UTC',
		budgetCredits: 10,
	});
	const before = sb.control.credits('main').balance;
	const r = await runWorkflow(
		chain(
			[1, 2].map((row) => ({ row })),
			[
				mediaGen('Generate', generationCreate({}, 5_000, '={{ "row " + $json.row }}'), {
					typeVersion: 2,
					continueOnFail: true,
				}),
			],
		),
		{ credentials },
	);
	const out = r.json('Generate');
	expect(String(out[0].error)).toMatch(
		/^Credit budget: item 1 \(Create\) was refused; it needs an estimated 4 credits, 1 credit left of the budget of 10 credits per day: spent 9, reserved 0 this day/,
	);
	expect(
		sb.control.requests({ method: 'GET', path: '/credits/ledger' }).map((q) => q.query.all),
	).toContain('false');
	expect(sb.control.credits('main').balance).toBe(before);
	sb.control.setClock(null);
});

test('the day turns between the two first pages of a first read: what is booked after midnight counts for the new day, not the day before', async () => {
	// the simulation found a first read taking the period from its first page (23:58) and the
	// entries from its second (after midnight): the new day's charge counted for the day before,
	// which then had nothing left
	const midnight = Date.UTC(2027, 2, 15);
	sb.control.setClock(midnight - 40 * 60_000);
	sb.control.bookLedger('main', [
		// more than a page of the ledger: failed jobs, nothing spent
		...Array.from({ length: 60 }, (_, i) => [
			{
				type: 'reserve' as const,
				amount: -1,
				generationId: `busy-${i}`,
				at: midnight - 30 * 60_000 + 2 * i,
			},
			{
				type: 'release' as const,
				amount: 1,
				generationId: `busy-${i}`,
				at: midnight - 30 * 60_000 + 2 * i + 1,
			},
		]).flat(),
		{ type: 'charge', amount: -2, at: midnight - 2 * 60_000 },
	]);
	sb.control.setClock(midnight - 90_000);
	let turned = false;
	const ungate = sb.control.gateRequests(async (r) => {
		// after the read's first page, before its list of active generations: midnight passes and
		// 2 credits are charged on the new day
		if (turned || r.method !== 'GET' || !r.path.endsWith('/generations')) return;
		turned = true;
		sb.control.setClock(midnight + 12 * 60_000);
		sb.control.bookLedger('main', [{ type: 'charge', amount: -2, at: midnight + 12 * 60_000 }]);
	});
	try {
		const credentials = creds();
		Object.assign(credentials.mediaGenApi, {
			budgetPeriod: 'day',
			budgetTimeZone: 'UTC',
			budgetCredits: 4,
		});
		const r = await runWorkflow(
			chain(
				[{ row: 1 }],
				[
					mediaGen('Generate', generationCreate({}, 5_000, '={{ "row " + $json.row }}'), {
						typeVersion: 2,
						continueOnFail: true,
					}),
				],
			),
			{ credentials },
		);
		expect(turned).toBe(true);
		// the new day: 2 spent, 2 left (not "nothing is left": 2 + 2 counted for the day before)
		expect(String(r.json('Generate')[0].error)).toMatch(
			/^Credit budget: item 1 \(Create\) was refused; it needs an estimated 4 credits, 2 credits left of the budget of 4 credits per day: spent 2, reserved 0 this day$/,
		);
	} finally {
		ungate();
		sb.control.setClock(null);
	}
});
