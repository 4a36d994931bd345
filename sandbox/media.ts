/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * Small, valid media files generated in code (no binary fixtures): PNG, MP4 (H.264 I_PCM frames),
 * MP3 (silent MPEG-1 Layer III frames), GLB (glTF 2.0 triangle); and the on-the-fly byte pattern
 * used for very large assets (byte i = i % 251), streamed without holding it in memory.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { deflateSync } from 'node:zlib';

/** Three bytes of colour derived from a seed string. */
function colour(seed: string): [number, number, number] {
	const h = createHash('sha256').update(seed).digest();
	// keep samples in 16..235 (video range; also never 0 in the H.264 PCM samples)
	return [16 + (h[0] % 220), 16 + (h[1] % 220), 16 + (h[2] % 220)];
}

// ---------- PNG ----------

const CRC_TABLE = (() => {
	const t = new Uint32Array(256);
	for (let n = 0; n < 256; n++) {
		let c = n;
		for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
		t[n] = c >>> 0;
	}
	return t;
})();

export function crc32(buf: Buffer): number {
	let c = 0xffffffff;
	for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
	return (c ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
	const len = Buffer.alloc(4);
	len.writeUInt32BE(data.length);
	const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
	const crc = Buffer.alloc(4);
	crc.writeUInt32BE(crc32(td));
	return Buffer.concat([len, td, crc]);
}

/** A width×height RGB PNG: a diagonal gradient over a colour derived from the seed. */
export function makePng(seed: string, width = 64, height = 64): Buffer {
	const [r, g, b] = colour(seed);
	const raw = Buffer.alloc((width * 3 + 1) * height);
	for (let y = 0; y < height; y++) {
		const row = y * (width * 3 + 1);
		raw[row] = 0; // filter: none
		for (let x = 0; x < width; x++) {
			const shade = ((x + y) * 2) % 64;
			raw[row + 1 + x * 3] = (r + shade) & 0xff;
			raw[row + 2 + x * 3] = (g + shade) & 0xff;
			raw[row + 3 + x * 3] = b;
		}
	}
	const ihdr = Buffer.alloc(13);
	ihdr.writeUInt32BE(width, 0);
	ihdr.writeUInt32BE(height, 4);
	ihdr[8] = 8; // bit depth
	ihdr[9] = 2; // colour type RGB
	return Buffer.concat([
		Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
		pngChunk('IHDR', ihdr),
		pngChunk('IDAT', deflateSync(raw)),
		pngChunk('IEND', Buffer.alloc(0)),
	]);
}

// ---------- MP4 (H.264 baseline, one 16x16 I_PCM macroblock per frame) ----------

class BitWriter {
	private bytes: number[] = [];
	private cur = 0;
	private n = 0;
	u(bits: number, value: number): this {
		for (let i = bits - 1; i >= 0; i--) {
			this.cur = (this.cur << 1) | ((value >>> i) & 1);
			if (++this.n === 8) this.flushByte();
		}
		return this;
	}
	ue(v: number): this {
		const len = Math.floor(Math.log2(v + 1));
		this.u(len, 0);
		return this.u(len + 1, v + 1);
	}
	se(v: number): this {
		return this.ue(v > 0 ? 2 * v - 1 : -2 * v);
	}
	align(): this {
		while (this.n !== 0) this.u(1, 0);
		return this;
	}
	bytesRaw(b: Buffer | number[]): this {
		for (const x of b) this.u(8, x);
		return this;
	}
	/** rbsp_trailing_bits */
	trailing(): Buffer {
		this.u(1, 1);
		this.align();
		return Buffer.from(this.bytes);
	}
	private flushByte(): void {
		this.bytes.push(this.cur & 0xff);
		this.cur = 0;
		this.n = 0;
	}
}

/** NAL unit with emulation-prevention bytes. */
function nal(header: number, rbsp: Buffer): Buffer {
	const out: number[] = [header];
	let zeros = 0;
	for (const b of rbsp) {
		if (zeros >= 2 && b <= 3) {
			out.push(3);
			zeros = 0;
		}
		out.push(b);
		zeros = b === 0 ? zeros + 1 : 0;
	}
	return Buffer.from(out);
}

const SPS = nal(
	0x67,
	new BitWriter()
		.u(8, 66)
		.u(8, 0xc0)
		.u(8, 10)
		.ue(0)
		.ue(0)
		.ue(2)
		.ue(1)
		.u(1, 0)
		.ue(0)
		.ue(0)
		.u(1, 1)
		.u(1, 1)
		.u(1, 0)
		.u(1, 0)
		.trailing(),
);
const PPS = nal(
	0x68,
	new BitWriter()
		.ue(0)
		.ue(0)
		.u(1, 0)
		.u(1, 0)
		.ue(0)
		.ue(0)
		.ue(0)
		.u(1, 0)
		.u(2, 0)
		.se(0)
		.se(0)
		.se(0)
		.u(1, 1)
		.u(1, 0)
		.u(1, 0)
		.trailing(),
);

function idrFrame(seed: string, idrPicId: number): Buffer {
	const [y, cb, cr] = colour(seed);
	const w = new BitWriter()
		.ue(0) // first_mb_in_slice
		.ue(7) // slice_type I (all)
		.ue(0) // pps id
		.u(4, 0) // frame_num
		.ue(idrPicId)
		.u(1, 0) // no_output_of_prior_pics_flag
		.u(1, 0) // long_term_reference_flag
		.se(0) // slice_qp_delta
		.ue(1) // disable_deblocking_filter_idc
		.ue(25) // mb_type I_PCM
		.align();
	const luma = Array.from({ length: 256 }, (_, i) => Math.min(235, y + ((i % 16) + (i >> 4)) * 2));
	w.bytesRaw(luma).bytesRaw(new Array(64).fill(cb)).bytesRaw(new Array(64).fill(cr));
	return nal(0x65, w.trailing());
}

function box(type: string, ...parts: Buffer[]): Buffer {
	const body = Buffer.concat(parts);
	const head = Buffer.alloc(8);
	head.writeUInt32BE(body.length + 8);
	head.write(type, 4, 'ascii');
	return Buffer.concat([head, body]);
}
const fullBox = (type: string, version: number, flags: number, ...parts: Buffer[]) =>
	box(type, u32((version << 24) | flags), ...parts);
const u32 = (...v: number[]) => {
	const b = Buffer.alloc(4 * v.length);
	v.forEach((x, i) => b.writeUInt32BE(x >>> 0, i * 4));
	return b;
};
const u16 = (...v: number[]) => {
	const b = Buffer.alloc(2 * v.length);
	v.forEach((x, i) => b.writeUInt16BE(x & 0xffff, i * 2));
	return b;
};
const MATRIX = u32(0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000);

/** A valid MP4 (ISO BMFF, avc1) of `seconds` seconds at 2 frames per second, 16x16 pixels. */
export function makeMp4(seed: string, seconds = 2): Buffer {
	const frames = Math.max(1, Math.min(40, Math.round(seconds * 2)));
	const samples = Array.from({ length: frames }, (_, i) => {
		const f = idrFrame(seed, i % 2);
		return Buffer.concat([u32(f.length), f]);
	});
	const timescale = 1000;
	const delta = 500;
	const duration = frames * delta;
	const avcC = box(
		'avcC',
		Buffer.from([1, 66, 0xc0, 10, 0xff, 0xe1]),
		u16(SPS.length),
		SPS,
		Buffer.from([1]),
		u16(PPS.length),
		PPS,
	);
	const avc1 = box(
		'avc1',
		Buffer.alloc(6),
		u16(1), // data_reference_index
		Buffer.alloc(16),
		u16(16, 16),
		u32(0x00480000, 0x00480000, 0),
		u16(1),
		Buffer.alloc(32),
		u16(0x18, 0xffff),
		avcC,
	);
	const moov = (chunkOffset: number) =>
		box(
			'moov',
			fullBox(
				'mvhd',
				0,
				0,
				u32(0, 0, timescale, duration, 0x10000),
				u16(0x100),
				Buffer.alloc(10),
				MATRIX,
				Buffer.alloc(24),
				u32(2),
			),
			box(
				'trak',
				fullBox(
					'tkhd',
					0,
					3,
					u32(0, 0, 1, 0, duration, 0, 0),
					u16(0, 0, 0, 0),
					MATRIX,
					u32(16 << 16, 16 << 16),
				),
				box(
					'mdia',
					fullBox('mdhd', 0, 0, u32(0, 0, timescale, duration), u16(0x55c4, 0)),
					fullBox(
						'hdlr',
						0,
						0,
						u32(0),
						Buffer.from('vide', 'ascii'),
						Buffer.alloc(12),
						Buffer.from('VideoHandler\0', 'ascii'),
					),
					box(
						'minf',
						fullBox('vmhd', 0, 1, u16(0, 0, 0, 0)),
						box('dinf', fullBox('dref', 0, 0, u32(1), fullBox('url ', 0, 1))),
						box(
							'stbl',
							fullBox('stsd', 0, 0, u32(1), avc1),
							fullBox('stts', 0, 0, u32(1, frames, delta)),
							fullBox('stsc', 0, 0, u32(1, 1, frames, 1)),
							fullBox('stsz', 0, 0, u32(0, frames, ...samples.map((s) => s.length))),
							fullBox('stco', 0, 0, u32(1, chunkOffset)),
						),
					),
				),
			),
		);
	const ftyp = box(
		'ftyp',
		Buffer.from('isom', 'ascii'),
		u32(0x200),
		Buffer.from('isomiso2avc1mp41', 'ascii'),
	);
	const offset = ftyp.length + moov(0).length + 8;
	return Buffer.concat([ftyp, moov(offset), box('mdat', ...samples)]);
}

// ---------- MP3 (silent MPEG-1 Layer III, 32 kbit/s, 44.1 kHz, mono) ----------

/** `seconds` (at most 30) of silence as valid MP3 frames (104 bytes each, 1152 samples). */
export function makeMp3(seconds = 2): Buffer {
	const frames = Math.max(1, Math.ceil((Math.min(seconds, 30) * 44100) / 1152));
	const frame = Buffer.alloc(104); // 144 * 32000 / 44100, no padding
	frame.set([0xff, 0xfb, 0x10, 0xc4]);
	return Buffer.concat(new Array(frames).fill(frame));
}

// ---------- GLB (glTF 2.0 binary, one triangle) ----------

export function makeGlb(seed: string): Buffer {
	const [r, g, b] = colour(seed);
	const positions = Buffer.alloc(36);
	[0, 0, 0, 1, 0, 0, 0, 1, 0].forEach((v, i) => positions.writeFloatLE(v, i * 4));
	const doc = {
		asset: { version: '2.0', generator: 'mediagen-sandbox' },
		scene: 0,
		scenes: [{ nodes: [0] }],
		nodes: [{ mesh: 0 }],
		materials: [{ pbrMetallicRoughness: { baseColorFactor: [r / 255, g / 255, b / 255, 1] } }],
		meshes: [{ primitives: [{ attributes: { POSITION: 0 }, material: 0 }] }],
		accessors: [
			{
				bufferView: 0,
				componentType: 5126,
				count: 3,
				type: 'VEC3',
				min: [0, 0, 0],
				max: [1, 1, 0],
			},
		],
		bufferViews: [{ buffer: 0, byteOffset: 0, byteLength: 36 }],
		buffers: [{ byteLength: 36 }],
	};
	let jsonBuf = Buffer.from(JSON.stringify(doc), 'utf8');
	if (jsonBuf.length % 4)
		jsonBuf = Buffer.concat([jsonBuf, Buffer.alloc(4 - (jsonBuf.length % 4), 0x20)]);
	const chunk = (type: number, data: Buffer) => Buffer.concat([u32le(data.length, type), data]);
	const body = Buffer.concat([chunk(0x4e4f534a, jsonBuf), chunk(0x004e4942, positions)]);
	return Buffer.concat([u32le(0x46546c67, 2, 12 + body.length), body]);
}
const u32le = (...v: number[]) => {
	const b = Buffer.alloc(4 * v.length);
	v.forEach((x, i) => b.writeUInt32LE(x >>> 0, i * 4));
	return b;
};

// ---------- on-the-fly pattern ----------

export const PATTERN_MODULUS = 251;
/** The byte at `offset` of a pattern asset. */
export const patternByte = (offset: number): number => offset % PATTERN_MODULUS;

const CHUNK = 64 * 1024;
const PATTERN = Buffer.from(
	Array.from({ length: CHUNK + PATTERN_MODULUS }, (_, i) => i % PATTERN_MODULUS),
);

/** Streams `size` bytes of the pattern starting at `start`, with backpressure, in 64 KiB chunks. */
export function patternStream(size: number, start = 0): Readable {
	let offset = start;
	const end = start + size;
	return new Readable({
		highWaterMark: CHUNK,
		read() {
			if (offset >= end) {
				this.push(null);
				return;
			}
			const len = Math.min(CHUNK, end - offset);
			const from = offset % PATTERN_MODULUS;
			offset += len;
			this.push(PATTERN.subarray(from, from + len));
		},
	});
}

// ---------- kinds ----------

export type MediaKind = 'image' | 'video' | 'audio' | 'model3d';

/** File name extension, MIME type and bytes of a generated output of a kind. */
export function generateMedia(
	kind: MediaKind,
	seed: string,
	seconds: number,
): { ext: string; mimeType: string; data: Buffer } {
	switch (kind) {
		case 'image':
			return { ext: 'png', mimeType: 'image/png', data: makePng(seed) };
		case 'video':
			return { ext: 'mp4', mimeType: 'video/mp4', data: makeMp4(seed, seconds) };
		case 'audio':
			return { ext: 'mp3', mimeType: 'audio/mpeg', data: makeMp3(seconds) };
		case 'model3d':
			return { ext: 'glb', mimeType: 'model/gltf-binary', data: makeGlb(seed) };
	}
}
