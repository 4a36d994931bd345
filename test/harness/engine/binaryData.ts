/* eslint-disable @n8n/community-nodes/no-restricted-imports, @typescript-eslint/no-require-imports -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * n8n binary data for the engine harness: configures n8n-core's BinaryDataService in the DI
 * container the way n8n does at start-up (BinaryDataConfig from N8N_DEFAULT_BINARY_DATA_MODE /
 * N8N_BINARY_DATA_STORAGE_PATH, then `BinaryDataService.init()`), so that the helpers of
 * executions run by `runWorkflow` (prepareBinaryData, getBinaryStream, getBinaryMetadata) keep
 * binary data in memory ('default') or on disk ('filesystem'). Plus test-only nodes and helpers
 * to make binary input and to read what an execution stored.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';

import { BinaryDataConfig, BinaryDataService } from 'n8n-core';
import type {
	IBinaryData,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

/**
 * n8n-core has its own copy of @n8n/di (node_modules/n8n-core/node_modules/@n8n/di): its helpers
 * look services up in that copy's Container, so that is the one to configure.
 */
const { Container } = require(
	require.resolve('@n8n/di', { paths: [require.resolve('n8n-core')] }),
) as typeof import('@n8n/di');

export type BinaryMode = 'default' | 'filesystem';

export interface BinaryDataSetup {
	mode: BinaryMode;
	/** Where filesystem mode writes (`workflows/<id>/executions/<id>/binary_data/<uuid>`). */
	storagePath: string;
	service: BinaryDataService;
	/** Removes the storage folder when setupBinaryData created it. */
	cleanup(): void;
}

const quiet = {
	error: () => {},
	warn: () => {},
	info: () => {},
	debug: () => {},
	scoped: () => quiet,
};

/**
 * Configures binary data as n8n does at start-up: a BinaryDataConfig (mode, storage path) and an
 * initialised BinaryDataService, both set in @n8n/di's Container. 'default' keeps files in memory
 * as base64 in the item (n8n's default mode); 'filesystem' writes them under `storagePath` (a new
 * temporary folder when not given). Call again to switch modes.
 */
export async function setupBinaryData(
	mode: BinaryMode,
	storagePath?: string,
): Promise<BinaryDataSetup> {
	const ownFolder = !storagePath;
	const path = storagePath ?? mkdtempSync(join(tmpdir(), 'mediagen-binary-'));
	// BinaryDataConfig's own constructor reads InstanceSettings (~/.n8n); build it from values.
	const config = Object.assign(Object.create(BinaryDataConfig.prototype) as BinaryDataConfig, {
		mode,
		availableModes: [mode],
		localStoragePath: path,
		signingSecret: 'mediagen-engine-tests',
		dbMaxFileSize: 512,
	});
	const service = new BinaryDataService(
		config,
		quiet as unknown as ConstructorParameters<typeof BinaryDataService>[1],
		quiet as unknown as ConstructorParameters<typeof BinaryDataService>[2],
	);
	await service.init();
	Container.set(BinaryDataConfig, config);
	Container.set(BinaryDataService, service);
	return {
		mode,
		storagePath: path,
		service,
		cleanup: () => {
			if (ownFolder) rmSync(path, { recursive: true, force: true });
		},
	};
}

/** The stored bytes of a binary property as a stream (file on disk, or the base64 in the item). */
export async function openBinary(binary: IBinaryData, chunkSize?: number): Promise<Readable> {
	if (binary.id) return await Container.get(BinaryDataService).getAsStream(binary.id, chunkSize);
	return Readable.from([Buffer.from(binary.data, 'base64')]);
}

/** Size and SHA-256 of a binary property, read as a stream. */
export async function digestBinary(binary: IBinaryData): Promise<{ size: number; sha256: string }> {
	const hash = createHash('sha256');
	let size = 0;
	for await (const chunk of await openBinary(binary)) {
		hash.update(chunk as Buffer);
		size += (chunk as Buffer).length;
	}
	return { size, sha256: hash.digest('hex') };
}

/**
 * Deterministic test bytes: with a seed, an xorshift32 stream (nothing like the sandbox's
 * pattern, so an upload cannot pass by accident); without one, the sandbox pattern i % 251.
 */
export function* testBytes(
	size: number,
	seed?: number,
	chunkSize = 1024 * 1024,
): Generator<Buffer> {
	let state = (seed ?? 0) >>> 0 || 0x9e3779b9;
	for (let offset = 0; offset < size; offset += chunkSize) {
		const n = Math.min(chunkSize, size - offset);
		const chunk = Buffer.allocUnsafe(n);
		if (seed === undefined) {
			for (let i = 0; i < n; i++) chunk[i] = (offset + i) % 251;
		} else {
			let i = 0;
			for (; i + 4 <= n; i += 4) {
				state ^= state << 13;
				state >>>= 0;
				state ^= state >>> 17;
				state ^= state << 5;
				state >>>= 0;
				chunk.writeUInt32LE(state, i);
			}
			for (; i < n; i++) chunk[i] = (state >>> (8 * (i & 3))) & 0xff;
		}
		yield chunk;
	}
}

/** SHA-256 of testBytes(size, seed). */
export function testBytesSha256(size: number, seed?: number): string {
	const hash = createHash('sha256');
	for (const chunk of testBytes(size, seed)) hash.update(chunk);
	return hash.digest('hex');
}

/**
 * Test-only node: adds a binary property to every item, made by streaming `size` test bytes
 * (`seed`, see testBytes) or the UTF-8 `text` into prepareBinaryData, or, with `binary` (JSON of
 * an IBinaryData already stored), passing that one through.
 */
export class TestBinarySource implements INodeType {
	description = {
		displayName: 'Test Binary Source',
		name: 'testBinarySource',
		group: ['input'],
		version: 1,
		description: 'Adds a binary file to each item',
		defaults: { name: 'Binary' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [
			{ displayName: 'Property', name: 'propertyName', type: 'string', default: 'data' },
			{ displayName: 'File Name', name: 'fileName', type: 'string', default: 'file.bin' },
			{ displayName: 'MIME Type', name: 'mimeType', type: 'string', default: '' },
			{ displayName: 'Text', name: 'text', type: 'string', default: '' },
			{ displayName: 'Size', name: 'size', type: 'number', default: 0 },
			{ displayName: 'Seed', name: 'seed', type: 'number', default: -1 },
			{ displayName: 'Binary', name: 'binary', type: 'string', default: '' },
		],
	} as unknown as INodeTypeDescription;

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const out: INodeExecutionData[] = [];
		const items = this.getInputData();
		for (let i = 0; i < items.length; i++) {
			const propertyName = this.getNodeParameter('propertyName', i) as string;
			const stored = this.getNodeParameter('binary', i) as string;
			let binary: IBinaryData;
			if (stored) {
				binary = JSON.parse(stored) as IBinaryData;
			} else {
				const text = this.getNodeParameter('text', i) as string;
				const size = this.getNodeParameter('size', i) as number;
				const seed = this.getNodeParameter('seed', i) as number;
				const source = text
					? Readable.from([Buffer.from(text, 'utf8')])
					: Readable.from(testBytes(size, seed < 0 ? undefined : seed));
				binary = await this.helpers.prepareBinaryData(
					source,
					this.getNodeParameter('fileName', i) as string,
					(this.getNodeParameter('mimeType', i) as string) || undefined,
				);
			}
			out.push({
				json: { ...items[i].json },
				binary: { ...(items[i].binary ?? {}), [propertyName]: binary },
				pairedItem: { item: i },
			});
		}
		return [out];
	}
}
