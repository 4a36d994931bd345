/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
import { createHash, randomBytes } from 'node:crypto';
import { get } from 'node:http';
import { patternByte } from '../../sandbox';
import { useSandbox } from '../harness/sandbox/helpers';

const { sb, pro, other } = useSandbox();

const MiB = 1024 * 1024;

async function put(url: string, data: Buffer): Promise<Response> {
	return fetch(url, {
		method: 'PUT',
		body: data,
		headers: { 'content-type': 'application/octet-stream' },
	});
}

describe('uploads', () => {
	it('signed part URLs, ETags, complete checks parts, then the asset downloads byte for byte', async () => {
		const data = randomBytes(8 * MiB + 1000);
		const start = await pro('POST', '/uploads', {
			filename: 'clip.mp4',
			mimeType: 'video/mp4',
			size: data.length,
			title: 'Clip',
			tags: ['raw'],
		});
		expect(start.status).toBe(201);
		expect(start.body.partSize).toBe(8 * MiB);
		expect(start.body.parts.map((p: { partNumber: number }) => p.partNumber)).toEqual([1, 2]);
		expect(start.body.parts[0].url).toMatch(/signature=[0-9a-f]{64}/);
		expect(Date.parse(start.body.expiresAt)).toBeGreaterThan(Date.now());

		const etags: string[] = [];
		for (const p of start.body.parts as { partNumber: number; url: string }[]) {
			const chunk = data.subarray(
				(p.partNumber - 1) * start.body.partSize,
				p.partNumber * start.body.partSize,
			);
			const r = await put(p.url, chunk);
			expect(r.status).toBe(200);
			const etag = r.headers.get('etag')!;
			expect(etag).toBe(`"${createHash('md5').update(chunk).digest('hex')}"`);
			etags.push(etag);
		}
		const id = start.body.id;
		const wrong = await pro('POST', `/uploads/${id}/complete`, {
			parts: [
				{ partNumber: 1, etag: etags[0] },
				{ partNumber: 2, etag: '"deadbeef"' },
			],
		});
		expect(wrong.status).toBe(422);
		expect(wrong.body.error.details.issues).toEqual([
			expect.objectContaining({ path: 'parts.1.etag' }),
		]);
		const missing = await pro('POST', `/uploads/${id}/complete`, {
			parts: [{ partNumber: 1, etag: etags[0] }],
		});
		expect(missing.status).toBe(422);
		expect((await other('POST', `/uploads/${id}/complete`, { parts: [] })).status).toBe(404);

		const done = await pro('POST', `/uploads/${id}/complete`, {
			parts: etags.map((etag, i) => ({ partNumber: i + 1, etag })),
		});
		expect(done.status).toBe(201);
		expect(done.body).toMatchObject({
			kind: 'video',
			mimeType: 'video/mp4',
			size: data.length,
			title: 'Clip',
			tags: ['raw'],
			source: 'upload',
		});
		// completing again is safe and answers the same asset
		expect((await pro('POST', `/uploads/${id}/complete`, { parts: [] })).body.id).toBe(
			done.body.id,
		);

		const link = await pro('GET', `/assets/${done.body.id}/download`);
		expect(link.body).toMatchObject({
			filename: 'clip.mp4',
			mimeType: 'video/mp4',
			size: data.length,
		});
		const file = await fetch(link.body.url);
		expect(file.headers.get('content-length')).toBe(String(data.length));
		expect(file.headers.get('content-disposition')).toContain('filename="clip.mp4"');
		const got = Buffer.from(await file.arrayBuffer());
		expect(createHash('sha256').update(got).digest('hex')).toBe(
			createHash('sha256').update(data).digest('hex'),
		);
	});

	it('refuses tampered signatures and oversized parts; validates the start body', async () => {
		const start = await pro('POST', '/uploads', {
			filename: 'a.txt',
			mimeType: 'text/plain',
			size: 10,
		});
		const url: string = start.body.parts[0].url;
		const bad = await put(
			url.replace(/signature=(.)/, (_, c: string) => `signature=${c === '0' ? '1' : '0'}`),
			Buffer.from('0123456789'),
		);
		expect(bad.status).toBe(403);
		expect(((await bad.json()) as { error: { code: string } }).error.code).toBe(
			'invalid_signature',
		);
		expect((await put(url.replace(/\/1\?/, '/2?'), Buffer.from('x'))).status).toBe(403);
		const r = await put(url, Buffer.from('0123456789'));
		expect(r.status).toBe(200);
		const tooBig = await pro('POST', '/uploads', {
			filename: 'b.txt',
			mimeType: 'text/plain',
			size: 5,
		});
		const big = await put(tooBig.body.parts[0].url, randomBytes(9 * MiB));
		expect(big.status).toBe(413);
		const done = await pro('POST', `/uploads/${start.body.id}/complete`, {
			parts: [{ partNumber: 1, etag: r.headers.get('etag') }],
		});
		expect(done.body.kind).toBe('document');
		const v = await pro('POST', '/uploads', { filename: 'x'.repeat(256), size: 1.5, tags: 'a' });
		expect(v.status).toBe(422);
		expect(v.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual([
			'filename',
			'mimeType',
			'size',
			'tags',
		]);
	});

	it('keeps only hash and size above maxStoredUploadBytes', async () => {
		sb.control.setConfig({ maxStoredUploadBytes: 4 });
		const start = await pro('POST', '/uploads', {
			filename: 'n.bin',
			mimeType: 'application/octet-stream',
			size: 300,
		});
		const r = await put(start.body.parts[0].url, randomBytes(300));
		const done = await pro('POST', `/uploads/${start.body.id}/complete`, {
			parts: [{ partNumber: 1, etag: r.headers.get('etag') }],
		});
		expect(done.body).toMatchObject({ kind: 'other', size: 300 });
		const link = await pro('GET', `/assets/${done.body.id}/download`);
		const got = Buffer.from(await (await fetch(link.body.url)).arrayBuffer());
		expect(got.length).toBe(300);
		expect(got[260]).toBe(patternByte(260));
	});
});

describe('downloads', () => {
	it('streams a large on-the-fly asset with its headers (64 MiB read as a stream)', async () => {
		const size = 64 * MiB + 7;
		const asset = sb.control.createLargeAsset({
			size,
			filename: 'big file.bin',
			mimeType: 'application/octet-stream',
		});
		expect(asset.size).toBe(size);
		const link = await pro('GET', `/assets/${asset.id}/download`);
		expect(link.body.size).toBe(size);
		const result = await new Promise<{
			bytes: number;
			mismatches: number;
			headers: Record<string, unknown>;
		}>((resolve, reject) => {
			get(link.body.url, (res) => {
				let bytes = 0;
				let mismatches = 0;
				res.on('data', (chunk: Buffer) => {
					for (let i = 0; i < chunk.length; i += 4093)
						if (chunk[i] !== patternByte(bytes + i)) mismatches++;
					bytes += chunk.length;
				});
				res.on('end', () => resolve({ bytes, mismatches, headers: res.headers }));
				res.on('error', reject);
			}).on('error', reject);
		});
		expect(result.bytes).toBe(size);
		expect(result.mismatches).toBe(0);
		expect(result.headers['content-length']).toBe(String(size));
		expect(result.headers['content-type']).toBe('application/octet-stream');
		expect(result.headers['content-disposition']).toBe(
			`attachment; filename="big file.bin"; filename*=UTF-8''big%20file.bin`,
		);
	});

	it('download links are per workspace and expire-signed', async () => {
		const asset = sb.control.createLargeAsset({ size: 1 << 30, workspace: 'main' });
		expect((await other('GET', `/assets/${asset.id}/download`)).status).toBe(404);
		const link = await pro('GET', `/assets/${asset.id}/download`);
		expect(Date.parse(link.body.expiresAt)).toBeGreaterThan(Date.now());
		const head = await fetch(link.body.url, { method: 'HEAD' });
		expect(head.headers.get('content-length')).toBe(String(1 << 30));
		expect((await fetch(link.body.url.replace(/expires=\d+/, 'expires=1'))).status).toBe(403);
		expect((await fetch(link.body.url.split('?')[0])).status).toBe(403);
	});
});
