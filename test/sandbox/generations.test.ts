import { sleep, until, useSandbox } from '../harness/sandbox/helpers';

const { sb, pro, other } = useSandbox({ timeScale: 0.01 });

const waitFor = (id: string, statuses: string[]) =>
	until(async () => {
		const r = await pro('GET', `/generations/${id}`);
		return statuses.includes(r.body.status) ? r.body : undefined;
	});

const ledger = async () =>
	(await pro('GET', '/credits/ledger?all=true&limit=100')).body.data
		.map((e: { type: string; amount: number }) => [e.type, e.amount])
		.reverse();

describe('estimate', () => {
	it('is deterministic per tool, mode and params and charges nothing', async () => {
		expect((await pro('POST', '/generations/estimate', { modelId: 'm' })).body).toEqual({
			credits: 4,
			breakdown: [{ item: 'image', credits: 4 }],
		});
		expect(
			(
				await pro('POST', '/generations/estimate', {
					modelId: 'm',
					tool: 'video',
					params: { duration: 10 },
				})
			).body.credits,
		).toBe(60);
		expect(
			(
				await pro('POST', '/generations/estimate', {
					modelId: 'm',
					tool: 'image',
					mode: 'hd',
					params: { count: 3 },
				})
			).body.credits,
		).toBe(24);
		expect(
			(await pro('POST', '/generations/estimate', { modelId: 'm', tool: 'audio' })).body.credits,
		).toBe(6);
		expect(
			(await pro('POST', '/generations/estimate', { modelId: 'm', tool: '3d' })).body.credits,
		).toBe(30);
		expect((await pro('POST', '/generations/estimate', { tool: 'video' })).status).toBe(422);
		expect((await pro('GET', '/credits')).body.balance).toBe(1000);
	});
});

