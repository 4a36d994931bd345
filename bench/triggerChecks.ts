/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, no-console, @typescript-eslint/no-require-imports -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * B10, the trigger's periodic checks at scale (issue #37, finding 5): N MediaGen Trigger
 * workflows (automatic mode) on one API key, beside a user load of 60 requests a minute on the
 * same key, against the sandbox with its rate limit on (120 requests per rolling minute per key),
 * in real time over at least one 10-minute check cycle.
 *
 *     node_modules/.bin/tsx bench/triggerChecks.ts [workflows=50] [minutes=11] [label=after]
 *
 * Each workflow is the real node in n8n-core's contexts (test/harness/engine/triggerHarness.ts: the
 * webhook lifecycle and the `trigger` method, as n8n 2.40.7's WorkflowTriggerActivator runs
 * them). n8n's cron is played in real time: each second, every cron the trigger registered whose
 * expression names that second (`<s> * * * * *`) is ticked with the tick's time, as n8n's
 * ScheduledTaskManager does. The first workflow's endpoint has a delivery log of 1,050 entries
 * (test pings, made before the measurement, then an activation as at a start of n8n, so that the
 * measured checks find nothing new). The setup runs with the rate limit off; the measurement
 * starts with it on and the sandbox's request log cleared.
 *
 * The user load: one `GET /credits` a second with the key, sent directly (no retry), each answer
 * counted. Every other request in the measurement is the trigger's (counted as sent, 429s
 * included). A check is counted by its first read of a delivery log answered 2xx (a
 * `GET /webhooks/{id}/deliveries` without `before`); requests per check = the trigger's requests
 * sent / checks; the long log's requests per check count its log reads answered 2xx.
 */
import Module from 'node:module';

import { startSandbox } from '../sandbox';
import { recoveriesSettled } from '../nodes/MediaGenTrigger/catchUp';
import { mostWithin } from '../test/harness/engine/keyLoad';
import type { FakeN8n as FakeN8nClass } from '../test/harness/engine/triggerHarness';
import { fmt, log, machine, sleep } from './lib';

const WORKFLOWS = Number(process.argv[2] ?? 50);
const MINUTES = Number(process.argv[3] ?? 11);
const LABEL = process.argv[4] ?? 'after';
const LONG_LOG = 1050;
const USER_PATH = '/credits';

/**
 * Node's require finds the trigger's codex file (MediaGenTrigger.node.json) before its .ts: the
 * harness is loaded with that one request pointed at the .ts (jest resolves .ts first).
 */
function loadHarness(): typeof FakeN8nClass {
	const loader = Module as unknown as {
		_resolveFilename: (request: string, ...rest: unknown[]) => string;
	};
	const resolve = loader._resolveFilename;
	loader._resolveFilename = function (request: string, ...rest: unknown[]) {
		return resolve.call(
			this,
			request.endsWith('/MediaGenTrigger.node') ? `${request}.ts` : request,
			...rest,
		);
	};
	return (require('../test/harness/engine/triggerHarness') as { FakeN8n: typeof FakeN8nClass }).FakeN8n;
}

/** n8n-core's own Logger class (it nests @n8n/backend-common): silenced, as in the tests. */
function silenceN8nLogger(): void {
	const { dirname } = require('node:path') as typeof import('node:path');
	const core = dirname(require.resolve('n8n-core'));
	const di = require(require.resolve('@n8n/di', { paths: [core] })) as typeof import('@n8n/di');
	const { Logger } = require(require.resolve('@n8n/backend-common', { paths: [core] })) as {
		Logger: new () => unknown;
	};
	const quiet = { error() {}, warn() {}, info() {}, debug() {}, scoped: () => quiet };
	di.Container.set(Logger, quiet);
}

