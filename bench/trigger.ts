/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions, no-console -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * B6, trigger throughput: signed events per second accepted by a running n8n (`n8n start`,
 * 2.40.7, regular mode, sqlite) through the MediaGen Trigger, against n8n's plain Webhook node
 * in the same run, over loopback.
 *
 *     node_modules/.bin/tsx bench/trigger.ts              # 2,000 events to each, 20 in flight
 *     node_modules/.bin/tsx bench/trigger.ts 1000 10 4    # events to each, in flight, rounds
 *
 * Two published workflows, each a single trigger node: MediaGen Trigger (Registration: Manual,
 * a known whsec_ secret; every request verified: Standard Webhooks HMAC, timestamp tolerance,
 * replay cache) and n8n's Webhook node (POST, respond immediately). Each gets the same kind of
 * request: a `generation.completed` event body with unique `webhook-id`, `webhook-timestamp` and
 * `webhook-signature` headers, signed when sent. The events go in rounds that alternate the
 * target (MediaGen first in odd rounds, Webhook first in even ones), with bounded concurrency.
 * "Accepted/s" = events answered 2xx / wall time of sending them. After the last round the bench
 * waits for n8n to finish the executions, stops n8n, and reads its sqlite database (with Node
 * 24's node:sqlite): every execution of each workflow and the event ids found in its data, to
 * count events lost (answered but never run, or not answered 2xx) and run twice.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { signPayload } from '../nodes/MediaGenTrigger/webhookSignature';
import {
	createN8nHome,
	importWorkflows,
	publishWorkflow,
	setupOwner,
	startN8n,
	type N8nHome,
	type N8nWorkflow,
} from '../test/harness/e2e/n8n';
import { fmt, log, machine, median, packBuilt, sleep, table } from './lib';

const N = Number(process.argv[2] ?? 2000);
const IN_FLIGHT = Number(process.argv[3] ?? 20);
const ROUNDS = Number(process.argv[4] ?? 4);
const TARGET = 0.9;
/**
 * Extra n8n settings for a diagnostic run, `B6_N8N_ENV='K=V,K=V'`, e.g.
 * N8N_EXPRESSION_ENGINE_ALLOW_WEBHOOK_ISOLATE_SKIP=false (see bench/README.md, B6).
 */
const EXTRA_ENV: Record<string, string> = Object.fromEntries(
	(process.env.B6_N8N_ENV ?? '')
		.split(',')
		.filter((kv) => kv.includes('='))
		.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);
/** The MediaGen Trigger's node version, `B6_TRIGGER_VERSION=1` for the first one (default 2). */
const TRIGGER_VERSION = Number(process.env.B6_TRIGGER_VERSION ?? 2);
const SECRET = `whsec_${Buffer.alloc(32, 42).toString('base64')}`;

const MG_WF = 'benchB6mediagenx';
const WH_WF = 'benchB6webhookxx';
const MG_HOOK_ID = randomUUID();
const WH_PATH = 'b6-plain';

function workflows(): N8nWorkflow[] {
	return [
		{
			id: MG_WF,
			name: 'B6 MediaGen Trigger',
			nodes: [
				{
					id: 't1',
					name: 'MediaGen Trigger',
					type: 'n8n-nodes-mediagen.mediaGenTrigger',
					typeVersion: TRIGGER_VERSION,
					position: [0, 0],
					webhookId: MG_HOOK_ID,
					parameters: { registration: 'manual', signingSecret: SECRET, options: {} },
				},
			],
			connections: {},
			settings: { executionOrder: 'v1' },
		},
		{
			id: WH_WF,
			name: 'B6 Webhook',
			nodes: [
				{
					id: 't1',
					name: 'Webhook',
					type: 'n8n-nodes-base.webhook',
					typeVersion: 2,
					position: [0, 0],
					webhookId: randomUUID(),
					parameters: {
						httpMethod: 'POST',
						path: WH_PATH,
						responseMode: 'onReceived',
						options: {},
					},
				},
			],
			connections: {},
			settings: { executionOrder: 'v1' },
		},
	];
}

type Target = 'mediagen' | 'webhook';

interface Sent {
	id: string;
	status: number;
}

function signedEvent(id: string): { headers: Record<string, string>; body: string } {
	const body = JSON.stringify({
		id,
		type: 'generation.completed',
		created_at: new Date().toISOString(),
		workspace_id: 'ws_bench',
		data: { id: `gen_${id}`, status: 'completed', outputs: [] },
	});
	const ts = Math.floor(Date.now() / 1000);
	return {
		body,
		headers: {
			'content-type': 'application/json',
			'webhook-id': id,
			'webhook-timestamp': String(ts),
			'webhook-signature': signPayload(SECRET, id, ts, body),
			'user-agent': 'MediaGen-Webhooks/1.0',
		},
	};
}

/** Sends `count` events with at most IN_FLIGHT at a time; returns each event's HTTP status. */
async function blast(
	url: string,
	prefix: string,
	count: number,
): Promise<{ sent: Sent[]; ms: number }> {
	const sent: Sent[] = [];
	let next = 0;
	const started = performance.now();
	const worker = async () => {
		while (next < count) {
			const id = `${prefix}${String(next++).padStart(5, '0')}`;
			const { headers, body } = signedEvent(id);
			let status = 0;
			try {
				const res = await fetch(url, { method: 'POST', headers, body });
				await res.arrayBuffer();
				status = res.status;
			} catch {
				status = -1;
			}
			sent.push({ id, status });
		}
	};
	await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
	return { sent, ms: performance.now() - started };
}

/** Every execution of the two workflows with the event ids in its data (n8n stopped first). */
async function readExecutions(
	home: N8nHome,
): Promise<Array<{ workflowId: string; status: string; ids: string[] }>> {
	const script = `
const { DatabaseSync } = require('node:sqlite');
const db = new DatabaseSync(process.argv[1], { readOnly: true });
const rows = db.prepare('SELECT e.workflowId AS w, e.status AS s, d.data AS d FROM execution_entity e LEFT JOIN execution_data d ON d.executionId = e.id').all();
const out = rows.map((r) => ({ workflowId: r.w, status: r.s, ids: [...new Set(String(r.d ?? '').match(/evt_b6_[a-z]+_[0-9]+_[0-9]+/g) ?? [])] }));
process.stdout.write(JSON.stringify(out));`;
	const db = join(home.userFolder, '.n8n', 'database.sqlite');
	return await new Promise((resolve, reject) => {
		const child = spawn(home.runtime.node, ['-e', script, db], {
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let out = '';
		let err = '';
		child.stdout.on('data', (c: Buffer) => (out += c.toString()));
		child.stderr.on('data', (c: Buffer) => (err += c.toString()));
		child.on('close', (code) => {
			if (code !== 0) reject(new Error(`reading ${db} failed: ${err}`));
			else resolve(JSON.parse(out));
		});
	});
}

async function executionCount(url: string, cookie: string, workflowId: string): Promise<number> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	const res = await fetch(`${url}/rest/executions?filter=${filter}&limit=1`, {
		headers: { cookie },
	});
	if (!res.ok) return -1;
	const body = (await res.json()) as { data?: { count?: number } };
	return body.data?.count ?? -1;
}

async function main() {
	const pack = await packBuilt();
	const parent = mkdtempSync(join(tmpdir(), 'mediagen-bench-b6-'));
	try {
		log('creating the n8n home...');
		const home = await createN8nHome({
			tarball: pack.tarball,
			parentDir: parent,
			expectNodeTypes: ['n8n-nodes-mediagen.mediaGenTrigger'],
		});
		await importWorkflows(home, workflows());
		await publishWorkflow(home, MG_WF);
		await publishWorkflow(home, WH_WF);
		const per = Math.ceil(N / ROUNDS);
		const results: Record<Target, { sent: Sent[]; ms: number; roundRates: number[] }> = {
			mediagen: { sent: [], ms: 0, roundRates: [] },
			webhook: { sent: [], ms: 0, roundRates: [] },
		};
		const n8n = await startN8n(home, undefined, { env: EXTRA_ENV });
		try {
			const owner = await setupOwner(n8n);
			const mgUrl = n8n.webhookUrl(`${MG_HOOK_ID}/webhook`);
			const whUrl = n8n.webhookUrl(WH_PATH);
			await n8n.waitForWebhook(`${MG_HOOK_ID}/webhook`);
			await n8n.waitForWebhook(WH_PATH);
			log('both webhooks registered; warm-up (50 events each, not counted)');
			// warm-up batches are sent with their own prefix and excluded from the counts below
			await blast(mgUrl, 'evt_b6_warm_0_', 50);
			await blast(whUrl, 'evt_b6_warm_1_', 50);
			await sleep(2000);

			for (let round = 0; round < ROUNDS; round++) {
				const order: Target[] = round % 2 === 0 ? ['mediagen', 'webhook'] : ['webhook', 'mediagen'];
				for (const target of order) {
					const r = await blast(
						target === 'mediagen' ? mgUrl : whUrl,
						`evt_b6_${target === 'mediagen' ? 'mg' : 'wh'}_${round}_`,
						per,
					);
					const acc = r.sent.filter((s) => s.status >= 200 && s.status < 300).length;
					results[target].sent.push(...r.sent);
					results[target].ms += r.ms;
					results[target].roundRates.push(acc / (r.ms / 1000));
					log(
						`round ${round + 1} ${target}: ${acc}/${per} accepted in ${fmt(r.ms, 0)} ms (${fmt(acc / (r.ms / 1000), 1)}/s)`,
					);
					await sleep(1000); // let the executions of this batch drain before the next target
				}
			}

			// wait until n8n has stored every execution (or the count stops moving)
			const expected = { mediagen: per * ROUNDS + 50, webhook: per * ROUNDS + 50 };
			let last = '';
			let stableSince = Date.now();
			const drainStart = Date.now();
			for (;;) {
				const counts = [
					await executionCount(n8n.url, owner.cookie, MG_WF),
					await executionCount(n8n.url, owner.cookie, WH_WF),
				];
				const key = counts.join('/');
				if (key !== last) {
					last = key;
					stableSince = Date.now();
				}
				if (
					(counts[0] >= expected.mediagen && counts[1] >= expected.webhook) ||
					Date.now() - stableSince > 10_000 ||
					Date.now() - drainStart > 120_000
				) {
					log(`executions stored: MediaGen ${counts[0]}, Webhook ${counts[1]}`);
					break;
				}
				await sleep(500);
			}
		} finally {
			await n8n.stop();
		}

		const executions = await readExecutions(home);
		const rows: Array<Array<string | number>> = [];
		const rates: Record<Target, number> = { mediagen: 0, webhook: 0 };
		const notes: string[] = [];
		for (const target of ['mediagen', 'webhook'] as Target[]) {
			const r = results[target];
			const wf = target === 'mediagen' ? MG_WF : WH_WF;
			const runs = executions.filter((e) => e.workflowId === wf);
			const runsPerId = new Map<string, number>();
			let noId = 0;
			for (const e of runs) {
				const ids = e.ids.filter((id) => !id.includes('_warm_'));
				if (e.ids.length === 0) noId++;
				for (const id of ids) runsPerId.set(id, (runsPerId.get(id) ?? 0) + 1);
			}
			const accepted = r.sent.filter((s) => s.status >= 200 && s.status < 300);
			const refused = r.sent.length - accepted.length;
			const lost = r.sent.filter((s) => !runsPerId.has(s.id)).length;
			const twice = [...runsPerId.values()].filter((n) => n > 1).length;
			const notOk = runs.filter((e) => e.status !== 'success').length;
			const rate = accepted.length / (r.ms / 1000);
			rates[target] = rate;
			rows.push([
				target === 'mediagen' ? 'MediaGen Trigger' : 'Webhook (n8n-nodes-base)',
				r.sent.length,
				accepted.length,
				refused,
				fmt(rate, 1),
				r.roundRates.map((x) => fmt(x, 0)).join(' / '),
				fmt(median(r.roundRates), 1),
				runs.length,
				lost,
				twice,
				notOk,
			]);
			if (noId) notes.push(`${target}: ${noId} executions without an event id in their data`);
		}
		const ratio = rates.mediagen / rates.webhook;
		console.log(
			`\nB6 trigger: ${N} events to each, ${IN_FLIGHT} in flight, ${ROUNDS} alternating rounds, ${new Date().toISOString()}`,
		);
		console.log(machine());
		console.log(`MediaGen Trigger node version ${TRIGGER_VERSION}`);
		if (Object.keys(EXTRA_ENV).length) console.log(`n8n settings: ${JSON.stringify(EXTRA_ENV)}`);
		console.log(
			table(
				[
					'trigger',
					'sent',
					'answered 2xx',
					'refused/failed',
					'accepted/s',
					'accepted/s per round',
					'median round',
					'executions (incl. 50 warm-up)',
					'lost',
					'run twice',
					'executions not success',
				],
				rows,
			),
		);
		for (const n of notes) console.log(n);
		console.log(
			`ratio MediaGen / Webhook: ${fmt(ratio, 3)} (target ≥ ${TARGET}): ${ratio >= TARGET ? 'MET' : 'MISSED'}`,
		);
		await home.cleanup();
	} finally {
		pack.cleanup();
		rmSync(parent, { recursive: true, force: true });
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