describe('lifecycle and credits', () => {
	it('queued → running → completed: reserves, then charges; outputs are real assets', async () => {
		sb.control.holdJobs();
		const c = await pro('POST', '/generations', {
			modelId: 'img-1',
			prompt: 'a red fox',
			params: { sandbox: { durationMs: 20_000 } },
		});
		expect(c.status).toBe(201);
		expect(c.body).toMatchObject({
			status: 'queued',
			tool: 'image',
			credits_charged: 0,
			outputs: [],
			error: null,
		});
		expect((await pro('GET', '/credits')).body).toMatchObject({ balance: 996, reserved: 4 });
		expect((await pro('GET', `/generations/${c.body.id}`)).body.status).toBe('queued');
		sb.control.stepJobs();
		expect((await pro('GET', `/generations/${c.body.id}`)).body).toMatchObject({
			status: 'running',
			credits_reserved: 4,
			credits_charged: 0,
		});
		sb.control.stepJobs();
		const done = (await pro('GET', `/generations/${c.body.id}`)).body;
		expect(done.status).toBe('completed');
		expect(done.credits_charged).toBe(4);
		expect(done.outputs).toEqual([{ asset_id: expect.any(String), kind: 'image' }]);
		expect((await pro('GET', '/credits')).body).toMatchObject({ balance: 996, reserved: 0 });
		expect(await ledger()).toEqual([
			['grant', 1000],
			['reserve', -4],
			['release', 4],
			['charge', -4],
		]);
		expect(
			(await pro('GET', '/credits/ledger')).body.data.map((e: { type: string }) => e.type),
		).toEqual(['charge', 'grant']);

		const asset = await pro('GET', `/assets/${done.outputs[0].asset_id}`);
		expect(asset.body).toMatchObject({
			kind: 'image',
			mimeType: 'image/png',
			source: 'generation',
			generationId: c.body.id,
		});
		const link = await pro('GET', `/assets/${asset.body.id}/download`);
		const file = await fetch(link.body.url);
		expect(file.headers.get('content-type')).toBe('image/png');
		const bytes = Buffer.from(await file.arrayBuffer());
		expect(bytes.subarray(0, 8)).toEqual(
			Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
		);
		expect(bytes.length).toBe(asset.body.size);
	});

	it('produces MP4, MP3 and GLB for video, audio and 3d', async () => {
		const kinds: [string, string, (b: Buffer) => boolean][] = [
			[
				'video',
				'video/mp4',
				(b) => b.subarray(4, 8).toString() === 'ftyp' && b.includes(Buffer.from('avcC')),
			],
			['audio', 'audio/mpeg', (b) => b[0] === 0xff && (b[1] & 0xe0) === 0xe0],
			[
				'3d',
				'model/gltf-binary',
				(b) => b.subarray(0, 4).toString() === 'glTF' && b.readUInt32LE(8) === b.length,
			],
		];
		for (const [tool, mime, check] of kinds) {
			const c = await pro('POST', '/generations', {
				modelId: 'm',
				tool,
				prompt: 'hello world from the sandbox',
				params: { sandbox: { durationMs: 10 } },
			});
			const done = await waitFor(c.body.id, ['completed']);
			const link = await pro('GET', `/assets/${done.outputs[0].asset_id}/download`);
			expect(link.body.mimeType).toBe(mime);
			const b = Buffer.from(await (await fetch(link.body.url)).arrayBuffer());
			expect(check(b)).toBe(true);
		}
	});

	it('fails: returns the reservation; retry runs it again and charges once', async () => {
		sb.control.holdJobs();
		const c = await pro('POST', '/generations', {
			modelId: 'm',
			tool: 'video',
			params: { sandbox: { durationMs: 20_000, fail: 'model overloaded' } },
		});
		expect((await pro('GET', '/credits')).body).toMatchObject({ balance: 960, reserved: 40 });
		sb.control.releaseJobs();
		const failed = await waitFor(c.body.id, ['failed']);
		expect(failed.error).toEqual({ code: 'generation_failed', message: 'model overloaded' });
		expect(failed.credits_charged).toBe(0);
		expect((await pro('GET', '/credits')).body).toMatchObject({ balance: 1000, reserved: 0 });
		expect((await pro('GET', '/generations?status=failed')).body.data).toHaveLength(1);

		const r = await pro('POST', `/generations/${c.body.id}/retry`);
		expect(r.body.status).toBe('queued');
		const done = await waitFor(c.body.id, ['completed']);
		expect(done.credits_charged).toBe(40);
		expect(done.attempts).toBe(2);
		expect((await pro('GET', '/credits')).body.balance).toBe(960);
		expect((await pro('POST', `/generations/${c.body.id}/retry`)).status).toBe(409);
	});

	it('cancel returns the reservation; cancelling twice is a conflict', async () => {
		sb.control.holdJobs();
		const c = await pro('POST', '/generations', { modelId: 'm' });
		sb.control.stepJobs();
		expect((await pro('GET', `/generations/${c.body.id}`)).body.status).toBe('running');
		const x = await pro('POST', `/generations/${c.body.id}/cancel`);
		expect(x.body.status).toBe('cancelled');
		expect((await pro('GET', '/credits')).body).toMatchObject({ balance: 1000, reserved: 0 });
		expect((await pro('POST', `/generations/${c.body.id}/cancel`)).status).toBe(409);
		expect((await other('POST', `/generations/${c.body.id}/cancel`)).status).toBe(404);
		expect(await ledger()).toEqual([
			['grant', 1000],
			['reserve', -4],
			['release', 4],
		]);
		// what was held for the cancelled job is dropped with it: nothing is charged on release
		sb.control.releaseJobs();
		sb.control.stepJobs();
		expect((await pro('GET', `/generations/${c.body.id}`)).body.status).toBe('cancelled');
		expect((await pro('GET', '/credits')).body).toMatchObject({ balance: 1000, reserved: 0 });
	});

	it('402 insufficient_credits with balance and required', async () => {
		sb.control.setCredits('main', 10);
		const r = await pro('POST', '/generations', { modelId: 'm', tool: 'video' });
		expect(r.status).toBe(402);
		expect(r.body.error).toMatchObject({
			code: 'insufficient_credits',
			details: { balance: 10, required: 40 },
		});
		expect((await pro('GET', '/generations')).body.data).toHaveLength(0);
	});

	it('lists with filters status, tool, projectId, batchId', async () => {
		const p = (await pro('POST', '/projects', { name: 'P' })).body;
		const batchId = '11111111-2222-4333-8444-555555555555';
		const img = await pro('POST', '/generations', {
			modelId: 'm',
			context: { batchId },
			params: { sandbox: { durationMs: 10 } },
		});
		await waitFor(img.body.id, ['completed']);
		sb.control.holdJobs(); // the video stays active
		await pro('POST', '/generations', { modelId: 'm', tool: 'video', projectId: p.id });
		const ids = async (q: string) =>
			(await pro('GET', `/generations?${q}`)).body.data.map((g: { tool: string }) => g.tool);
		expect(await ids('status=active')).toEqual(['video']);
		expect(await ids('status=completed')).toEqual(['image']);
		expect(await ids('status=all')).toEqual(['video', 'image']); // newest first
		expect(await ids('tool=video')).toEqual(['video']);
		expect(await ids(`projectId=${p.id}`)).toEqual(['video']);
		expect(await ids(`batchId=${batchId}`)).toEqual(['image']);
		expect((await pro('GET', '/generations?status=done')).status).toBe(422);
		expect(
			(
				await pro('POST', '/generations', {
					modelId: 'm',
					projectId: '00000000-0000-4000-8000-000000000000',
				})
			).status,
		).toBe(404);
	});

	it('subtitles as srt (text/plain) and vtt (text/vtt)', async () => {
		const c = await pro('POST', '/generations', {
			modelId: 'm',
			tool: 'video',
			prompt: 'one two three four five six seven eight',
			params: { sandbox: { durationMs: 10 } },
		});
		await waitFor(c.body.id, ['completed']);
		const srt = await pro('GET', `/generations/${c.body.id}/subtitles`);
		expect(srt.headers.get('content-type')).toContain('text/plain');
		expect(srt.body).toBe(
			'1\n00:00:00,000 --> 00:00:02,000\none two three four five six\n\n2\n00:00:02,000 --> 00:00:04,000\nseven eight\n',
		);
		const vtt = await pro('GET', `/generations/${c.body.id}/subtitles?format=vtt`);
		expect(vtt.headers.get('content-type')).toContain('text/vtt');
		expect(vtt.body.startsWith('WEBVTT\n\n00:00:00.000 --> 00:00:02.000\n')).toBe(true);
		expect((await pro('GET', `/generations/${c.body.id}/subtitles?format=txt`)).status).toBe(422);
	});

	it('respects the concurrent job limit: extra jobs wait queued', async () => {
		sb.control.setConfig({ concurrentJobs: 1 });
		sb.control.holdJobs();
		const a = await pro('POST', '/generations', { modelId: 'm' });
		const b = await pro('POST', '/generations', { modelId: 'm' });
		expect(sb.control.stepJobs()).toMatchObject({ held: true, ran: 1 });
		expect((await pro('GET', `/generations/${a.body.id}`)).body.status).toBe('running');
		expect((await pro('GET', `/generations/${b.body.id}`)).body.status).toBe('queued');
		await pro('POST', `/generations/${a.body.id}/cancel`);
		sb.control.releaseJobs();
		await waitFor(b.body.id, ['completed']);
	});
});

