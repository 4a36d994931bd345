/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions -- dev-only test code (real n8n e2e), never published: see package.json "files" */
/**
 * One n8n-workflow whatever the install path (issue #18). For each path the packed package is
 * installed into a fresh n8n home, the copies of n8n-workflow in `~/.n8n/nodes` are counted, and a
 * workflow whose MediaGen node gets a 404 from the sandbox is run: n8n must show the API error as
 * its own (`NodeApiError`, HTTP 404) and must not log it through its error reporter as an
 * unexpected error.
 *
 * - the README's manual command (`npm install n8n-nodes-mediagen --omit=peer`, see
 *   MANUAL_INSTALL_FLAGS), then a later plain `npm install` of another package in the same folder;
 * - n8n's own community-package installer (`POST /rest/community-packages`, what Settings →
 *   Community Nodes → Install calls), fed from a registry on loopback that serves the tarball;
 * - a control: a plain `npm install <package>`, which brings a second n8n-workflow, shows the
 *   reporter's error line this suite looks for (so the check above can fail).
 *
 * Runs on the n8n that `ensureRuntime()` gives (2.40.7 by default; the runtime script's version
 * variable selects another). Skipped unless MEDIAGEN_E2E=1; needs a build.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import type { Sandbox } from '../../sandbox';
import { startSandbox } from '../../sandbox';
import { SANDBOX_CREDENTIAL } from '../../scripts/demoSetup';
import type { N8nHome, N8nLogLine } from '../harness/e2e/n8n';
import {
	createN8nHome,
	describeE2E,
	describeResult,
	executeWorkflow,
	freePort,
	hasBuiltPackage,
	importCredentials,
	importWorkflow,
	MANUAL_INSTALL_FLAGS,
	NODES_NPMRC_LINE,
	packRepo,
	setupOwner,
	startN8n,
} from '../harness/e2e/n8n';
import { MIN, WF } from '../harness/e2e/workflows';

const PACKAGE = 'n8n-nodes-mediagen';

/** Every directory named n8n-workflow below `<userFolder>/.n8n/nodes` (nested ones included). */
function copiesOfN8nWorkflow(home: N8nHome): string[] {
	const found: string[] = [];
	const walk = (dir: string, depth: number) => {
		if (depth > 6 || !existsSync(dir)) return;
		for (const entry of readdirSync(dir, { withFileTypes: true })) {
			if (!entry.isDirectory()) continue;
			const full = path.join(dir, entry.name);
			if (entry.name === 'n8n-workflow' && path.basename(dir) === 'node_modules') found.push(full);
			else walk(full, depth + 1);
		}
	};
	walk(path.join(home.userFolder, '.n8n', 'nodes'), 0);
	return found;
}

/**
 * What n8n's error reporter logs for an error it does not recognise as its own: the bare class
 * name (with the execution id and a stack of frames), not `NodeApiError: <message>` as the
 * `execute` command logs the workflow's error.
 */
const reporterLines = (logs: N8nLogLine[]) =>
	logs.filter((l) => l.level === 'error' && /^Node(Api|Operation)Error(?!:)/.test(l.message));

