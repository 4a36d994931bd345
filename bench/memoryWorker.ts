/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * One measurement of bench/memory.ts, in its own process (started by it; not meant to be run by
 * hand): `node --expose-gc --import tsx bench/memoryWorker.ts '<json task>'`.
 *
 * Runs n8n-core's engine in-process with filesystem binary data against the sandbox the parent
 * started, and measures this process's memory while the one measured workflow runs:
 * process.memoryUsage().rss sampled every 20 ms, and the kernel's peak (VmHWM of
 * /proc/self/status, reset just before through /proc/self/clear_refs). Prints `RESULT <json>`.
 *
 * task: { op: 'download', baseUrl, apiKey, storagePath, assetId, size }
 *     | { op: 'upload', baseUrl, apiKey, storagePath, size, seed }
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';

import type { IBinaryData } from 'n8n-workflow';

import { watchMemory } from './lib';

interface Task {
	op: 'download' | 'upload';
	baseUrl: string;
	apiKey: string;
	storagePath: string;
	size: number;
	assetId?: string;
	seed?: number;
}

const MiB = 1024 * 1024;
async function main() {
	const task = JSON.parse(process.argv[2] ?? '{}') as Task;
	const harness = await import('../test/harness/engine/harness');
	const binaryData = await import('../test/harness/engine/binaryData');
	const { patternByte } = await import('../sandbox/media');
	harness.NODE_TYPES['test.binarySource'] = new binaryData.TestBinarySource();
	const setup = await harness.setupBinaryData('filesystem', task.storagePath);
	const credentials = { mediaGenApi: { apiKey: task.apiKey, baseUrl: task.baseUrl } };

	// Warm-up outside the measurement: module loading, JIT, sockets, credentials.
	await harness.runWorkflow(
		harness.chain([{}], [harness.mediaGen('Warm', { resource: 'workspace', operation: 'get' })]),
		{ credentials },
	);

	let workflow;
	let sourceSha256: string | undefined;
	if (task.op === 'download') {
		workflow = harness.chain(
			[{}],
			[
				harness.mediaGen('Download', {
					resource: 'asset',
					operation: 'download',
					assetId: { __rl: true, mode: 'id', value: task.assetId },
					binaryPropertyName: 'data',
				}),
			],
		);
	} else {
		// The file to upload is written to n8n's binary store first, outside the measurement.
		const hash = createHash('sha256');
		const bytes = function* () {
			for (const chunk of binaryData.testBytes(task.size, task.seed)) {
				hash.update(chunk);
				yield chunk;
			}
		};
		const stored = await setup.service.store(
			{ type: 'execution', workflowId: 'wf-test', executionId: 'bench-source' },
			Readable.from(bytes()),
			{ data: '', mimeType: 'video/mp4', fileName: 'bench.mp4' } as IBinaryData,
		);
		sourceSha256 = hash.digest('hex');
		workflow = harness.chain(
			[{}],
			[
				{
					name: 'Binary',
					type: 'test.binarySource',
					parameters: { propertyName: 'data', binary: JSON.stringify(stored) },
				},
				harness.mediaGen('Upload', {
					resource: 'asset',
					operation: 'upload',
					binaryPropertyName: 'data',
				}),
			],
		);
	}

	const watch = await watchMemory();
	const baseline = watch.baseline;
	const started = process.hrtime.bigint();
	const result = await harness.runWorkflow(workflow, { credentials });
	const seconds = Number(process.hrtime.bigint() - started) / 1e9;
	const { sampledPeak, hwm, samples } = watch.stop();

	if (result.error) throw new Error(`workflow failed: ${result.error.message}`);
	const out: Record<string, unknown> = {
		op: task.op,
		size: task.size,
		seconds,
		baseline,
		sampledPeak,
		hwm,
		samples,
		heapUsed: process.memoryUsage().heapUsed,
	};

	// Checks, after the measurement.
	if (task.op === 'download') {
		const file = result.items('Download')[0]?.binary?.data as IBinaryData;
		let offset = 0;
		let mismatches = 0;
		for await (const chunk of await binaryData.openBinary(file, 4 * MiB)) {
			const b = chunk as Buffer;
			for (let i = 0; i < b.length; i++) if (b[i] !== patternByte(offset + i)) mismatches++;
			offset += b.length;
		}
		out.verified = offset === task.size && mismatches === 0;
		out.storedBytes = offset;
		out.binaryId = file.id;
	} else {
		const asset = result.json('Upload')[0];
		out.assetId = asset.id;
		out.assetSize = asset.size;
		out.sourceSha256 = sourceSha256;
	}
	process.stdout.write(`RESULT ${JSON.stringify(out)}\n`);
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
		process.exit(1);
	},
);
