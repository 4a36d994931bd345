/**
 * The simulation's property: fast-check draws cases (./scenario.ts), runs each (./run.ts) and
 * fails on the first broken invariant, then shrinks it; the error names the seed and the path to
 * replay (`npm run simulate -- --seed S`) and the shrunk case.
 */
import fc from 'fast-check';

import type { Sandbox } from '../../sandbox';
import type { CaseResult } from './run';
import { runCase } from './run';
import type { Scenario } from './scenario';
import { scenario } from './scenario';

export interface SimulationOptions {
	seed: number;
	runs: number;
	/** fast-check's path of a failing case (printed with it): replays that case first. */
	path?: string;
	/** Called after each case (also the shrinking ones). */
	onCase?: (s: Scenario, result: CaseResult, ms: number) => void;
}

export interface SimulationReport {
	seed: number;
	cases: number;
	ms: number;
	/** fast-check's report of the failure (seed, path, shrunk case), if an invariant broke. */
	failure?: string;
}

export async function simulate(
	sb: Sandbox,
	credentials: { mediaGenApi: { apiKey: string; baseUrl: string } },
	options: SimulationOptions,
): Promise<SimulationReport> {
	let cases = 0;
	const started = Date.now();
	const property = fc.asyncProperty(scenario, async (s) => {
		const t = Date.now();
		const result = await runCase(sb, s, credentials);
		cases++;
		options.onCase?.(s, result, Date.now() - t);
		if (result.violations.length)
			throw new Error(`${result.violations.join('\n')}\n(${result.summary})`);
	});
	const details = await fc.check(property, {
		seed: options.seed,
		numRuns: options.runs,
		...(options.path ? { path: options.path } : {}),
	});
	const failure = details.failed
		? `${fc.defaultReportMessage(details) ?? ''}\n${details.errorInstance instanceof Error ? details.errorInstance.message : ''}\nReplay: npm run simulate -- --seed ${details.seed} --path "${details.counterexamplePath ?? ''}"`
		: undefined;
	return { seed: options.seed, cases, ms: Date.now() - started, failure };
}
