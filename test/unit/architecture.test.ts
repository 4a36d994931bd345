/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * docs/architecture.md is the tree: its layers table names every folder of nodes/shared/ (and the
 * node folders), top to bottom, each with every file it holds and the folders its files import,
 * and each imports only folders below it; "One operation, end to end" names files that exist, as
 * many as it says; the trigger's section names every file of the trigger's folder.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

import { ROOT, read } from '../harness/docPages';

const PAGE = 'docs/architecture.md';
const page = read(PAGE);

/** The text of a section of the page, from its heading to the next heading of its level. */
function section(heading: string): string {
	const start = page.indexOf(`\n## ${heading}\n`);
	if (start < 0) throw new Error(`${PAGE} has no section "${heading}"`);
	const end = page.indexOf('\n## ', start + 1);
	return page.slice(start, end < 0 ? undefined : end);
}

const spans = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]);

interface Row {
	folder: string;
	what: string;
	imports: string[];
}

/** The layers table, top to bottom. */
const rows: Row[] = section('Layers')
	.split('\n')
	.filter((line) => /^\| `nodes\//.test(line))
	.map((line) => {
		const cells = line.split(' | ').map((c) => c.replace(/^\| |\s*\|?\s*$/g, '').trim());
		return {
			folder: spans(cells[0])[0],
			what: cells[1],
			imports: spans(cells[cells.length - 1]),
		};
	});

const ACTION_NODES = 'nodes/<Node>/';
const TRIGGER = 'nodes/MediaGenTrigger/';

/** The folders under nodes/ that a row stands for. */
function foldersOf(row: string): string[] {
	if (row === ACTION_NODES) {
		return readdirSync(join(ROOT, 'nodes'))
			.filter((d) => d.startsWith('MediaGen') && `nodes/${d}/` !== TRIGGER)
			.map((d) => `nodes/${d}`);
	}
	return [row.replace(/\/$/, '')];
}

/** The .ts files of a folder and its subfolders, paths from the repository root. */
function tsFiles(folder: string): string[] {
	return readdirSync(join(ROOT, folder)).flatMap((name) => {
		const path = `${folder}/${name}`;
		if (statSync(join(ROOT, path)).isDirectory()) return tsFiles(path);
		return name.endsWith('.ts') ? [path] : [];
	});
}

/** The row a file belongs to: `node/`-style for nodes/shared/, else the node rows. */
function layerOf(file: string): string {
	const shared = /^nodes\/shared\/([^/]+)\//.exec(file);
	if (shared) return `${shared[1]}/`;
	return file.startsWith(TRIGGER) ? TRIGGER : ACTION_NODES;
}

/** The layers a row's files import (other than its own). */
function importedLayers(row: string): string[] {
	const own = row.startsWith('nodes/shared/') ? row.slice('nodes/shared/'.length) : row;
	const layers = new Set<string>();
	for (const file of foldersOf(row).flatMap(tsFiles)) {
		for (const [, target] of read(file).matchAll(/from '(\.[^']+)'/g)) {
			const resolved = relative(ROOT, join(ROOT, dirname(file), target));
			const layer = layerOf(existsSync(join(ROOT, resolved)) ? `${resolved}/` : resolved);
			if (layer !== own) layers.add(layer);
		}
	}
	return [...layers].sort();
}

const shortName = (row: string) =>
	row.startsWith('nodes/shared/') ? row.slice('nodes/shared/'.length) : row;

/** The imports of a table (rows top to bottom) that go to a row not below their own. */
function upwardImports(table: Array<Pick<Row, 'folder' | 'imports'>>): string[] {
	const order = table.map((r) => shortName(r.folder));
	return table.flatMap((row, i) =>
		row.imports
			.filter((layer) => order.indexOf(layer) <= i)
			.map((layer) => `${row.folder} imports ${layer}`),
	);
}

describe('the layers table of docs/architecture.md', () => {
	test('has a row for every folder of nodes/shared/, the action nodes and the trigger, and no other', () => {
		const shared = readdirSync(join(ROOT, 'nodes/shared'))
			.filter((d) => statSync(join(ROOT, 'nodes/shared', d)).isDirectory())
			.map((d) => `nodes/shared/${d}/`);
		expect(rows.map((r) => r.folder).sort()).toEqual([ACTION_NODES, TRIGGER, ...shared].sort());
		expect(readdirSync(join(ROOT, 'nodes/shared')).filter((f) => f.endsWith('.ts'))).toEqual([]);
	});

	test.each(rows.map((r) => [r.folder, r] as const))(
		'%s: its last column is what its files import',
		(_folder, row) => {
			expect(importedLayers(row.folder)).toEqual([...row.imports].sort());
		},
	);

	test('each layer imports only layers below it (the table is top to bottom)', () => {
		expect(upwardImports(rows)).toEqual([]);
		// a table that puts a layer above one it imports
		const swapped = [rows[3], rows[2], ...rows.slice(4)];
		expect(upwardImports(swapped)).toContain(
			`${rows[2].folder} imports ${shortName(rows[3].folder)}`,
		);
	});

	const ownFiles = rows.filter(
		(r) => ![ACTION_NODES, TRIGGER, 'nodes/shared/catalog/'].includes(r.folder),
	);
	test.each(ownFiles)(
		'$folder: every file it holds is named in its row, and every file named is there',
		(row) => {
			const files = tsFiles(row.folder.replace(/\/$/, '')).map((f) => f.split('/').pop());
			const named = spans(row.what).filter((s) => s.endsWith('.ts'));
			expect([...new Set(named)].sort()).toEqual([...files].sort());
		},
	);
});

describe('"One operation, end to end" of docs/architecture.md', () => {
	const text = section('One operation, end to end: Generation → Create with Wait for Completion');
	const opened = [...text.matchAll(/^\d+\. `([^`]+)`/gm)].map((m) => m[1]);

	test('names the files a reader opens, in order, as many as it says, each once', () => {
		const said = /The (\d+) files a reader opens/.exec(text);
		expect(said).not.toBeNull();
		expect(opened).toHaveLength(Number(said?.[1]));
		expect(new Set(opened).size).toBe(opened.length);
		expect(opened[0]).toBe('nodes/MediaGen/MediaGen.node.ts');
		for (const file of opened) expect(existsSync(join(ROOT, file))).toBe(true);
	});

	test('every file of the package it names exists', () => {
		const named = spans(text).filter((s) => /^(nodes|credentials)\/.+\.ts$/.test(s));
		expect(named.filter((file) => !existsSync(join(ROOT, file)))).toEqual([]);
		expect(named.length).toBeGreaterThan(opened.length);
	});
});

test("the trigger's section names every file of the trigger's folder", () => {
	const text = section('The trigger');
	const files = tsFiles('nodes/MediaGenTrigger');
	const named = new Set(spans(text));
	expect(files.filter((file) => !named.has(file))).toEqual([]);
});
