/**
 * The MediaGen webhook endpoints as the trigger sees them: the workspace's list, the ones at the
 * node's URL (which are this node's, whatever its static data says), and the requests that change
 * one (docs/trigger-internals.md, Registration).
 */
import type {
	IDataObject,
	IHookFunctions,
	ITriggerFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { MediaGenContext } from '../shared/transport/context';
import { asNodeError, statusOf } from '../shared/transport/errors';
import { mediaGenRequest } from '../shared/transport/request';
import type { RemoteEndpoint } from '../shared/webhooks/deliveries';
import { disabledByMediaGen, enableEndpoint, listEndpoints } from '../shared/webhooks/deliveries';
import type { Slot } from './slots';
import { setStoredEndpoint } from './slots';
import { isValidSecret } from './webhookSignature';

export { listEndpoints };
export type { RemoteEndpoint };

/**
 * The endpoint at this URL the node keeps: the one it knows (`knownId`), otherwise the newest.
 * Undefined when none is at the URL.
 */
export function endpointToKeep(
	endpoints: RemoteEndpoint[],
	url: string,
	knownId?: string,
): RemoteEndpoint | undefined {
	const atUrl = endpoints.filter((endpoint) => endpoint.url === url);
	const known = atUrl.find((endpoint) => endpoint.id === knownId);
	if (known) return known;
	return atUrl.sort(
		(a, b) => (Date.parse(b.created_at ?? '') || 0) - (Date.parse(a.created_at ?? '') || 0),
	)[0];
}

/** DELETE /webhooks/{id}; an endpoint that is already gone counts as deleted. */
export async function deleteEndpoint(ctx: MediaGenContext, id: string): Promise<void> {
	try {
		await mediaGenRequest(ctx, { method: 'DELETE', path: `/webhooks/${encodeURIComponent(id)}` });
	} catch (error) {
		if (statusOf(error) !== 404) throw asNodeError(ctx, error);
	}
}

/** Deletes the endpoints at this node's URL other than `keepId` (left by a lost answer). */
export async function deleteStrays(
	ctx: MediaGenContext,
	endpoints: RemoteEndpoint[],
	url: string,
	keepId?: string,
): Promise<void> {
	for (const endpoint of endpoints) {
		if (endpoint.url === url && endpoint.id !== keepId) await deleteEndpoint(ctx, endpoint.id);
	}
}

/** POST /webhooks/{id}/rotate-secret: the new secret (returned once). */
export async function rotateSecret(ctx: MediaGenContext, id: string): Promise<string> {
	const rotated = await mediaGenRequest<IDataObject>(ctx, {
		method: 'POST',
		path: `/webhooks/${encodeURIComponent(id)}/rotate-secret`,
	});
	if (typeof rotated?.secret !== 'string' || !isValidSecret(rotated.secret))
		throw new Error(`MediaGen did not return a usable new secret for endpoint ${id}`);
	return rotated.secret;
}

/** PATCH /webhooks/{id} with the events to subscribe to. */
export async function setEvents(ctx: MediaGenContext, id: string, events: string[]): Promise<void> {
	await mediaGenRequest(ctx, {
		method: 'PATCH',
		path: `/webhooks/${encodeURIComponent(id)}`,
		body: { events },
	});
}

/** An error that may pass by itself: no answer, a server fault, or the rate limit. */
export function isTransient(error: unknown): boolean {
	const status = statusOf(error);
	if (status !== undefined) return status >= 500 || status === 429;
	// a request that got no answer (n8n-workflow's own class, or another copy's: isNodeError)
	return error instanceof NodeApiError || (error instanceof Error && error.name === 'NodeApiError');
}

/** Whether an endpoint subscribes to exactly the wanted events (order and repeats aside). */
export function sameEvents(subscribed: string[] | undefined, wanted: string[]): boolean {
	const events = [...new Set(subscribed ?? [])].sort();
	return events.length === wanted.length && events.every((event, i) => event === wanted[i]);
}

/**
 * The contexts that keep the endpoint: the activation (webhook lifecycle), the periodic check, and
 * a delivery to a workflow published before the checks (publication.ts).
 */
type KeeperContext = IHookFunctions | ITriggerFunctions | IWebhookFunctions;

/** The events to subscribe to: `*` alone when chosen, otherwise the chosen types, sorted. */
export function wantedEvents(ctx: KeeperContext): string[] {
	const chosen = ctx.getNodeParameter('events', []) as string[];
	if (!Array.isArray(chosen) || chosen.length === 0)
		throw new NodeOperationError(ctx.getNode(), 'Choose at least one event to subscribe to');
	if (chosen.includes('*')) return ['*'];
	return [...new Set(chosen)].sort();
}

/** Whether an endpoint subscribed to `events` receives events of `type`. */
export function subscribes(events: string[], type: string | undefined): boolean {
	return events.includes('*') || (type !== undefined && events.includes(type));
}

/**
 * Brings a kept endpoint in line: other events are set, and one MediaGen disabled after failed
 * deliveries is enabled again; its id, URL, secret and pending retries stay. One disabled
 * otherwise (a user, in MediaGen's settings or with MediaGen → Webhook → Update) stays disabled:
 * false, and a warning says so.
 */
export async function bringInLine(
	ctx: KeeperContext,
	endpoint: RemoteEndpoint,
	events: string[],
): Promise<boolean> {
	const label = `MediaGen Trigger "${ctx.getNode().name}"`;
	if (!sameEvents(endpoint.events, events)) await setEvents(ctx, endpoint.id, events);
	if (endpoint.status === 'active') return true;
	if (!disabledByMediaGen(endpoint)) {
		ctx.logger.warn(
			`${label}: its webhook endpoint ${endpoint.id} was disabled in MediaGen, not after failed deliveries (by a user, or an app with the API key). The trigger leaves it disabled and receives no events; enable it in MediaGen (or with MediaGen → Webhook → Update, Status active) to receive events again.`,
		);
		return false;
	}
	await enableEndpoint(ctx, endpoint.id);
	ctx.logger.warn(
		`${label}: MediaGen had disabled webhook endpoint ${endpoint.id} (deliveries kept failing); enabled it again`,
	);
	return true;
}

/**
 * POST /webhooks. Without an answer (or on a server fault) the endpoint may exist unknown to the
 * node: what stands at the URL is deleted before the error is passed on.
 */
async function postEndpoint(
	ctx: KeeperContext,
	url: string,
	events: string[],
): Promise<IDataObject> {
	const description = `n8n: ${ctx.getWorkflow().name ?? 'workflow'} / ${ctx.getNode().name}`.slice(
		0,
		200,
	);
	try {
		return await mediaGenRequest<IDataObject>(ctx, {
			method: 'POST',
			path: '/webhooks',
			body: { url, description, events },
		});
	} catch (error) {
		const status = error instanceof NodeApiError ? (statusOf(error) ?? 0) : 0;
		if (!(status > 0 && status < 500)) {
			try {
				await deleteStrays(ctx, await listEndpoints(ctx), url);
			} catch (cleanupError) {
				ctx.logger.warn(
					`MediaGen Trigger: could not check for an endpoint left by a failed registration: ${(cleanupError as Error).message}`,
				);
			}
		}
		throw asNodeError(ctx, error);
	}
}

/** Registers an endpoint at the node's URL for the slot and stores its id and secret. */
export async function registerEndpoint(
	ctx: KeeperContext,
	slot: Slot,
	url: string,
	events: string[],
): Promise<string> {
	const created = await postEndpoint(ctx, url, events);
	const id = typeof created.id === 'string' ? created.id : undefined;
	const secret = typeof created.secret === 'string' ? created.secret : undefined;
	if (!id || !secret) {
		if (id) await deleteEndpoint(ctx, id);
		throw new NodeOperationError(
			ctx.getNode(),
			'MediaGen did not return the endpoint id and signing secret',
		);
	}
	const now = new Date().toISOString();
	setStoredEndpoint(ctx, slot, {
		id,
		url,
		events: Array.isArray(created.events) ? (created.events as string[]) : events,
		secret,
		createdAt: now,
		secretAt: now,
	});
	return id;
}
