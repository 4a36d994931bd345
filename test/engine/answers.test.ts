/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * What the package reads of answers, through n8n-core's engine and the real MediaGen node, over
 * real HTTP to local servers that play the API and its file storage (shapes the sandbox never
 * sends): sizes in any JSON type, redirects by their method rules, and bodies read within a limit
 * (what a server managed to write before the package let go is counted).
 */
import type { ServerResponse } from 'node:http';

import type { IBinaryData, IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import type { BinaryMode } from '../harness/engine/binaryData';
import { TestBinarySource } from '../harness/engine/binaryData';
import { NODE_TYPES, chain, mediaGen, runWorkflow } from '../harness/engine/harness';
import type { Recorder, Seen } from '../harness/engine/recorder';
import { recorder, streamBody } from '../harness/engine/recorder';
import { binaryModes, fastJobs, rl } from '../harness/engine/setup';

NODE_TYPES['test.binarySource'] = new TestBinarySource();
fastJobs({ polling: false, retry: { baseDelayMs: 5, maxDelayMs: 20 } });

const MiB = 1024 * 1024;
const ASSET_ID = '00000000-0000-4000-8000-000000000001';

const useMode = binaryModes();

/** The fake API and storage of one test; closed after it. */
let servers: Recorder[] = [];
afterEach(async () => {
	await Promise.all(servers.map((s) => s.close()));
	servers = [];
});

async function server(reply: (res: ServerResponse, seen: Seen) => void | Promise<void>) {
	const s = await recorder(reply);
	servers.push(s);
	return s;
}

const json = (res: ServerResponse, status: number, body: unknown) => {
	res.writeHead(status, { 'content-type': 'application/json' });
	res.end(JSON.stringify(body));
};

/** Runs `nodes` with the MediaGen credential pointing at `api`. */
const runAt = (api: Recorder, nodes: Parameters<typeof chain>[1]) =>
	runWorkflow(chain([{}], nodes), {
		credentials: { mediaGenApi: { apiKey: 'secret-key', baseUrl: `${api.url}/v1` } },
	});

const download = mediaGen('Download', {
	resource: 'asset',
	operation: 'download',
	assetId: rl(ASSET_ID),
	binaryPropertyName: 'file',
});

describe.each<BinaryMode>(['default', 'filesystem'])(
	'binary mode %s: a size in any JSON type is a size',
	(mode) => {
		beforeAll(async () => {
			await useMode(mode);
		});

		/** A fake API announcing `size` for the asset, and a file host sending `send`. */
		async function downloadWith(size: unknown, send: (res: ServerResponse) => void) {
			const files = await server((res) => send(res));
			const api = await server((res) =>
				json(res, 200, { url: `${files.url}/f?signature=s`, size, filename: 'x.bin' }),
			);
			return { files, result: await runAt(api, [download]) };
		}

		test('a size sent as a string still limits the download: more bytes are broken off', async () => {
			const { result } = await downloadWith('4096', (res) => {
				res.write(Buffer.alloc(4096, 1)); // chunked, no Content-Length: only counting can tell
				res.end(Buffer.alloc(4096, 1));
			});
			expect(result.error?.message).toBe(
				`Download of asset ${ASSET_ID} broken off: the signed URL sent more than the 4096 bytes MediaGen announced`,
			);
		});

		test('a size sent as a string is checked against the bytes received, and output as a number', async () => {
			const short = await downloadWith('4096', (res) => {
				res.writeHead(200, { 'content-length': '4095' });
				res.end(Buffer.alloc(4095, 1));
			});
			expect(short.result.error?.message).toBe(
				`Download of asset ${ASSET_ID} failed after 4 attempts (received 4095 bytes, expected 4096)`,
			);
			const whole = await downloadWith('4096', (res) => res.end(Buffer.alloc(4096, 1)));
			expect(whole.result.error).toBeUndefined();
			expect(whole.result.json('Download')[0]).toMatchObject({ size: 4096 });
			const file = whole.result.items('Download')[0].binary?.file as IBinaryData;
			expect(file.bytes).toBe(4096);
		});

		test('a transfer the network breaks off mid-body is retried (a fault of the transfer)', async () => {
			let tries = 0;
			const { files, result } = await downloadWith(4096, (res) => {
				res.writeHead(200, { 'content-length': '4096' });
				if (++tries > 1) {
					res.end(Buffer.alloc(4096, 2));
					return;
				}
				res.write(Buffer.alloc(2048, 2));
				void sleep(20).then(() => res.destroy());
			});
			expect(result.error).toBeUndefined();
			expect(result.items('Download')[0].binary?.file).toMatchObject({ bytes: 4096 });
			expect(files.seen).toHaveLength(2);
		});

		test('a size that is not one stops the download before the file is fetched', async () => {
			const { files, result } = await downloadWith('4 KB', (res) => res.end('x'));
			expect(result.error?.message).toBe(
				`MediaGen announced no readable size for asset ${ASSET_ID} ("4 KB")`,
			);
			expect(files.seen).toHaveLength(0);
		});
	},
);

describe('uploads through a fake API and storage (filesystem mode)', () => {
	beforeAll(async () => {
		await useMode('filesystem');
	});

	const SIZE = 3000;

	/** A fake API that starts an upload of one part at `storage` and completes it. */
	async function uploadApi(storage: Recorder) {
		return await server((res, seen) => {
			if (seen.path === '/v1/uploads')
				json(res, 201, {
					id: 'up-1',
					partSize: 8 * MiB,
					parts: [{ partNumber: 1, url: `${storage.url}/part/1?signature=s` }],
				});
			else json(res, 201, { id: 'asset-1', size: SIZE, source: 'upload' });
		});
	}

	const source = { name: 'Binary', type: 'test.binarySource', parameters: { size: SIZE, seed: 2 } };
	const upload = mediaGen('Upload', {
		resource: 'asset',
		operation: 'upload',
		binaryPropertyName: 'data',
	});

	/** Runs the upload against a storage whose part URL redirects with `status` to `/moved`. */
	async function uploadRedirected(status: number) {
		const storage = await server((res, seen) => {
			const first = seen.path.startsWith('/part/1?');
			res.writeHead(first ? status : 200, first ? { location: '/moved' } : { etag: '"moved-1"' });
			res.end();
		});
		const api = await uploadApi(storage);
		const result = await runAt(api, [source, upload]);
		expect(result.error).toBeUndefined();
		const complete = api.seen.find((r) => r.path === '/v1/uploads/up-1/complete');
		expect(JSON.parse(complete!.body)).toEqual({ parts: [{ partNumber: 1, etag: '"moved-1"' }] });
		return storage.seen;
	}

	test('a 303 to the part PUT is followed with a GET, without the bytes', async () => {
		const seen = await uploadRedirected(303);
		expect(seen.map((r) => [r.method, r.path, r.bodyBytes])).toEqual([
			['PUT', '/part/1?signature=s', SIZE],
			['GET', '/moved', 0],
		]);
		expect(seen[1].headers['content-type']).toBeUndefined();
	});

	test('a 307 keeps the method and the bytes', async () => {
		const seen = await uploadRedirected(307);
		expect(seen.map((r) => [r.method, r.path, r.bodyBytes])).toEqual([
			['PUT', '/part/1?signature=s', SIZE],
			['PUT', '/moved', SIZE],
		]);
		expect(seen[1].headers['content-type']).toBe('application/octet-stream');
	});

	test("a part PUT's answer is not read: a storage that streams 256 MiB after it is let go", async () => {
		const storage = await server(async (res) => {
			res.writeHead(200, { etag: '"big-1"', 'content-type': 'application/octet-stream' });
			await streamBody(res, storage.written, 256 * MiB);
		});
		const api = await uploadApi(storage);
		const result = await runAt(api, [source, upload]);
		expect(result.error).toBeUndefined();
		expect(result.json('Upload')).toEqual([{ id: 'asset-1', size: SIZE, source: 'upload' }]);
		expect(storage.written.bytes).toBeLessThan(32 * MiB);
	});
});

describe('API answers', () => {
	test('an error answer is read only for its message: 5 tries of a 256 MiB body', async () => {
		const api = await server(async (res) => {
			res.writeHead(500, { 'content-type': 'application/json' });
			await streamBody(res, api.written, 256 * MiB);
		});
		const result = await runAt(api, [
			mediaGen('Workspace', { resource: 'workspace', operation: 'get' }),
		]);
		expect(result.error?.message).toBe('MediaGen server error (500) after 4 retries');
		expect(api.seen).toHaveLength(5);
		expect(api.written.bytes).toBeLessThan(64 * MiB);
	});

	test('an answer the node needs whole is read whole: a 20 MiB list page', async () => {
		const note = 'n'.repeat(200 * 1024);
		const records: IDataObject[] = Array.from({ length: 100 }, (_, i) => ({
			id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
			name: `Project ${i}`,
			description: note,
		}));
		const api = await server((res) => json(res, 200, { data: records, nextCursor: null }));
		const result = await runAt(api, [
			mediaGen('Projects', { resource: 'project', operation: 'getAll', limit: 100 }),
		]);
		expect(result.error).toBeUndefined();
		const out = result.json('Projects');
		expect(out).toHaveLength(100);
		expect(out[99]).toMatchObject({ name: 'Project 99', description: note });
	});
});
