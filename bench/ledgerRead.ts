/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * B9, the budget's ledger reads at scale (bench/README.md): a month of N jobs booked straight
 * into the in-process sandbox's ledger (test/engine/ledgerSeed.ts), then runs of one Generation →
 * Create workflow (2 items) in n8n-core's engine on a credential with a monthly budget: ledger
 * requests (and `GET /generations?status=active`) of the first run of a process and of the runs
 * after it, their wall time, and what the process keeps per credential (entries, heap).
 *
 *   node --expose-gc node_modules/.bin/tsx bench/ledgerRead.ts [jobs=10000,100000] [later runs=3]
 */
import { startSandbox } from '../sandbox';
import { POLLING } from '../nodes/shared/jobs/poller';
import { RETRY } from '../nodes/shared/transport/retry';
import { chain, mediaGen, runWorkflow } from '../test/engine/harness';
import { seedMonth } from '../test/engine/ledgerSeed';
import { generationCreate } from '../test/engine/setup';
import { collectGarbage, fmt, machine, table } from './lib';

const SIZES = (process.argv[2] ?? '10000,100000').split(',').map(Number);
const LATER = Number(process.argv[3] ?? 3);

/** The ledger module of this checkout (before #38's findings 2 and 3 it was ledger.ts alone). */
async function ledgerModule(): Promise<{
	forgetLedgers(): void;
	keptLedgers?: () => Array<{ entries: number }>;
}> {
	try {
		return await import('../nodes/shared/budget/ledgerRead');
	} catch {
		return (await import('../nodes/shared/budget/ledger')) as unknown as {
			forgetLedgers(): void;
		};
	}
}

async function main() {
	const ledger = await ledgerModule();
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
			const node = mediaGen('Generate', generationCreate({}, 300), { typeVersion: 2 });
			const r = await runWorkflow(chain([{ row: 1 }, { row: 2 }], [node]), { credentials });
			if (r.error) throw r.error;
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
