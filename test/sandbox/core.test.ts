import { client, sleep, until, useSandbox } from '../harness/sandbox/helpers';

const { sb, pro, readOnly, other, starter, anon } = useSandbox();

describe('auth, scopes, workspaces', () => {
	it('answers 401 without or with an unknown key, with the error body and request id', async () => {
		const r = await anon('GET', '/workspace');
		expect(r.status).toBe(401);
		expect(r.body.error.code).toBe('unauthenticated');
		expect(r.body.requestId).toMatch(/^req_/);
		expect(r.headers.get('x-request-id')).toBe(r.body.requestId);
		expect((await client(sb, 'nope')('GET', '/workspace')).status).toBe(401);
	});

	it('returns the workspace of the key', async () => {
		const r = await pro('GET', '/workspace');
		expect(r.status).toBe(200);
		expect(r.body).toMatchObject({ name: 'Main', plan: 'pro' });
		const s = await starter('GET', '/workspace');
		expect(s.body.plan).toBe('starter');
	});

	it('answers 403 forbidden_scope naming the missing scope', async () => {
		const r = await readOnly('POST', '/projects', { name: 'x' });
		expect(r.status).toBe(403);
		expect(r.body.error.code).toBe('forbidden_scope');
		expect(r.body.error.message).toContain('content.create');
		const l = await readOnly('GET', '/credits/ledger');
		expect(l.status).toBe(403);
		expect(l.body.error.message).toContain('billing.view');
		expect((await readOnly('GET', '/projects')).status).toBe(200);
	});

	it('the noBilling key: every scope but billing.view (the ledger answers 403)', async () => {
		const noBilling = client(sb, sb.keys.noBilling);
		const l = await noBilling('GET', '/credits/ledger');
		expect(l.status).toBe(403);
		expect(l.body.error.details).toMatchObject({ requiredScope: 'billing.view' });
		expect((await noBilling('GET', '/credits')).status).toBe(200);
		expect((await noBilling('POST', '/projects', { name: 'x' })).status).toBe(201);
	});

	it("hides other workspaces' data with 404", async () => {
		const p = await pro('POST', '/projects', { name: 'Mine' });
		expect(p.status).toBe(201);
		expect((await other('GET', `/projects/${p.body.id}`)).status).toBe(404);
		expect((await other('PATCH', `/projects/${p.body.id}`, { name: 'x' })).status).toBe(404);
		expect((await other('DELETE', `/projects/${p.body.id}`)).status).toBe(404);
		expect((await other('GET', '/projects')).body.data).toEqual([]);
		expect((await pro('GET', `/projects/${p.body.id}`)).status).toBe(200);
	});

	it('404 for unknown routes and ids, 405 for a wrong method', async () => {
		expect((await pro('GET', '/nothing')).status).toBe(404);
		const r = await pro('GET', '/projects/00000000-0000-4000-8000-000000000000');
		expect(r.status).toBe(404);
		expect(r.body.error.code).toBe('not_found');
		const m = await pro('PUT', '/projects');
		expect(m.status).toBe(405);
	});
});

