/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, no-console -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * `npm start`: the demo's setup, then the n8n editor on http://127.0.0.1:5678 for clicking.
 *
 * Builds and packs the package, installs it into a fresh n8n home (.n8n-home/start), starts the
 * sandbox (http://127.0.0.1:4010/v1, or SANDBOX_PORT), imports the "MediaGen sandbox" credential
 * and the examples, publishes the trigger examples (if their node is built; for the long-jobs pair
 * its finishing half: run its starter in the editor), runs `n8n start`,
 * creates the owner account and prints the login. Ctrl-C stops n8n and the sandbox.
 * Not used by CI. Environment: N8N_PORT (5678), SANDBOX_PORT (4010), DEMO_TIME_SCALE (0.2),
 * DEMO_NO_BUILD=1 (use dist/ as it is).
 */
import { mkdir } from 'node:fs/promises';
import * as path from 'node:path';

import { publishWorkflow, REPO_ROOT, setupOwner, startN8n } from '../test/harness/e2e/n8n';
import { pairOf, setupDemo } from './demoSetup';

const log = (line: string) => console.log(line);

async function main(): Promise<void> {
	const outputDir = path.join(REPO_ROOT, 'demo-output');
	await mkdir(outputDir, { recursive: true });
	const port = Number(process.env.N8N_PORT ?? 5678);
	const ctx = await setupDemo({
		homeDir: path.join(REPO_ROOT, '.n8n-home', 'start'),
		build: process.env.DEMO_NO_BUILD !== '1',
		sandboxPort: Number(process.env.SANDBOX_PORT ?? 4010),
		timeScale: Number(process.env.DEMO_TIME_SCALE ?? 0.2),
		rateLimitPerMinute: 120,
		allowHttpWebhooks: true,
		log,
	});
	for (const ex of ctx.examples) {
		// the trigger examples, and the finishing half of a pair (run its starter in the editor)
		const finishing =
			ex.kind === 'trigger' || (ex.kind === 'pair' && pairOf(ex.file)?.[0] === ex.file);
		if (finishing && !ex.skip) await publishWorkflow(ctx.home, ex.workflow.id);
	}
	log(`▸ n8n start on http://127.0.0.1:${port} …`);
	const n8n = await startN8n(ctx.home, port);
	const owner = await setupOwner(n8n, {
		email: 'demo@example.com',
		password: 'Demo-password-1',
		firstName: 'Demo',
		lastName: 'User',
	});
	let stopping = false;
	const stop = async () => {
		stopping = true;
		log('\nstopping n8n and the sandbox …');
		await n8n.stop();
		await ctx.close();
		process.exit(0);
	};
	process.on('SIGINT', () => void stop());
	process.on('SIGTERM', () => void stop());
	n8n.process.on('exit', (code) => {
		if (stopping) return;
		log(`n8n exited (${code}); stopping the sandbox`);
		void ctx.close().then(() => process.exit(1));
	});
	log('');
	log(`n8n editor:  http://127.0.0.1:${port}/`);
	log(`login:       ${owner.email} / ${owner.password}`);
	log(`credential:  "MediaGen sandbox" → ${ctx.sandbox.baseUrl} (sandbox key "pro")`);
	log(
		`examples:    ${ctx.examples
			.filter((e) => !e.skip)
			.map((e) => e.workflow.name)
			.join('; ')}`,
	);
	for (const ex of ctx.examples.filter((e) => e.skip)) log(`not imported: ${ex.file} (${ex.skip})`);
	log(`files:       written to ${path.relative(process.cwd(), outputDir) || outputDir}/`);
	log('Ctrl-C stops n8n and the sandbox.');
}

main().catch((e: unknown) => {
	console.error(`\nstart failed: ${e instanceof Error ? e.message : String(e)}`);
	process.exit(1);
});
