/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * What the trigger's engine tests share: the sandbox (its deliveries time-scaled), n8n-core's log
 * lines captured, a FakeN8n per test (closed after it), the sandbox's API as the pro key, and
 * deliveries signed the way the service signs them (sandbox/hooks.ts, independent of the node).
 */
import { dirname } from 'node:path';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { KEEPER } from '../../../nodes/MediaGenTrigger/catchUp';
import { DEACTIVATION, deactivationsSettled } from '../../../nodes/MediaGenTrigger/registration';
import { DELIVERY_RECOVERY } from '../../../nodes/shared/webhooks/deliveries';
import { sign } from '../../../sandbox/hooks';
import { useSandbox } from './setup';
import { FakeN8n } from './triggerHarness';
import { sleep, until } from '../sandbox/helpers';

/** n8n-core's own copies of @n8n/di and @n8n/backend-common (it nests them). */
function fromCore<T>(name: string): T {
	const core = dirname(require.resolve('n8n-core'));
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	return require(require.resolve(name, { paths: [core] })) as T;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Body = any;

export interface Endpoint {
	id: string;
	url: string;
	events: string[];
	status: string;
	secret?: string;
}

export { sleep, until } from '../sandbox/helpers';

export const automatic = (
	events: string[] = ['generation.completed'],
	options: INodeParameters = {},
): INodeParameters => ({ registration: 'automatic', events, options });

export function stored(
	n8n: FakeN8n,
	slot: 'production' | 'test' = 'production',
): IDataObject | undefined {
	const data = (n8n.staticData['node:MediaGen Trigger'] ?? {}) as IDataObject;
	return data[slot] as IDataObject | undefined;
}

/** A delivery signed like the service signs (sandbox/hooks.ts, independent of the node). */
export function signed(
	secret: string,
	body: string,
	{
		id = `evt_${Math.random().toString(16).slice(2, 14)}`,
		timestamp = Math.floor(Date.now() / 1000),
	} = {},
): { id: string; timestamp: number; headers: Record<string, string>; body: string } {
	return {
		id,
		timestamp,
		body,
		headers: {
			'content-type': 'application/json',
			'webhook-id': id,
			'webhook-timestamp': String(timestamp),
			'webhook-signature': sign(secret, id, timestamp, body),
		},
	};
}

export function eventBody(
	id: string,
	type = 'generation.completed',
	data: IDataObject = {},
): string {
	return JSON.stringify({
		id,
		type,
		created_at: new Date().toISOString(),
		workspace_id: 'ws_test',
		data: { id: 'gen_1', status: 'completed', outputs: [], ...data },
	});
}

/** A delivery as GET /webhooks/{id}/deliveries lists it. */
export interface Delivery {
	id: string;
	event_id: string;
	event_type: string;
	status: string;
	created_at: string;
	attempts: Array<{ at: string; response_status: number | null }>;
}

/** How many executions each event started (by the event id in the trigger's output). */
export function runsPerEvent(n8n: FakeN8n): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const items of n8n.outputs())
		for (const item of items)
			counts[String(item.json.id)] = (counts[String(item.json.id)] ?? 0) + 1;
	return counts;
}

export async function post(url: string, headers: Record<string, string>, body: string | Buffer) {
	const res = await fetch(url, { method: 'POST', headers, body });
	return { status: res.status, body: await res.text() };
}

