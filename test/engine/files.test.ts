/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * Files never silently wrong, through n8n-core's engine, the real MediaGen node and n8n's binary
 * data service in memory ('default') and 'filesystem' mode, over real HTTP to the sandbox and its
 * faults: an item whose file cannot be read (or is not its file) is refused before anything is
 * sent; an upload whose complete lost its answer is found again by n8n's Retry and Retry On Fail
 * (counted at the sandbox: one asset); a download that cannot be stored for a cause on this
 * machine is not downloaded again.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { IBinaryData, IDataObject, INodeParameters } from 'n8n-workflow';

import type { BinaryDataSetup, BinaryMode } from '../harness/engine/binaryData';
import { TestBinarySource } from '../harness/engine/binaryData';
import type { TestNode } from '../harness/engine/harness';
import {
	NODE_TYPES,
	chain,
	mediaGen,
	retryExecution,
	runWorkflow,
	setupBinaryData,
} from '../harness/engine/harness';
import { binaryModes, fastJobs, rl, useSandbox } from '../harness/engine/setup';

NODE_TYPES['test.binarySource'] = new TestBinarySource();

const { sb, creds, flow: run } = useSandbox({ timeScale: 0.001 });
fastJobs({ polling: false, retry: { baseDelayMs: 5, maxDelayMs: 20 } });

const useMode = binaryModes();

const source = (parameters: INodeParameters): TestNode => ({
	name: 'Binary',
	type: 'test.binarySource',
	parameters: { fileName: 'a.bin', ...parameters },
});

const upload = (extra: Partial<TestNode> = {}) =>
	mediaGen('Upload', { resource: 'asset', operation: 'upload', binaryPropertyName: 'data' }, extra);

/** The assets uploaded in the sandbox's workspace, read over its API. */
async function uploadedAssets(): Promise<IDataObject[]> {
	const res = await fetch(`${sb.baseUrl}/assets?source=upload&limit=100`, {
		headers: { authorization: `Bearer ${sb.keys.pro}` },
	});
	return ((await res.json()) as { data: IDataObject[] }).data;
}

const download = (assetId: string) =>
	mediaGen('Download', {
		resource: 'asset',
		operation: 'download',
		assetId: rl(assetId),
		binaryPropertyName: 'file',
	});

const starts = () => sb.control.requests({ method: 'POST', path: '/uploads$' });
const completes = () => sb.control.requests({ method: 'POST', path: '/complete$' });

/** A binary made by a first run (Test Binary Source), as n8n stored it. */
async function storedBinary(size: number): Promise<IBinaryData> {
	const made = await run([source({ size, seed: 3 })]);
	const binary = made.items('Binary')[0].binary?.data;
	if (!binary) throw new Error('no binary made');
	sb.control.clearRequests();
	return binary;
}

describe.each<BinaryMode>(['default', 'filesystem'])(
	'binary mode %s: refused before sending',
	(mode) => {
		beforeAll(async () => {
			await useMode(mode);
		});

		test('a binary without its file id (data is the store mark) is refused, naming item and property', async () => {
			const binary = {
				data: 'filesystem-v2',
				mimeType: 'image/png',
				fileName: 'photo.png',
				bytes: 1234,
			};
			const result = await run([source({ binary: JSON.stringify(binary) }), upload()], [{}, {}]);
			expect(result.error?.message).toBe(
				"The binary file 'data' of item 0 has no file id: its data is 'filesystem-v2', n8n's mark of a file kept in its binary data store, not the file",
			);
			expect(sb.control.requests()).toHaveLength(0);
			expect(await uploadedAssets()).toHaveLength(0);
		});

		test('base64 that decodes to another size than it says is refused; the item and its bytes named', async () => {
			// 12 characters say 9 bytes; the trailing line breaks decode to nothing: 6 bytes
			const shortBase64 = { data: 'QUJDREVG\n\n\n\n', mimeType: 'text/plain', fileName: 'a.txt' };
			const result = await run([source({ binary: JSON.stringify(shortBase64) }), upload()]);
			expect(result.error?.message).toBe(
				"The binary file 'data' of item 0 is not base64 text, as n8n keeps a file in memory",
			);
			const wrongBytes = { data: 'QUJDREVG', mimeType: 'text/plain', fileName: 'a.txt', bytes: 7 };
			const second = await run([source({ binary: JSON.stringify(wrongBytes) }), upload()]);
			expect(second.error?.message).toBe(
				"The binary file 'data' of item 0 holds 6 bytes of base64 data, but the item says 7 (its `bytes`)",
			);
			expect(sb.control.requests()).toHaveLength(0);
		});
	},
);

