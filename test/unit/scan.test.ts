/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
// `npm run scan` (scripts/scan.ts, part of `npm test`) runs n8n's scanner on this repository and its
// packed tarball. This test shows the gate can fail: a node that hides a console call behind an inline
// eslint-disable comment, which `n8n-node lint` would accept, is reported, because the scanner lints
// with inline configuration disabled.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

test('the scanner reports what an inline eslint-disable comment hides in nodes/', () => {
	const dir = mkdtempSync(join(tmpdir(), 'mediagen-scan-fixture-'));
	try {
		writeFileSync(
			join(dir, 'package.json'),
			JSON.stringify({
				name: 'n8n-nodes-fixture',
				version: '0.0.1',
				description: 'A fixture package for the scanner test.',
				homepage: 'https://example.invalid/fixture',
				author: { name: 'Fixture', email: 'fixture@example.invalid' },
				files: ['dist'],
				keywords: ['n8n-community-node-package'],
				n8n: { n8nNodesApiVersion: 1, nodes: ['dist/nodes/Fixture/Fixture.node.js'] },
				peerDependencies: { 'n8n-workflow': '*' },
			}),
		);
		mkdirSync(join(dir, 'nodes/Fixture'), { recursive: true });
		writeFileSync(
			join(dir, 'nodes/Fixture/Fixture.node.ts'),
			"// eslint-disable-next-line no-console\nconsole.log('hidden from n8n-node lint');\nexport {};\n",
		);
		const run = spawnSync(
			'npx',
			['tsx', join(__dirname, '../../scripts/scan.ts'), '--source', dir],
			{
				encoding: 'utf8',
			},
		);
		expect(run.stdout).toContain('no-console');
		expect(run.stdout).toMatch(/inline ESLint directives in nodes\/ and credentials\/: 1 finding/);
		expect(run.stdout).toMatch(/scanner, source .*: 1 finding/);
		expect(run.status).toBe(1);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});
