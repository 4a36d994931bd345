/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * The project's pages (the README, docs/, and the READMEs of the folders it links to) as the doc
 * tests read them: test/unit/readme.test.ts (links, paths), counts.test.ts (the counts they
 * state), architecture.test.ts (the layers and the one operation end to end).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(__dirname, '..', '..');
export const README = 'README.md';

/** A file of the repository as text (path from the repository root). */
export const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

function markdownUnder(dir: string): string[] {
	return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
		const file = `${dir}/${entry.name}`;
		if (entry.isDirectory()) return markdownUnder(file);
		return entry.name.endsWith('.md') ? [file] : [];
	});
}

/**
 * The README, every page under docs/, and the READMEs of the folders it links to (examples,
 * benchmarks, sandbox); paths from the repository root.
 */
export const PAGES = [
	README,
	...markdownUnder('docs'),
	'examples/README.md',
	'bench/README.md',
	'sandbox/README.md',
];

/** A page's text without fenced code blocks (their brackets are code, not links or headings). */
export function prose(text: string): string {
	return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}