describe('filesystem mode: a file that cannot be read is found before anything is sent', () => {
	let setup: BinaryDataSetup;
	beforeAll(async () => {
		setup = await useMode('filesystem');
	});

	test.each([
		['its file and metadata are gone (pruned)', true],
		['its file is gone, its metadata kept', false],
	])('%s: refused, no upload started', async (_what, withMetadata) => {
		const binary = await storedBinary(5000);
		const path = setup.service.getPath(binary.id!);
		rmSync(path);
		if (withMetadata) rmSync(`${path}.metadata`);
		const result = await run([source({ binary: JSON.stringify(binary) }), upload()]);
		expect(result.error?.message).toBe("The binary file 'data' of item 0 cannot be read");
		expect(result.error?.description).toMatch(/has no readable file filesystem-v2:workflows\//);
		expect(starts()).toHaveLength(0);
		expect(sb.control.requests()).toHaveLength(0);
	});

	test('a binary whose bytes disagree with its stored file is refused', async () => {
		const binary = { ...(await storedBinary(5000)), bytes: 4999 };
		const result = await run([source({ binary: JSON.stringify(binary) }), upload()]);
		expect(result.error?.message).toBe(
			"The binary file 'data' of item 0 holds 5000 bytes, but the item says 4999 (its `bytes`)",
		);
		expect(sb.control.requests()).toHaveLength(0);
	});
});

describe.each<BinaryMode>(['default', 'filesystem'])(
	'binary mode %s: a lost complete answer makes no second asset',
	(mode) => {
		beforeAll(async () => {
			await useMode(mode);
		});

		/** The complete is done but its answer dropped, then 503 until the complete's retries end. */
		function loseTheComplete() {
			sb.control.addFault({ kind: 'drop', method: 'POST', path: '/complete$' });
			sb.control.addFault({
				kind: 'fail',
				method: 'POST',
				path: '/complete$',
				status: 503,
				skip: 1,
				count: 4,
			});
		}

		test("the error names the upload and what to check; n8n's Retry finds its asset", async () => {
			loseTheComplete();
			const workflow = chain([{}], [source({ size: 3000, seed: 9 }), upload()]);
			const options = { credentials: creds() };
			const failed = await runWorkflow(workflow, options);
			const uploadId = completes()[0].path.split('/')[3];
			expect(failed.error?.message).toBe(
				`Upload ${uploadId} of 'data' may have been completed, but MediaGen's answer was lost`,
			);
			expect(failed.error?.description).toMatch(
				/^MediaGen server error \(503\)\. n8n's Retry of this execution, or Retry On Fail, asks MediaGen for the asset of this same upload/,
			);
			expect(completes().map((r) => [r.status, r.dropped])).toEqual([
				[201, true],
				[503, false],
				[503, false],
				[503, false],
				[503, false],
			]);
			const [made] = await uploadedAssets();
			expect(made).toMatchObject({ size: 3000, source: 'upload' });

			const retried = await retryExecution(workflow, failed.run, options);
			expect(retried.error).toBeUndefined();
			expect(retried.json('Upload')).toEqual([made]);
			expect(await uploadedAssets()).toHaveLength(1);
			expect(starts()).toHaveLength(1);
			expect(
				completes()
					.map((r) => r.status)
					.slice(-1),
			).toEqual([200]);
		});

		test('Retry On Fail: the second try completes the same upload again', async () => {
			loseTheComplete();
			const result = await run([
				source({ size: 3000, seed: 9 }),
				upload({ retryOnFail: true, maxTries: 2, waitBetweenTries: 0 }),
			]);
			expect(result.error).toBeUndefined();
			const assets = await uploadedAssets();
			expect(assets).toHaveLength(1);
			expect(result.json('Upload')).toEqual(assets);
			expect(starts()).toHaveLength(1);
		});

		test('Retry after a later item failed: the uploaded item is not uploaded again', async () => {
			// the second item's part is refused for good: the node fails after the first item's asset
			sb.control.addFault({
				kind: 'fail',
				method: 'PUT',
				path: '^/files/uploads/',
				status: 403,
				skip: 1,
			});
			const workflow = chain([{}, {}], [source({ size: 2000, seed: 4 }), upload()]);
			const options = { credentials: creds() };
			const failed = await runWorkflow(workflow, options);
			expect(failed.error?.message).toMatch(/Upload of part 1 of 1 was refused \(status 403/);
			expect(await uploadedAssets()).toHaveLength(1);

			const retried = await retryExecution(workflow, failed.run, options);
			expect(retried.error).toBeUndefined();
			const assets = await uploadedAssets();
			expect(assets).toHaveLength(2);
			expect(
				retried
					.json('Upload')
					.map((a) => a.id)
					.sort(),
			).toEqual(assets.map((a) => a.id).sort());
			expect(starts()).toHaveLength(3); // item 0 once, item 1 twice (the refused one made no asset)
		});

		test('a complete refused for good is forgotten: the Retry uploads anew, one asset', async () => {
			sb.control.addFault({
				kind: 'fail',
				method: 'POST',
				path: '/complete$',
				status: 409,
				code: 'conflict',
			});
			const workflow = chain([{}], [source({ size: 2000, seed: 4 }), upload()]);
			const options = { credentials: creds() };
			const failed = await runWorkflow(workflow, options);
			expect(failed.error?.message).toMatch(/^Conflict/);
			const retried = await retryExecution(workflow, failed.run, options);
			expect(retried.error).toBeUndefined();
			expect(await uploadedAssets()).toHaveLength(1);
			expect(starts()).toHaveLength(2);
		});
	},
);

describe('filesystem mode: a download that cannot be stored here is not downloaded again', () => {
	let setup: BinaryDataSetup;
	beforeAll(async () => {
		setup = await useMode('filesystem');
	});

	test("n8n's store cannot write (ENOTDIR): one transfer, the cause named", async () => {
		// where n8n puts this workflow's files is a file: every write fails the same way
		const blocker = join(setup.storagePath, 'workflows', 'wf-test');
		rmSync(blocker, { recursive: true, force: true });
		mkdirSync(join(setup.storagePath, 'workflows'), { recursive: true });
		writeFileSync(blocker, 'not a folder');
		try {
			const asset = sb.control.createLargeAsset({ size: 100_000, filename: 'x.bin' });
			const result = await run([download(asset.id)]);
			expect(result.error?.message).toBe(
				`Download of asset ${asset.id} could not be stored: n8n could not store the file`,
			);
			expect(result.error?.description).toMatch(
				/^ENOTDIR: not a directory, mkdir '.+'\. Not retried: the cause is on the n8n machine, another attempt would fail the same way\.$/,
			);
			expect(sb.control.requests({ path: '^/files/assets/' })).toHaveLength(1);
		} finally {
			rmSync(blocker, { force: true });
		}
	});
});

/**
 * A real full disk: a 1 MiB tmpfs mounted as n8n's binary data folder, where this process may
 * mount one (root, as on the development machine); undefined (the test is skipped) elsewhere.
 */
function tinyDisk(): string | undefined {
	const dir = mkdtempSync(join(tmpdir(), 'mediagen-full-disk-'));
	try {
		execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir], { stdio: 'ignore' });
		return dir;
	} catch {
		rmSync(dir, { recursive: true, force: true });
		return undefined;
	}
}

