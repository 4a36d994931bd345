/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * Programmatic entry: `startSandbox()` starts the simulator in-process (tests use port 0).
 */
import { createServer, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { App, DEFAULT_CONFIG } from './app';
import { makeControl, type SandboxControl } from './control';
import { createHandler } from './server';
import { KEYS } from './state';

export interface SandboxOptions {
	/** Port to listen on; 0 = a random free port. Default 4010. */
	port?: number;
	/** Default 127.0.0.1. */
	host?: string;
	/** Requests per minute per key; 0 disables. Default 120. */
	rateLimitPerMinute?: number;
	/** Multiplies job durations and the webhook retry schedule. Default 1. */
	timeScale?: number;
	/** Test mode: accept and deliver to http://localhost / 127.0.0.1 webhook URLs. */
	allowHttpWebhooks?: boolean;
	/** No console output. */
	quiet?: boolean;
	/** Serve https with this certificate instead of plain http (B1 over TLS). */
	tls?: { key: string; cert: string };
}

export interface SandboxKeys {
	/** Pro workspace "Main", all scopes. */
	pro: string;
	/** Workspace "Main", content.read only. */
	readOnly: string;
	/** Workspace "Main", every scope but billing.view. */
	noBilling: string;
	/** Pro workspace "Other", all scopes. */
	otherWorkspace: string;
	/** Starter-plan workspace, all scopes (no webhooks). */
	starter: string;
}

export interface Sandbox {
	/** `http://127.0.0.1:<port>/v1` */
	baseUrl: string;
	/** `http://127.0.0.1:<port>` */
	origin: string;
	port: number;
	keys: SandboxKeys;
	close(): Promise<void>;
	control: SandboxControl;
}

export const SANDBOX_KEYS: SandboxKeys = Object.fromEntries(
	KEYS.map((k) => [k.name, k.secret]),
) as unknown as SandboxKeys;

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	const app = new App(
		{
			...DEFAULT_CONFIG,
			rateLimitPerMinute: options.rateLimitPerMinute ?? DEFAULT_CONFIG.rateLimitPerMinute,
			timeScale: options.timeScale ?? DEFAULT_CONFIG.timeScale,
			allowHttpWebhooks: options.allowHttpWebhooks ?? DEFAULT_CONFIG.allowHttpWebhooks,
		},
		options.quiet ?? false,
	);
	const handler = createHandler(app);
	const server: Server = options.tls ? createTlsServer(options.tls, handler) : createServer(handler);
	server.keepAliveTimeout = 5000;
	const host = options.host ?? '127.0.0.1';
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 4010, host, () => resolve());
	});
	const port = (server.address() as AddressInfo).port;
	app.origin = `${options.tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
	return {
		baseUrl: app.baseUrl,
		origin: app.origin,
		port,
		keys: { ...SANDBOX_KEYS },
		control: makeControl(app),
		close: async () => {
			app.close();
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

export type { SandboxControl } from './control';
export type { SandboxConfig } from './state';
export type { FaultInput, Fault } from './faults';
export type { GatedRequest, RequestEvent, RequestGate, RequestLogEntry } from './requestLog';
export type { SentDelivery } from './hooks';
export { patternByte, PATTERN_MODULUS } from './media';
