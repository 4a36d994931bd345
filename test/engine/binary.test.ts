/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * Asset Upload and Asset Download through n8n-core's engine (WorkflowExecute), the real MediaGen
 * node, and n8n's binary data service in memory ('default') and 'filesystem' mode, over real HTTP
 * to the sandbox: bytes, file name and MIME type survive a round trip; multi-part uploads carry
 * the ETags the sandbox checks; failed part PUTs are retried; a 64 MiB download is streamed to disk.
 */
import { statSync } from 'node:fs';

import type { IBinaryData, INodeParameters } from 'n8n-workflow';

import { POLLING } from '../../nodes/shared/jobs/poller';
import { patternByte } from '../../sandbox';
import type { BinaryDataSetup, BinaryMode } from '../harness/engine/binaryData';
import { TestBinarySource, digestBinary, openBinary, testBytesSha256 } from '../harness/engine/binaryData';
import { NODE_TYPES, mediaGen } from '../harness/engine/harness';
import type { TestNode } from '../harness/engine/harness';
import { binaryModes, fastJobs, rl, useSandbox } from '../harness/engine/setup';

NODE_TYPES['test.binarySource'] = new TestBinarySource();

const MiB = 1024 * 1024;

const { sb, flow: run } = useSandbox({ timeScale: 0.001 });
// Short backoff so that retry tests stay quick; the policy itself is unchanged.
fastJobs({ polling: false, retry: { baseDelayMs: 20, maxDelayMs: 200 } });

const useMode = binaryModes();

function source(parameters: INodeParameters): TestNode {
	return { name: 'Binary', type: 'test.binarySource', parameters };
}

const upload = (parameters: INodeParameters = {}, extra: Partial<TestNode> = {}) =>
	mediaGen(
		'Upload',
		{ resource: 'asset', operation: 'upload', binaryPropertyName: 'data', ...parameters },
		extra,
	);

const download = (parameters: INodeParameters = {}) =>
	mediaGen('Download', {
		resource: 'asset',
		operation: 'download',
		assetId: rl('={{ $json.id }}'),
		binaryPropertyName: 'file',
		...parameters,
	});

const partPuts = () => sb.control.requests({ method: 'PUT', path: '^/files/uploads/' });

