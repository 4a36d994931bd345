/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-imports -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import {
	crc32,
	makeGlb,
	makeMp3,
	makeMp4,
	makePng,
	patternStream,
	patternByte,
} from '../../sandbox/media';

/** Top-level and nested ISO BMFF boxes as [type, start, size]. */
function boxes(b: Buffer, start = 0, end = b.length): [string, number, number][] {
	const out: [string, number, number][] = [];
	for (let o = start; o < end; ) {
		const size = b.readUInt32BE(o);
		expect(size).toBeGreaterThanOrEqual(8);
		out.push([b.toString('ascii', o + 4, o + 8), o, size]);
		o += size;
	}
	return out;
}

const hasFfmpeg = (() => {
	try {
		execFileSync('ffmpeg', ['-version'], { stdio: 'ignore' });
		return true;
	} catch {
		return false;
	}
})();

describe('generated media', () => {
	it('PNG: signature, IHDR, valid CRCs, inflatable pixels', () => {
		const png = makePng('x', 32, 16);
		expect(png.subarray(0, 8)).toEqual(
			Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
		);
		let o = 8;
		const types: string[] = [];
		while (o < png.length) {
			const len = png.readUInt32BE(o);
			const type = png.toString('ascii', o + 4, o + 8);
			expect(png.readUInt32BE(o + 8 + len)).toBe(crc32(png.subarray(o + 4, o + 8 + len)));
			if (type === 'IDAT')
				expect(inflateSync(png.subarray(o + 8, o + 8 + len)).length).toBe((32 * 3 + 1) * 16);
			types.push(type);
			o += 12 + len;
		}
		expect(types).toEqual(['IHDR', 'IDAT', 'IEND']);
		expect(png.readUInt32BE(16)).toBe(32);
	});

	it('MP4: ftyp, moov, mdat; sample table points into mdat', () => {
		const mp4 = makeMp4('x', 3);
		const top = boxes(mp4);
		expect(top.map((t) => t[0])).toEqual(['ftyp', 'moov', 'mdat']);
		const stco = mp4.indexOf('stco');
		const offset = mp4.readUInt32BE(stco + 12);
		const mdat = top[2];
		expect(offset).toBe(mdat[1] + 8);
		const stsz = mp4.indexOf('stsz');
		const count = mp4.readUInt32BE(stsz + 12);
		expect(count).toBe(6);
		let total = 0;
		for (let i = 0; i < count; i++) total += mp4.readUInt32BE(stsz + 16 + i * 4);
		expect(total).toBe(mdat[2] - 8);
		// each sample is a length-prefixed IDR NAL unit
		expect(mp4[offset + 4] & 0x1f).toBe(5);
	});

	it('MP3: frame sync every 104 bytes; GLB: header and chunk lengths', () => {
		const mp3 = makeMp3(1);
		expect(mp3.length % 104).toBe(0);
		for (let o = 0; o < mp3.length; o += 104) expect(mp3.readUInt16BE(o) & 0xffe0).toBe(0xffe0);
		const glb = makeGlb('x');
		expect(glb.toString('ascii', 0, 4)).toBe('glTF');
		expect(glb.readUInt32LE(4)).toBe(2);
		expect(glb.readUInt32LE(8)).toBe(glb.length);
		const jsonLen = glb.readUInt32LE(12);
		const doc = JSON.parse(glb.toString('utf8', 20, 20 + jsonLen));
		expect(doc.asset.version).toBe('2.0');
		expect(glb.readUInt32LE(20 + jsonLen)).toBe(doc.buffers[0].byteLength);
	});

	(hasFfmpeg ? it : it.skip)('decodes with ffmpeg when it is installed', () => {
		const dir = mkdtempSync(join(tmpdir(), 'media-test-'));
		try {
			for (const [name, data] of [
				['a.png', makePng('y')],
				['a.mp4', makeMp4('y', 2)],
				['a.mp3', makeMp3(2)],
			] as const) {
				const f = join(dir, name);
				writeFileSync(f, data);
				const err = execFileSync('ffmpeg', ['-v', 'error', '-i', f, '-f', 'null', '-'], {
					encoding: 'utf8',
					stdio: ['ignore', 'pipe', 'pipe'],
				});
				expect(err).toBe('');
			}
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});

	it('pattern stream yields exactly size bytes of i % 251 from any start', async () => {
		let offset = 1000;
		let bad = 0;
		for await (const chunk of patternStream(200_000, 1000)) {
			for (let i = 0; i < chunk.length; i++) if (chunk[i] !== patternByte(offset + i)) bad++;
			offset += chunk.length;
		}
		expect(offset).toBe(201_000);
		expect(bad).toBe(0);
	});
});
