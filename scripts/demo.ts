/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, no-console -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * `npm run demo`: the package proven in a real n8n, headless.
 *
 * Installs (once, cached) Node 24 + n8n 2.40.7, builds and packs the package, installs the
 * tarball into a fresh n8n home (.n8n-home/demo) as a community package, starts the sandbox,
 * imports a "MediaGen sandbox" credential and the examples, runs every example that can run
 * (headless, or in `n8n start` for the trigger) and prints a summary. Files go to demo-output/.
 * Exits 1 when a runnable example fails.
 *
 * Environment: DEMO_TIME_SCALE (sandbox job durations, default 0.05), DEMO_NO_BUILD=1 (use dist/ as is).
 */
import { mkdir, rm } from 'node:fs/promises';
import * as path from 'node:path';

import { REPO_ROOT } from '../test/harness/e2e/n8n';
import { runExamples, setupDemo, summaryTable } from './demoSetup';

const log = (line: string) => console.log(line);

async function main(): Promise<number> {
	const t0 = Date.now();
	const outputDir = path.join(REPO_ROOT, 'demo-output');
	await rm(outputDir, { recursive: true, force: true });
	await mkdir(outputDir, { recursive: true });
	log(
		'n8n-nodes-mediagen demo: the packed package in a real n8n 2.40.7, against the local sandbox\n',
	);
	const ctx = await setupDemo({
		homeDir: path.join(REPO_ROOT, '.n8n-home', 'demo'),
		build: process.env.DEMO_NO_BUILD !== '1',
		timeScale: Number(process.env.DEMO_TIME_SCALE ?? 0.05),
		rateLimitPerMinute: 120,
		allowHttpWebhooks: true,
		log,
	});
	try {
		const results = await runExamples(ctx);
		const failed = results.filter((r) => r.status === 'failed');
		const ran = results.filter((r) => r.status !== 'skipped');
		log('\nSummary');
		log(summaryTable(results));
		log(
			`\n${ran.length - failed.length}/${ran.length} runnable examples ok, ` +
				`${results.length - ran.length} skipped; files in ${path.relative(process.cwd(), outputDir) || outputDir}/; ` +
				`n8n home ${path.relative(process.cwd(), ctx.home.dir)}; total ${((Date.now() - t0) / 1000).toFixed(0)} s`,
		);
		if (failed.length) {
			for (const f of failed) {
				const logs =
					f.execution?.logs.filter((l) => l.level === 'error').map((l) => l.message) ?? [];
				if (logs.length) log(`\n${f.file} n8n errors:\n${logs.slice(0, 5).join('\n')}`);
			}
		}
		return failed.length ? 1 : 0;
	} finally {
		await ctx.close();
	}
}

main().then(
	(code) => process.exit(code),
	(e: unknown) => {
		console.error(`\ndemo failed: ${e instanceof Error ? e.message : String(e)}`);
		process.exit(1);
	},
);
