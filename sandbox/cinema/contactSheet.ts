/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * The storyboard contact sheet: a real PNG made in code, one tile per shot in a grid of up to
 * four columns. A tile's colour comes from the shot's frame asset (grey when it has no frame).
 */
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';

import { crc32 } from '../media';

const TILE = 32;
const GAP = 4;

function chunk(type: string, data: Buffer): Buffer {
	const len = Buffer.alloc(4);
	len.writeUInt32BE(data.length);
	const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
	const crc = Buffer.alloc(4);
	crc.writeUInt32BE(crc32(td));
	return Buffer.concat([len, td, crc]);
}

function colourOf(seed: string | null): [number, number, number] {
	if (!seed) return [128, 128, 128];
	const h = createHash('sha256').update(seed).digest();
	return [32 + (h[0] % 200), 32 + (h[1] % 200), 32 + (h[2] % 200)];
}

/** `frames`: per shot, the seed of its frame (asset id) or null. */
export function contactSheetPng(frames: Array<string | null>): {
	data: Buffer;
	width: number;
	height: number;
} {
	const count = Math.max(1, frames.length);
	const cols = Math.min(4, count);
	const rows = Math.ceil(count / cols);
	const width = GAP + cols * (TILE + GAP);
	const height = GAP + rows * (TILE + GAP);
	const stride = width * 3 + 1;
	const raw = Buffer.alloc(stride * height, 0xf4); // light background
	for (let y = 0; y < height; y++) raw[y * stride] = 0; // filter: none
	frames.forEach((seed, i) => {
		const [r, g, b] = colourOf(seed);
		const x0 = GAP + (i % cols) * (TILE + GAP);
		const y0 = GAP + Math.floor(i / cols) * (TILE + GAP);
		for (let y = y0; y < y0 + TILE; y++) {
			for (let x = x0; x < x0 + TILE; x++) {
				const o = y * stride + 1 + x * 3;
				raw[o] = r;
				raw[o + 1] = g;
				raw[o + 2] = b;
			}
		}
	});
	const ihdr = Buffer.alloc(13);
	ihdr.writeUInt32BE(width, 0);
	ihdr.writeUInt32BE(height, 4);
	ihdr[8] = 8; // bit depth
	ihdr[9] = 2; // RGB
	const data = Buffer.concat([
		Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
		chunk('IHDR', ihdr),
		chunk('IDAT', deflateSync(raw)),
		chunk('IEND', Buffer.alloc(0)),
	]);
	return { data, width, height };
}
