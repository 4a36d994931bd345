/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * n8n's community-package scanner (`@n8n/scan-community-package`, the gate for verified packages),
 * run offline on this repository. The real scanner fetches the published version from npm, checks
 * its provenance, downloads the attested source commit and lints both with its own ESLint config,
 * inline configuration disabled. This script calls the same `analyzePackage` of the installed
 * scanner with the same file patterns on the two legs it lints:
 *   - source: package.json, nodes/ and credentials/ of this checkout;
 *   - tarball: the compiled `.js` and package.json of `npm pack` (after `npm run build`).
 * Only the network steps (registry metadata, provenance attestation, source download) are left out.
 * A directive comment (eslint-disable, eslint-enable, eslint, global) in nodes/ or credentials/ is a
 * finding too: the scanner ignores it, so it can only hide something from `npm run lint`.
 *
 *   tsx scripts/scan.ts                  build, pack, scan source and tarball (npm run scan)
 *   tsx scripts/scan.ts --source DIR     scan DIR as the source leg only (no build, no tarball)
 * Exit code 0 when nothing is found, 1 otherwise.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

import {
	analyzePackage,
	SOURCE_FILE_PATTERNS,
} from '@n8n/scan-community-package/scanner/scanner.mjs';

/** What the scanner lints in the downloaded tarball (its `distResult` leg). */
const TARBALL_FILE_PATTERNS = ['**/*.js', 'package.json'];
const DIRECTIVE = /\/[/*]\s*(eslint-disable|eslint-enable|eslint\s|global\s)/;

interface Leg {
	name: string;
	findings: number;
	details?: string;
}

function files(dir: string): string[] {
	const out: string[] = [];
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) out.push(...files(path));
		else if (/\.(ts|js|json)$/.test(entry.name)) out.push(path);
	}
	return out;
}

/** Inline ESLint directive comments in nodes/ and credentials/ of `dir`. */
function directives(dir: string): Leg {
	const hits: string[] = [];
	for (const folder of ['nodes', 'credentials']) {
		let list: string[] = [];
		try {
			list = files(join(dir, folder));
		} catch {
			continue;
		}
		for (const file of list) {
			readFileSync(file, 'utf8')
				.split('\n')
				.forEach((line, i) => {
					if (DIRECTIVE.test(line)) hits.push(`${relative(dir, file)}:${i + 1}: ${line.trim()}`);
				});
		}
	}
	return {
		name: 'inline ESLint directives in nodes/ and credentials/',
		findings: hits.length,
		details: hits.join('\n'),
	};
}

/** One scanner leg; the number of findings is the count of error lines of its stylish report. */
async function lint(name: string, dir: string, patterns: string[]): Promise<Leg> {
	const result = await analyzePackage(dir, patterns);
	if (result.passed) return { name, findings: 0 };
	const errors = (result.details ?? '')
		.split('\n')
		.filter((line) => /^\s+\d+:\d+\s+error\s/.test(line));
	return { name, findings: Math.max(errors.length, 1), details: result.details ?? result.message };
}

function packTarball(root: string, into: string): string {
	execFileSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
	const packed = JSON.parse(
		execFileSync('npm', ['pack', '--json', '--pack-destination', into], {
			cwd: root,
			encoding: 'utf8',
		}),
	) as Array<{ filename: string }>;
	const dir = join(into, 'package');
	mkdirSync(dir);
	execFileSync('tar', ['-xzf', join(into, packed[0].filename), '-C', dir, '--strip-components=1']);
	return dir;
}

async function main(): Promise<number> {
	const at = process.argv.indexOf('--source');
	const root = at > 0 ? process.argv[at + 1] : join(__dirname, '..');
	const legs: Leg[] = [
		directives(root),
		await lint('scanner, source (nodes/, credentials/, package.json)', root, SOURCE_FILE_PATTERNS),
	];
	if (at < 0) {
		const work = mkdtempSync(join(tmpdir(), 'mediagen-scan-'));
		try {
			legs.push(
				await lint(
					'scanner, packed tarball (.js, package.json)',
					packTarball(root, work),
					TARBALL_FILE_PATTERNS,
				),
			);
		} finally {
			rmSync(work, { recursive: true, force: true });
		}
	}
	let total = 0;
	for (const leg of legs) {
		total += leg.findings;
		process.stdout.write(`[scan] ${leg.name}: ${leg.findings} finding(s)\n`);
		if (leg.findings) process.stdout.write(`${leg.details}\n`);
	}
	process.stdout.write(`[scan] total: ${total} finding(s)\n`);
	return total ? 1 : 0;
}

void main().then((code) => process.exit(code));
