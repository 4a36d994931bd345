/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * The size of the published code, measured with the TypeScript compiler's own parse: every file
 * of nodes/ and credentials/ by lines, and every function (declarations, methods, arrow functions
 * and function expressions) by the lines from its first to its last.
 *
 *   tsx scripts/code-size.ts            the files over 500 lines and the functions over 80
 *   tsx scripts/code-size.ts --top 10   the ten largest of each
 * test/unit/codeSize.test.ts keeps the limits (docs/architecture.md).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

import ts from 'typescript';

export const LIMITS = { fileLines: 500, functionLines: 80 };
const ROOT = join(__dirname, '..');
const DIRS = ['nodes', 'credentials'];

export interface Sized {
	where: string;
	lines: number;
}

function sourceFiles(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) return sourceFiles(path);
		return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
	});
}

/** A function's name as a reader finds it: its own, its variable's, its property's or method's. */
function nameOf(node: ts.Node): string {
	const named = node as ts.Node & { name?: ts.Node };
	if (named.name && ts.isIdentifier(named.name)) return named.name.text;
	const parent = node.parent;
	if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name))
		return parent.name.text;
	if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name))
		return parent.name.text;
	if (parent && ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText()})`;
	return '(anonymous)';
}

/** Every file and function of nodes/ and credentials/ with its length in lines. */
export function measure(): { files: Sized[]; functions: Sized[] } {
	const files: Sized[] = [];
	const functions: Sized[] = [];
	for (const path of DIRS.flatMap((d) => sourceFiles(join(ROOT, d)))) {
		const text = readFileSync(path, 'utf8');
		const rel = relative(ROOT, path);
		const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
		files.push({ where: rel, lines: source.getLineAndCharacterOfPosition(text.length).line });
		const visit = (node: ts.Node) => {
			if (
				ts.isFunctionDeclaration(node) ||
				ts.isMethodDeclaration(node) ||
				ts.isArrowFunction(node) ||
				ts.isFunctionExpression(node) ||
				ts.isConstructorDeclaration(node)
			) {
				const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
				const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
				functions.push({ where: `${rel}:${start + 1} ${nameOf(node)}`, lines: end - start + 1 });
			}
			ts.forEachChild(node, visit);
		};
		visit(source);
	}
	const bySize = (a: Sized, b: Sized) => b.lines - a.lines;
	return { files: files.sort(bySize), functions: functions.sort(bySize) };
}

function main() {
	const top = process.argv.includes('--top')
		? Number(process.argv[process.argv.indexOf('--top') + 1])
		: 0;
	const { files, functions } = measure();
	const show = (list: Sized[], limit: number, what: string) => {
		const picked = top ? list.slice(0, top) : list.filter((x) => x.lines > limit);
		process.stdout.write(
			`${top ? `${top} largest ${what}` : `${what} over ${limit} lines`}: ${picked.length}\n`,
		);
		for (const x of picked) process.stdout.write(`  ${String(x.lines).padStart(5)}  ${x.where}\n`);
	};
	show(files, LIMITS.fileLines, 'files');
	show(functions, LIMITS.functionLines, 'functions');
	process.stdout.write(
		`${files.length} files, ${files.reduce((n, f) => n + f.lines, 0)} lines; ${functions.length} functions\n`,
	);
}

if (require.main === module) main();