describeE2E('one n8n-workflow: install paths in a real n8n', () => {
	let sandbox: Sandbox;
	let workDir: string;
	let tarball: string;
	const homes: N8nHome[] = [];

	beforeAll(async () => {
		if (!hasBuiltPackage())
			throw new Error('dist/ is not built: run `npm run build` first (npm run test:e2e does)');
		workDir = mkdtempSync(path.join(tmpdir(), 'mediagen-e2e-install-'));
		tarball = await packRepo(workDir);
		sandbox = await startSandbox({ port: 0, quiet: true });
	}, 10 * MIN);

	afterAll(async () => {
		await sandbox?.close();
		for (const home of homes) await home.cleanup();
		if (workDir) rmSync(workDir, { recursive: true, force: true });
	});

	/** Imports the credential and the 404 workflow, runs it, and returns what n8n showed. */
	async function run404(home: N8nHome) {
		await importCredentials(home, [
			{
				...SANDBOX_CREDENTIAL,
				type: 'mediaGenApi',
				data: { apiKey: sandbox.keys.pro, baseUrl: sandbox.baseUrl },
			},
		]);
		const id = await importWorkflow(home, WF.notFoundFail);
		const r = await executeWorkflow(home, id);
		return r;
	}

	/** The 404 run shows n8n's own API error, and n8n's error reporter logs nothing for it. */
	async function expectOwnApiError(h: N8nHome) {
		const r = await run404(h);
		expect(r.status).toBe('error');
		expect(r.error?.name).toBe('NodeApiError');
		expect(String(r.runData['Get missing']?.[0]?.error?.httpCode)).toBe('404');
		expect(reporterLines(r.logs)).toEqual([]);
	}

	async function home(npmFlags?: string[]): Promise<N8nHome> {
		const h = await createN8nHome({ tarball, npmFlags });
		homes.push(h);
		return h;
	}

	test(
		"the README's manual command: one n8n-workflow (n8n's), a 404 shown as n8n's own API error",
		async () => {
			const h = await home(MANUAL_INSTALL_FLAGS);
			expect(copiesOfN8nWorkflow(h)).toEqual([]);

			// with the README's .npmrc line, a later plain install of another package in the same
			// folder keeps it that way (without it, npm adds the peer back: seen with npm 11)
			const nodesDir = path.join(h.userFolder, '.n8n', 'nodes');
			writeFileSync(path.join(nodesDir, '.npmrc'), `${NODES_NPMRC_LINE}\n`, { flag: 'a' });
			const other = path.join(workDir, 'other-package');
			await mkdir(other, { recursive: true });
			await writeFile(
				path.join(other, 'package.json'),
				JSON.stringify({ name: 'other-package', version: '1.0.0' }),
			);
			execFileSync('npm', ['install', other, '--ignore-scripts', '--audit=false', '--fund=false'], {
				cwd: nodesDir,
				stdio: 'pipe',
			});
			expect(copiesOfN8nWorkflow(h)).toEqual([]);

			await expectOwnApiError(h);
		},
		10 * MIN,
	);

	test(
		"n8n's community-package installer: one n8n-workflow, a 404 shown as n8n's own API error",
		async () => {
			const h = await createN8nHome({ expectNodeTypes: false });
			homes.push(h);
			const registry = await localRegistry(tarball);
			try {
				const shim = await npmShim(workDir, registry.url);
				const n8n = await startN8n(h, undefined, {
					env: {
						PATH: [shim, path.dirname(h.runtime.node), process.env.PATH ?? ''].join(path.delimiter),
					},
				});
				try {
					const owner = await setupOwner(n8n);
					const res = await fetch(`${n8n.url}/rest/community-packages`, {
						method: 'POST',
						headers: { 'content-type': 'application/json', cookie: owner.cookie },
						// name@version as Settings → Community Nodes takes it (n8n 1.x compares the
						// version it looks up with the one asked for, so 'latest' would not do there)
						body: JSON.stringify({ name: `${PACKAGE}@${registry.version}` }),
					});
					const text = await res.text();
					expect({ status: res.status, text }).toEqual({ status: 200, text: expect.any(String) });
					expect(text).toContain('n8n-nodes-mediagen.mediaGen');
				} finally {
					await n8n.stop();
				}
			} finally {
				await registry.close();
			}
			expect(registry.served).toContain(`/${PACKAGE}/-/${path.basename(tarball)}`);
			expect(existsSync(path.join(h.userFolder, '.n8n', 'nodes', 'node_modules', PACKAGE))).toBe(
				true,
			);
			expect(copiesOfN8nWorkflow(h)).toEqual([]);

			await expectOwnApiError(h);
		},
		10 * MIN,
	);

	test(
		'control: a plain `npm install` brings a second n8n-workflow, and n8n reports the 404 as an unexpected error',
		async () => {
			const h = await home([]);
			expect(copiesOfN8nWorkflow(h)).toHaveLength(1);
			const r = await run404(h);
			expect(r.status).toBe('error');
			// what n8n's error reporter logs for an error of another n8n-workflow copy
			expect(reporterLines(r.logs).length).toBeGreaterThan(0);
			if (!reporterLines(r.logs).length) throw new Error(describeResult(r));
		},
		10 * MIN,
	);
});

/**
 * A registry on loopback serving one package: its packument and its tarball (what `npm pack
 * <name>@<version>` and `npm view` ask for). Records the paths it served.
 */
async function localRegistry(tarball: string) {
	const bytes = readFileSync(tarball);
	const pkg = JSON.parse(
		execFileSync('tar', ['-xOzf', tarball, 'package/package.json'], { encoding: 'utf8' }),
	) as { name: string; version: string };
	const port = await freePort();
	const url = `http://127.0.0.1:${port}`;
	const file = `/${pkg.name}/-/${path.basename(tarball)}`;
	const version = {
		...pkg,
		_id: `${pkg.name}@${pkg.version}`,
		dist: {
			tarball: `${url}${file}`,
			shasum: createHash('sha1').update(bytes).digest('hex'),
			integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
		},
	};
	const packument = {
		_id: pkg.name,
		name: pkg.name,
		'dist-tags': { latest: pkg.version },
		versions: { [pkg.version]: version },
	};
	const served: string[] = [];
	const server: Server = createServer((req, res) => {
		const p = decodeURIComponent(new URL(req.url ?? '/', url).pathname);
		served.push(p);
		if (p === file) {
			res.writeHead(200, { 'content-type': 'application/octet-stream' });
			res.end(bytes);
		} else if (p === `/${pkg.name}`) {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify(packument));
		} else if (p === `/${pkg.name}/${pkg.version}` || p === `/${pkg.name}/latest`) {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify(version));
		} else {
			res.writeHead(404, { 'content-type': 'application/json' });
			res.end('{"error":"not found"}');
		}
	});
	await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
	return {
		url,
		version: pkg.version,
		served,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

/**
 * n8n's installer passes `--registry=https://registry.npmjs.org` to every npm call (another
 * registry needs an n8n licence): a first `npm` on PATH that points those calls at the local
 * registry. n8n's own steps (pack, unpack, strip the peer and dev dependencies, install) run as
 * they are.
 */
async function npmShim(dir: string, registryUrl: string): Promise<string> {
	const shimDir = path.join(dir, 'npm-shim');
	await mkdir(shimDir, { recursive: true });
	const realNpm = execFileSync('bash', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim();
	const script = path.join(shimDir, 'npm');
	writeFileSync(
		script,
		[
			'#!/usr/bin/env bash',
			'args=()',
			'for a in "$@"; do',
			`  case "$a" in --registry=*) args+=("--registry=${registryUrl}") ;; *) args+=("$a") ;; esac`,
			'done',
			`exec ${JSON.stringify(realNpm)} "\${args[@]}"`,
			'',
		].join('\n'),
	);
	await chmod(script, 0o755);
	return shimDir;
}
