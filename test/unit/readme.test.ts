/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
// The README is a front page (at most 250 lines) and docs/ holds the rest: the operations table
// is the catalog's, the manual install is the command the e2e suite runs, and every relative link
// and every repository path the pages name leads to something that exists in the repository.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

import {
	OPERATIONS_PAGE,
	operationsTable,
	withOperationsTable,
} from '../../scripts/operations-table';
import { PAGES, README, ROOT, prose, read } from '../harness/docPages';
import { MANUAL_INSTALL_FLAGS, NODES_NPMRC_LINE } from '../harness/e2e/n8n';

const MAX_README_LINES = 250;

/** The anchors GitHub gives a page's headings (github-slugger: lower case, punctuation dropped). */
function anchors(text: string): Set<string> {
	const seen = new Map<string, number>();
	const result = new Set<string>();
	for (const [, heading] of prose(text).matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
		const base = heading
			.toLowerCase()
			.replace(/[^\p{L}\p{N}\p{M}\p{Pc}\- ]/gu, '')
			.replace(/ /g, '-');
		const count = seen.get(base) ?? 0;
		seen.set(base, count + 1);
		result.add(count ? `${base}-${count}` : base);
	}
	return result;
}

/** The targets of a page's inline links and images, `[text](target)`, outside code. */
function linkTargets(text: string): string[] {
	const withoutCode = prose(text).replace(/`[^`\n]*`/g, '');
	return [...withoutCode.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]);
}

/** What is wrong with a relative link of `page`, or undefined when it leads somewhere real. */
function brokenLink(page: string, target: string): string | undefined {
	if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto:
	if (target.startsWith('/')) return 'absolute path: GitHub resolves links relative to the file';
	const [pathPart, anchor] = target.split('#', 2);
	const file = pathPart
		? resolve(ROOT, dirname(page), decodeURIComponent(pathPart))
		: join(ROOT, page);
	const inRepo = relative(ROOT, file);
	if (inRepo.startsWith('..') || inRepo.split(sep).includes('node_modules')) {
		return 'points outside the repository';
	}
	if (!existsSync(file)) return 'no such file';
	if (anchor !== undefined && file.endsWith('.md') && statSync(file).isFile()) {
		if (!anchors(readFileSync(file, 'utf8')).has(anchor)) return `no heading #${anchor}`;
	}
	return undefined;
}

/**
 * Folders whose files the pages name as evidence (tests, benchmarks, scripts, ...). Under nodes/
 * only this package's own folders: docs/output-schemas.md also names files of n8n-nodes-base.
 */
const REPO_PATH =
	/^(?:test|bench|scripts|nodes\/(?:shared|MediaGen\w*)|credentials|sandbox|examples|docs|spec|\.ci|\.github)\/[^\s<>*{}]+$/;

