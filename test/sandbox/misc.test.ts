/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { readSpecDocuments, writtenEndpoints } from '../../scripts/extract-spec';
import { client, start, useSandbox } from '../harness/sandbox/helpers';

const { sb, pro, readOnly } = useSandbox();

const SPEC_DIR = resolve(__dirname, '../../spec');

describe('coverage of the spec', () => {
	(existsSync(SPEC_DIR) ? it : it.skip)(
		'routes every endpoint the spec documents write',
		async () => {
			// every endpoint of the three documents, read from their text (scripts/extract-spec.ts)
			const endpoints = [...writtenEndpoints(readSpecDocuments()).values()]
				.flat()
				.map((e) => e.split(' '));
			const lines = readSpecDocuments().flatMap((d) => d.lines);
			expect(endpoints.length).toBeGreaterThanOrEqual(
				lines.filter((l) => /^- (GET|POST|PATCH|PUT|DELETE) \//.test(l)).length,
			);
			const missing: string[] = [];
			for (const [method, path] of endpoints) {
				const r = await pro(
					method,
					path.replace(/\{\w+\}/g, '00000000-0000-4000-8000-000000000000'),
					method === 'GET' || method === 'DELETE' ? undefined : {},
				);
				if (r.status === 405 || (r.status === 404 && /^No route/.test(r.body.error.message)))
					missing.push(`${method} ${path}`);
			}
			expect(missing).toEqual([]);
		},
	);
});

describe('startSandbox', () => {
	it('prints nothing when quiet; answers on a random port; closes', async () => {
		const spy = jest.spyOn(console, 'log');
		const other = await start({ quiet: true });
		expect(other.port).toBeGreaterThan(0);
		expect(other.baseUrl).toBe(`http://127.0.0.1:${other.port}/v1`);
		const r = await client(other, other.keys.pro)('GET', '/workspace');
		expect(r.status).toBe(200);
		await other.close();
		expect(spy).not.toHaveBeenCalled();
		spy.mockRestore();
	});
});

describe('voices', () => {
	it('lists fixed voices of the voice-provider account (content.create)', async () => {
		const r = await pro('GET', '/voices/voiceprovider');
		expect(r.body.data.length).toBeGreaterThanOrEqual(3);
		expect(new Set(r.body.data.map((v: { category: string }) => v.category))).toEqual(
			new Set(['premade', 'cloned', 'designed']),
		);
		expect(r.body.data[0]).toMatchObject({
			voice_id: expect.any(String),
			name: expect.any(String),
		});
		expect((await readOnly('GET', '/voices/voiceprovider')).status).toBe(403);
		const page = await pro('GET', '/voices/voiceprovider?limit=2');
		expect(page.body.data).toHaveLength(2);
		const next = await pro('GET', `/voices/voiceprovider?limit=2&before=${page.body.nextCursor}`);
		expect(next.body.data[0].voice_id).toBe(r.body.data[2].voice_id);
	});
});

describe('prompt assist', () => {
	it('answers per action; variations returns count items', async () => {
		const v = await pro('POST', '/prompt/assist', {
			action: 'variations',
			prompt: 'a lighthouse at dusk',
			count: 4,
		});
		expect(v.status).toBe(200);
		expect(v.body.results).toHaveLength(4);
		expect(new Set(v.body.results).size).toBe(4);
		const imp = await pro('POST', '/prompt/assist', { action: 'improve', prompt: 'a lighthouse' });
		expect(imp.body.result.length).toBeGreaterThan('a lighthouse'.length);
		const short = await pro('POST', '/prompt/assist', {
			action: 'shorten',
			prompt:
				'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen',
		});
		expect(short.body.result.split(' ').length).toBeLessThan(17);
		expect(
			(await pro('POST', '/prompt/assist', { action: 'translate', prompt: 'hola' })).body.result,
		).toContain('hola');
		expect((await pro('POST', '/prompt/assist', { action: 'improve' })).status).toBe(422);
		expect((await pro('POST', '/prompt/assist', { action: 'describe' })).status).toBe(422);
		const a = sb.control.createLargeAsset({ size: 1, title: 'Red car', mimeType: 'image/png' });
		const d = await pro('POST', '/prompt/assist', { action: 'describe', assetId: a.id });
		expect(d.body.result).toContain('Red car');
		expect((await pro('POST', '/prompt/assist', { action: 'rewrite', prompt: 'x' })).status).toBe(
			422,
		);
	});
});

describe('analytics', () => {
	it('overview is deterministic and counts real assets and generations', async () => {
		sb.control.createLargeAsset({ size: 1, mimeType: 'image/png' });
		const a = await pro('GET', '/analytics/overview?days=7&channel=photoapp');
		const b = await pro('GET', '/analytics/overview?days=7&channel=photoapp');
		expect(a.status).toBe(200);
		expect(a.body.assets).toEqual({ total: 1, byKind: { image: 1 } });
		expect(a.body.engagement).toEqual(b.body.engagement);
		expect(a.body).toHaveProperty('dataFreshness');
		expect(a.body.period.days).toBe(7);
		expect((await pro('GET', '/analytics/overview?channel=tv')).status).toBe(422);
	});

	it('compare needs a dimension', async () => {
		const r = await pro('GET', '/analytics/compare');
		expect(r.status).toBe(422);
		expect(r.body.error.details.issues[0].path).toBe('dimension');
		const c = await pro('GET', '/analytics/compare?dimension=hook&days=30');
		expect(c.body.rows.length).toBeGreaterThan(1);
		expect(c.body.rows[0]).toMatchObject({
			value: expect.any(String),
			views: expect.any(Number),
			engagementRate: expect.any(Number),
		});
		expect((await pro('GET', '/analytics/compare?dimension=hook&days=30')).body.rows).toEqual(
			c.body.rows,
		);
	});

	it('creative report for an asset; 404 for unknown ids', async () => {
		const a = sb.control.createLargeAsset({ size: 1, mimeType: 'image/png', title: 'Ad' });
		await pro('POST', `/assets/${a.id}/duplicate`);
		const r = await pro('GET', `/analytics/creatives/${a.id}`);
		expect(r.body).toMatchObject({
			id: a.id,
			origin: { source: 'sandbox' },
			editedVariants: [expect.objectContaining({ title: 'Ad (copy)' })],
		});
		expect(r.body.destinations.length).toBeGreaterThan(0);
		expect(
			(await pro('GET', '/analytics/creatives/00000000-0000-4000-8000-000000000000')).status,
		).toBe(404);
	});
});
