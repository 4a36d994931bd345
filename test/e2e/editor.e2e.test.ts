/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * n8n's editor loads the package: headless Chromium (Debian's `chromium`, driven by
 * playwright-core with `executablePath`) opens a workflow holding each of the package's nodes,
 * opens the node's form (`/workflow/<id>/<nodeId>`), checks the form rendered its parameters,
 * and saves a screenshot to .n8n-home/screenshots/<node>.png. Fails on any console or page error
 * that mentions the package (n8n's own unrelated warnings are printed, not failed on).
 *
 * Skipped unless MEDIAGEN_E2E=1, and (with a note) when Chromium (apt-get install chromium) or
 * playwright-core (a devDependency; or PLAYWRIGHT_CORE_DIR=<dir of playwright-core>) is missing.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import type { DemoContext } from '../../scripts/demoSetup';
import { PACKAGE_NAME, SANDBOX_CREDENTIAL, setupDemo } from '../../scripts/demoSetup';
import type { N8nInstance, N8nOwner, N8nWorkflow } from './n8n';
import {
	e2eEnabled,
	hasBuiltPackage,
	importWorkflows,
	REPO_ROOT,
	setupOwner,
	startN8n,
} from './n8n';
import { MIN } from './workflows';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/* playwright-core's API, as much of it as this test uses (it is loaded at run time) */
interface PwConsoleMessage {
	type(): string;
	text(): string;
}
interface PwLocator {
	first(): PwLocator;
	waitFor(o: { state: 'visible'; timeout: number }): Promise<void>;
	innerText(): Promise<string>;
	screenshot(o: { path: string }): Promise<unknown>;
}
interface PwPage {
	on(event: 'console', fn: (m: PwConsoleMessage) => void): void;
	on(event: 'pageerror', fn: (e: Error) => void): void;
	goto(url: string, o?: { waitUntil?: string; timeout?: number }): Promise<unknown>;
	locator(selector: string): PwLocator;
	screenshot(o: { path: string; fullPage?: boolean }): Promise<unknown>;
	waitForTimeout(ms: number): Promise<void>;
	close(): Promise<void>;
}
interface PwContext {
	addCookies(c: Array<{ name: string; value: string; url: string }>): Promise<void>;
	newPage(): Promise<PwPage>;
}
interface PwBrowser {
	newContext(o: { viewport: { width: number; height: number } }): Promise<PwContext>;
	close(): Promise<void>;
}
interface PlaywrightCore {
	chromium: {
		launch(o: { executablePath: string; headless: boolean; args: string[] }): Promise<PwBrowser>;
	};
}

function loadPlaywright(): PlaywrightCore | undefined {
	for (const id of [process.env.PLAYWRIGHT_CORE_DIR, 'playwright-core']) {
		if (!id) continue;
		try {
			// eslint-disable-next-line @typescript-eslint/no-require-imports
			return require(id) as PlaywrightCore;
		} catch {
			/* not installed */
		}
	}
	return undefined;
}

const playwright = e2eEnabled ? loadPlaywright() : undefined;
const missing = !existsSync(CHROMIUM)
	? `Chromium not found at ${CHROMIUM} (apt-get install -y chromium, or CHROMIUM_PATH)`
	: !playwright
		? 'playwright-core is not installed (devDependency, or PLAYWRIGHT_CORE_DIR)'
		: undefined;
const describeEditor = e2eEnabled && !missing ? describe : describe.skip;
if (e2eEnabled && missing) {
	// eslint-disable-next-line no-console
	console.log(`[e2e editor] skipped: ${missing}`);
}

describeEditor('the n8n editor loads every node of the package (headless Chromium)', () => {
	let ctx: DemoContext;
	let workDir: string;
	let n8n: N8nInstance;
	let owner: N8nOwner;
	let browser: PwBrowser;
	const shotsDir = path.join(REPO_ROOT, '.n8n-home', 'screenshots');
	const nodeWorkflows: Array<{
		type: string;
		displayName: string;
		wf: N8nWorkflow & { id: string };
		nodeId: string;
	}> = [];

	beforeAll(async () => {
		if (!hasBuiltPackage()) throw new Error('dist/ is not built: run `npm run build` first');
		workDir = mkdtempSync(path.join(tmpdir(), 'mediagen-e2e-editor-'));
		ctx = await setupDemo({
			workDir,
			build: false,
			packDir: process.env.MEDIAGEN_E2E_PACK_DIR || undefined,
			timeScale: 0.02,
			allowHttpWebhooks: true,
		});
		// one workflow per node type of the package (not the *Tool variants n8n derives)
		// A versioned node (the trigger) is listed once per version class: one workflow per type,
		// at its highest version.
		const versionsOf = (d: (typeof ctx.loaded)[number]) =>
			Array.isArray(d.version) ? d.version : [d.version];
		const highest = new Map<string, number>();
		for (const d of ctx.loaded)
			highest.set(d.name, Math.max(highest.get(d.name) ?? 0, ...versionsOf(d)));
		const types = [...new Map(ctx.loaded.map((d) => [d.name, d])).values()].filter(
			(d) => !d.name.endsWith('Tool'),
		);
		for (const [i, d] of types.entries()) {
			const nodeId = `7e0c0000-0000-4000-8000-${String(i).padStart(12, '0')}`;
			const version = highest.get(d.name)!;
			const wf = {
				id: `edit${d.name.split('.')[1]}`
					.replace(/[^A-Za-z0-9]/g, '')
					.padEnd(16, '0')
					.slice(0, 16),
				name: `editor: ${d.displayName}`,
				nodes: [
					{
						id: nodeId,
						name: d.displayName,
						type: d.name,
						typeVersion: version,
						position: [0, 0],
						parameters: {},
						credentials: { mediaGenApi: SANDBOX_CREDENTIAL },
						...(d.name.endsWith('Trigger')
							? { webhookId: '9f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f' }
							: {}),
					},
				],
				connections: {},
				settings: { executionOrder: 'v1' },
			};
			nodeWorkflows.push({ type: d.name, displayName: d.displayName, wf, nodeId });
		}
		await importWorkflows(
			ctx.home,
			nodeWorkflows.map((n) => n.wf),
		);
		n8n = await startN8n(ctx.home);
		owner = await setupOwner(n8n);
		browser = await playwright!.chromium.launch({
			executablePath: CHROMIUM,
			headless: true,
			args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
		});
		mkdirSync(shotsDir, { recursive: true });
	}, 30 * MIN);

	afterAll(async () => {
		await browser?.close();
		await n8n?.stop();
		await ctx?.close();
		if (workDir) rmSync(workDir, { recursive: true, force: true });
	});

	test('every node type of the package is in the editor', () => {
		expect(nodeWorkflows.map((n) => n.type)).toContain(`${PACKAGE_NAME}.mediaGen`);
	});

	test(
		'each node opens its form without console errors from the package; screenshot saved',
		async () => {
			const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
			await context.addCookies([
				{ name: 'n8n-auth', value: owner.cookie.replace(/^n8n-auth=/, ''), url: n8n.url },
			]);
			const problems: string[] = [];
			const others: string[] = [];
			for (const n of nodeWorkflows) {
				const page = await context.newPage();
				const errors: string[] = [];
				page.on('console', (m) => {
					if (m.type() === 'error') errors.push(m.text());
				});
				page.on('pageerror', (e) => errors.push(`${e.name}: ${e.message}`));
				await page.goto(`${n8n.url}/workflow/${n.wf.id}/${n.nodeId}`, {
					waitUntil: 'load',
					timeout: 60_000,
				});
				const ndv = page.locator('[data-test-id="ndv"]').first();
				await ndv.waitFor({ state: 'visible', timeout: 60_000 });
				// the form is rendered from the node's description: its parameters are there
				const params = page.locator('[data-test-id="node-parameters"]').first();
				await params.waitFor({ state: 'visible', timeout: 30_000 });
				await page.waitForTimeout(1500); // let list searches and credential checks finish
				const text = await params.innerText();
				const file = path.join(shotsDir, `${n.type.split('.')[1]}.png`);
				await page.screenshot({ path: file });
				const ours = errors.filter((e) => /mediagen|n8n-nodes-mediagen/i.test(e));
				for (const e of ours) problems.push(`${n.displayName}: ${e}`);
				for (const e of errors.filter((x) => !ours.includes(x)))
					others.push(`${n.displayName}: ${e}`);
				expect({ node: n.displayName, rendered: text.trim().length > 0 }).toEqual({
					node: n.displayName,
					rendered: true,
				});
				expect(existsSync(file)).toBe(true);
				await page.close();
			}
			if (others.length) {
				// eslint-disable-next-line no-console
				console.log(
					`[e2e editor] console errors not from the package (not failed on):\n${others.join('\n')}`,
				);
			}
			// eslint-disable-next-line no-console
			console.log(`[e2e editor] screenshots in ${shotsDir}`);
			expect(problems).toEqual([]);
		},
		20 * MIN,
	);
});
