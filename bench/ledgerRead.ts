/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * B9, the budget's ledger reads at scale (bench/README.md): a month of N jobs booked straight
 * into the in-process sandbox's ledger (test/harness/engine/ledgerSeed.ts), then runs of one Generation →
 * Create workflow (2 items) in n8n-core's engine on a credential with a monthly budget: ledger
 * requests (and `GET /generations?status=active`) of the first run of a process and of the runs
 * after it, their wall time, and what the process keeps per credential (entries, heap).
 *
 *   node --expose-gc node_modules/.bin/tsx bench/ledgerRead.ts [jobs=10000,100000] [later runs=3]
 *
 * The contention case (#38): the key's rate limit on (120 requests per rolling minute, real time),
 * a user load of 60 requests a minute on the same key (test/harness/engine/keyLoad.ts: `GET /credits`
 * once a second, sent directly, never retried) from 10 s before the process's first run to 60 s
 * after its last: the user's requests answered 429, the time the first read takes (to the run's
 * first estimate), the budget's requests a minute, and 3 later runs' times.
 *
 *   node_modules/.bin/tsx bench/ledgerRead.ts contention [jobs=10000] [label=after]
 *
 * The first read of a new process from the summary the workflow saved in its static data (#38,
 * finding 3): the workflow run as production runs it (n8n saves its static data after the run),
 * then a new process (what the process kept forgotten) runs it again: right after, and after a
 * day of the month's work (jobs / 20, booked like the month's) since the workflow's last run.
 *
 *   node_modules/.bin/tsx bench/ledgerRead.ts summary [jobs=10000,100000]
 */
import { startSandbox } from '../sandbox';
import { POLLING } from '../nodes/shared/jobs/poller';
import { RETRY } from '../nodes/shared/transport/retry';
import { chain, mediaGen, runWorkflow } from '../test/harness/engine/harness';
import { budgetRequests, keyLoad, mostWithin } from '../test/harness/engine/keyLoad';
import { seedMonth, seedMore } from '../test/harness/engine/ledgerSeed';
import { generationCreate } from '../test/harness/engine/setup';
import { collectGarbage, fmt, log, machine, sleep, table } from './lib';

const CONTENTION = process.argv[2] === 'contention';
const SUMMARY = process.argv[2] === 'summary';
const SIZES = (process.argv[SUMMARY ? 3 : 2] ?? '10000,100000').split(',').map(Number);
const LATER = CONTENTION ? 3 : Number(process.argv[3] ?? 3);

/** The ledger module of this checkout (before #38's findings 2 and 3 it was ledger.ts alone). */
async function ledgerModule(): Promise<{
	forgetLedgers(): void;
	keptLedgers?: () => Array<{ entries: number }>;
	LEDGER?: { readsPerMinute: number };
}> {
	try {
		return await import('../nodes/shared/budget/ledgerRead');
	} catch {
		return (await import('../nodes/shared/budget/ledger')) as unknown as {
			forgetLedgers(): void;
		};
	}
}

/** The sandbox (rate limit off: the ledger is booked through its control) and the credential. */
async function start() {
	Object.assign(POLLING, { minMs: 20, maxMs: 200 });
	Object.assign(RETRY, { baseDelayMs: 5, maxDelayMs: 20 });
	const sb = await startSandbox({ port: 0, quiet: true, rateLimitPerMinute: 0, timeScale: 0.01 });
	const credentials = {
		mediaGenApi: {
			apiKey: sb.keys.pro,
			baseUrl: sb.baseUrl,
			budgetPeriod: 'month',
			budgetTimeZone: 'UTC',
			budgetCredits: 10_000_000,
		},
	};
	/** A 2-item Generation → Create on the credential. */
	const workflow = () =>
		chain(
			[{ row: 1 }, { row: 2 }],
			[mediaGen('Generate', generationCreate({}, 300), { typeVersion: 2 })],
		);
	/**
	 * A run of `wf` in mode `trigger` (n8n saves its static data after the run, in
	 * `wf.staticData`), or of a new workflow in the editor's (manual) mode.
	 */
	const run = async (wf?: ReturnType<typeof chain>) => {
		const r = wf
			? await runWorkflow(wf, { credentials, mode: 'trigger' })
			: await runWorkflow(workflow(), { credentials });
		if (r.error) throw r.error;
	};
	return { sb, run, workflow };
}

