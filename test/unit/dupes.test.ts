/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
// The copy-paste budget (`npm run dupes`, part of `npm test`: jscpd with .jscpd.json) holds for the
// tree, and one function copied into another file, in nodes/ or in sandbox/, breaks it.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');

function dupes(dir: string) {
	return spawnSync('npm', ['run', '--silent', 'dupes'], {
		cwd: dir,
		encoding: 'utf8',
		env: { ...process.env, NO_COLOR: '1' },
	});
}

/** The source of `export function name` in `file`, up to its closing brace at column 0. */
function functionSource(file: string, name: string): string {
	const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
	const start = lines.findIndex((line) => new RegExp(`^export function ${name}[(<]`).test(line));
	const end = lines.indexOf('}', start);
	expect({ start, end: end > start + 5 }).toEqual({ start: expect.any(Number), end: true });
	return `${lines.slice(start, end + 1).join('\n')}\n`;
}

test('the tree is within the budget', () => {
	const run = dupes(ROOT);
	expect(run.status).toBe(0);
	// both legs ran: nodes/ with credentials/, then sandbox/
	expect(run.stdout.match(/Total:/g)).toHaveLength(2);
});

test.each([
	['nodes/shared/transport/retry.ts', 'retryAfterMs', 'nodes/shared/fields/planted.ts'],
	['sandbox/pagination.ts', 'paginateById', 'sandbox/planted.ts'],
])('one function of %s copied into another file fails the budget', (from, name, planted) => {
	const dir = mkdtempSync(join(tmpdir(), 'mediagen-dupes-'));
	try {
		for (const folder of ['nodes', 'credentials', 'sandbox']) {
			cpSync(join(ROOT, folder), join(dir, folder), {
				recursive: true,
				filter: (src) => !src.includes('__schema__'),
			});
		}
		for (const file of ['package.json', '.jscpd.json']) cpSync(join(ROOT, file), join(dir, file));
		symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
		expect(dupes(dir).status).toBe(0); // the copy passes as the tree does
		writeFileSync(join(dir, planted), functionSource(from, name));
		const run = dupes(dir);
		expect(run.stdout).toContain(planted.replace(/^(nodes|sandbox)\//, ''));
		expect(`${run.stdout}${run.stderr}`).toMatch(/too many duplicates/);
		expect(run.status).not.toBe(0);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});
