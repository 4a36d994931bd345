/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
// `npm ci` installs exactly what package-lock.json lists and refuses a lock that is out of step with
// package.json. These checks catch the two ways that happened here without a network install:
// a dependency range edited in package.json only, and optional platform packages (native bindings
// for other systems) left out of the lock. `npm ci` on a fresh clone is the full proof (see
// docs/release.md); this test keeps the lock honest between releases.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface LockEntry {
	version?: string;
	dependencies?: Record<string, string>;
	optionalDependencies?: Record<string, string>;
	peerDependencies?: Record<string, string>;
	devDependencies?: Record<string, string>;
	peerDependenciesMeta?: Record<string, { optional?: boolean }>;
	link?: boolean;
}

const root = join(__dirname, '../..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as LockEntry;
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
	lockfileVersion: number;
	packages: Record<string, LockEntry>;
};

/** Node's lookup: `name` from the package at `from` is the nearest node_modules/<name> above it. */
function resolve(from: string, name: string): string | undefined {
	let dir = from;
	for (;;) {
		const candidate = `${dir ? `${dir}/` : ''}node_modules/${name}`;
		if (lock.packages[candidate]) return candidate;
		if (!dir) return undefined;
		const at = dir.lastIndexOf('node_modules/');
		dir = at <= 0 ? '' : dir.slice(0, at - 1);
	}
}

test('the lock file records the dependency ranges of package.json (npm ci refuses it otherwise)', () => {
	const top = lock.packages[''];
	expect(lock.lockfileVersion).toBe(3);
	for (const field of [
		'dependencies',
		'devDependencies',
		'peerDependencies',
		'optionalDependencies',
	] as const) {
		expect({ [field]: top[field] ?? {} }).toEqual({ [field]: pkg[field] ?? {} });
	}
});

test('every dependency and optional dependency in the lock resolves to a locked package', () => {
	const missing: string[] = [];
	for (const [path, entry] of Object.entries(lock.packages)) {
		if (entry.link) continue;
		const wanted = { ...entry.dependencies, ...entry.optionalDependencies };
		for (const name of Object.keys(wanted)) {
			if (!resolve(path, name)) missing.push(`${path || '(root)'} -> ${name}`);
		}
		for (const name of Object.keys(entry.peerDependencies ?? {})) {
			if (entry.peerDependenciesMeta?.[name]?.optional) continue;
			if (!resolve(path, name)) missing.push(`${path || '(root)'} -> ${name} (peer)`);
		}
	}
	expect(missing).toEqual([]);
});

test('the native resolver bindings for Linux, macOS and Windows are in the lock', () => {
	const bindings = Object.keys(lock.packages).filter((p) =>
		p.startsWith('node_modules/@unrs/resolver-binding-'),
	);
	const names = bindings.map((p) => p.replace('node_modules/@unrs/resolver-binding-', ''));
	expect(names).toEqual(
		expect.arrayContaining([
			'linux-x64-gnu',
			'linux-arm64-gnu',
			'darwin-arm64',
			'darwin-x64',
			'win32-x64-msvc',
		]),
	);
});