describe('validation', () => {
	it('lists every issue in details.issues', async () => {
		const r = await pro('POST', '/generations', {
			tool: 'painting',
			prompt: 5,
			title: 'x'.repeat(201),
			inputs: [{ assetIds: ['not-a-uuid'] }],
			unknownField: true,
		});
		expect(r.status).toBe(422);
		expect(r.body.error.code).toBe('validation_failed');
		const paths = r.body.error.details.issues.map((i: { path: string }) => i.path);
		expect(paths.sort()).toEqual(
			['inputs.0.assetIds.0', 'inputs.0.slot', 'modelId', 'prompt', 'title', 'tool'].sort(),
		);
	});

	it('validates query strings (integer, enum, boolean) and malformed JSON', async () => {
		const r = await pro('GET', '/projects?limit=abc&status=old');
		expect(r.status).toBe(422);
		expect(r.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual([
			'limit',
			'status',
		]);
		expect((await pro('GET', '/projects?limit=0')).status).toBe(422);
		expect(
			(await pro('DELETE', '/projects/00000000-0000-4000-8000-000000000000?deleteAssets=maybe'))
				.status,
		).toBe(422);
		const bad = await pro('POST', '/projects', '{"name":');
		expect(bad.status).toBe(400);
		expect(bad.body.error.code).toBe('invalid_json');
	});

	it('checks [a..b] ranges and integers', async () => {
		const r = await pro('POST', '/prompt/assist', { action: 'variations', prompt: 'p', count: 7 });
		expect(r.status).toBe(422);
		expect(r.body.error.details.issues[0].path).toBe('count');
		expect(
			(await pro('POST', '/prompt/assist', { action: 'variations', prompt: 'p', count: 2.5 }))
				.status,
		).toBe(422);
	});
});

describe('pagination', () => {
	it('pages newest first with nextCursor passed as before; limit capped at 100', async () => {
		for (let i = 0; i < 25; i++) await pro('POST', '/collections', { name: `c${i}` });
		const seen: string[] = [];
		let cursor: string | null = null;
		let pages = 0;
		do {
			const r: { body: { data: { name: string }[]; nextCursor: string | null } } = await pro(
				'GET',
				`/collections?limit=10${cursor ? `&before=${cursor}` : ''}`,
			);
			seen.push(...r.body.data.map((c) => c.name));
			cursor = r.body.nextCursor;
			pages++;
		} while (cursor);
		expect(pages).toBe(3);
		expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => `c${24 - i}`));
		const big = await pro('GET', '/collections?limit=1000');
		expect(big.body.data).toHaveLength(25);
		expect((await pro('GET', '/collections')).body.data).toHaveLength(20);
		expect((await pro('GET', '/collections?before=garbage')).status).toBe(422);
	});

	it('uses an integer cursor on the ledger', async () => {
		for (let i = 0; i < 3; i++) sb.control.setCredits('main', 500 + i);
		const r = await pro('GET', '/credits/ledger?limit=2');
		expect(r.body.data.map((e: { id: number }) => e.id)).toEqual([4, 3]);
		expect(r.body.nextCursor).toBe(3);
		const next = await pro('GET', `/credits/ledger?limit=2&before=${r.body.nextCursor}`);
		expect(next.body.data.map((e: { id: number }) => e.id)).toEqual([2, 1]);
		expect(next.body.nextCursor).toBeNull();
	});
});