describe('holding jobs (test control)', () => {
	const control = async (op: string) =>
		(await fetch(`${sb.origin}/__sandbox/jobs/${op}`, { method: 'POST' })).json();

	it('over HTTP: a held job stays queued and running for as long as the test needs', async () => {
		expect(await control('hold')).toEqual({ held: true, ran: 0, pending: 0 });
		const c = await pro('POST', '/generations', {
			modelId: 'm',
			params: { sandbox: { durationMs: 0 } },
		});
		await sleep(50); // well past its (scaled) queue delay and duration: still nothing moves
		expect((await pro('GET', `/generations/${c.body.id}`)).body.status).toBe('queued');
		expect(await control('step')).toEqual({ held: true, ran: 1, pending: 1 });
		await sleep(50);
		expect((await pro('GET', `/generations/${c.body.id}`)).body.status).toBe('running');
		expect(await control('release')).toEqual({ held: false, ran: 1, pending: 0 });
		expect((await pro('GET', `/generations/${c.body.id}`)).body).toMatchObject({
			status: 'completed',
			credits_charged: 4,
		});
	});

	it('reset releases the hold', async () => {
		sb.control.holdJobs();
		sb.control.reset();
		const c = await pro('POST', '/generations', {
			modelId: 'm',
			params: { sandbox: { durationMs: 10 } },
		});
		expect((await waitFor(c.body.id, ['completed'])).credits_charged).toBe(4);
	});
});

