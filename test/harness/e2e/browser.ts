/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * n8n's editor in headless Chromium for the editor suites (editor.e2e, schemas.e2e): Debian's
 * `chromium` driven by playwright-core with `executablePath`, signed in as the instance owner.
 * A suite is skipped (with a note) when Chromium (apt-get install chromium) or playwright-core (a
 * devDependency; or PLAYWRIGHT_CORE_DIR=<dir of playwright-core>) is missing. Screenshots go to
 * .n8n-home/screenshots, or to the folder in MEDIAGEN_SCREENSHOTS (docs/screenshots/README.md).
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';

import type { N8nInstance, N8nOwner } from './n8n';
import { e2eEnabled, REPO_ROOT } from './n8n';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/* playwright-core's API (its types; the module itself is loaded at run time) */
export type PwConsoleMessage = import('playwright-core').ConsoleMessage;
export type PwLocator = import('playwright-core').Locator;
export type PwPage = import('playwright-core').Page;
export type PwContext = import('playwright-core').BrowserContext;
export type PwBrowser = import('playwright-core').Browser;
type PlaywrightCore = typeof import('playwright-core');

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

/** `describe` for a suite that needs the browser: skipped (with a note) without it or e2e. */
export function describeWithBrowser(label: string): jest.Describe {
	if (e2eEnabled && missing) {
		// eslint-disable-next-line no-console
		console.log(`[e2e ${label}] skipped: ${missing}`);
	}
	return e2eEnabled && !missing ? describe : describe.skip;
}

/** Headless Chromium. */
export async function launchChromium(): Promise<PwBrowser> {
	// n8n's editor marks its elements with data-test-id (Playwright's getByTestId: data-testid)
	playwright!.selectors.setTestIdAttribute('data-test-id');
	return await playwright!.chromium.launch({
		executablePath: CHROMIUM,
		headless: true,
		args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
	});
}

/** A browser context (1440×900) signed in to `n8n` as its owner. */
export async function ownerContext(
	browser: PwBrowser,
	n8n: Pick<N8nInstance, 'url'>,
	owner: N8nOwner,
): Promise<PwContext> {
	const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
	await context.addCookies([
		{ name: 'n8n-auth', value: owner.cookie.replace(/^n8n-auth=/, ''), url: n8n.url },
	]);
	return context;
}

/**
 * Opens a node's panel (NDV) in a new page, by the editor's route `/workflow/<id>/<nodeId>`, and
 * waits until it is there. `watch` gets the page before it loads (to listen to its console).
 */
export async function openNode(
	context: PwContext,
	n8n: Pick<N8nInstance, 'url'>,
	workflowId: string,
	nodeId: string,
	watch: (page: PwPage) => void = () => {},
): Promise<{ page: PwPage; ndv: PwLocator }> {
	const page = await context.newPage();
	watch(page);
	await page.goto(`${n8n.url}/workflow/${workflowId}/${nodeId}`, {
		waitUntil: 'load',
		timeout: 60_000,
	});
	const ndv = page.locator('[data-test-id="ndv"]').first();
	await ndv.waitFor({ state: 'visible', timeout: 60_000 });
	return { page, ndv };
}

/**
 * Resolves once the page has had no request in flight for `quietMs` (the editor's list searches,
 * credential checks and parameter lookups are requests to n8n), at most `timeoutMs`.
 */
export function networkQuiet(page: PwPage): (quietMs?: number, timeoutMs?: number) => Promise<void> {
	let inFlight = 0;
	let last = Date.now();
	page.on('request', () => {
		inFlight++;
		last = Date.now();
	});
	const done = () => {
		inFlight = Math.max(0, inFlight - 1);
		last = Date.now();
	};
	page.on('requestfinished', done);
	page.on('requestfailed', done);
	return async (quietMs = 300, timeoutMs = 15_000) => {
		const start = Date.now();
		while (Date.now() - start < timeoutMs) {
			if (inFlight === 0 && Date.now() - last >= quietMs) return;
			await page.waitForTimeout(50);
		}
	};
}

/** Where screenshots go: MEDIAGEN_SCREENSHOTS (e.g. docs/screenshots), else .n8n-home/screenshots. */
export const SCREENSHOTS_DIR = process.env.MEDIAGEN_SCREENSHOTS
	? path.resolve(REPO_ROOT, process.env.MEDIAGEN_SCREENSHOTS)
	: path.join(REPO_ROOT, '.n8n-home', 'screenshots');
