/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * The request pipeline: request id, fault injection, request log, then either the control API
 * (`/__sandbox/`), a signed file URL (`/files/`), or an API endpoint (`/v1/`): auth, rate limit,
 * route, scope, plan, validation, idempotency, handler.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { App } from './app';
import type { Fault } from './faults';
import type { GatedRequest } from './requestLog';
import {
	ApiError,
	drain,
	errorReply,
	header,
	readJsonBody,
	validationError,
	writeReply,
	type Issue,
	type Reply,
} from './http';
import {
	compile,
	match,
	type Compiled,
	type CompiledRoute,
	type FileRouteDef,
	type RouteDef,
} from './route';
import { PLAN_FEATURES, type Workspace } from './state';
import { toIssues } from './validation';
import { controlRoutes } from './routes/control';
import { fileRoutes } from './routes/files';
import { apiRoutes } from './routes';

const API_PREFIX = '/v1';
const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

export function createHandler(app: App): (req: IncomingMessage, res: ServerResponse) => void {
	const api = apiRoutes.map(compile);
	const files = fileRoutes.map(compile);
	return (req, res) => {
		handle(app, api, files, req, res).catch((e) => {
			app.log(`sandbox: unexpected error ${(e as Error).stack}`);
			if (!res.headersSent)
				writeReply(
					res,
					errorReply(new ApiError(500, 'internal', 'Internal sandbox error'), 'req_unknown'),
					'GET',
				);
			else res.destroy();
		});
	};
}

interface LogFields {
	/** Headers added to whatever the answer is (rate-limit state). */
	headers: Record<string, string>;
	keyName: string | null;
	idempotencyKey: string | null;
	injected: boolean;
}

async function handle(
	app: App,
	api: CompiledRoute[],
	files: Compiled<FileRouteDef>[],
	req: IncomingMessage,
	res: ServerResponse,
): Promise<void> {
	const started = Date.now();
	const url = new URL(req.url ?? '/', 'http://sandbox');
	const method = (req.method ?? 'GET').toUpperCase();
	const path = url.pathname;

	if (path.startsWith('/__sandbox/') || path === '/__sandbox') {
		writeReply(res, await controlRoutes(app, req, method, path, url), method);
		return;
	}

	const requestId = `req_${randomBytes(8).toString('hex')}`;
	const inFlight = app.requestLog.begin();
	// the log names the key even when a fault answers before authentication
	const fields: LogFields = {
		headers: {},
		keyName: bearerKey(app, req)?.name ?? null,
		idempotencyKey: header(req, 'idempotency-key') ?? null,
		injected: false,
	};
	const log = (status: number, dropped: boolean) => {
		app.requestLog.end();
		app.requestLog.add({
			time: new Date(started).toISOString(),
			method,
			path,
			query: Object.fromEntries(url.searchParams),
			keyName: fields.keyName,
			status,
			idempotencyKey: fields.idempotencyKey,
			requestId,
			dropped,
			injected: fields.injected,
			durationMs: Date.now() - started,
			inFlight,
		});
	};

	const gate =
		app.requestLog.gate && path.startsWith(API_PREFIX)
			? await gated(app, req, { method, path, headers: req.headers })
			: undefined;
	let reply: Reply;
	const fail =
		gate === 'refuse'
			? ({ status: 503, afterWork: false, message: 'Refused by the test gate' } as Fault)
			: app.faults.take('fail', method, path);
	if (fail && !fail.afterWork) {
		drain(req);
		reply = injectedReply(fail, requestId, fields);
	} else {
		try {
			reply = path.startsWith('/files/')
				? await dispatchFile(app, files, req, method, path, url)
				: await dispatchApi(app, api, req, method, path, url, requestId, fields);
		} catch (e) {
			drain(req);
			reply = errorReply(e instanceof ApiError ? e : internal(app, e), requestId);
		}
		// the work is done, its answer replaced by the injected one (the lost create answer)
		if (fail) reply = injectedReply(fail, requestId, fields);
	}
	reply.headers = { ...fields.headers, ...reply.headers, 'x-request-id': requestId };
	if (typeof gate === 'function') gate(reply.status, reply.json);

	if (app.faults.take('drop', method, path)) {
		reply.stream?.destroy();
		log(reply.status, true);
		res.destroy();
		return;
	}
	const delay = app.faults.take('delay', method, path);
	if (delay) {
		const { idempotencyKey } = fields;
		app.requestLog.notify({ type: 'held', method, path, idempotencyKey, status: reply.status });
		await app.faults.hold(delay);
	}
	res.on('close', () => log(reply.status, false));
	writeReply(res, reply, method);
}