describe('rate limit and faults', () => {
	it('answers 429 with Retry-After above the per-key limit', async () => {
		sb.control.setConfig({ rateLimitPerMinute: 5 });
		for (let i = 0; i < 4; i++) expect((await pro('GET', '/workspace')).status).toBe(200);
		const last = await pro('GET', '/nothing-here');
		expect(last.status).toBe(404);
		expect(last.headers.get('x-ratelimit-limit')).toBe('5');
		expect(last.headers.get('x-ratelimit-remaining')).toBe('0');
		const r = await pro('GET', '/workspace');
		expect(r.status).toBe(429);
		expect(r.body.error.code).toBe('rate_limited');
		expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
		// per key: another key still passes
		expect((await other('GET', '/workspace')).status).toBe(200);
	});

	it('counts the limit over its window, a minute unless shortened (rateLimitWindowMs)', async () => {
		expect(sb.control.config().rateLimitWindowMs).toBe(60_000);
		sb.control.setConfig({ rateLimitPerMinute: 2, rateLimitWindowMs: 1_000 });
		expect((await pro('GET', '/workspace')).status).toBe(200);
		expect((await pro('GET', '/workspace')).status).toBe(200);
		const refused = await pro('GET', '/workspace');
		expect(refused.status).toBe(429);
		expect(refused.headers.get('retry-after')).toBe('1');
		await sleep(1_100);
		expect((await pro('GET', '/workspace')).status).toBe(200);
	});

	it('fails the next N matching requests', async () => {
		sb.control.addFault({ kind: 'fail', method: 'GET', path: '/projects$', count: 2, status: 503 });
		expect((await pro('GET', '/projects')).status).toBe(503);
		expect((await pro('GET', '/workspace')).status).toBe(200);
		expect((await pro('GET', '/projects')).status).toBe(503);
		expect((await pro('GET', '/projects')).status).toBe(200);
	});

	it('drops the response after doing the work', async () => {
		sb.control.addFault({ kind: 'drop', method: 'POST', path: '/projects$' });
		await expect(pro('POST', '/projects', { name: 'lost answer' })).rejects.toThrow();
		const list = await pro('GET', '/projects');
		expect(list.body.data.map((p: { name: string }) => p.name)).toEqual(['lost answer']);
		const log = sb.control.requests({ method: 'POST', path: '/projects$' });
		expect(log).toHaveLength(1);
		expect(log[0]).toMatchObject({ dropped: true, keyName: 'pro', status: 201 });
	});

	it('fails after doing the work (afterWork): the record exists, the answer is the fault', async () => {
		sb.control.addFault({ kind: 'fail', method: 'POST', path: '/projects$', afterWork: true });
		const r = await pro('POST', '/projects', { name: 'answered 500' });
		expect(r.status).toBe(500);
		expect(r.body.error.code).toBe('internal');
		const list = await pro('GET', '/projects');
		expect(list.body.data.map((p: { name: string }) => p.name)).toEqual(['answered 500']);
		expect(sb.control.requests({ method: 'POST', path: '/projects$' })[0]).toMatchObject({
			status: 500,
			injected: true,
		});
	});

	it('tells a watcher of each answer and of an answer held back by a delay fault', async () => {
		const seen: string[] = [];
		const stop = sb.control.watchRequests((e) =>
			seen.push(
				e.type === 'held' ? `held ${e.method} ${e.path} ${e.status}` : `answered ${e.entry.path}`,
			),
		);
		sb.control.addFault({ kind: 'delay', method: 'POST', path: '/projects$', delayMs: 100 });
		const pending = pro('POST', '/projects', { name: 'held' });
		await until(() => seen.length > 0);
		expect(seen).toEqual(['held POST /v1/projects 201']);
		await pending;
		expect(seen).toEqual(['held POST /v1/projects 201', 'answered /v1/projects']);
		stop();
		await pro('GET', '/projects');
		expect(seen).toHaveLength(2);
	});

	it('delays responses', async () => {
		sb.control.addFault({ kind: 'delay', path: '/workspace', delayMs: 200 });
		const t = Date.now();
		expect((await pro('GET', '/workspace')).status).toBe(200);
		expect(Date.now() - t).toBeGreaterThanOrEqual(190);
	});

	it('exposes the control API over HTTP too', async () => {
		const f = await fetch(`${sb.origin}/__sandbox/faults`, {
			method: 'POST',
			body: JSON.stringify({ kind: 'fail', path: '/credits$', status: 500 }),
		});
		expect(f.status).toBe(201);
		const r = await pro('GET', '/credits');
		expect(r.status).toBe(500);
		expect(r.body.error.code).toBe('internal');
		const c = await fetch(`${sb.origin}/__sandbox/workspaces/main/credits`, {
			method: 'PUT',
			body: JSON.stringify({ balance: 7 }),
		});
		expect(((await c.json()) as { balance: number }).balance).toBe(7);
		const log = (await (await fetch(`${sb.origin}/__sandbox/requests?path=/credits`)).json()) as {
			data: { status: number; injected: boolean }[];
		};
		expect(log.data).toEqual([expect.objectContaining({ status: 500, injected: true })]);
		await fetch(`${sb.origin}/__sandbox/requests`, { method: 'DELETE' });
		expect(sb.control.requests()).toHaveLength(0);
		expect(
			(
				await fetch(`${sb.origin}/__sandbox/faults`, {
					method: 'POST',
					body: JSON.stringify({ kind: 'nope' }),
				})
			).status,
		).toBe(422);
	});

	it('logs method, path, query, key, status and idempotency key', async () => {
		await pro('GET', '/projects?status=active');
		await readOnly('POST', '/projects', { name: 'x' });
		await pro('POST', '/generations', { modelId: 'm' }, { 'idempotency-key': 'k1' });
		const log = sb.control.requests();
		expect(log.map((e) => [e.method, e.path, e.keyName, e.status])).toEqual([
			['GET', '/v1/projects', 'pro', 200],
			['POST', '/v1/projects', 'readOnly', 403],
			['POST', '/v1/generations', 'pro', 201],
		]);
		expect(log[0].query).toEqual({ status: 'active' });
		expect(log[2].idempotencyKey).toBe('k1');
	});
});