/** The contention case: a process's first read beside the user's load on the key. */
async function contention(jobs: number, label: string) {
	const ledger = await ledgerModule();
	const { sb, run } = await start();
	ledger.forgetLedgers();
	const entries = seedMonth(sb, jobs);
	sb.control.clearRequests();
	sb.control.setConfig({ rateLimitPerMinute: 120 });
	log(`contention (${label}): ${jobs} jobs, ${entries} entries; the user load starts`);
	const load = keyLoad(sb, 1_000);
	await sleep(10_000);
	const started = Date.now();
	await run();
	const firstMs = Date.now() - started;
	const estimate = sb.control.requests({ method: 'POST', path: '/generations/estimate$' })[0];
	const firstReadMs = estimate ? Date.parse(estimate.time) - started : NaN;
	const firstBudget = budgetRequests(sb);
	log(`first run ${fmt(firstMs / 1000, 1)} s; ${firstBudget.length} budget requests`);
	const later: number[] = [];
	for (let i = 0; i < LATER; i++) {
		const at = Date.now();
		await run();
		later.push(Date.now() - at);
	}
	await sleep(60_000);
	await load.stop();
	const all = sb.control.requests();
	const budget = budgetRequests(sb);
	const times = (list: typeof all) => list.map((r) => Date.parse(r.time));
	const result = {
		label,
		jobs,
		entries,
		userRequests: load.answers.length,
		userRefused: load.refused(),
		firstReadMs,
		firstRunMs: firstMs,
		firstRunBudgetRequests: firstBudget.length,
		budgetMostInAMinute: mostWithin(times(budget), 60_000),
		budget429: budget.filter((r) => r.status === 429).length,
		keyAcceptedMostInAMinute: mostWithin(times(all.filter((r) => r.status !== 429)), 60_000),
		laterRunsMs: later,
	};
	await sb.close();
	console.log(machine());
	console.log(JSON.stringify(result));
	console.log(
		table(
			[
				'code',
				'user requests refused (429)',
				'first read (s)',
				'first run: budget requests',
				'budget requests, most in a minute',
				'budget requests answered 429',
				'key: requests accepted, most in a minute',
				'later runs (s)',
			],
			[
				[
					label,
					`${result.userRefused} of ${result.userRequests}`,
					fmt(firstReadMs / 1000, 1),
					result.firstRunBudgetRequests,
					result.budgetMostInAMinute,
					result.budget429,
					result.keyAcceptedMostInAMinute,
					later.map((ms) => fmt(ms / 1000, 2)).join(', '),
				],
			],
		),
	);
}

/** The first run of a new process with the workflow's saved summary (ledger + active-list requests). */
async function summary() {
	const ledger = await ledgerModule();
	// request counts, not the pace: a first read of a 100,000-job month would take 30 minutes
	if (ledger.LEDGER) ledger.LEDGER.readsPerMinute = 60_000_000;
	const { sb, run, workflow } = await start();
	const count = () => {
		const n = (path: string, status?: string) =>
			sb.control
				.requests({ method: 'GET', path })
				.filter((r) => !status || r.query.status === status).length;
		const got = `${n('/credits/ledger$')} + ${n('/generations$', 'active')}`;
		sb.control.clearRequests();
		return got;
	};
	const rows: Array<Array<string | number>> = [];
	for (const jobs of SIZES) {
		sb.control.reset();
		ledger.forgetLedgers();
		const entries = seedMonth(sb, jobs);
		const wf = workflow();
		sb.control.clearRequests();
		await run(wf);
		const without = count();
		ledger.forgetLedgers(); // a new process (main restarted, a new worker)
		await run(wf);
		const right = count();
		const day = Math.round(jobs / 20);
		const more = seedMore(sb, day, 86_400_000);
		ledger.forgetLedgers();
		sb.control.clearRequests();
		await run(wf);
		const later = count();
		rows.push([
			`${jobs.toLocaleString('en')} (${entries.toLocaleString('en')})`,
			without,
			right,
			`${later} (${day.toLocaleString('en')} jobs, ${more.toLocaleString('en')} entries)`,
		]);
	}
	await sb.close();
	console.log(machine());
	console.log(
		table(
			[
				'jobs in the month (ledger entries)',
				'first run of a process, no summary: ledger + active-list requests',
				"first run of a new process with the workflow's summary, right after",
				'the same after a day of other work on the workspace',
			],
			rows,
		),
	);
}

async function main() {
	if (SUMMARY) return await summary();
	if (CONTENTION)
		return await contention(Number(process.argv[3] ?? 10_000), process.argv[4] ?? 'after');
	const ledger = await ledgerModule();
	const { sb, run } = await start();
	const count = (path: string, status?: string) =>
		sb.control.requests({ method: 'GET', path }).filter((r) => !status || r.query.status === status)
			.length;
	const rows: Array<Array<string | number>> = [];
	for (const jobs of SIZES) {
		sb.control.reset();
		ledger.forgetLedgers();
		const entries = seedMonth(sb, jobs);
		collectGarbage();
		const heapBefore = process.memoryUsage().heapUsed;
		const runs: Array<{ ledger: number; active: number; ms: number }> = [];
		for (let i = 0; i <= LATER; i++) {
			sb.control.clearRequests();
			const started = Date.now();
			await run();
			runs.push({
				ledger: count('/credits/ledger$'),
				active: count('/generations$', 'active'),
				ms: Date.now() - started,
			});
		}
		collectGarbage();
		const heap = process.memoryUsage().heapUsed - heapBefore;
		const kept = ledger.keptLedgers?.().reduce((n, k) => n + k.entries, 0);
		const later = runs.slice(1);
		rows.push([
			jobs.toLocaleString('en'),
			entries.toLocaleString('en'),
			`${runs[0].ledger} + ${runs[0].active}`,
			fmt(runs[0].ms / 1000, 1),
			later.map((x) => `${x.ledger} + ${x.active}`).join(', '),
			fmt(Math.max(...later.map((x) => x.ms)) / 1000, 1),
			kept === undefined ? 'all in the period' : kept,
			fmt(heap / 2 ** 20, 1),
		]);
	}
	await sb.close();
	console.log(machine());
	console.log(
		table(
			[
				'jobs in the month',
				'ledger entries',
				'first run: ledger + active-list requests',
				'first run (s)',
				'later runs: ledger + active-list requests',
				'later run, slowest (s)',
				'entries kept per credential',
				'heap kept (MiB)',
			],
			rows,
		),
	);
}

void main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
