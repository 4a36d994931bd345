/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * The output schemas in a real n8n (docs/output-schemas.md), with the packed package installed as
 * a community package:
 * - n8n's `GET /schemas/<node type>/<x.y.z>/<resource>/<operation>.json` answers every schema the
 *   package ships (the trigger's: `.../<x.y.z>/output.json`), exactly as generated;
 * - the editor (headless Chromium): a MediaGen node that never ran (version 2, Generation →
 *   Create, as it opens) followed by a Set node; the Set node's input panel shows MediaGen's
 *   output fields in its schema view, as a preview. Screenshot: `schema-preview.png`
 *   (docs/screenshots/README.md). After a MediaGen Trigger, n8n shows no preview (it previews no
 *   trigger); the trigger's schemas are for n8n's other readers of `__schema__`.
 *
 * n8n 2.40.7 by default; another version with MEDIAGEN_N8N_VERSION / MEDIAGEN_N8N_NODE
 * (`MEDIAGEN_N8N_VERSION=1.123.81 MEDIAGEN_N8N_NODE=system`). Skipped unless MEDIAGEN_E2E=1;
 * the editor part needs Chromium and playwright-core (./browser.ts).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import type { DemoContext } from '../../scripts/demoSetup';
import { PACKAGE_NAME, SANDBOX_CREDENTIAL, setupDemo } from '../../scripts/demoSetup';
import { schemaFiles } from '../../scripts/output-schemas';
import type { PwBrowser } from '../harness/e2e/browser';
import {
	describeWithBrowser,
	launchChromium,
	openNode,
	ownerContext,
	SCREENSHOTS_DIR,
} from '../harness/e2e/browser';
import type { N8nInstance, N8nOwner } from '../harness/e2e/n8n';
import { ensureRuntime, hasBuiltPackage, importWorkflows, setupOwner, startN8n } from '../harness/e2e/n8n';
import { PACKED_DIR } from '../harness/e2e/packageChecks';
import { e2eDemoOptions, MIN } from '../harness/e2e/workflows';

const describeSchemas = describeWithBrowser('schemas');

/** A never-run MediaGen node (version 2 as it opens: Generation → Create) → a Set node. */
const MEDIAGEN_NODE_ID = '5c4e0000-0000-4000-8000-000000000001';
const SET_NODE_ID = '5c4e0000-0000-4000-8000-000000000002';
const workflow = {
	id: 'schemaPreview0001',
	name: 'schema preview: MediaGen → Set',
	nodes: [
		{
			id: MEDIAGEN_NODE_ID,
			name: 'MediaGen',
			type: `${PACKAGE_NAME}.mediaGen`,
			typeVersion: 2,
			position: [0, 0],
			parameters: { modelId: 'flux-pro', prompt: 'a red bicycle at dawn' },
			credentials: { mediaGenApi: SANDBOX_CREDENTIAL },
		},
		{
			id: SET_NODE_ID,
			name: 'Edit Fields',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			position: [300, 0],
			parameters: {},
		},
	],
	connections: { MediaGen: { main: [[{ node: 'Edit Fields', type: 'main', index: 0 }]] } },
	settings: { executionOrder: 'v1' },
};

/** A MediaGen Trigger (version 3, as it opens) → a Set node. */
const TRIGGER_SET_NODE_ID = '5c4e0000-0000-4000-8000-000000000012';
const triggerWorkflow = {
	id: 'schemaPreview0002',
	name: 'schema preview: MediaGen Trigger → Set',
	nodes: [
		{
			id: '5c4e0000-0000-4000-8000-000000000011',
			name: 'MediaGen Trigger',
			type: `${PACKAGE_NAME}.mediaGenTrigger`,
			typeVersion: 3,
			position: [0, 0],
			webhookId: '5c4e0000-0000-4000-8000-0000000000ff',
			parameters: { events: ['generation.completed'] },
			credentials: { mediaGenApi: SANDBOX_CREDENTIAL },
		},
		{ ...workflow.nodes[1], id: TRIGGER_SET_NODE_ID },
	],
	connections: {
		'MediaGen Trigger': { main: [[{ node: 'Edit Fields', type: 'main', index: 0 }]] },
	},
	settings: { executionOrder: 'v1' },
};

describeSchemas('output schemas in a real n8n', () => {
	let ctx: DemoContext;
	let workDir: string;
	let n8n: N8nInstance;
	let owner: N8nOwner;
	let browser: PwBrowser;
	let version = '';

	beforeAll(async () => {
		if (!hasBuiltPackage(PACKED_DIR))
			throw new Error('dist/ is not built: run `npm run build` first');
		workDir = mkdtempSync(path.join(tmpdir(), 'mediagen-e2e-schemas-'));
		version = (await ensureRuntime()).version;
		ctx = await setupDemo(e2eDemoOptions(workDir));
		await importWorkflows(ctx.home, [workflow, triggerWorkflow]);
		n8n = await startN8n(ctx.home);
		owner = await setupOwner(n8n);
		browser = await launchChromium();
	}, 30 * MIN);

	afterAll(async () => {
		await browser?.close();
		await n8n?.stop();
		await ctx?.close();
		if (workDir) rmSync(workDir, { recursive: true, force: true });
	});

	test('GET /schemas/… answers every schema the package ships, as generated', async () => {
		const files = schemaFiles();
		const wrong: string[] = [];
		for (const f of files) {
			const tail = f.resource ? `${f.resource}/${f.operation}` : 'output';
			const url = `${n8n.url}/schemas/${PACKAGE_NAME}.${f.node}/${f.version}.0.0/${tail}.json`;
			const res = await fetch(url);
			const body = res.status === 200 ? ((await res.json()) as unknown) : undefined;
			if (JSON.stringify(body) !== JSON.stringify(f.schema)) wrong.push(`${res.status} ${url}`);
		}
		// eslint-disable-next-line no-console
		console.log(
			`[e2e schemas] n8n ${version} served ${files.length - wrong.length} of ${files.length}`,
		);
		expect(wrong).toEqual([]);
	});

	test(
		"the editor shows a never-run MediaGen node's fields in the next node's input (schema preview)",
		async () => {
			const context = await ownerContext(browser, n8n, owner);
			const { page, ndv } = await openNode(context, n8n, workflow.id, SET_NODE_ID);
			const input = page.locator('[data-test-id="ndv-input-panel"]').first();
			await input.waitFor({ state: 'visible', timeout: 30_000 });
			// a preview: n8n says these are the fields the node usually outputs
			const notice = input.locator('[data-test-id="schema-preview-warning"]').first();
			await notice.waitFor({ state: 'visible', timeout: 30_000 });
			await page.waitForTimeout(1000); // let the panel settle before the screenshot
			mkdirSync(SCREENSHOTS_DIR, { recursive: true });
			const shot = path.join(SCREENSHOTS_DIR, 'schema-preview.png');
			await ndv.screenshot({ path: shot });
			const fields = await input.locator('[data-test-id="run-data-schema-item"]').allInnerTexts();
			const text = fields.join('\n');
			// eslint-disable-next-line no-console
			console.log(
				`[e2e schemas] n8n ${version}: the input panel shows ${fields.length} fields; ${shot}`,
			);
			for (const field of ['model_id', 'status', 'outputs', 'credits_charged', 'completed_at'])
				expect({ field, shown: text.includes(field) }).toEqual({ field, shown: true });
			await page.close();
		},
		10 * MIN,
	);

	test("the editor shows no preview of the trigger's events (n8n previews no trigger)", async () => {
		const context = await ownerContext(browser, n8n, owner);
		const { page } = await openNode(context, n8n, triggerWorkflow.id, TRIGGER_SET_NODE_ID);
		const input = page.locator('[data-test-id="ndv-input-panel"]').first();
		await input.waitFor({ state: 'visible', timeout: 30_000 });
		await page.waitForTimeout(5000); // as long as the MediaGen preview needs, and more
		const text = await input.innerText();
		expect(text).toMatch(/No input data/);
		expect(text).not.toMatch(/Usually outputs the following fields/);
		await page.close();
	});
});
