/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/** `npm run sandbox`: starts the simulator (env SANDBOX_PORT, SANDBOX_RATE_LIMIT, SANDBOX_TIME_SCALE). */
import { startSandbox } from './index';
import { keyTable } from './control';

const num = (v: string | undefined): number | undefined =>
	v === undefined || v === '' ? undefined : Number(v);

async function main(): Promise<void> {
	const sandbox = await startSandbox({
		port: num(process.env.SANDBOX_PORT) ?? 4010,
		rateLimitPerMinute: num(process.env.SANDBOX_RATE_LIMIT),
		timeScale: num(process.env.SANDBOX_TIME_SCALE),
		allowHttpWebhooks: process.env.SANDBOX_ALLOW_HTTP_WEBHOOKS === '1',
	});
	console.log(`MediaGen sandbox listening. Base URL: ${sandbox.baseUrl}`);
	console.log('API keys:');
	for (const k of keyTable()) console.log(`  ${k.name.padEnd(15)} ${k.key}  ${k.purpose}`);
	console.log(`Control API (no auth): ${sandbox.origin}/__sandbox/  (see sandbox/README.md)`);
	const stop = () => void sandbox.close().then(() => process.exit(0));
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

main().catch((e) => {
	console.error(e);
	process.exit(1);
});
