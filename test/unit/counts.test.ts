/**
 * The counts the README and docs/ state ("186 endpoints", "437 files", …) are the counts the spec
 * documents and the catalog give (test/harness/counts.ts derives them; nothing is typed twice). Every
 * number of endpoints, operations or files in the pages is either one of these claims or named
 * below as something else (a page size, a figure of n8n-nodes-base, …), so a new count in prose
 * cannot go unchecked.
 */
import { NODE_NAMES, OPERATIONS_PAGE } from '../../scripts/operations-table';
import type { Counts } from '../harness/counts';
import { derivedCounts } from '../harness/counts';
import { PAGES, prose, read } from '../harness/docPages';

const counts = derivedCounts();

/** A statement of a count: where its number is (the first group) and what it must equal. */
interface Claim {
	what: string;
	pattern: RegExp;
	value: (c: Counts) => number;
}

const CLAIMS: Claim[] = [
	{
		what: 'the endpoints of the spec',
		pattern: /all (\d+) endpoints of the API/g,
		value: (c) => c.specEndpoints,
	},
	{
		what: 'the endpoints of the spec (the coverage test prints covered N/M)',
		pattern: /covered N\/(\d+) endpoints/g,
		value: (c) => c.specEndpoints,
	},
	{
		what: 'the output schema files',
		pattern: /output schema \((\d+) (?:JSON Schema )?files/g,
		value: (c) => c.schemaFiles,
	},
	{
		what: 'the output schema files',
		pattern: /(\d+) files: \d+ operations of version 1/g,
		value: (c) => c.schemaFiles,
	},
	{
		what: 'the output schema files',
		pattern: /derived from the catalog \((\d+) today\)/g,
		value: (c) => c.schemaFiles,
	},
	{
		what: 'the operations of node version 1',
		pattern: /(\d+) operations of version 1\b/g,
		value: (c) => c.operationsByVersion[1],
	},
	{
		what: 'the operations of node version 2',
		pattern: /and (\d+) of version 2\b/g,
		value: (c) => c.operationsByVersion[2],
	},
	{
		what: 'the operations of node version 3',
		pattern: /, (\d+) of version 3\b/g,
		value: (c) => c.operationsByVersion[3],
	},
	{
		what: 'the versions of the trigger',
		pattern: /the trigger's (\d+) versions/g,
		value: (c) => c.triggerVersions,
	},
	{
		what: "the operations the nodes' tours run (every operation of the catalog)",
		pattern: /tour: (\d+) operations/g,
		value: (c) => c.operations,
	},
	{
		what: "the tours' runs over the node versions",
		pattern: /(\d+) runs over the node versions/g,
		value: (c) => c.operationRuns,
	},
	{
		what: 'the operations the fuzz test gives invalid values',
		pattern: /the (\d+) operations without a file upload/g,
		value: (c) => c.operationsWithoutUpload,
	},
];

/** Numbers of endpoints, operations or files that are not counts of the spec or the catalog. */
const NOT_CATALOG_COUNTS: RegExp[] = [
	/(\d+) endpoints a page/g, // the trigger's endpoint lookup reads pages of 100
	/issue #25: (\d+) files, \d+ of them schemas/g, // the tarball on that day (dated)
	/ships ([\d,]+) such files for \d+ nodes/g, // n8n-nodes-base
	/At most (\d+) files per event/g, // the trigger's Download Files
	/when the package had (\d+) files/g, // the e2e figures of docs/output-schemas.md, dated
	/MiB and (\d+) GiB files/g, // sizes of the memory benchmark
	/The (\d+) files a reader opens/g, // docs/architecture.md: test/unit/architecture.test.ts checks it
	/runs code in (\d+) files of the package/g, // docs/architecture.md: a measurement of one execution
];

/** Every number before "endpoints", "operations" or "files" (two words between at most). */
const COUNTED = /(?<![\w.,/#-])(\d[\d,]*) (?:[\w-]+ ){0,2}?(endpoints|operations|files)\b/g;

/** A page's prose on one line (a statement may be broken over lines). */
const flat = (page: string) => prose(read(page)).replace(/\s+/g, ' ');

/** The pages whose prose states counts; operations.md's table is generated from the catalog. */
const STATING = PAGES.filter((page) => page !== OPERATIONS_PAGE);

/** Where each number of a page stands: the positions of the first groups of `patterns`. */
function positions(text: string, patterns: RegExp[]): Set<number> {
	const at = new Set<number>();
	for (const pattern of patterns) {
		for (const m of text.matchAll(pattern)) at.add((m.index ?? 0) + m[0].indexOf(m[1] ?? m[0]));
	}
	return at;
}

test.each(CLAIMS.map((c) => [c.what, c.pattern.source, c] as const))(
	'%s: every statement of it is the derived count (%s)',
	(_what, _source, claim) => {
		const wrong: string[] = [];
		let found = 0;
		for (const page of STATING) {
			for (const m of flat(page).matchAll(claim.pattern)) {
				found++;
				if (Number(m[1]) !== claim.value(counts))
					wrong.push(`${page}: "${m[0]}" says ${m[1]}, the count is ${claim.value(counts)}`);
			}
		}
		expect(wrong).toEqual([]);
		expect(found).toBeGreaterThan(0); // the statement is still made somewhere: the rule is alive
	},
);

test('every count of endpoints, operations or files in the pages is a checked claim or named as something else', () => {
	const unchecked: string[] = [];
	for (const page of STATING) {
		const text = flat(page);
		const known = positions(text, [...CLAIMS.map((c) => c.pattern), ...NOT_CATALOG_COUNTS]);
		for (const m of text.matchAll(COUNTED)) {
			if (!known.has(m.index ?? 0)) unchecked.push(`${page}: "${m[0]}"`);
		}
	}
	expect(unchecked).toEqual([]);
});

test("docs/output-schemas.md's table gives each node's versions and files per version", () => {
	const names = NODE_NAMES;
	const rows = new Map(
		[
			...read('docs/output-schemas.md').matchAll(
				/^\| (MediaGen[\w ]*?) +\| ([\d, ]+?) +\| ([\d, ]+?) +\|$/gm,
			),
		].map((m) => [m[1], { versions: m[2], files: m[3] }]),
	);
	for (const [node, byVersion] of Object.entries(counts.operationsByNode)) {
		const files = [...new Set(Object.values(byVersion))];
		expect({ node, ...rows.get(names[node]) }).toEqual({
			node,
			versions: Object.keys(byVersion).join(', '),
			files: files.join(', '),
		});
	}
	expect(rows.size).toBe(Object.keys(counts.operationsByNode).length);
});

test('the checks catch a wrong count and an unchecked one', () => {
	const claim = CLAIMS[0];
	const stated = `Nine nodes cover all ${counts.specEndpoints + 1} endpoints of the API`;
	const [m] = [...stated.matchAll(claim.pattern)];
	expect(Number(m[1])).not.toBe(claim.value(counts));
	const text = 'It now has 12 endpoints more.';
	expect([...text.matchAll(COUNTED)].map((x) => x[1])).toEqual(['12']);
	expect(positions(text, [...CLAIMS.map((c) => c.pattern), ...NOT_CATALOG_COUNTS]).size).toBe(0);
});
