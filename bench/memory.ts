/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * Memory benchmark of binary in and out (nodes/shared/files/download.ts, nodes/shared/files/upload.ts) through
 * n8n's engine with filesystem binary data, against the sandbox over real HTTP.
 *
 *     node_modules/.bin/tsx bench/memory.ts            # 256 MiB and 1 GiB, down then up
 *     node_modules/.bin/tsx bench/memory.ts 64 512     # other sizes, in MiB
 *
 * The sandbox runs here, in this process; each measurement runs in a fresh child process
 * (bench/memoryWorker.ts, `node --expose-gc --import tsx`) so that measurements do not mix. The
 * child samples its own RSS every 20 ms and reads its kernel peak (VmHWM, reset just before the
 * measured workflow starts). Downloads are checked byte for byte against the sandbox pattern by the
 * child after the measurement; uploads are checked here by downloading the asset again and
 * comparing its SHA-256 with the source file's. Results: bench/README.md.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';

import { startSandbox } from '../sandbox';

const MiB = 1024 * 1024;
const TARGET_GROWTH = 64 * MiB;

interface WorkerResult {
	op: 'download' | 'upload';
	size: number;
	seconds: number;
	baseline: number;
	sampledPeak: number;
	hwm: number;
	samples: number;
	verified?: boolean;
	assetId?: string;
	assetSize?: number;
	sourceSha256?: string;
}

interface Row {
	op: string;
	size: number;
	seconds: number;
	throughput: number;
	baseline: number;
	peak: number;
	growth: number;
	ratio: number;
	verified: boolean;
}

function runWorker(task: object): Promise<WorkerResult> {
	return new Promise((resolve, reject) => {
		const child = spawn(
			process.execPath,
			['--expose-gc', '--import', 'tsx', join(__dirname, 'memoryWorker.ts'), JSON.stringify(task)],
			{ cwd: join(__dirname, '..'), stdio: ['ignore', 'pipe', 'pipe'] },
		);
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
		child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
		child.on('error', reject);
		child.on('close', (code) => {
			const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
			if (code !== 0 || !line) {
				reject(new Error(`worker exited with ${code}\n${stderr}\n${stdout}`));
				return;
			}
			resolve(JSON.parse(line.slice(7)) as WorkerResult);
		});
	});
}

/** SHA-256 of an asset's file, fetched like a client would (API, then the signed URL). */
async function assetSha256(baseUrl: string, apiKey: string, assetId: string): Promise<string> {
	const linkRes = await fetch(`${baseUrl}/assets/${assetId}/download`, {
		headers: { authorization: `Bearer ${apiKey}` },
	});
	const link = (await linkRes.json()) as { url: string };
	const res = await fetch(link.url);
	if (!res.ok || !res.body) throw new Error(`download of ${assetId}: ${res.status}`);
	const hash = createHash('sha256');
	for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) hash.update(chunk);
	return hash.digest('hex');
}

const mib = (bytes: number) => (bytes / MiB).toFixed(1);
const sizeLabel = (bytes: number) =>
	bytes >= 1024 * MiB ? `${bytes / (1024 * MiB)} GiB` : `${bytes / MiB} MiB`;

async function main() {
	const sizes = (
		process.argv.slice(2).length ? process.argv.slice(2).map(Number) : [256, 1024]
	).map((n) => n * MiB);
	const sb = await startSandbox({ port: 0, quiet: true, rateLimitPerMinute: 0 });
	// Keep the bytes of every upload (not only hashes) so that each can be downloaded and checked.
	sb.control.setConfig({ maxStoredUploadBytes: Math.max(...sizes) });
	const storagePath = mkdtempSync(join(tmpdir(), 'mediagen-bench-'));
	const rows: Row[] = [];
	const base = { baseUrl: sb.baseUrl, apiKey: sb.keys.pro, storagePath };
	try {
		const tasks: Array<{ op: 'download' | 'upload'; size: number }> = [
			...sizes.map((size) => ({ op: 'download' as const, size })),
			...sizes.map((size) => ({ op: 'upload' as const, size })),
		];
		for (const [i, t] of tasks.entries()) {
			process.stdout.write(`${t.op} ${sizeLabel(t.size)} ... `);
			let task: object;
			if (t.op === 'download') {
				const asset = sb.control.createLargeAsset({ size: t.size, filename: 'bench.bin' });
				task = { ...base, op: 'download', size: t.size, assetId: asset.id };
			} else {
				task = { ...base, op: 'upload', size: t.size, seed: 1000 + i };
			}
			const r = await runWorker(task);
			let verified = r.verified === true;
			if (r.op === 'upload') {
				const sha = await assetSha256(sb.baseUrl, sb.keys.pro, String(r.assetId));
				verified = r.assetSize === r.size && sha === r.sourceSha256;
			}
			const peak = Math.max(r.sampledPeak, r.hwm);
			const row: Row = {
				op: r.op,
				size: r.size,
				seconds: r.seconds,
				throughput: r.size / MiB / r.seconds,
				baseline: r.baseline,
				peak,
				growth: peak - r.baseline,
				ratio: (peak - r.baseline) / r.size,
				verified,
			};
			rows.push(row);
			process.stdout.write(
				`${row.seconds.toFixed(2)} s, peak growth ${mib(row.growth)} MiB (${r.samples} samples)${verified ? '' : ' NOT VERIFIED'}\n`,
			);
			// The child's files are no longer needed; free the disk between runs.
			rmSync(storagePath, { recursive: true, force: true });
			sb.control.reset();
			sb.control.setConfig({ maxStoredUploadBytes: Math.max(...sizes) });
		}
	} finally {
		rmSync(storagePath, { recursive: true, force: true });
		await sb.close();
	}

	const header = [
		'operation',
		'size',
		'wall time (s)',
		'throughput (MiB/s)',
		'baseline RSS (MiB)',
		'peak RSS (MiB)',
		'peak growth (MiB)',
		'growth / size',
		'bytes verified',
	];
	const lines = [
		`| ${header.join(' | ')} |`,
		`|${header.map(() => '---').join('|')}|`,
		...rows.map(
			(r) =>
				`| ${r.op} | ${sizeLabel(r.size)} | ${r.seconds.toFixed(2)} | ${r.throughput.toFixed(0)} | ${mib(r.baseline)} | ${mib(r.peak)} | ${mib(r.growth)} | ${(r.ratio * 100).toFixed(2)} % | ${r.verified ? 'yes' : 'NO'} |`,
		),
	];
	process.stdout.write(
		`\nNode ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${mib(totalmem())} MiB RAM\n\n${lines.join('\n')}\n\n`,
	);
	const worst = rows.reduce((a, b) => (b.growth > a.growth ? b : a), rows[0]);
	const pass = rows.every((r) => r.growth <= TARGET_GROWTH && r.verified);
	process.stdout.write(
		`Verdict: ${pass ? 'PASS' : 'FAIL'}: target peak RSS growth <= 64 MiB for each, whatever the size; worst ${mib(worst.growth)} MiB (${worst.op} ${sizeLabel(worst.size)})${rows.every((r) => r.verified) ? '' : '; some bytes NOT verified'}\n`,
	);
	process.exitCode = pass ? 0 : 1;
}

main().catch((error: unknown) => {
	process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
	process.exitCode = 1;
});
