/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * The compatibility matrix: the packed package in another n8n version (and Node) than the
 * primary one, chosen with MEDIAGEN_N8N_VERSION / MEDIAGEN_N8N_NODE (scripts/n8n-runtime.sh
 * installs it into its own cache). The smaller check of the matrix: n8n loads every node the
 * package lists (`n8n export:nodes`), and every example runs as the demo runs it (headless
 * `n8n execute`; the trigger in `n8n start`, fed signed events by the sandbox). The primary
 * version (2.40.7) runs the whole e2e suite instead (nodes, queue mode, editor).
 *
 * Skipped unless MEDIAGEN_E2E=1 and MEDIAGEN_E2E_MATRIX=1 (`.ci/run` runs it once per entry:
 * `MEDIAGEN_N8N_VERSION=1.123.81 MEDIAGEN_E2E=1 MEDIAGEN_E2E_MATRIX=1 npx jest test/e2e/compat`).
 */
import { loadExamples } from '../../scripts/demoSetup';
import { e2eEnabled, ensureRuntime } from '../harness/e2e/n8n';
import { expectExampleRuns, expectListedNodesLoaded } from '../harness/e2e/packageChecks';
import { MIN, useDemoSuite } from '../harness/e2e/workflows';

const enabled = e2eEnabled && process.env.MEDIAGEN_E2E_MATRIX === '1';
const describeMatrix = enabled ? describe : describe.skip;
const entry = `n8n ${process.env.MEDIAGEN_N8N_VERSION ?? '2.40.7'} on Node ${process.env.MEDIAGEN_N8N_NODE ?? '(its default)'}`;

describeMatrix(`compatibility matrix: ${entry}`, () => {
	const suite = useDemoSuite(`e2e compat ${entry}`, 'mediagen-e2e-compat-');

	test('the runtime is the version asked for', async () => {
		const runtime = await ensureRuntime();
		const want = process.env.MEDIAGEN_N8N_VERSION;
		if (want) expect(runtime.version).toBe(want);
		// eslint-disable-next-line no-console
		console.log(`[e2e compat] n8n ${runtime.version}, ${runtime.node}`);
	});

	test('n8n loads every node the package lists', () => expectListedNodesLoaded(suite.ctx));

	test.each(loadExamples().map((e) => [e.file] as const))(
		'example %s',
		(file) =>
			expectExampleRuns(suite.ctx, file, suite.workDir, suite.timings, `e2e compat ${entry}`),
		10 * MIN,
	);
});