describe.each<BinaryMode>(['default', 'filesystem'])('binary mode %s', (mode) => {
	let setup: BinaryDataSetup;
	beforeAll(async () => {
		setup = await useMode(mode);
	});

	test('upload a file from a binary property, download it again: bytes, name and MIME intact', async () => {
		const size = 300 * 1024 + 7;
		const result = await run([
			source({ fileName: 'notes.txt', mimeType: 'text/plain', size, seed: 7 }),
			upload({ additionalFields: { title: 'Notes', tags: 'a,b' } }),
			download(),
		]);
		expect(result.error).toBeUndefined();

		const [asset] = result.json('Upload');
		expect(asset).toMatchObject({
			id: expect.any(String),
			filename: 'notes.txt',
			mimeType: 'text/plain',
			size,
			source: 'upload',
			kind: 'document',
			title: 'Notes',
		});
		const [start] = sb.control.requests({ method: 'POST', path: '/uploads$' });
		expect(start.status).toBe(201);
		expect(partPuts().map((r) => r.status)).toEqual([200]);

		const [item] = result.items('Download');
		expect(item.json).toMatchObject({
			assetId: asset.id,
			filename: 'notes.txt',
			mimeType: 'text/plain',
			size,
		});
		expect(item.json.url).toBeUndefined();
		const file = item.binary?.file as IBinaryData;
		expect(file).toMatchObject({ fileName: 'notes.txt', mimeType: 'text/plain', bytes: size });
		expect(await digestBinary(file)).toEqual({ size, sha256: testBytesSha256(size, 7) });

		if (mode === 'filesystem') {
			// On disk in n8n's layout, not in the item.
			expect(file.id).toMatch(/^filesystem-v2:workflows\/wf-test\/executions\/.+\/binary_data\//);
			expect(file.data).toBe('filesystem-v2');
			expect(statSync(setup.service.getPath(file.id!)).size).toBe(size);
		} else {
			expect(file.id).toBeUndefined();
			expect(Buffer.from(file.data, 'base64')).toHaveLength(size);
		}
	});

	test('overrides of file name and MIME type; the download URL only when asked', async () => {
		const result = await run([
			source({ fileName: 'photo.bin', text: 'not really a picture' }),
			upload({ additionalFields: { filename: 'renamed.png', mimeType: 'image/png' } }),
			download({ options: { includeDownloadUrl: true } }),
		]);
		expect(result.error).toBeUndefined();
		expect(result.json('Upload')[0]).toMatchObject({
			filename: 'renamed.png',
			mimeType: 'image/png',
			kind: 'image',
			size: 20,
		});
		const [item] = result.items('Download');
		expect(item.json.url).toMatch(/\/files\/assets\/.+signature=/);
		expect(item.binary?.file).toMatchObject({ fileName: 'renamed.png', mimeType: 'image/png' });
		const bytes = Buffer.concat(
			(await openBinary(item.binary!.file).then((s) => s.toArray())) as Buffer[],
		);
		expect(bytes.toString('utf8')).toBe('not really a picture');
	});

	test('an empty file is one empty part', async () => {
		const result = await run([
			source({ fileName: 'empty.txt', mimeType: 'text/plain', size: 0, seed: 1 }),
			upload(),
			download(),
		]);
		expect(result.error).toBeUndefined();
		expect(result.json('Upload')[0]).toMatchObject({ size: 0 });
		expect(partPuts().map((r) => r.path)).toEqual([expect.stringMatching(/\/1$/)]);
		expect(await digestBinary(result.items('Download')[0].binary!.file)).toMatchObject({
			size: 0,
		});
	});

	test('20 MiB in three parts of the sandbox 8 MiB part size, ETags checked on complete', async () => {
		const size = 20 * MiB + 123;
		const result = await run([
			source({ fileName: 'clip.mp4', mimeType: 'video/mp4', size, seed: 42 }),
			upload(),
			download(),
		]);
		expect(result.error).toBeUndefined();
		expect(result.json('Upload')[0]).toMatchObject({ size, kind: 'video', mimeType: 'video/mp4' });
		const puts = partPuts();
		expect(puts.map((r) => [r.path.split('/').pop(), r.status])).toEqual([
			['1', 200],
			['2', 200],
			['3', 200],
		]);
		// The sandbox answers 422 unless every part is listed with the ETag its PUT answered.
		const [complete] = sb.control.requests({ method: 'POST', path: '/complete$' });
		expect(complete.status).toBe(201);
		const file = result.items('Download')[0].binary!.file;
		expect(await digestBinary(file)).toEqual({ size, sha256: testBytesSha256(size, 42) });
	});
});

describe('upload faults (filesystem mode)', () => {
	beforeAll(async () => {
		await useMode('filesystem');
	});

	const size = 17 * MiB;

	test('failed PUTs of a part are retried and the upload completes', async () => {
		sb.control.addFault({ kind: 'fail', method: 'PUT', path: '/files/uploads/.*/2$', count: 2 });
		sb.control.addFault({ kind: 'drop', method: 'PUT', path: '/files/uploads/.*/3$', count: 1 });
		const result = await run([source({ fileName: 'a.bin', size, seed: 5 }), upload(), download()]);
		expect(result.error).toBeUndefined();
		const puts = partPuts().map((r) => [r.path.split('/').pop(), r.status, r.injected, r.dropped]);
		expect(puts).toEqual([
			['1', 200, false, false],
			['2', 500, true, false],
			['2', 500, true, false],
			['2', 200, false, false],
			['3', 200, false, true],
			['3', 200, false, false],
		]);
		expect(sb.control.requests({ method: 'POST', path: '/uploads$' })).toHaveLength(1);
		const file = result.items('Download')[0].binary!.file;
		expect(await digestBinary(file)).toEqual({ size, sha256: testBytesSha256(size, 5) });
	});

	test('a part that keeps failing stops the upload with an error naming the part', async () => {
		sb.control.addFault({ kind: 'fail', method: 'PUT', path: '/files/uploads/.*/2$', count: 50 });
		const result = await run([source({ fileName: 'a.bin', size, seed: 5 }), upload()]);
		expect(result.error?.message).toMatch(/Upload of part 2 of 3 failed after 5 attempts/);
		expect(result.error?.node).toBe('Upload');
		expect(partPuts().filter((r) => r.path.endsWith('/2'))).toHaveLength(5);
		expect(partPuts().filter((r) => r.path.endsWith('/3'))).toHaveLength(0);
		expect(sb.control.requests({ method: 'POST', path: '/complete$' })).toHaveLength(0);
	});

	test('a refused part (4xx) is not retried', async () => {
		sb.control.addFault({
			kind: 'fail',
			method: 'PUT',
			path: '/files/uploads/.*/1$',
			status: 403,
			code: 'url_expired',
			message: 'The signed URL has expired',
		});
		const result = await run([source({ fileName: 'a.bin', size: 1000, seed: 5 }), upload()]);
		expect(result.error?.message).toMatch(/Upload of part 1 of 1 was refused \(status 403/);
		expect(partPuts()).toHaveLength(1);
	});

	test('POST /uploads is not retried (it is not idempotent)', async () => {
		sb.control.addFault({ kind: 'fail', method: 'POST', path: '/uploads$', status: 500 });
		const result = await run([source({ fileName: 'a.bin', size: 1000, seed: 5 }), upload()]);
		expect(result.error?.message).toMatch(/server error \(500\)/i);
		expect(sb.control.requests({ method: 'POST', path: '/uploads$' })).toHaveLength(1);
		expect(partPuts()).toHaveLength(0);
	});

	test('a lost complete answer is retried: completing twice gives the same asset', async () => {
		sb.control.addFault({ kind: 'drop', method: 'POST', path: '/complete$' });
		const result = await run([source({ fileName: 'a.bin', size: 1000, seed: 5 }), upload()]);
		expect(result.error).toBeUndefined();
		const completes = sb.control.requests({ method: 'POST', path: '/complete$' });
		expect(completes.map((r) => [r.status, r.dropped])).toEqual([
			[201, true],
			[200, false],
		]);
		expect(result.json('Upload')[0]).toMatchObject({ size: 1000, source: 'upload' });
	});

	test('a missing binary property stops before anything is sent', async () => {
		const result = await run([
			source({ fileName: 'a.bin', text: 'x' }),
			upload({ binaryPropertyName: 'nope' }),
		]);
		expect(result.error?.message).toMatch(/no binary field 'nope'/);
		expect(sb.control.requests()).toHaveLength(0);
	});
});

describe('download (filesystem mode)', () => {
	let setup: BinaryDataSetup;
	beforeAll(async () => {
		setup = await useMode('filesystem');
	});

	test('a 64 MiB on-the-fly asset is streamed to disk byte for byte', async () => {
		const size = 64 * MiB;
		const asset = sb.control.createLargeAsset({
			size,
			filename: 'large.bin',
			mimeType: 'application/octet-stream',
		});
		const result = await run([download({ assetId: rl(asset.id) })]);
		expect(result.error).toBeUndefined();
		const [item] = result.items('Download');
		expect(item.json).toMatchObject({ assetId: asset.id, filename: 'large.bin', size });
		const file = item.binary!.file;
		expect(file).toMatchObject({ fileName: 'large.bin', bytes: size });
		expect(statSync(setup.service.getPath(file.id!)).size).toBe(size);

		let offset = 0;
		let mismatches = 0;
		for await (const chunk of await openBinary(file, MiB)) {
			const bytes = chunk as Buffer;
			for (let i = 0; i < bytes.length; i++) {
				if (bytes[i] !== patternByte(offset + i)) mismatches++;
			}
			offset += bytes.length;
		}
		expect(offset).toBe(size);
		expect(mismatches).toBe(0);
	});

	test('a failing signed URL is retried, an expired one renewed; an unknown asset is a 404', async () => {
		const asset = sb.control.createLargeAsset({ size: 1000, filename: 'x.bin' });
		sb.control.addFault({ kind: 'fail', method: 'GET', path: '^/files/assets/', status: 503 });
		const ok = await run([download({ assetId: rl(asset.id) })]);
		expect(ok.error).toBeUndefined();
		expect(ok.items('Download')[0].binary!.file).toMatchObject({ bytes: 1000 });
		expect(sb.control.requests({ path: '^/files/assets/' }).map((r) => r.status)).toEqual([
			503, 200,
		]);

		// An expired signed URL: a fresh one is asked for once.
		sb.control.clearRequests();
		sb.control.addFault({
			kind: 'fail',
			method: 'GET',
			path: '^/files/assets/',
			status: 403,
			code: 'url_expired',
		});
		const renewed = await run([download({ assetId: rl(asset.id) })]);
		expect(renewed.error).toBeUndefined();
		expect(sb.control.requests({ path: '/download$' })).toHaveLength(2);
		expect(sb.control.requests({ path: '^/files/assets/' }).map((r) => r.status)).toEqual([
			403, 200,
		]);

		const missing = await run([download({ assetId: rl('00000000-0000-4000-8000-000000000000') })]);
		expect(missing.error?.message).toMatch(/Not found/);
	});
});

describe('round trip through a generation (filesystem mode)', () => {
	const savedPolling = { ...POLLING };
	beforeAll(async () => {
		await useMode('filesystem');
		Object.assign(POLLING, { minMs: 20, maxMs: 200 });
	});
	afterAll(() => Object.assign(POLLING, savedPolling));

	test('upload a file, generate from it, get the output as binary and download it: bytes and MIME intact', async () => {
		const result = await run([
			source({ fileName: 'product.png', mimeType: 'image/png', size: 4096, seed: 3 }),
			upload(),
			mediaGen('Generate', {
				resource: 'generation',
				operation: 'create',
				modelId: 'flux-pro',
				prompt: 'the product on a beach',
				returnAs: 'both',
				binaryPropertyName: 'image',
				additionalFields: {
					inputs: { values: [{ slot: 'image', assetIds: '={{ $json.id }}' }] },
					params: JSON.stringify({ sandbox: { durationMs: 300 } }),
				},
			}),
			mediaGen('Download', {
				resource: 'asset',
				operation: 'download',
				assetId: rl('={{ $json.outputs[0].asset_id }}'),
				binaryPropertyName: 'file',
			}),
		]);
		expect(result.error).toBeUndefined();
		const [uploaded] = result.json('Upload');
		const [generated] = result.items('Generate');
		expect(generated.json).toMatchObject({
			status: 'completed',
			inputs: [{ slot: 'image', assetIds: [uploaded.id] }],
		});
		const image = generated.binary?.image;
		expect(image).toMatchObject({ mimeType: 'image/png', fileExtension: 'png' });
		const [downloaded] = result.items('Download');
		expect(downloaded.binary?.file?.mimeType).toBe('image/png');
		const a = await digestBinary(image!);
		const b = await digestBinary(downloaded.binary!.file);
		expect(a.size).toBeGreaterThan(0);
		expect(b).toEqual(a);
		// a PNG, as the tool implies
		let head: Buffer = Buffer.alloc(0);
		for await (const chunk of await openBinary(image!)) {
			head = chunk as Buffer;
			break;
		}
		expect(head.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
	});
});