describe('idempotency', () => {
	it('replays the original job with idempotent-replayed and charges once', async () => {
		const body = { modelId: 'm', tool: 'video', params: { sandbox: { durationMs: 10 } } };
		const first = await pro('POST', '/generations', body, { 'idempotency-key': 'run-1:node-a:0' });
		const again = await pro('POST', '/generations', body, { 'idempotency-key': 'run-1:node-a:0' });
		expect(again.status).toBe(201);
		expect(again.headers.get('idempotent-replayed')).toBe('true');
		expect(again.body.id).toBe(first.body.id);
		expect(first.headers.get('idempotent-replayed')).toBeNull();
		await waitFor(first.body.id, ['completed']);
		expect((await pro('GET', '/generations')).body.data).toHaveLength(1);
		expect((await pro('GET', '/credits')).body.balance).toBe(960);
	});

	it('accepts the key in the body; the same key with another body is 409', async () => {
		const first = await pro('POST', '/generations', { modelId: 'm', idempotencyKey: 'body-key' });
		const replay = await pro('POST', '/generations', { modelId: 'm', idempotencyKey: 'body-key' });
		expect(replay.body.id).toBe(first.body.id);
		const changed = await pro('POST', '/generations', {
			modelId: 'other',
			idempotencyKey: 'body-key',
		});
		expect(changed.status).toBe(409);
		expect(changed.body.error.code).toBe('idempotency_key_reused');
		// keys are per workspace
		expect(
			(
				await other('POST', '/generations', { modelId: 'm', idempotencyKey: 'body-key' })
			).headers.get('idempotent-replayed'),
		).toBeNull();
		expect(
			(await pro('POST', '/generations', { modelId: 'm' }, { 'idempotency-key': 'x'.repeat(121) }))
				.status,
		).toBe(422);
	});

	it('a lost create response retried with the same key gives the job without a second charge', async () => {
		sb.control.addFault({ kind: 'drop', method: 'POST', path: '/generations$' });
		const body = { modelId: 'm', params: { sandbox: { durationMs: 10 } } };
		await expect(
			pro('POST', '/generations', body, { 'idempotency-key': 'lost-1' }),
		).rejects.toThrow();
		const retry = await pro('POST', '/generations', body, { 'idempotency-key': 'lost-1' });
		expect(retry.headers.get('idempotent-replayed')).toBe('true');
		await waitFor(retry.body.id, ['completed']);
		expect((await pro('GET', '/credits')).body.balance).toBe(996);
		expect(
			sb.control.requests({ path: '/generations$', method: 'POST' }).map((e) => e.dropped),
		).toEqual([true, false]);
	});
});
