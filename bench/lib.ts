/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * Shared helpers of the real-n8n benchmarks (bench/perItem.ts, bench/loadCost.ts,
 * bench/trigger.ts): packing the package once, statistics, and a line describing the machine.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';

import { hasBuiltPackage, packRepo } from '../test/harness/e2e/n8n';

export function median(values: number[]): number {
	const s = [...values].sort((a, b) => a - b);
	if (s.length === 0) return NaN;
	const m = Math.floor(s.length / 2);
	return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function fmt(n: number, digits = 2): string {
	return Number.isFinite(n) ? n.toFixed(digits) : String(n);
}

/** Load average and CPUs, printed with every figure: the machine is shared. */
export function machine(): string {
	const [l1, l5] = loadavg();
	return (
		`${cpus().length} vCPU ${cpus()[0]?.model ?? ''}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB; ` +
		`load average ${l1.toFixed(2)} (1 min), ${l5.toFixed(2)} (5 min); Node ${process.version} (bench), ` +
		`n8n 2.40.7 on Node 24`
	);
}

export function log(line: string): void {
	process.stderr.write(`[bench] ${new Date().toISOString().slice(11, 19)} ${line}\n`);
}

/**
 * `npm pack` of the built package into a temp dir (never into the repository), or the tarball
 * named by MEDIAGEN_BENCH_TARBALL.
 */
export async function packBuilt(): Promise<{ tarball: string; cleanup(): void }> {
	// a tarball packed elsewhere (e.g. a prototype of a fix, built in a copy under /tmp)
	const given = process.env.MEDIAGEN_BENCH_TARBALL;
	if (given) return { tarball: given, cleanup: () => {} };
	if (!hasBuiltPackage())
		throw new Error('dist/ holds no built package: run `npm run build` first');
	const dir = mkdtempSync(join(tmpdir(), 'mediagen-bench-pack-'));
	const tarball = await packRepo(dir);
	return { tarball, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Markdown table. */
export function table(head: string[], rows: Array<Array<string | number>>): string {
	return [
		`| ${head.join(' | ')} |`,
		`|${head.map(() => '---').join('|')}|`,
		...rows.map((r) => `| ${r.join(' | ')} |`),
	].join('\n');
}

export function sleep(ms: number): Promise<void> {
	return new Promise((r) => setTimeout(r, ms));
}

const kib = (line: string | undefined) => Number(/(\d+)/.exec(line ?? '')?.[1] ?? 0) * 1024;

/** This process's resident memory now and its peak (VmHWM), in bytes, from /proc/self/status. */
export function procStatus(): { rss: number; hwm: number } {
	const text = readFileSync('/proc/self/status', 'utf8');
	return {
		rss: kib(/^VmRSS:.*$/m.exec(text)?.[0]),
		hwm: kib(/^VmHWM:.*$/m.exec(text)?.[0]),
	};
}

/** A few full collections when the process runs with --expose-gc. */
export function collectGarbage(): void {
	const collect = (globalThis as { gc?: () => void }).gc;
	if (collect) for (let i = 0; i < 3; i++) collect();
}

export interface MemoryWatch {
	/** RSS when the watch began (after garbage collection), in bytes. */
	baseline: number;
	/** Ends the watch: the highest sampled RSS, the kernel's peak (VmHWM), samples taken. */
	stop(): { sampledPeak: number; hwm: number; samples: number };
}

/**
 * Starts watching this process's memory around one measured piece of work: collects garbage,
 * takes the baseline RSS, resets the kernel's peak (VmHWM, through /proc/self/clear_refs) and
 * samples RSS every 20 ms until `stop()`.
 */
export async function watchMemory(): Promise<MemoryWatch> {
	collectGarbage();
	await sleep(200);
	collectGarbage();
	const baseline = procStatus().rss;
	writeFileSync('/proc/self/clear_refs', '5'); // resets VmHWM to the current RSS
	let sampledPeak = baseline;
	let samples = 0;
	const sampler = setInterval(() => {
		sampledPeak = Math.max(sampledPeak, process.memoryUsage().rss);
		samples++;
	}, 20);
	return {
		baseline,
		stop: () => {
			clearInterval(sampler);
			const { hwm } = procStatus();
			sampledPeak = Math.max(sampledPeak, process.memoryUsage().rss);
			return { sampledPeak, hwm, samples };
		},
	};
}
