/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * How an endpoint is declared: method, path in the spec's `{id}` notation, scope, plan feature,
 * zod schemas for query and body, and a handler. The server does auth, scope, plan, validation,
 * idempotency and errors around it; handlers hold only the behaviour.
 */
import type { IncomingMessage } from 'node:http';
import type { z, ZodTypeAny } from 'zod';
import type { Reply } from './http';
import type { ApiKey, Feature, Scope, Workspace } from './state';
import type { App } from './app';

export interface Ctx<Q = unknown, B = unknown> {
	app: App;
	ws: Workspace;
	key: ApiKey;
	params: Record<string, string>;
	query: Q;
	body: B;
	req: IncomingMessage;
	requestId: string;
	/** Idempotency key of the request (header or body), when the route honours one. */
	idempotencyKey: string | null;
}

export interface RouteDef {
	method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
	path: string;
	/** Scope the key needs; undefined = any valid key (GET /workspace). */
	scope?: Scope;
	/** Plan feature the workspace needs (403 plan_required otherwise). */
	feature?: Feature;
	query?: ZodTypeAny;
	body?: ZodTypeAny;
	/** Honours Idempotency-Key (header) / idempotencyKey (body) per the conventions. */
	idempotent?: boolean;
	handler: (ctx: Ctx) => Reply | Promise<Reply>;
}

/** Declares a route with handler types inferred from its schemas. */
export function route<QS extends ZodTypeAny = ZodTypeAny, BS extends ZodTypeAny = ZodTypeAny>(def: {
	method: RouteDef['method'];
	path: string;
	scope?: Scope;
	feature?: Feature;
	query?: QS;
	body?: BS;
	idempotent?: boolean;
	handler: (ctx: Ctx<z.output<QS>, z.output<BS>>) => Reply | Promise<Reply>;
}): RouteDef {
	return def as RouteDef;
}

/** A signed file URL route (no key, no workspace from auth: the signature is the authority). */
export interface FileCtx {
	app: App;
	params: Record<string, string>;
	req: IncomingMessage;
}
export interface FileRouteDef {
	method: 'GET' | 'PUT';
	path: string;
	handler: (ctx: FileCtx) => Reply | Promise<Reply>;
}

export type Compiled<T> = T & { regex: RegExp; names: string[] };
export type CompiledRoute = Compiled<RouteDef>;

export function compile<T extends { path: string }>(def: T): Compiled<T> {
	const names: string[] = [];
	const pattern = def.path
		.replace(/[.*+?^$()|[\]\\]/g, '\\$&')
		.replace(/\{(\w+)\}/g, (_, n: string) => {
			names.push(n);
			return '([^/]+)';
		});
	return { ...def, regex: new RegExp(`^${pattern}$`), names };
}

/** Finds the route for a path; `methods` lists the methods of routes matching the path. */
export function match<T extends { method: string }>(
	routes: Compiled<T>[],
	method: string,
	path: string,
): { route?: Compiled<T>; params: Record<string, string>; methods: string[] } {
	const methods: string[] = [];
	for (const r of routes) {
		const m = r.regex.exec(path);
		if (!m) continue;
		methods.push(r.method);
		if (r.method === method) {
			const params: Record<string, string> = {};
			r.names.forEach((n, i) => (params[n] = decodeURIComponent(m[i + 1])));
			return { route: r, params, methods };
		}
	}
	return { params: {}, methods };
}
