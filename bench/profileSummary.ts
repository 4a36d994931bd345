/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, no-console -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * Reads V8 CPU profiles (`.cpuprofile`, from `node --cpu-prof`, e.g. `B1_PROFILE=<dir>` of
 * bench/perItem.ts) and prints where the time went: self time by package, the top functions by
 * self time, and the inclusive time of functions whose name matches a filter.
 *
 *     node_modules/.bin/tsx bench/profileSummary.ts <dir-or-file> [more...] [--top 30] [--match re]
 *     node_modules/.bin/tsx bench/profileSummary.ts <dir-or-file> --phases   # the run's phases
 *
 * Several profiles (a directory holds the main process's and the task runner's) are summed; the
 * largest file of each directory is taken as the n8n main process.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

interface CallFrame {
	functionName: string;
	url: string;
	lineNumber: number;
}
interface ProfileNode {
	id: number;
	callFrame: CallFrame;
	children?: number[];
}
interface CpuProfile {
	nodes: ProfileNode[];
	startTime: number;
	endTime: number;
	samples: number[];
	timeDeltas: number[];
}

const args = process.argv.slice(2);
const top = Number(args[args.indexOf('--top') + 1] || 30);
/**
 * `--phases`: the node run's phases (run/execute.ts, run/start.ts) and what each spends most in,
 * as one filter. A profile shows an async function's synchronous part and each of its
 * continuations under its own name: what an awaited call does after its first await is counted
 * under that call, not under the phase that awaited it. So the phases' own figures are lower
 * bounds; the pieces listed with them (the request, the credential's authenticate, n8n's
 * parameter and expression reads, the agents n8n builds per request) carry the rest.
 */
const PHASES = [
	'executeCatalog',
	'prepareAll|prepareItem|requestPlan|prepareRequest|addIdempotencyKey',
	'recoverAll|establish|establishRun|recoverStartedJobs|recoverAnswers',
	'guardAll|RunBudget|readLedger',
	'sendAll|inWindow|sendMarked|mediaGenRequest|withRetries|answerBody',
	'waitAndOutput|waitForJobs|jobOutput',
	'outputOf|applyOutput',
	'getNodeParameter|getParameterValue|getCredentials|getExecutionDataById|getNode ',
	'httpRequestWithAuthentication|authenticate|keyedRequest',
	'buildNodeAgents|isSecureEndpoint|dispatchHttpRequest',
].join('|');
const matchArg = args.includes('--phases')
	? PHASES
	: args.indexOf('--match') >= 0
		? args[args.indexOf('--match') + 1]
		: undefined;
const inputs = args.filter(
	(a, i) => !a.startsWith('--') && args[i - 1] !== '--top' && args[i - 1] !== '--match',
);

function profilesOf(path: string): string[] {
	if (!statSync(path).isDirectory()) return [path];
	const files = readdirSync(path)
		.filter((f) => f.endsWith('.cpuprofile'))
		.map((f) => join(path, f));
	files.sort((a, b) => statSync(b).size - statSync(a).size);
	return files.slice(0, 1);
}

function packageOf(url: string): string {
	if (!url) return '(native/gc/idle)';
	// the innermost node_modules package on the path
	const packages = [...url.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)\//g)];
	if (packages.length) return packages[packages.length - 1][1];
	if (url.startsWith('node:')) return url.replace(/^node:internal\/([^/]+).*/, 'node:$1');
	return url;
}

/** A function as `name file:line`, the file relative to its node_modules. */
const frameKey = (cf: CallFrame) =>
	`${cf.functionName || '(anonymous)'} ${cf.url.replace(/.*node_modules\//, '')}:${cf.lineNumber + 1}`;
const re = matchArg ? new RegExp(matchArg) : undefined;

const selfByPkg = new Map<string, number>();
const selfByFn = new Map<string, number>();
const inclByFn = new Map<string, number>();
let total = 0;
const files = inputs.flatMap(profilesOf);
for (const file of files) {
	const prof = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
	const byId = new Map(prof.nodes.map((n) => [n.id, n]));
	const parent = new Map<number, number>();
	for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
	for (let i = 0; i < prof.samples.length; i++) {
		const dt = (prof.timeDeltas[i + 1] ?? 0) / 1000;
		const node = byId.get(prof.samples[i]);
		if (!node) continue;
		const cf = node.callFrame;
		if (cf.functionName === '(idle)') continue;
		total += dt;
		const pkg = packageOf(cf.url);
		selfByPkg.set(pkg, (selfByPkg.get(pkg) ?? 0) + dt);
		const key = frameKey(cf);
		selfByFn.set(key, (selfByFn.get(key) ?? 0) + dt);
		if (re) {
			const seen = new Set<string>();
			for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
				const k = frameKey(byId.get(id)!.callFrame);
				if (re.test(k) && !seen.has(k)) {
					seen.add(k);
					inclByFn.set(k, (inclByFn.get(k) ?? 0) + dt);
				}
			}
		}
	}
}

const print = (title: string, m: Map<string, number>, n: number) => {
	console.log(`\n${title}`);
	for (const [k, v] of [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, n)) {
		console.log(
			`${v.toFixed(1).padStart(9)} ms ${((100 * v) / total).toFixed(1).padStart(5)} %  ${k}`,
		);
	}
};
console.log(`${files.length} profile(s), ${total.toFixed(0)} ms of non-idle samples`);
print('self time by package', selfByPkg, 25);
print('self time by function', selfByFn, top);
if (matchArg) print(`inclusive time of functions matching /${matchArg}/`, inclByFn, top);