async function main() {
	silenceN8nLogger();
	const sb = await startSandbox({
		port: 0,
		quiet: true,
		rateLimitPerMinute: 0,
		timeScale: 0.001,
		allowHttpWebhooks: true,
	});
	const api = async (method: string, path: string) => {
		const res = await fetch(`${sb.baseUrl}${path}`, {
			method,
			headers: { authorization: `Bearer ${sb.keys.pro}` },
		});
		return { status: res.status, body: (await res.json()) as { id?: string } };
	};
	const credentials = { mediaGenApi: { apiKey: sb.keys.pro, baseUrl: sb.baseUrl } };
	const FakeN8n = loadHarness();
	const flows: FakeN8nClass[] = [];
	log(`${WORKFLOWS} trigger workflows on one key (${LABEL})`);
	for (let i = 0; i < WORKFLOWS; i++) {
		const n8n = await FakeN8n.start({
			credentials,
			parameters: { registration: 'automatic', events: ['generation.completed'], options: {} },
			workflowId: `b10-wf-${i}`,
		});
		await n8n.activate();
		flows.push(n8n);
	}
	const first = flows[0];
	const longId = String(
		((first.staticData['node:MediaGen Trigger'] as Record<string, { id: string }>).production ?? {})
			.id,
	);
	for (let sent = 0; sent < LONG_LOG; sent += 10)
		await Promise.all(
			Array.from({ length: 10 }, async () => await api('POST', `/webhooks/${longId}/test`)),
		);
	await first.activate('init'); // n8n starts again: the activation reads the log once
	await recoveriesSettled();
	log(`endpoints registered; ${LONG_LOG} deliveries in ${longId}'s log`);

	// the measurement: rate limit on, n8n's cron played each second, the user's load beside
	sb.control.clearRequests();
	sb.control.setConfig({ rateLimitPerMinute: 120 });
	const started = Date.now();
	const end = started + MINUTES * 60_000;
	const user: Array<{ at: number; status: number }> = [];
	const inFlight = new Set<Promise<unknown>>();
	const track = (work: Promise<unknown>) => {
		inFlight.add(work);
		void work.finally(() => inFlight.delete(work));
	};
	let ticks = 0;
	for (let second = Math.ceil(Date.now() / 1000) * 1000; second < end; second += 1000) {
		await sleep(Math.max(0, second - Date.now()));
		const at = new Date(second);
		track(
			(async () => {
				const sentAt = Date.now();
				const { status } = await api('GET', `${USER_PATH}`);
				user.push({ at: sentAt, status });
			})(),
		);
		for (const n8n of flows) {
			const expression = n8n.cronExpressions[n8n.cronExpressions.length - 1] ?? '';
			const tick = n8n.cronTicks[n8n.cronTicks.length - 1];
			const [s, ...rest] = expression.split(' ');
			if (rest.join(' ') !== '* * * * *' || Number(s) !== at.getUTCSeconds() || !tick) continue;
			ticks++;
			tick(at);
		}
		if (second % 60_000 === 0) log(`minute ${Math.round((second - started) / 60_000)}`);
	}
	while (inFlight.size) await Promise.all([...inFlight]);
	await recoveriesSettled();
	const requests = sb.control.requests({});
	const ours = requests.filter((r) => !r.path.endsWith(USER_PATH));
	const answered = (r: (typeof requests)[number]) => r.status >= 200 && r.status < 300;
	const checks = ours.filter(
		(r) =>
			answered(r) &&
			r.method === 'GET' &&
			/\/deliveries$/.test(r.path) &&
			r.query.before === undefined,
	);
	const longReads = ours.filter(
		(r) => answered(r) && r.path.includes(`/webhooks/${longId}/deliveries`),
	);
	const longChecks = checks.filter((r) => r.path.includes(`/webhooks/${longId}/`)).length;
	const times = (list: typeof requests) =>
		list.map((r) => Date.parse(r.time)).sort((a, b) => a - b);
	const minutes = (Date.now() - started) / 60_000;
	const result = {
		label: LABEL,
		workflows: WORKFLOWS,
		minutes: Number(fmt(minutes, 1)),
		ticks,
		checks: checks.length,
		checkRequests: ours.length,
		checkRequestsPerMinute: Number(fmt(ours.length / minutes, 1)),
		checkRequestsMaxInAMinute: mostWithin(times(ours), 60_000),
		requestsPerCheck: Number(fmt(ours.length / Math.max(1, checks.length), 2)),
		longLogChecks: longChecks,
		longLogRequestsPerCheck: Number(fmt(longReads.length / Math.max(1, longChecks), 1)),
		checkRequests429: ours.filter((r) => r.status === 429).length,
		userRequests: user.length,
		user429: user.filter((u) => u.status === 429).length,
		acceptedMaxInAMinute: mostWithin(times(requests.filter((r) => r.status !== 429)), 60_000),
	};
	console.log(JSON.stringify(result));
	console.log(
		`| ${LABEL} | ${WORKFLOWS} | ${result.minutes} | ${result.checks} | ${result.checkRequestsPerMinute} | ${result.checkRequestsMaxInAMinute} | ${result.requestsPerCheck} | ${result.longLogRequestsPerCheck} | ${result.checkRequests429} | ${result.user429} of ${result.userRequests} |`,
	);
	log(machine().replace(/; n8n.*$/, ''));
	for (const n8n of flows) await n8n.close();
	await sb.close();
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
