/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * A minimal ZIP writer (PKWARE APPNOTE 6.3): local file headers, stored or deflated entries,
 * central directory, end record. Enough for the ad export (creatives + copy sheet); made in code,
 * readable by any unzip tool.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { crc32 } from '../media';

export interface ZipEntry {
	name: string;
	data: Buffer;
}

/** DOS time and date of a JS date (local fields, 2-second resolution). */
function dosDateTime(d: Date): { time: number; date: number } {
	const year = Math.max(1980, d.getFullYear());
	return {
		time: (d.getHours() << 11) | (d.getMinutes() << 5) | Math.floor(d.getSeconds() / 2),
		date: ((year - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
	};
}

/** The ZIP archive of the entries. Text-like entries are deflated; media is stored as is. */
export function makeZip(entries: ZipEntry[], when = new Date()): Buffer {
	const { time, date } = dosDateTime(when);
	const locals: Buffer[] = [];
	const centrals: Buffer[] = [];
	let offset = 0;
	for (const e of entries) {
		const name = Buffer.from(e.name, 'utf8');
		const crc = crc32(e.data);
		const deflate = /\.(csv|txt|json)$/i.test(e.name);
		const body = deflate ? deflateRawSync(e.data) : e.data;
		const method = deflate ? 8 : 0;

		const local = Buffer.alloc(30);
		local.writeUInt32LE(0x04034b50, 0);
		local.writeUInt16LE(20, 4); // version needed
		local.writeUInt16LE(0x0800, 6); // flags: UTF-8 names
		local.writeUInt16LE(method, 8);
		local.writeUInt16LE(time, 10);
		local.writeUInt16LE(date, 12);
		local.writeUInt32LE(crc, 14);
		local.writeUInt32LE(body.length, 18);
		local.writeUInt32LE(e.data.length, 22);
		local.writeUInt16LE(name.length, 26);
		local.writeUInt16LE(0, 28);
		locals.push(local, name, body);

		const central = Buffer.alloc(46);
		central.writeUInt32LE(0x02014b50, 0);
		central.writeUInt16LE(20, 4); // version made by
		central.writeUInt16LE(20, 6); // version needed
		central.writeUInt16LE(0x0800, 8);
		central.writeUInt16LE(method, 10);
		central.writeUInt16LE(time, 12);
		central.writeUInt16LE(date, 14);
		central.writeUInt32LE(crc, 16);
		central.writeUInt32LE(body.length, 20);
		central.writeUInt32LE(e.data.length, 24);
		central.writeUInt16LE(name.length, 28);
		// extra length, comment length, disk number, internal attributes: 0
		central.writeUInt32LE(0, 38); // external attributes
		central.writeUInt32LE(offset, 42);
		centrals.push(central, name);

		offset += local.length + name.length + body.length;
	}
	const directory = Buffer.concat(centrals);
	const end = Buffer.alloc(22);
	end.writeUInt32LE(0x06054b50, 0);
	end.writeUInt16LE(entries.length, 8);
	end.writeUInt16LE(entries.length, 10);
	end.writeUInt32LE(directory.length, 12);
	end.writeUInt32LE(offset, 16);
	return Buffer.concat([...locals, directory, end]);
}

/** Reads a ZIP made by makeZip (or any ZIP without data descriptors): entry names and bytes. */
export function readZip(zip: Buffer): ZipEntry[] {
	const endAt = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
	if (endAt < 0) throw new Error('Not a ZIP archive: no end of central directory');
	const count = zip.readUInt16LE(endAt + 10);
	let at = zip.readUInt32LE(endAt + 16);
	const out: ZipEntry[] = [];
	for (let i = 0; i < count; i++) {
		if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error('Bad central directory entry');
		const method = zip.readUInt16LE(at + 10);
		const crc = zip.readUInt32LE(at + 16);
		const compressed = zip.readUInt32LE(at + 20);
		const nameLength = zip.readUInt16LE(at + 28);
		const extraLength = zip.readUInt16LE(at + 30);
		const commentLength = zip.readUInt16LE(at + 32);
		const localAt = zip.readUInt32LE(at + 42);
		const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
		const dataAt = localAt + 30 + zip.readUInt16LE(localAt + 26) + zip.readUInt16LE(localAt + 28);
		const raw = zip.subarray(dataAt, dataAt + compressed);
		const data = method === 8 ? inflateRawSync(raw) : raw;
		if (crc32(data) !== crc) throw new Error(`CRC mismatch in ${name}`);
		out.push({ name, data: Buffer.from(data) });
		at += 46 + nameLength + extraLength + commentLength;
	}
	return out;
}