/** The sandbox, the captured log lines and the helpers bound to them (call at the file's top). */
export function useTriggerKit(options: { timeScale: number }) {
	jest.setTimeout(300_000);
	const { Container } = fromCore<typeof import('@n8n/di')>('@n8n/di');
	const { Logger } = fromCore<typeof import('@n8n/backend-common')>('@n8n/backend-common');
	const { sb, creds, runOne } = useSandbox({
		timeScale: options.timeScale,
		allowHttpWebhooks: true,
	});
	const logs: string[] = [];

	beforeAll(() => {
		// a deactivated endpoint is kept this long for a re-publish (15 s in n8n), then deleted
		DEACTIVATION.graceMs = 100;
		// no pacing of the checks and replays, and every check lists the endpoints itself (a test
		// that measures these sets them: triggerRecovery.test.ts, one pace per key)
		Object.assign(KEEPER, { checkRequestsPerMinute: 60_000, listingMaxAgeMs: 0 });
		DELIVERY_RECOVERY.retriesPerMinute = 60_000;
		// every log line n8n-core's contexts give the node goes here (to check for secrets)
		const capture =
			(level: string) =>
			(message: string, meta?: unknown): void => {
				logs.push(`${level} ${message} ${meta ? JSON.stringify(meta) : ''}`);
			};
		const logger = {
			error: capture('error'),
			warn: capture('warn'),
			info: capture('info'),
			debug: capture('debug'),
			scoped: () => logger,
		};
		Container.set(Logger, logger as unknown as InstanceType<typeof Logger>);
	});

	const open: FakeN8n[] = [];
	afterEach(async () => {
		for (const n8n of open.splice(0)) await n8n.close();
		sb.control.clearFaults();
	});

	async function api(method: string, path: string, body?: unknown): Promise<Body> {
		const res = await fetch(`${sb.baseUrl}${path}`, {
			method,
			headers: {
				authorization: `Bearer ${sb.keys.pro}`,
				...(body !== undefined ? { 'content-type': 'application/json' } : {}),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await res.text();
		if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
		return JSON.parse(text);
	}

	async function endpoints(): Promise<Endpoint[]> {
		return ((await api('GET', '/webhooks?limit=100')) as { data: Endpoint[] }).data;
	}

	/** Every endpoint of the workspace, all pages of GET /webhooks. */
	async function allEndpoints(): Promise<Endpoint[]> {
		const all: Endpoint[] = [];
		let page = await api('GET', '/webhooks?limit=100');
		all.push(...page.data);
		while (page.nextCursor) {
			page = await api('GET', `/webhooks?limit=100&before=${encodeURIComponent(page.nextCursor)}`);
			all.push(...page.data);
		}
		return all;
	}

	/** The workspace's endpoints once the deactivated ones are deleted (after the grace period). */
	async function afterGrace(): Promise<Endpoint[]> {
		await sleep(DEACTIVATION.graceMs);
		await deactivationsSettled();
		return await endpoints();
	}

	async function fakeN8n(
		parameters: INodeParameters,
		queueMode = false,
		apiKey = sb.keys.pro,
		version: {
			typeVersion?: number;
			secrets?: { productionSecret: string; testSecret?: string };
			n8nMajor?: 1 | 2;
			afterParameters?: INodeParameters;
			staticData?: IDataObject;
		} = {},
	): Promise<FakeN8n> {
		const n8n = await FakeN8n.start({
			credentials: { ...creds(apiKey), mediaGenWebhookSecretApi: version.secrets },
			typeVersion: version.typeVersion,
			parameters,
			queueMode,
			n8nMajor: version.n8nMajor,
			afterParameters: version.afterParameters,
		});
		if (version.staticData) n8n.staticData = JSON.parse(JSON.stringify(version.staticData));
		open.push(n8n);
		return n8n;
	}

	async function generate(params: IDataObject = {}): Promise<Body> {
		return await api('POST', '/generations', {
			modelId: 'sandbox-image',
			prompt: 'a red fox in the snow',
			params: { sandbox: { durationMs: 20 }, ...params },
		});
	}

	async function deliveriesOf(endpointId: string): Promise<Delivery[]> {
		return (await api('GET', `/webhooks/${endpointId}/deliveries?limit=100`)).data as Delivery[];
	}

	/**
	 * `count` events (made by `happen`, default a generation each) while n8n does not take them
	 * (down, or the workflow deactivated), until MediaGen gave up on each (its schedule, scaled):
	 * their deliveries, failed.
	 */
	async function outage(
		n8n: FakeN8n,
		endpointId: string,
		count: number,
		happen: () => Promise<unknown> = generate,
	): Promise<Delivery[]> {
		const earlier = new Set((await deliveriesOf(endpointId)).map((d) => d.id));
		n8n.offline = true;
		const scale = sb.control.config().timeScale;
		sb.control.setConfig({ timeScale: 0.0001 }); // 11 h of retries in 4 s
		for (let i = 0; i < count; i++) await happen();
		const failed = (await until(async () => {
			const fresh = (await deliveriesOf(endpointId)).filter((d) => !earlier.has(d.id));
			return fresh.length === count && fresh.every((d) => d.status === 'failed')
				? fresh
				: undefined;
		}, 30_000)) as Delivery[];
		n8n.offline = false;
		sb.control.setConfig({ timeScale: scale });
		return failed;
	}

	return {
		sb,
		creds,
		deliveriesOf,
		outage,
		runOne,
		logs,
		api,
		endpoints,
		allEndpoints,
		afterGrace,
		fakeN8n,
		generate,
		sleep,
		until,
		automatic,
		stored,
		signed,
		eventBody,
		post,
	};
}