describe('filesystem mode on a full disk (a 1 MiB tmpfs; skipped where it cannot be mounted)', () => {
	const disk = tinyDisk();
	beforeAll(async () => {
		if (disk) await setupBinaryData('filesystem', disk);
	});
	afterAll(() => {
		if (!disk) return;
		execFileSync('umount', [disk], { stdio: 'ignore' });
		rmSync(disk, { recursive: true, force: true });
	});

	(disk ? test : test.skip)(
		'ENOSPC after the transfer began: one transfer, the full disk named',
		async () => {
			const asset = sb.control.createLargeAsset({ size: 5 * 1024 * 1024, filename: 'big.bin' });
			const result = await run([download(asset.id)]);
			expect(result.error?.message).toBe(
				`Download of asset ${asset.id} could not be stored: the disk that holds n8n's binary data is full`,
			);
			expect(result.error?.description).toMatch(/^ENOSPC: no space left on device, write\./);
			expect(sb.control.requests({ path: '^/files/assets/' })).toHaveLength(1);
		},
	);
});

describe("memory mode: a file above what n8n's in-memory mode can hold", () => {
	beforeAll(async () => {
		await useMode('default');
	});

	test('is transferred once and refused, naming filesystem mode', async () => {
		// base64 of 403,000,000 bytes is 537,333,336 characters: more than a V8 string holds
		// (2^29 - 24 in Node 20 to 24), so n8n's in-memory store fails after the transfer
		const asset = sb.control.createLargeAsset({ size: 403_000_000, filename: 'big.bin' });
		const result = await run([download(asset.id)]);
		expect(result.error?.message).toBe(
			`Download of asset ${asset.id} could not be stored: the file is larger than n8n's in-memory binary data mode can hold (it keeps a file as base64 text: at most about 400 MB); set N8N_DEFAULT_BINARY_DATA_MODE=filesystem`,
		);
		expect(result.error?.description).toMatch(
			/^ERR_STRING_TOO_LONG: Cannot create a string longer than/,
		);
		expect(sb.control.requests({ path: '^/files/assets/' })).toHaveLength(1);
	}, 120_000);
});
