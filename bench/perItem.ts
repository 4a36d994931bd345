/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, no-console -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * B1, per-item overhead: the MediaGen node against n8n's own HTTP Request node, in a real
 * headless n8n 2.40.7, both doing the same GET per item against the sandbox on 127.0.0.1.
 *
 *     node_modules/.bin/tsx bench/perItem.ts            # 1,000 items, 5 rounds
 *     node_modules/.bin/tsx bench/perItem.ts 500 3      # items, rounds
 *     B1_OPS=project,asset node_modules/.bin/tsx bench/perItem.ts   # some operations only
 *
 * One n8n home with the packed package (dist/ must be built). Workflows: Manual Trigger → Code
 * (N items, each `{ id }`) → the measured node: MediaGen Project Get / Asset Get (id from
 * `{{ $json.id }}`), or HTTP Request GET `{{ base + '/projects/' + $json.id }}` with the
 * Authorization header set on the node. Creates: MediaGen Generation → Create (Wait for Completion
 * off) against HTTP Request POST `{{ base }}/generations` with the same JSON body, on a sandbox of
 * their own (reset before each run). Each round runs every workflow once (`n8n execute`),
 * in an order that alternates from round to round. Figures: the measured node's own
 * `executionTime` from the run data (ms / item), and the whole `n8n execute` (boot included); for
 * creates also the node's time outside the service: its time less the time during which at
 * least one of its requests was open at the sandbox (the sandbox's request log).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { startSandbox } from '../sandbox';
import {
	createN8nHome,
	describeResult,
	executeWorkflow,
	importCredentials,
	importWorkflows,
	type N8nWorkflow,
} from '../test/harness/e2e/n8n';
import { testCertificate } from '../test/harness/engine/tlsOrigins';
import { client } from '../test/harness/sandbox/helpers';
import { fmt, log, machine, median, packBuilt, table } from './lib';

const N = Number(process.argv[2] ?? 1000);
const ROUNDS = Number(process.argv[3] ?? 5);
const TARGET = 1.05;
const CRED = { id: 'benchMediaGen001', name: 'MediaGen bench' };
/** The credential of the creates' own sandbox. */
const CREATE_CRED = { id: 'benchMediaGen002', name: 'MediaGen bench creates' };
const HEADER_CRED = { id: 'benchHeaderAuth1', name: 'Bearer header' };
/**
 * How the HTTP Request node authenticates: `header` (default: the Authorization header typed on
 * the node) or `credential` (B1_HTTP_AUTH=credential: a Header Auth credential, which n8n
 * decrypts and applies on every request, as it does for the MediaGen credential).
 */
const HTTP_AUTH = process.env.B1_HTTP_AUTH === 'credential' ? 'credential' : 'header';
/**
 * B1_PROFILE=<dir>: every counted run also writes a V8 CPU profile of the n8n process
 * (`--cpu-prof`) into <dir>, one file per run, to be read with `bench/profileSummary.ts`.
 */
const PROFILE_DIR = process.env.B1_PROFILE;
/**
 * B1_TLS=1: both sandboxes serve https (a certificate made for 127.0.0.1 for the run, trusted by
 * n8n through NODE_EXTRA_CA_CERTS), as every real Base URL does. Over plain http the MediaGen
 * credential sends its requests through the Base URL's own host as their proxy (so that no proxy
 * of the environment sees the key in clear text: nodes/shared/transport/urlPolicy.ts
 * `directOverHttp`), which costs n8n a proxy agent per request; over https it does not.
 */
const TLS = process.env.B1_TLS === '1';
/**
 * B1_HTTP_PROXY=self: the HTTP Request node gets the same route over plain http (its Proxy option
 * set to the sandbox's own origin), so both nodes keep the key from an environment proxy.
 */
const HTTP_SELF_PROXY = process.env.B1_HTTP_PROXY === 'self';

type Variant = 'mediagen' | 'http';
type Op = 'project' | 'asset' | 'create';
const OPS = (process.env.B1_OPS ?? 'project,asset,create').split(',') as Op[];
const OP_NAMES: Record<Op, string> = {
	project: 'Project Get',
	asset: 'Asset Get',
	create: 'Generation Create (Wait off)',
};
/** What each create asks for: an image whose sandbox job takes 1 ms. */
const CREATE_BODY = {
	modelId: 'flux-pro',
	tool: 'image',
	prompt: 'B1 per-item create',
	params: { sandbox: { durationMs: 1 } },
};

/** The measured node of a read (MediaGen Project/Asset Get, or HTTP Request's GET). */
function readNode(variant: Variant, op: Op, base: string, key: string) {
	return variant === 'mediagen'
		? {
				type: 'n8n-nodes-mediagen.mediaGen',
				typeVersion: 1,
				parameters: {
					resource: op,
					operation: 'get',
					[op === 'project' ? 'projectId' : 'assetId']: {
						__rl: true,
						mode: 'id',
						value: '={{ $json.id }}',
					},
				},
				credentials: { mediaGenApi: CRED },
			}
		: httpNode('GET', `={{ ${JSON.stringify(`${base}/${op}s/`)} + $json.id }}`, key, {}, base);
}

/** The measured node of a create (MediaGen Generation → Create, or HTTP Request's POST). */
function createNode(variant: Variant, base: string, key: string) {
	const { params, ...fields } = CREATE_BODY;
	return variant === 'mediagen'
		? {
				type: 'n8n-nodes-mediagen.mediaGen',
				typeVersion: 1,
				parameters: {
					resource: 'generation',
					operation: 'create',
					...fields,
					waitForCompletion: false,
					additionalFields: { params: JSON.stringify(params) },
				},
				credentials: { mediaGenApi: CREATE_CRED },
			}
		: httpNode(
				'POST',
				`${base}/generations`,
				key,
				{
					sendBody: true,
					contentType: 'json',
					specifyBody: 'json',
					jsonBody: JSON.stringify(CREATE_BODY),
				},
				base,
			);
}

/** n8n's HTTP Request node (v4.2) with the key as B1_HTTP_AUTH says. */
function httpNode(method: string, url: string, key: string, body: object, base: string) {
	return {
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		parameters: {
			method,
			url,
			...(HTTP_AUTH === 'credential'
				? { authentication: 'genericCredentialType', genericAuthType: 'httpHeaderAuth' }
				: {
						authentication: 'none',
						sendHeaders: true,
						specifyHeaders: 'keypair',
						headerParameters: {
							parameters: [{ name: 'Authorization', value: `Bearer ${key}` }],
						},
					}),
			...body,
			options: HTTP_SELF_PROXY && !TLS ? { proxy: new URL(base).origin } : {},
		},
		...(HTTP_AUTH === 'credential' ? { credentials: { httpHeaderAuth: HEADER_CRED } } : {}),
	};
}

/** Time (ms) covered by at least one of the requests (start, duration), as the sandbox logged them. */
function busyMs(requests: Array<{ time: string; durationMs: number }>): number {
	const spans = requests
		.map((r) => [Date.parse(r.time), Date.parse(r.time) + r.durationMs] as const)
		.sort((a, b) => a[0] - b[0]);
	let busy = 0;
	let end = -Infinity;
	for (const [from, to] of spans) {
		if (to <= end) continue;
		busy += to - Math.max(from, end);
		end = to;
	}
	return busy;
}

function workflow(
	id: string,
	variant: Variant,
	op: Op,
	targetId: string,
	base: string,
	key: string,
): N8nWorkflow {
	const code = `return Array.from({ length: ${N} }, (_, i) => ({ json: { id: ${JSON.stringify(targetId)}, i } }));`;
	const measured = {
		id: 'n3',
		name: 'Measured',
		position: [400, 0],
		...(op === 'create' ? createNode(variant, base, key) : readNode(variant, op, base, key)),
	};
	return {
		id,
		name: `B1 ${variant} ${op}`,
		nodes: [
			{
				id: 'n1',
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: 'n2',
				name: 'Items',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [200, 0],
				parameters: { jsCode: code },
			},
			measured,
		],
		connections: {
			Start: { main: [[{ node: 'Items', type: 'main', index: 0 }]] },
			Items: { main: [[{ node: 'Measured', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

interface Sample {
	nodeMs: number;
	wholeMs: number;
	/** Creates: the node's time outside the service (its time less the sandbox's busy time). */
	outsideMs?: number;
}

async function main() {
	const tls = TLS ? testCertificate(['127.0.0.1']) : undefined;
	const sb = await startSandbox({ port: 0, quiet: true, rateLimitPerMinute: 0, tls });
	// the creates' own sandbox, reset before each run: its jobs do not pile up between runs
	const creates = await startSandbox({ port: 0, quiet: true, rateLimitPerMinute: 0, tls });
	const pack = await packBuilt();
	const homeParent = mkdtempSync(join(tmpdir(), 'mediagen-bench-b1-'));
	const caFile = join(homeParent, 'ca.pem');
	if (tls) writeFileSync(caFile, tls.cert);
	const tlsEnv: Record<string, string> = tls ? { NODE_EXTRA_CA_CERTS: caFile } : {};
	try {
		const key = sb.keys.pro;
		// the bench's own request to its sandbox (n8n trusts the run's certificate by its CA file)
		if (tls) process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
		const project = (
			await client(sb, key)<{ id: string }>('POST', '/projects', {
				name: 'B1 bench project',
				description: 'per-item overhead',
			})
		).body;
		const asset = sb.control.createLargeAsset({
			size: 4096,
			filename: 'b1.png',
			mimeType: 'image/png',
		}) as {
			id: string;
		};
		log(`project ${project.id}, asset ${asset.id}`);

		log('creating the n8n home (install + export:nodes)...');
		const home = await createN8nHome({ tarball: pack.tarball, parentDir: homeParent });
		await importCredentials(home, [
			{ ...CRED, type: 'mediaGenApi', data: { apiKey: key, baseUrl: sb.baseUrl } },
			{
				...CREATE_CRED,
				type: 'mediaGenApi',
				data: { apiKey: creates.keys.pro, baseUrl: creates.baseUrl },
			},
			{
				...HEADER_CRED,
				type: 'httpHeaderAuth',
				data: { name: 'Authorization', value: `Bearer ${key}` },
			},
		]);
		const cases: Array<{ variant: Variant; op: Op; id: string }> = [];
		for (const op of OPS) {
			for (const variant of ['mediagen', 'http'] as Variant[]) {
				cases.push({
					variant,
					op,
					id: `benchB1${variant.slice(0, 4)}${op.slice(0, 4)}`.padEnd(16, 'x'),
				});
			}
		}
		await importWorkflows(
			home,
			cases.map((c) =>
				c.op === 'create'
					? workflow(c.id, c.variant, c.op, '', creates.baseUrl, creates.keys.pro)
					: workflow(
							c.id,
							c.variant,
							c.op,
							c.op === 'project' ? project.id : asset.id,
							sb.baseUrl,
							key,
						),
			),
		);

		// warm-up: one run of each (first executions pay for disk caches, the task runner, JIT)
		const samples = new Map<string, Sample[]>(cases.map((c) => [c.id, []]));
		for (let round = -1; round < ROUNDS; round++) {
			const order = round % 2 === 0 ? cases : [...cases].reverse();
			for (const c of order) {
				if (c.op === 'create') {
					creates.control.reset();
					creates.control.setCredits('pro', 100_000_000);
				}
				const r = await executeWorkflow(home, c.id, {
					env: {
						...tlsEnv,
						...(PROFILE_DIR && round >= 0
							? {
									NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${join(PROFILE_DIR, `${c.variant}-${c.op}-r${round + 1}`)}`,
								}
							: {}),
					},
				});
				const task = r.runData.Measured?.[0];
				const out = task?.data?.main?.[0]?.length ?? 0;
				if (!task || task.executionStatus !== 'success' || out !== N) {
					throw new Error(`${c.variant} ${c.op}: ${describeResult(r)} (${out} items out)`);
				}
				const outsideMs =
					c.op === 'create'
						? task.executionTime -
							busyMs(creates.control.requests({ method: 'POST', path: '^/v1/generations$' }))
						: undefined;
				if (round >= 0)
					samples.get(c.id)!.push({ nodeMs: task.executionTime, wholeMs: r.durationMs, outsideMs });
				log(
					`round ${round < 0 ? 'warm-up' : round + 1} ${c.variant} ${c.op}: node ${task.executionTime} ms, execute ${r.durationMs} ms`,
				);
			}
		}

		const rows: Array<Array<string | number>> = [];
		const createRows: Array<Array<string | number>> = [];
		const verdicts: string[] = [];
		for (const op of OPS) {
			const get = (variant: Variant) =>
				samples.get(cases.find((c) => c.op === op && c.variant === variant)!.id)!;
			const mg = get('mediagen');
			const http = get('http');
			const mgNode = median(mg.map((s) => s.nodeMs));
			const httpNode = median(http.map((s) => s.nodeMs));
			const mgWhole = median(mg.map((s) => s.wholeMs));
			const httpWhole = median(http.map((s) => s.wholeMs));
			const ratio = mgNode / httpNode;
			if (op === 'create') {
				const outside = (xs: Sample[]) => median(xs.map((x) => x.outsideMs ?? 0));
				createRows.push([
					OP_NAMES[op],
					fmt(outside(mg) / N, 3),
					fmt(outside(http) / N, 3),
					fmt(outside(mg) / outside(http), 2),
					mg.map((x) => x.outsideMs).join(' / '),
					http.map((x) => x.outsideMs).join(' / '),
				]);
			}
			rows.push([
				OP_NAMES[op],
				fmt(mgNode / N, 3),
				fmt(httpNode / N, 3),
				fmt(ratio, 2),
				mg.map((s) => s.nodeMs).join(' / '),
				http.map((s) => s.nodeMs).join(' / '),
				fmt(mgWhole / 1000, 2),
				fmt(httpWhole / 1000, 2),
				fmt(mgWhole / httpWhole, 2),
			]);
			const head = `${OP_NAMES[op]}: ratio ${fmt(ratio, 2)}`;
			verdicts.push(
				op === 'create'
					? `${head} (MediaGen sends creates one at a time, HTTP Request all at once; no target)`
					: TLS
						? `${head} ${ratio <= TARGET ? 'MET' : 'MISSED'} (target ≤ ${TARGET})`
						: `${head} over plain http, not judged (the target ≤ ${TARGET} is measured over https, B1_TLS=1, as every real Base URL: over plain http the credential's own route costs a proxy agent per request, bench/README.md)`,
			);
		}
		console.log(
			`\nB1 per-item overhead: ${N} items, ${ROUNDS} rounds (medians), ${new Date().toISOString()}`,
		);
		console.log(machine());
		console.log(
			`HTTP Request authentication: ${HTTP_AUTH}; sandbox over ${TLS ? 'https' : 'plain http'}${HTTP_SELF_PROXY && !TLS ? "; HTTP Request's Proxy: the sandbox's own origin" : ''}`,
		);
		console.log(
			table(
				[
					'operation',
					'MediaGen node (ms/item)',
					'HTTP Request (ms/item)',
					'ratio (node time)',
					'MediaGen node ms, each round',
					'HTTP Request ms, each round',
					'MediaGen whole execute (s)',
					'HTTP whole execute (s)',
					'ratio (whole)',
				],
				rows,
			),
		);
		if (createRows.length) {
			console.log(
				"\nCreates, the node's time outside the service (node time less the time the sandbox had one of its requests open):",
			);
			console.log(
				table(
					[
						'operation',
						'MediaGen (ms/item)',
						'HTTP Request (ms/item)',
						'ratio',
						'MediaGen ms, each round',
						'HTTP Request ms, each round',
					],
					createRows,
				),
			);
		}
		for (const v of verdicts) console.log(v);
		await home.cleanup();
	} finally {
		pack.cleanup();
		rmSync(homeParent, { recursive: true, force: true });
		await sb.close();
		await creates.close();
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
