/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * Output schemas (scripts/output-schemas.ts, docs/output-schemas.md): one file per operation of
 * every node version, generated, committed under nodes/<Node>/__schema__/ and copied by
 * `n8n-node build` beside the built node file, where n8n looks for them. Real outputs against
 * them: test/engine/outputSchemas.test.ts; served by a real n8n: test/e2e/schemas.e2e.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { MediaGenTrigger } from '../../nodes/MediaGenTrigger/MediaGenTrigger.node';
import { catalog } from '../../nodes/shared/catalog';
import { GENERATION_POLL, endpoint } from '../../nodes/shared/catalog/dsl';
import { endpointsOf } from '../../nodes/shared/catalog/versions';
import {
	ROOT,
	fileText,
	listedNodes,
	operationSchema,
	schemaFiles,
	staleSchemaFiles,
	versionDir,
} from '../../scripts/output-schemas';
import { RESPONSES, generation } from '../../scripts/output-schemas/records';
import { versionsOf } from '../harness/actionNodes';
import { derivedCounts } from '../harness/counts';

const files = schemaFiles();
const dirOf = Object.fromEntries(listedNodes().map((n) => [n.name, n.dir]));

test('the committed schema files are what the generator makes (else: npm run schemas)', () => {
	expect(staleSchemaFiles()).toEqual([]);
});

test('one schema per operation of every action node version, one per trigger version', () => {
	const expected: string[] = [];
	for (const [node, groups] of Object.entries(catalog)) {
		for (const version of versionsOf(node)) {
			for (const g of groups) {
				for (const e of endpointsOf(g, version)) {
					expected.push(
						`${dirOf[node]}/__schema__/${versionDir(version)}/${g.resource}/${e.operation}.json`,
					);
				}
			}
		}
	}
	for (const version of Object.keys(new MediaGenTrigger().nodeVersions)) {
		expected.push(`${dirOf.mediaGenTrigger}/__schema__/${versionDir(Number(version))}/output.json`);
	}
	expect(files.map((f) => f.path).sort()).toEqual(expected.sort());
	// the count the README and docs/ state (test/unit/counts.test.ts): every operation of each
	// action node version (the catalog's versions), and each trigger version
	expect(files).toHaveLength(derivedCounts().schemaFiles);
});

test('every declared answer is the answer of an endpoint of the catalog', () => {
	const lines = new Set(
		Object.values(catalog).flatMap((groups) =>
			groups.flatMap((g) => g.endpoints.map((e) => `${e.method} ${e.path}`)),
		),
	);
	expect(Object.keys(RESPONSES).filter((line) => !lines.has(line))).toEqual([]);
});

describe('a new operation', () => {
	test('without a declared answer fails, naming the line and where to declare it', () => {
		const e = endpoint('collect', 'POST /generations/collect', 'content.read', {
			name: 'Collect',
			action: 'Collect generations',
		});
		expect(() => operationSchema(e, {}, 'mediaGen v2 generation → collect')).toThrow(
			'No answer declared for POST /generations/collect (mediaGen v2 generation → collect): add what it returns to RESPONSES in scripts/output-schemas/records.ts',
		);
	});

	test('that waits for a job gets the record of the job it polls, with nothing to declare', () => {
		const e = endpoint('wait', 'POST /generations/{id}/wait', 'content.read', {
			name: 'Wait',
			action: 'Wait for a generation',
			job: { ...GENERATION_POLL, waitsOnly: true },
		});
		const settings = { waitForCompletion: true, returnAs: 'json' };
		expect(operationSchema(e, settings, 'wait')).toEqual(generation);
	});

	test('that starts jobs without waiting by default gets each started job', () => {
		const e = endpoint('looks', 'POST /characters/{id}/looks', 'content.create', {
			name: 'Looks',
			action: 'Generate looks',
			job: { ...GENERATION_POLL, waitsOnly: true },
		});
		// the answer is a batch: one item per job of it
		expect(operationSchema(e, { waitForCompletion: false }, 'looks')).toEqual(generation);
	});
});

test('`n8n-node build` copies every schema beside the built node file, where n8n looks', () => {
	const work = mkdtempSync(join(tmpdir(), 'mediagen-schemas-'));
	try {
		cpSync(join(ROOT, 'nodes'), join(work, 'nodes'), { recursive: true });
		// the build's own copy step (n8n-node build: tsc, then copyStaticFiles in the package folder)
		const build = join(ROOT, 'node_modules/@n8n/node-cli/dist/commands/build.js');
		execFileSync(
			process.execPath,
			['-e', `require(${JSON.stringify(build)}).copyStaticFiles().catch(() => process.exit(1))`],
			{ cwd: work },
		);
		const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
			n8n: { nodes: string[] };
		};
		const builtDirOf = Object.fromEntries(
			listedNodes().map((n, i) => [n.name, dirname(pkg.n8n.nodes[i])]),
		);
		const wrong = files.filter((f) => {
			const built = join(work, builtDirOf[f.node], f.path.slice(dirOf[f.node].length));
			try {
				return readFileSync(built, 'utf8') !== fileText(f.schema);
			} catch {
				return true;
			}
		});
		expect(wrong.map((f) => f.path)).toEqual([]);
	} finally {
		rmSync(work, { recursive: true, force: true });
	}
});