/**
 * Waits on the test's gate (RequestLog.gate) with the request's body read first: a request whose
 * client died while it waited (a killed n8n) is handled whole, as a server that had received it.
 */
async function gated(app: App, req: IncomingMessage, r: GatedRequest) {
	const chunks: Buffer[] = [];
	for await (const chunk of req) chunks.push(chunk as Buffer);
	const body = Buffer.concat(chunks);
	Object.defineProperty(req, Symbol.asyncIterator, {
		value: async function* () {
			if (body.length) yield body;
		},
	});
	return await app.requestLog.gate?.(r);
}

/** The answer of a `fail` fault: its status and code (Retry-After: 1 with a 429). */
function injectedReply(fail: Fault, requestId: string, fields: LogFields): Reply {
	fields.injected = true;
	const code =
		fail.code ??
		(fail.status === 429 ? 'rate_limited' : fail.status >= 500 ? 'internal' : 'injected_fault');
	const headers: Record<string, string> = fail.status === 429 ? { 'retry-after': '1' } : {};
	const message = fail.message ?? `Injected fault (${fail.status})`;
	return errorReply(new ApiError(fail.status, code, message, {}, headers), requestId);
}

function internal(app: App, e: unknown): ApiError {
	app.log(`sandbox: handler error ${(e as Error)?.stack ?? e}`);
	return new ApiError(500, 'internal', 'Internal sandbox error');
}

async function dispatchFile(
	app: App,
	files: Compiled<FileRouteDef>[],
	req: IncomingMessage,
	method: string,
	path: string,
	url: URL,
): Promise<Reply> {
	const lookup = method === 'HEAD' ? 'GET' : method;
	const m = match(files, lookup, path);
	if (!m.route) throw new ApiError(404, 'not_found', `No file at ${path}`);
	app.files.verify(path, url.searchParams);
	return m.route.handler({ app, params: m.params, req });
}

function bearerKey(app: App, req: IncomingMessage) {
	const m = /^Bearer\s+(\S+)\s*$/i.exec(header(req, 'authorization') ?? '');
	return m ? app.state.keyFor(m[1]) : undefined;
}

function authenticate(app: App, req: IncomingMessage) {
	if (!header(req, 'authorization'))
		throw new ApiError(401, 'unauthenticated', 'Missing Authorization: Bearer <API key> header');
	const key = bearerKey(app, req);
	if (!key) throw new ApiError(401, 'unauthenticated', 'Invalid API key');
	return key;
}

async function dispatchApi(
	app: App,
	routes: CompiledRoute[],
	req: IncomingMessage,
	method: string,
	path: string,
	url: URL,
	requestId: string,
	fields: LogFields,
): Promise<Reply> {
	if (path !== API_PREFIX && !path.startsWith(`${API_PREFIX}/`))
		throw new ApiError(
			404,
			'not_found',
			`No route ${method} ${path}; the API lives under ${API_PREFIX}`,
		);
	const key = authenticate(app, req);

	const rate = app.rateLimiter.hit(key.secret);
	if (rate.limit)
		fields.headers = {
			'x-ratelimit-limit': String(rate.limit),
			'x-ratelimit-remaining': String(rate.remaining),
		};
	if (!rate.allowed)
		throw new ApiError(
			429,
			'rate_limited',
			`Rate limit of ${rate.limit} requests per minute exceeded`,
			{ retryAfter: rate.retryAfterSeconds },
			{
				'retry-after': String(rate.retryAfterSeconds),
			},
		);

	const sub = path.slice(API_PREFIX.length) || '/';
	const m = match(routes, method, sub);
	if (!m.route) {
		if (m.methods.length)
			throw new ApiError(
				405,
				'method_not_allowed',
				`${method} is not allowed on ${path}`,
				{ allowed: m.methods },
				{ allow: m.methods.join(', ') },
			);
		throw new ApiError(404, 'not_found', `No route ${method} ${path}`);
	}
	const route = m.route;
	const ws = app.state.workspaces.get(key.workspaceId)!;
	if (route.scope && !key.scopes.includes(route.scope))
		throw new ApiError(403, 'forbidden_scope', `This API key lacks the scope ${route.scope}`, {
			requiredScope: route.scope,
			keyScopes: key.scopes,
		});
	if (route.feature && !PLAN_FEATURES[ws.plan].includes(route.feature))
		throw new ApiError(
			403,
			'plan_required',
			`This needs the Pro plan or above (feature ${route.feature}); the workspace is on ${ws.plan}`,
			{
				feature: route.feature,
				plan: ws.plan,
				requiredPlan: 'pro',
			},
		);

	const raw =
		method === 'GET' || method === 'DELETE' ? (drain(req), undefined) : await readJsonBody(req);
	const { query, body } = validate(route, url, raw);
	const idempotencyKey = route.idempotent ? idempotencyKeyOf(req, raw) : null;
	if (idempotencyKey) fields.idempotencyKey = idempotencyKey;

	const run = async () =>
		route.handler({ app, ws, key, params: m.params, query, body, req, requestId, idempotencyKey });
	return idempotencyKey ? idempotent(ws, route, idempotencyKey, raw, run) : run();
}

