/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * n8n's editor loads the package: headless Chromium (Debian's `chromium`, driven by
 * playwright-core with `executablePath`) opens a workflow holding each of the package's nodes,
 * opens the node's form (`/workflow/<id>/<nodeId>`), checks the form rendered its parameters,
 * and saves a screenshot of the form: one per node as a new node opens (its first screen) and one
 * per resource of each action node (the form of the resource's default operation). Fails on any
 * console or page error that mentions the package (n8n's own unrelated warnings are printed, not
 * failed on), and when a first screen is not the node's main operation with its required fields,
 * or shows an internal name. Screenshots go to .n8n-home/screenshots, or to the folder in
 * MEDIAGEN_SCREENSHOTS (`MEDIAGEN_SCREENSHOTS=docs/screenshots`: docs/screenshots/README.md).
 *
 * Skipped unless MEDIAGEN_E2E=1, and (with a note) when Chromium (apt-get install chromium) or
 * playwright-core (a devDependency; or PLAYWRIGHT_CORE_DIR=<dir of playwright-core>) is missing.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import type { DemoContext } from '../../scripts/demoSetup';
import { PACKAGE_NAME, SANDBOX_CREDENTIAL, setupDemo } from '../../scripts/demoSetup';
import type { PwBrowser, PwLocator, PwPage } from '../harness/e2e/browser';
import {
	describeWithBrowser,
	launchChromium,
	networkQuiet,
	openNode,
	ownerContext,
	SCREENSHOTS_DIR,
} from '../harness/e2e/browser';
import type { N8nInstance, N8nOwner, N8nWorkflow } from '../harness/e2e/n8n';
import { hasBuiltPackage, importWorkflows, setupOwner, startN8n } from '../harness/e2e/n8n';
import { MIN } from '../harness/e2e/workflows';

const describeEditor = describeWithBrowser('editor');

/** A camelCase word (an internal name such as "characterPreset") on a form. */
const INTERNAL_NAME = /\b[a-z]+[A-Z][a-zA-Z]*\b/;

interface LoadedProperty {
	name: string;
	displayName: string;
	default?: unknown;
	required?: boolean;
	options?: Array<{ name?: string; value?: unknown }>;
	displayOptions?: { show?: Record<string, unknown[]> };
}

/** The parameters of one version of a node type, as n8n loaded them. */
function propertiesOf(
	loaded: Array<{ name: string; version: number | number[]; [key: string]: unknown }>,
	type: string,
	version: number,
): LoadedProperty[] {
	const d = loaded.find(
		(x) =>
			x.name === type && (Array.isArray(x.version) ? x.version : [x.version]).includes(version),
	);
	return (d?.properties ?? []) as LoadedProperty[];
}

/** What a new node's form must show: its default resource and operation, and their required fields. */
function firstScreenOf(props: LoadedProperty[]): {
	resource: string;
	operation: string;
	required: string[];
} {
	const resource = String(props.find((p) => p.name === 'resource')?.default);
	const operationProperty = props.find(
		(p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(resource),
	);
	const operation = String(operationProperty?.default);
	const resourceName = props
		.find((p) => p.name === 'resource')
		?.options?.find((o) => o.value === resource)?.name;
	const operationName = operationProperty?.options?.find((o) => o.value === operation)?.name;
	const values: Record<string, string> = { resource, operation };
	const shown = (p: LoadedProperty) =>
		Object.entries(p.displayOptions?.show ?? {}).every(
			([k, allowed]) => !(k in values) || allowed.includes(values[k]),
		) && Object.keys(p.displayOptions?.show ?? {}).every((k) => k in values || k === '@version');
	const required = props.filter((p) => p.required && shown(p)).map((p) => p.displayName);
	// the resource and operation as the dropdowns show them, then the required fields
	return { resource, operation, required: [resourceName, operationName, ...required].map(String) };
}

describeEditor('the n8n editor loads every node of the package (headless Chromium)', () => {
	let ctx: DemoContext;
	let workDir: string;
	let n8n: N8nInstance;
	let owner: N8nOwner;
	let browser: PwBrowser;
	const shotsDir = SCREENSHOTS_DIR;
	/** The forms to open: a node of a workflow (one workflow per node type). */
	const forms: Array<{
		type: string;
		displayName: string;
		wfId: string;
		nodeId: string;
		nodeName: string;
		/** The screenshot's file name. */
		shot: string;
		/** For a first screen: what must be on it (the main operation and its required fields). */
		firstScreen?: { resource: string; operation: string; required: string[] };
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
		// One workflow per node type, holding every form of it: the node as it opens (no parameter
		// set: the defaults of its newest version), and for each resource of an action node, a node
		// on it (its default operation). The editor is loaded once per workflow; its forms are
		// opened one after the other from the canvas, as a user does.
		const workflows: Array<N8nWorkflow & { id: string }> = [];
		for (const [t, d] of types.entries()) {
			const version = highest.get(d.name)!;
			const short = d.name.split('.')[1];
			const props = propertiesOf(ctx.loaded, d.name, version);
			const resources = props.find((p) => p.name === 'resource')?.options ?? [];
			const wfId = `ed${t}${short}`
				.replace(/[^A-Za-z0-9]/g, '')
				.padEnd(16, '0')
				.slice(0, 16);
			const nodes = [undefined, ...resources].map((r, i) => {
				const resource = r === undefined ? undefined : String(r.value);
				const nodeId = `7e0c0000-0000-4000-8${String(t).padStart(3, '0')}-${String(i).padStart(12, '0')}`;
				const nodeName = r === undefined ? d.displayName : `${d.displayName} (${r.name})`;
				forms.push({
					type: d.name,
					displayName: d.displayName,
					wfId,
					nodeId,
					nodeName,
					shot: `${short}${resource ? `-${resource}` : ''}.png`,
					firstScreen:
						resource || !props.some((p) => p.name === 'resource')
							? undefined
							: firstScreenOf(props),
				});
				return {
					id: nodeId,
					name: nodeName,
					type: d.name,
					typeVersion: version,
					position: [(i % 6) * 260, Math.floor(i / 6) * 260] as [number, number],
					parameters: resource ? { resource } : {},
					credentials: { mediaGenApi: SANDBOX_CREDENTIAL },
					...(d.name.endsWith('Trigger')
						? { webhookId: '9f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f' }
						: {}),
				};
			});
			workflows.push({
				id: wfId,
				name: `editor: ${d.displayName}`,
				nodes,
				connections: {},
				settings: { executionOrder: 'v1' },
			});
		}
		await importWorkflows(ctx.home, workflows);
		n8n = await startN8n(ctx.home);
		owner = await setupOwner(n8n);
		browser = await launchChromium();
		mkdirSync(shotsDir, { recursive: true });
	}, 30 * MIN);

	afterAll(async () => {
		await browser?.close();
		await n8n?.stop();
		await ctx?.close();
		if (workDir) rmSync(workDir, { recursive: true, force: true });
	});

	test('every node type of the package is in the editor', () => {
		expect(forms.map((n) => n.type)).toContain(`${PACKAGE_NAME}.mediaGen`);
	});

	test("n8n's tool variant keeps version 2's own Tool Description and adds its own to version 1", () => {
		const tool = `${PACKAGE_NAME}.mediaGenTool`;
		const v2 = propertiesOf(ctx.loaded, tool, 2);
		const v1 = propertiesOf(ctx.loaded, tool, 1);
		const descriptions = v2.filter((p) => p.name === 'toolDescription');
		// one per operation, tool-only, and n8n added no automatic/manual switch of its own
		expect(descriptions.length).toBeGreaterThan(40);
		expect(descriptions.every((p) => p.displayOptions?.show?.['@tool']?.[0] === true)).toBe(true);
		expect(v2.some((p) => p.name === 'descriptionType')).toBe(false);
		expect(v1.some((p) => p.name === 'descriptionType')).toBe(true);
	});

	test(
		'each node opens its form without console errors from the package; screenshot saved',
		async () => {
			const context = await ownerContext(browser, n8n, owner);
			const problems: string[] = [];
			const others: string[] = [];
			let errors: string[] = [];
			let page: PwPage | undefined;
			let quiet: ReturnType<typeof networkQuiet> = async () => {};
			for (const [i, n] of forms.entries()) {
				let ndv: PwLocator;
				if (forms[i - 1]?.wfId !== n.wfId) {
					// a new workflow: the editor loaded on the node's form
					await page?.close();
					const opened = await openNode(context, n8n, n.wfId, n.nodeId, (p) => {
						p.on('console', (m) => {
							if (m.type() === 'error') errors.push(m.text());
						});
						p.on('pageerror', (e) => errors.push(`${e.name}: ${e.message}`));
						quiet = networkQuiet(p);
					});
					({ page, ndv } = opened);
				} else {
					// the next form of the same workflow: close this one, open the node from the canvas
					await page!.keyboard.press('Escape');
					await page!.getByTestId('ndv').first().waitFor({ state: 'hidden', timeout: 30_000 });
					await page!
						.locator(`[data-test-id="canvas-node"][data-node-name="${n.nodeName}"]`)
						.dblclick();
					ndv = page!.getByTestId('ndv').first();
					await ndv.waitFor({ state: 'visible', timeout: 30_000 });
				}
				// the form is rendered from the node's description: its parameters are there
				const params = page!.locator('[data-test-id="node-parameters"]').first();
				await params.waitFor({ state: 'visible', timeout: 30_000 });
				await quiet(); // list searches and credential checks (requests to n8n) have finished
				// the labels and texts, then what the dropdowns and inputs show (their values)
				const values = await params.evaluate((el) =>
					Array.from(
						(el as { querySelectorAll(s: string): ArrayLike<{ value: string }> }).querySelectorAll(
							'input, textarea',
						),
						(x) => x.value,
					).join('\n'),
				);
				const text = `${await params.innerText()}\n${values}`;
				const file = path.join(shotsDir, n.shot);
				await ndv.screenshot({ path: file });
				if (n.firstScreen) {
					// the main operation, each of its required fields, and no internal name
					const shown = n.firstScreen.required.filter((name) => !text.includes(name));
					expect({ node: n.displayName, missing: shown }).toEqual({
						node: n.displayName,
						missing: [],
					});
					expect({ node: n.displayName, internal: text.match(INTERNAL_NAME) }).toEqual({
						node: n.displayName,
						internal: null,
					});
				}
				const ours = errors.filter((e) => /mediagen|n8n-nodes-mediagen/i.test(e));
				for (const e of ours) problems.push(`${n.nodeName}: ${e}`);
				for (const e of errors.filter((x) => !ours.includes(x))) others.push(`${n.nodeName}: ${e}`);
				errors = [];
				expect({ node: n.nodeName, rendered: text.trim().length > 0 }).toEqual({
					node: n.nodeName,
					rendered: true,
				});
				expect(existsSync(file)).toBe(true);
			}
			await page?.close();
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
	test(
		"each event n8n's node panel offers for MediaGen Trigger makes a trigger subscribed to that event",
		async () => {
			// n8n's node panel (node creator) lists an action "On <event>" per option of the trigger's
			// Events; picking one adds the trigger and sets Events to it (editor-ui, nodeCreator
			// composables useActionsGeneration.ts triggersCategory, useActions.ts
			// setAddedNodeActionParameters). Each event is picked on an empty workflow; the node's
			// parameters are read from the editor's workflow store (what a save sends) once the
			// editor has selected the node's credential, and the form's Events as the user sees them.
			const trigger = `${PACKAGE_NAME}.mediaGenTrigger`;
			const version = Math.max(
				...ctx.loaded
					.filter((d) => d.name === trigger)
					.flatMap((d) => (Array.isArray(d.version) ? d.version : [d.version])),
			);
			const options = (propertiesOf(ctx.loaded, trigger, version).find((p) => p.name === 'events')
				?.options ?? []) as Array<{ name: string; value: string }>;
			/** The nodes of the open workflow, from the editor's store (evaluated in the page). */
			const NODES = `(() => {
				const pinia = document.querySelector('#app').__vue_app__.config.globalProperties.$pinia;
				for (const [id, store] of pinia._s)
					if (id.startsWith('workflowDocuments/') && Array.isArray(store.allNodes) && store.allNodes.length)
						return JSON.parse(JSON.stringify(store.allNodes));
				return [];
			})()`;
			const context = await ownerContext(browser, n8n, owner);
			const page = await context.newPage();
			await page.goto(`${n8n.url}/workflow/new`, { waitUntil: 'load', timeout: 120_000 });
			const items = page.getByTestId('node-creator').getByTestId('item-iterator-item');
			/** The node panel on the empty canvas, at MediaGen's triggers; their names. */
			const openTriggers = async (): Promise<string[]> => {
				await page.getByTestId('canvas-add-button').click({ timeout: 120_000 });
				await page.getByTestId('node-creator-search-bar').fill('MediaGen');
				await items
					.filter({ has: page.getByText('MediaGen', { exact: true }) })
					.first()
					.click();
				await items
					.filter({ hasText: /^On / })
					.first()
					.waitFor({ state: 'visible', timeout: 30_000 });
				return (await items.allInnerTexts())
					.map((t) => t.split('\n')[0].trim())
					.filter((t) => t.startsWith('On '));
			};
			const offered = await openTriggers();
			// every event the node describes is offered
			expect(offered).toHaveLength(options.length);
			const key = (t: string) =>
				t
					.toLowerCase()
					.replace(/^on /, '')
					.replace(/[^a-z]/g, '');
			const results: Array<{
				picked: string;
				shown: string;
				subscribed: unknown;
				expected: string[];
			}> = [];
			for (const [i, picked] of offered.entries()) {
				if (i > 0) await openTriggers();
				await items
					.filter({ has: page.getByText(picked, { exact: true }) })
					.first()
					.click();
				const ndv = page.getByTestId('ndv').first();
				await ndv.waitFor({ state: 'visible', timeout: 60_000 });
				// the editor selects the (only) MediaGen credential for the new node
				await page.waitForFunction(
					`${NODES}.some((n) => n.credentials && n.credentials.mediaGenApi)`,
					undefined,
					{ timeout: 30_000 },
				);
				const shown = (await page.getByTestId('parameter-input-events').innerText())
					.replace(/\s+/g, ' ')
					.trim();
				await page.keyboard.press('Escape');
				await ndv.waitFor({ state: 'hidden', timeout: 30_000 });
				const nodes = (await page.evaluate(NODES)) as Array<{
					type: string;
					parameters: Record<string, unknown>;
				}>;
				const option = options.find((o) => key(o.name) === key(picked));
				results.push({
					picked,
					shown,
					subscribed: nodes.find((n) => n.type === trigger)?.parameters.events,
					expected: [String(option?.value), String(option?.name)],
				});
				// back to an empty canvas for the next event
				await page.keyboard.press('Control+a');
				await page.keyboard.press('Delete');
			}
			await page.close();
			// eslint-disable-next-line no-console
			console.log(`[e2e editor] node panel: ${JSON.stringify(results)}`);
			for (const r of results) {
				const [value, name] = r.expected;
				expect({
					picked: r.picked,
					subscribed: r.subscribed,
					shown: r.shown.includes(name),
				}).toEqual({
					picked: r.picked,
					subscribed: [value],
					shown: true,
				});
			}
		},
		10 * MIN,
	);
});
