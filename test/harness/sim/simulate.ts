/**
 * The simulation's properties: fast-check draws cases (./scenario.ts), runs each (./run.ts) and
 * fails on the first broken invariant, then shrinks it; the error names the seed and the path to
 * replay (`npm run simulate -- --seed S`) and the shrunk case. With `concurrent`, the cases are
 * executions in flight at once and a scheduler that draws their interleaving (./concurrent.ts;
 * `npm run simulate -- --concurrent`): a property of its own, so that the cases of a seed of the
 * first property stay what they were. With `adversary`, the cases of `adversaryScenario`
 * (./scenario.ts: the MediaGen node's settings, faults in the first run, n8n killed again during
 * its Retry, a Wait node; `npm run simulate -- --adversary`), a property of its own too.
 */
import fc from 'fast-check';

import type { Sandbox } from '../../../sandbox';
import type { ConcurrentScenario } from './concurrent';
import { concurrentScenario, runConcurrentCase } from './concurrent';
import type { CaseResult } from './run';
import { runCase } from './run';
import type { Scenario } from './scenario';
import { adversaryScenario, scenario } from './scenario';

export interface SimulationOptions {
	seed: number;
	runs: number;
	/** fast-check's path of a failing case (printed with it): replays that case first. */
	path?: string;
	/** The concurrent cases (./concurrent.ts) instead of the crash-and-Retry ones. */
	concurrent?: boolean;
	/** The adversary's cases (`adversaryScenario`) instead of `scenario`'s. */
	adversary?: boolean;
	/** Called after each case (also the shrinking ones). */
	onCase?: (s: Scenario | ConcurrentScenario, result: CaseResult, ms: number) => void;
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
	const check = async (s: Scenario | ConcurrentScenario, run: () => Promise<CaseResult>) => {
		const t = Date.now();
		const result = await run();
		cases++;
		options.onCase?.(s, result, Date.now() - t);
		if (result.violations.length)
			throw new Error(`${result.violations.join('\n')}\n(${result.summary})`);
	};
	const failure = options.concurrent
		? await failureOf(
				fc.asyncProperty(concurrentScenario, fc.scheduler(), async (c, sched) =>
					check(c, () => runConcurrentCase(sb, c, sched, credentials)),
				),
				options,
			)
		: await failureOf(
				fc.asyncProperty(options.adversary ? adversaryScenario : scenario, async (s) =>
					check(s, () => runCase(sb, s, credentials)),
				),
				options,
			);
	return { seed: options.seed, cases, ms: Date.now() - started, failure };
}

/** Runs a property; fast-check's report of its failure (seed, path, shrunk case), if it fails. */
async function failureOf<Ts extends [unknown, ...unknown[]]>(
	property: fc.IAsyncProperty<Ts>,
	options: SimulationOptions,
): Promise<string | undefined> {
	const details = await fc.check(property, {
		seed: options.seed,
		numRuns: options.runs,
		...(options.path ? { path: options.path } : {}),
	});
	if (!details.failed) return undefined;
	const message = details.errorInstance instanceof Error ? details.errorInstance.message : '';
	const flag = options.concurrent ? '--concurrent ' : options.adversary ? '--adversary ' : '';
	return `${fc.defaultReportMessage(details) ?? ''}\n${message}\nReplay: npm run simulate -- ${flag}--seed ${details.seed} --path "${details.counterexamplePath ?? ''}"`;
}
