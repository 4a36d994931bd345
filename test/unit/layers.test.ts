/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
// The import rules of .dependency-cruiser.cjs (`npm run deps`, part of `npm test`) hold for the
// tree and catch what they are for: imports planted in a copy of the tree (upward, into another
// node folder, past the trigger's or the credentials' allowance, out of the sandbox, a type-only
// circle, a folder of nodes/shared/ that is no layer) are each reported under their rule, and
// nothing else is.
import { spawnSync } from 'node:child_process';
import {
	cpSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const ROOT = join(__dirname, '../..');
const DEPCRUISE = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const FOLDERS = ['nodes', 'credentials', 'sandbox'];

interface Violation {
	rule: { name: string };
	from: string;
	to: string;
	cycle?: Array<{ name: string }>;
}
interface Cruise {
	modules: Array<{ source: string }>;
	summary: { violations: Violation[]; ruleSetUsed: { forbidden: Array<{ name: string }> } };
}

/** `npm run deps` in `dir` with the repository's rules, as JSON; the exit code is the errors. */
function cruise(dir: string): { status: number | null; result: Cruise; stderr: string } {
	const run = spawnSync(
		process.execPath,
		[DEPCRUISE, ...FOLDERS, '--config', CONFIG, '--output-type', 'json'],
		{ cwd: dir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
	);
	return { status: run.status, result: JSON.parse(run.stdout) as Cruise, stderr: run.stderr };
}

function tsFiles(dir: string): string[] {
	return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
		.filter((f) => f.endsWith('.ts'))
		.map((f) => `${dir}/${f}`);
}

/** Each violation as `rule: from -> to`, a circle as `rule: a -> b -> a`. */
function described(violations: Violation[]): string[] {
	return violations
		.map(({ rule, from, to, cycle }) =>
			cycle
				? `${rule.name}: ${[from, ...cycle.map((c) => c.name)].join(' -> ')}`
				: `${rule.name}: ${from} -> ${to}`,
		)
		.sort();
}

let real: ReturnType<typeof cruise>;
beforeAll(() => {
	real = cruise(ROOT);
});

test('the tree keeps every import rule, and the rules see every file of nodes/, credentials/, sandbox/', () => {
	const { result, stderr } = real;
	expect(described(result.summary.violations)).toEqual([]);
	expect(stderr).toBe('');
	const cruised = new Set(result.modules.map((m) => m.source));
	expect(FOLDERS.flatMap(tsFiles).filter((f) => !cruised.has(f))).toEqual([]);
});

test('every folder of nodes/shared/ is a layer of the rules', () => {
	const layers = real.result.summary.ruleSetUsed.forbidden
		.map((r) => /^(.+)-imports-only-down$/.exec(r.name)?.[1])
		.filter((name) => name !== undefined)
		.sort();
	const folders = readdirSync(join(ROOT, 'nodes/shared'), { withFileTypes: true })
		.filter((entry) => entry.isDirectory())
		.map((entry) => entry.name)
		.sort();
	expect(layers).toEqual(folders);
});

/** Files planted in the copy: path -> source. */
const PLANTED: Record<string, string> = {
	// upward: transport (the bottom) imports the run (layer 3)
	'nodes/shared/transport/planted.ts':
		"import { executeCatalog } from '../run/execute';\nimport { pause } from './retry';\nexport const x = [executeCatalog, pause];\n",
	// upward into a node folder
	'nodes/shared/catalog/planted.ts':
		"import { MediaGen } from '../../MediaGen/MediaGen.node';\nexport const x = MediaGen;\n",
	// a circle of two files in one folder, type-only on one side
	'nodes/shared/fields/plantedA.ts':
		"import type { B } from './plantedB';\nexport interface A { b?: B }\n",
	'nodes/shared/fields/plantedB.ts':
		"import type { A } from './plantedA';\nexport interface B { a?: A }\nexport const b = 1;\n",
	// an action node imports the trigger and another action node
	'nodes/MediaGen/planted.ts':
		"import { MediaGenTrigger } from '../MediaGenTrigger/MediaGenTrigger.node';\nimport { MediaGenAds } from '../MediaGenAds/MediaGenAds.node';\nimport { MediaGen } from './MediaGen.node';\nexport const x = [MediaGenTrigger, MediaGenAds, MediaGen];\n",
	// the trigger: jobs/output.ts is allowed, the poller and the run are not
	'nodes/MediaGenTrigger/planted.ts':
		"import { jobOutput } from '../shared/jobs/output';\nimport { waitForJobs } from '../shared/jobs/poller';\nimport { executeCatalog } from '../shared/run/execute';\nimport { MediaGen } from '../MediaGen/MediaGen.node';\nexport const x = [jobOutput, waitForJobs, executeCatalog, MediaGen];\n",
	// credentials: budget/settings.ts is allowed, fields/ is not
	'credentials/planted.ts':
		"import { budgetSettings } from '../nodes/shared/budget/settings';\nimport { fieldProperty } from '../nodes/shared/fields/properties';\nexport const x = [budgetSettings, fieldProperty];\n",
	// nodes/ imports neither credentials/ nor dev code
	'nodes/shared/files/planted.ts':
		"import { MediaGenApi } from '../../../credentials/MediaGenApi.credentials';\nimport { startSandbox } from '../../../sandbox';\nexport const x = [MediaGenApi, startSandbox];\n",
	// the sandbox imports nothing of the package
	'sandbox/planted.ts':
		"import { mediaGenRequest } from '../nodes/shared/transport/request';\nexport const x = mediaGenRequest;\n",
	// a folder of nodes/shared/ that is no layer, used by the run
	'nodes/shared/extra/helper.ts': 'export const helper = 1;\n',
	'nodes/shared/run/planted.ts':
		"import { helper } from '../extra/helper';\nimport { executeCatalog } from './execute';\nexport const x = [helper, executeCatalog];\n",
};

/** `npm run deps`'s report: each violation as `rule: from -> to` (a circle: `rule: a -> b -> a`). */
function reported(output: string): string[] {
	return output
		.split(/\n(?= {2}error )|\n\n/)
		.filter((chunk) => chunk.startsWith('  error '))
		.map((chunk) =>
			chunk
				.trim()
				.replace(/^error /, '')
				.replace(/\s*→\s*/g, ' -> '),
		)
		.sort();
}

test('imports planted in a copy of the tree fail `npm run deps`, each reported under its rule', () => {
	const dir = mkdtempSync(join(tmpdir(), 'mediagen-layers-'));
	try {
		for (const folder of FOLDERS) {
			cpSync(join(ROOT, folder), join(dir, folder), {
				recursive: true,
				filter: (src) => !src.includes('__schema__'),
			});
		}
		for (const file of [
			'package.json',
			'.dependency-cruiser.cjs',
			'tsconfig.json',
			'tsconfig.test.json',
		]) {
			cpSync(join(ROOT, file), join(dir, file));
		}
		symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
		for (const [path, source] of Object.entries(PLANTED)) {
			mkdirSync(dirname(join(dir, path)), { recursive: true });
			writeFileSync(join(dir, path), source);
		}
		const run = spawnSync('npm', ['run', '--silent', 'deps'], { cwd: dir, encoding: 'utf8' });
		const expected = [
			'transport-imports-only-down: nodes/shared/transport/planted.ts -> nodes/shared/run/execute.ts',
			'catalog-imports-only-down: nodes/shared/catalog/planted.ts -> nodes/MediaGen/MediaGen.node.ts',
			'no-circular: nodes/shared/fields/plantedA.ts -> nodes/shared/fields/plantedB.ts -> nodes/shared/fields/plantedA.ts',
			'node-folders-apart: nodes/MediaGen/planted.ts -> nodes/MediaGenTrigger/MediaGenTrigger.node.ts',
			'node-folders-apart: nodes/MediaGen/planted.ts -> nodes/MediaGenAds/MediaGenAds.node.ts',
			'node-folders-apart: nodes/MediaGenTrigger/planted.ts -> nodes/MediaGen/MediaGen.node.ts',
			'trigger-shares-little: nodes/MediaGenTrigger/planted.ts -> nodes/shared/jobs/poller.ts',
			'trigger-shares-little: nodes/MediaGenTrigger/planted.ts -> nodes/shared/run/execute.ts',
			'credentials-import-little: credentials/planted.ts -> nodes/shared/fields/properties.ts',
			'nodes-import-no-credentials: nodes/shared/files/planted.ts -> credentials/MediaGenApi.credentials.ts',
			'published-code-imports-no-dev-code: nodes/shared/files/planted.ts -> sandbox/index.ts',
			'sandbox-independent: sandbox/planted.ts -> nodes/shared/transport/request.ts',
			'shared-code-is-in-a-layer: nodes/shared/run/planted.ts -> nodes/shared/extra/helper.ts',
		];
		expect(reported(run.stdout)).toEqual(expected.sort());
		expect(run.stdout).toContain(
			`x ${expected.length} dependency violations (${expected.length} errors`,
		);
		expect(run.status).not.toBe(0);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});