/** Query and body together, so that one 422 lists every issue. */
function validate(route: RouteDef, url: URL, raw: unknown): { query: unknown; body: unknown } {
	const issues: Issue[] = [];
	let query: unknown = {};
	let body: unknown = raw;
	if (route.query) {
		const r = route.query.safeParse(Object.fromEntries(url.searchParams));
		if (r.success) query = r.data;
		else issues.push(...toIssues(r.error));
	}
	if (route.body) {
		const r = route.body.safeParse(raw ?? {});
		if (r.success) body = r.data;
		else issues.push(...toIssues(r.error));
	}
	if (issues.length) throw validationError(issues);
	return { query, body };
}

const keySchema = z.string().min(1).max(120);

function idempotencyKeyOf(req: IncomingMessage, raw: unknown): string | null {
	const fromHeader = header(req, 'idempotency-key');
	const fromBody =
		raw &&
		typeof raw === 'object' &&
		typeof (raw as Record<string, unknown>).idempotencyKey === 'string'
			? (raw as Record<string, string>).idempotencyKey
			: undefined;
	if (fromHeader !== undefined && !keySchema.safeParse(fromHeader).success)
		throw validationError([
			{
				path: 'Idempotency-Key',
				message: 'Idempotency-Key must be 1 to 120 characters',
				code: 'too_big',
			},
		]);
	if (fromHeader !== undefined && fromBody !== undefined && fromHeader !== fromBody)
		throw validationError([
			{
				path: 'idempotencyKey',
				message: 'Body idempotencyKey differs from the Idempotency-Key header',
				code: 'custom',
			},
		]);
	return fromHeader ?? fromBody ?? null;
}

function stable(v: unknown): unknown {
	if (Array.isArray(v)) return v.map(stable);
	if (v && typeof v === 'object')
		return Object.fromEntries(
			Object.keys(v as object)
				.sort()
				.map((k) => [k, stable((v as Record<string, unknown>)[k])]),
		);
	return v;
}

/** Replays a stored 2xx answer for the same key and body; 409 for the same key with another body. */
async function idempotent(
	ws: Workspace,
	route: RouteDef,
	key: string,
	raw: unknown,
	run: () => Promise<Reply>,
): Promise<Reply> {
	const id = `${route.method} ${route.path} ${key}`;
	const rest = { ...((raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>) };
	delete rest.idempotencyKey;
	const bodyHash = createHash('sha256')
		.update(JSON.stringify(stable(rest)))
		.digest('hex');
	const prior = ws.idempotency.get(id);
	if (prior && prior.expiresAt > Date.now()) {
		if (prior.bodyHash !== bodyHash)
			throw new ApiError(
				409,
				'idempotency_key_reused',
				'This Idempotency-Key was used with a different request body',
				{ idempotencyKey: key },
			);
		return { status: prior.status, json: prior.body, headers: { 'idempotent-replayed': 'true' } };
	}
	const reply = await run();
	if (reply.status >= 200 && reply.status < 300 && reply.json !== undefined)
		ws.idempotency.set(id, {
			bodyHash,
			status: reply.status,
			body: reply.json,
			expiresAt: Date.now() + IDEMPOTENCY_TTL_MS,
		});
	return reply;
}
