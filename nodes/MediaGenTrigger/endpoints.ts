/**
 * The MediaGen webhook endpoints as the trigger sees them: the workspace's list, the ones at the
 * node's URL (which are this node's, whatever its static data says), and the requests that change
 * one (docs/trigger-internals.md, Registration).
 */
import type { IDataObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { MediaGenContext } from '../shared/transport/context';
import { asNodeError, statusOf } from '../shared/transport/errors';
import { mediaGenRequest } from '../shared/transport/request';
import type { RemoteEndpoint } from '../shared/webhooks/deliveries';
import { listEndpoints } from '../shared/webhooks/deliveries';
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
