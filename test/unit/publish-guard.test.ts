/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
// A bare `npm publish` from a laptop must not publish: n8n verifies only packages published from
// GitHub Actions with npm provenance (`n8n-node release` in .github/workflows/publish.yml). Two
// guards, each tried against a local registry that records what reaches it:
//  - publishConfig.provenance: npm refuses to publish with provenance outside a supported CI. This
//    one holds even though the project's .npmrc sets ignore-scripts (which skips prepublishOnly).
//  - prepublishOnly: `n8n-node prerelease` stops a publish that was not started by `n8n-node release`
//    (it runs when scripts are enabled, e.g. `npm publish --ignore-scripts=false`).
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

const root = join(__dirname, '../..');
let server: Server;
let registry = '';
const requests: string[] = [];

beforeAll(async () => {
	server = createServer((req, res) => {
		requests.push(`${req.method} ${req.url}`);
		req.resume();
		res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	registry = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

function publish(...extra: string[]): Promise<{ code: number; output: string }> {
	const env = { ...process.env };
	for (const name of ['GITHUB_ACTIONS', 'GITLAB_CI', 'CI', 'RELEASE_MODE', 'NPM_CONFIG_PROVENANCE'])
		delete env[name];
	const host = registry.replace(/^http:/, '');
	return new Promise((resolve) => {
		execFile(
			'npm',
			['publish', `--registry=${registry}`, `--${host}:_authToken=placeholder`, ...extra],
			{ cwd: root, env },
			(error, stdout, stderr) =>
				resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` }),
		);
	});
}

test('a bare npm publish outside GitHub Actions fails before anything is uploaded (provenance)', async () => {
	requests.length = 0;
	const run = await publish();
	expect(run.output).toContain('Automatic provenance generation not supported');
	expect(run.code).not.toBe(0);
	expect(requests.filter((r) => r.startsWith('PUT'))).toEqual([]);
});

test('with scripts enabled, prepublishOnly (n8n-node prerelease) stops it first', async () => {
	requests.length = 0;
	const run = await publish('--ignore-scripts=false');
	expect(run.output).toContain('npm run release');
	expect(run.code).not.toBe(0);
	expect(requests).toEqual([]);
});