/** Repository paths named in code spans (`test/e2e/crash.e2e.test.ts`), outside code blocks. */
function namedPaths(text: string): string[] {
	return [...prose(text).matchAll(/`([^`\n]+)`/g)]
		.map((m) => m[1])
		.filter((span) => REPO_PATH.test(span));
}

/** A named path exists as a file or folder, or as a jest path pattern (`test/e2e/compat`). */
function pathExists(path: string): boolean {
	const full = join(ROOT, path);
	if (existsSync(full)) return true;
	const dir = dirname(full);
	const prefix = full.slice(dir.length + 1);
	return existsSync(dir) && readdirSync(dir).some((name) => name.startsWith(`${prefix}.`));
}

test('the operations table (docs/operations.md) is generated from the catalog and up to date', () => {
	const page = read(OPERATIONS_PAGE);
	expect(page).toContain(operationsTable());
	// what `npm run docs:operations -- --check` checks: rewriting the page changes nothing
	expect(withOperationsTable(page)).toBe(page);
	expect(read(README)).toContain(`(${OPERATIONS_PAGE})`);
});

test("the README's manual install is the command the e2e suite checks (one n8n-workflow)", () => {
	const readme = read(README);
	expect(readme).toContain(`npm install n8n-nodes-mediagen ${MANUAL_INSTALL_FLAGS.join(' ')}\n`);
	expect(readme).toContain(`echo "${NODES_NPMRC_LINE}" >> .npmrc\n`);
});

test(`the README is a front page of at most ${MAX_README_LINES} lines`, () => {
	const lines = read(README).replace(/\n$/, '').split('\n').length;
	expect(lines).toBeLessThanOrEqual(MAX_README_LINES);
});

/**
 * Looks at every item `items` finds on every page; returns what `problem` says is wrong
 * (`page: (item): problem`) and how many items were looked at.
 */
function survey(
	items: (text: string) => string[],
	problem: (page: string, item: string) => string | undefined,
): { problems: string[]; looked: number } {
	const problems: string[] = [];
	let looked = 0;
	for (const page of PAGES) {
		for (const item of items(read(page))) {
			looked++;
			const why = problem(page, item);
			if (why) problems.push(`${page}: (${item}): ${why}`);
		}
	}
	return { problems, looked };
}

test('every relative link of the README and docs/ (and the folder READMEs) leads to a file (and heading) in the repository', () => {
	const { problems, looked } = survey(linkTargets, brokenLink);
	expect(problems).toEqual([]);
	expect(looked).toBeGreaterThan(PAGES.length); // the link parser found the links
});

test('every repository path the README and docs/ (and the folder READMEs) name (tests, benchmarks, scripts) exists', () => {
	const { problems, looked } = survey(namedPaths, (_page, path) =>
		pathExists(path) ? undefined : 'no such file or folder',
	);
	expect(problems).toEqual([]);
	expect(looked).toBeGreaterThan(50); // the parser found the test and benchmark references
});

/**
 * The sections a page holds twice: a heading repeated under the same parent heading (a "Results"
 * under each benchmark is fine, a benchmark's section twice is not).
 */
function repeatedSections(text: string): string[] {
	const path: string[] = [];
	const seen = new Set<string>();
	const repeated: string[] = [];
	for (const [, hashes, heading] of prose(text).matchAll(/^(#{1,6})[ \t]+(.+?)[ \t#]*$/gm)) {
		path.length = hashes.length - 1;
		path[hashes.length - 1] = heading;
		const where = path.join(' > ');
		if (seen.has(where)) repeated.push(where);
		seen.add(where);
	}
	return repeated;
}

/** The paragraphs (of 100 characters or more) a page holds twice, e.g. a section pasted again. */
function repeatedParagraphs(text: string): string[] {
	const paragraphs = prose(text)
		.split(/\n[ \t]*\n/)
		.map((p) => p.replace(/\s+/g, ' ').trim())
		.filter((p) => p.length >= 100);
	return paragraphs.filter((p, i) => paragraphs.indexOf(p) !== i).map((p) => p.slice(0, 60));
}

test('no page holds a section twice', () => {
	const repeated = PAGES.flatMap((page) => [
		...repeatedSections(read(page)).map((s) => `${page}: section ${s}`),
		...repeatedParagraphs(read(page)).map((p) => `${page}: paragraph "${p}…"`),
	]);
	expect(repeated).toEqual([]);
	expect(repeatedSections('# B\n## B8\n### Results\n## B9\n### Results\n## B8\n')).toEqual([
		'B > B8',
	]);
	const section = `## B8\n\n${'A real n8n, killed mid-batch. '.repeat(4)}\n`;
	expect(repeatedParagraphs(`# B\n\n${section}\n## B1: common setup${section}`)).toHaveLength(1);
});

test('the link checks catch what they are for', () => {
	expect(brokenLink('docs/x.md', 'behaviour.md')).toBeUndefined();
	expect(brokenLink('docs/x.md', 'docs/behaviour.md')).toBe('no such file');
	expect(brokenLink('docs/x.md', '../README.md#credentials')).toBeUndefined();
	expect(brokenLink('docs/x.md', '../README.md#no-such-heading')).toBe(
		'no heading #no-such-heading',
	);
	expect(brokenLink('README.md', '../outside/file.md')).toBe('points outside the repository');
	expect(brokenLink('README.md', '/docs/behaviour.md')).toMatch(/^absolute path/);
	expect(linkTargets('[a](x.md) `[b](y.md)`\n```\n[c](z.md)\n```\n![d](e.png "t")')).toEqual([
		'x.md',
		'e.png',
	]);
	expect([...anchors("# A `b` → c\n## n8n's Retry, also\n## A b c")]).toEqual([
		'a-b--c',
		'n8ns-retry-also',
		'a-b-c',
	]);
	expect(pathExists('test/e2e/compat')).toBe(true);
	expect(pathExists('test/e2e/nothing.e2e.test.ts')).toBe(false);
});