describe('projects, assets, collections', () => {
	const asset = (title: string) =>
		sb.control.createLargeAsset({
			size: 10,
			title,
			filename: `${title}.png`,
			mimeType: 'image/png',
		});

	it('archives and unarchives with PATCH status, filters by status and q', async () => {
		const a = (await pro('POST', '/projects', { name: 'Summer launch', description: 'beach' }))
			.body;
		await pro('POST', '/projects', { name: 'Winter' });
		const arch = await pro('PATCH', `/projects/${a.id}`, { status: 'archived' });
		expect(arch.body.status).toBe('archived');
		expect(
			(await pro('GET', '/projects?status=archived')).body.data.map((p: { id: string }) => p.id),
		).toEqual([a.id]);
		expect((await pro('GET', '/projects?q=BEACH')).body.data).toHaveLength(1);
		expect((await pro('PATCH', `/projects/${a.id}`, { status: 'active' })).body.status).toBe(
			'active',
		);
		expect(
			(
				await pro('PATCH', `/projects/${a.id}`, {
					cover_asset_id: '00000000-0000-4000-8000-000000000000',
				})
			).status,
		).toBe(404);
	});

	it('adds and removes assets (sets projectId), deletes with or without assets, duplicates', async () => {
		const p = (await pro('POST', '/projects', { name: 'P' })).body;
		const [a1, a2] = [asset('one'), asset('two')];
		const added = await pro('POST', `/projects/${p.id}/assets`, { assetIds: [a1.id, a2.id] });
		expect(added.body.assetCount).toBe(2);
		expect((await pro('GET', `/assets/${a1.id}`)).body.projectId).toBe(p.id);
		expect((await pro('GET', `/assets?projectId=${p.id}`)).body.data).toHaveLength(2);
		await pro('POST', `/projects/${p.id}/assets/remove`, { assetIds: [a2.id] });
		expect((await pro('GET', `/assets/${a2.id}`)).body.projectId).toBeNull();
		expect(
			(
				await pro('POST', `/projects/${p.id}/assets`, {
					assetIds: ['00000000-0000-4000-8000-000000000000'],
				})
			).status,
		).toBe(404);

		const dup = await pro('POST', `/projects/${p.id}/duplicate`);
		expect(dup.status).toBe(201);
		expect(dup.body).toMatchObject({ name: 'P (copy)', assetCount: 1 });

		const kept = await pro('DELETE', `/projects/${p.id}?deleteAssets=false`);
		expect(kept.body).toMatchObject({ id: p.id, deleted: true });
		expect((await pro('GET', `/assets/${a1.id}`)).body.projectId).toBeNull();

		const gone = await pro('DELETE', `/projects/${dup.body.id}?deleteAssets=true`);
		expect(gone.body.assetsDeleted).toBe(1);
		expect((await pro('GET', '/assets')).body.data).toHaveLength(2);
	});

	it('patches, duplicates, lists versions, deletes many assets', async () => {
		const a = asset('pic');
		const patched = await pro('PATCH', `/assets/${a.id}`, {
			title: 'Hero',
			tags: ['hero', 'blue'],
			favorite: true,
			visibility: 'public',
		});
		expect(patched.body).toMatchObject({
			title: 'Hero',
			tags: ['hero', 'blue'],
			favorite: true,
			visibility: 'public',
		});
		expect((await pro('GET', '/assets?favorite=true&tag=blue&kind=image')).body.data).toHaveLength(
			1,
		);
		expect((await pro('GET', '/assets?q=hero')).body.data).toHaveLength(1);
		expect((await pro('PATCH', `/assets/${a.id}`, { visibility: 'secret' })).status).toBe(422);
		const copy = await pro('POST', `/assets/${a.id}/duplicate`);
		expect(copy.body).toMatchObject({
			title: 'Hero (copy)',
			duplicatedFrom: a.id,
			source: 'duplicate',
		});
		const versions = await pro('GET', `/assets/${a.id}/versions`);
		expect(versions.body.data[0]).toMatchObject({ type: 'original', mimeType: 'image/png' });
		expect(versions.body.data.some((v: { type: string }) => v.type === 'derived')).toBe(true);
		expect((await pro('GET', `/assets?ids=${a.id},${copy.body.id}`)).body.data).toHaveLength(2);
		expect((await readOnly('POST', '/assets/delete', { ids: [a.id] })).status).toBe(403);
		expect((await other('POST', '/assets/delete', { ids: [a.id] })).status).toBe(404);
		const del = await pro('POST', '/assets/delete', { ids: [a.id, copy.body.id] });
		expect(del.body).toMatchObject({ deleted: true, count: 2 });
		expect((await pro('GET', `/assets/${a.id}`)).status).toBe(404);
	});

	it('collections hold assets; deleting a collection keeps them', async () => {
		const [a1, a2] = [asset('x'), asset('y')];
		const c = (await pro('POST', '/collections', { name: 'Best' })).body;
		expect((await pro('POST', '/collections', { name: 'x'.repeat(81) })).status).toBe(422);
		let r = await pro('POST', `/collections/${c.id}/items`, { add: [a1.id, a2.id] });
		expect(r.body.assetIds.sort()).toEqual([a1.id, a2.id].sort());
		r = await pro('POST', `/collections/${c.id}/items`, { remove: [a1.id] });
		expect(r.body.assetIds).toEqual([a2.id]);
		expect(
			(await pro('GET', `/assets?collectionId=${c.id}`)).body.data.map((a: { id: string }) => a.id),
		).toEqual([a2.id]);
		expect((await pro('DELETE', `/collections/${c.id}`)).body).toEqual({ id: c.id, deleted: true });
		expect((await pro('GET', `/assets/${a2.id}`)).status).toBe(200);
	});

	it('credits: balance and ledger with the all flag', async () => {
		const c = await pro('GET', '/credits');
		expect(c.body).toMatchObject({ balance: 1000, reserved: 0 });
		await sleep(1);
		sb.control.setCredits('pro', 900);
		const l = await pro('GET', '/credits/ledger');
		expect(l.body.data.map((e: { type: string }) => e.type)).toEqual(['adjustment', 'grant']);
		expect(l.body.data[0]).toMatchObject({ amount: -100, balance_after: 900 });
	});

	it('ledger order (what the credit budget reads): a reservation booked before the create answers, its settling release and charge together, an immediate charge without a generation', async () => {
		// held: the job cannot complete between the create's answer and the first ledger read
		sb.control.holdJobs();
		const g = await pro('POST', '/generations', {
			modelId: 'm',
			params: { sandbox: { durationMs: 1 } },
		});
		const booked = await pro('GET', '/credits/ledger?all=true&limit=1');
		expect(booked.body.data[0]).toMatchObject({
			type: 'reserve',
			amount: -4,
			generation_id: g.body.id,
		});
		sb.control.releaseJobs();
		await until(
			async () => (await pro('GET', `/generations/${g.body.id}`)).body.status === 'completed',
		);
		const after = (await pro('GET', '/credits/ledger?all=true&limit=3')).body.data;
		expect(after.map((e: { type: string; amount: number }) => [e.type, e.amount])).toEqual([
			['charge', -4],
			['release', 4],
			['reserve', -4],
		]);
		expect(after[0].id).toBe(after[1].id + 1);
		expect(after.every((e: { generation_id: string }) => e.generation_id === g.body.id)).toBe(true);
	});
});
