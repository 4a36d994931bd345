/**
 * Endpoint registration: n8n's webhook lifecycle (checkExists, create, delete) keeps exactly one
 * MediaGen webhook endpoint per slot at the node's URL in automatic mode, and checks manual mode's
 * secret (docs/trigger-internals.md, Registration).
 */
import type { IDataObject, IHookFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { listPages } from '../shared/pages';
import { asNodeError, mediaGenRequest, statusOf } from '../shared/transport';
import { isValidSecret } from '../shared/webhookSignature';
import type { Slot } from './slots';
import {
	hookSlot,
	isAutomatic,
	manualSecret,
	setStoredEndpoint,
	slotOf,
	storedEndpoint,
} from './slots';

/** An endpoint as GET /webhooks lists it. */
interface RemoteEndpoint {
	id: string;
	url?: string;
	events?: string[];
	status?: string;
}

/** The events to subscribe to: `*` alone when chosen, otherwise the chosen types, sorted. */
function wantedEvents(ctx: IHookFunctions): string[] {
	const chosen = ctx.getNodeParameter('events', []) as string[];
	if (!Array.isArray(chosen) || chosen.length === 0)
		throw new NodeOperationError(ctx.getNode(), 'Choose at least one event to subscribe to');
	if (chosen.includes('*')) return ['*'];
	return [...new Set(chosen)].sort();
}

function sameEvents(subscribed: string[] | undefined, wanted: string[]): boolean {
	const events = [...new Set(subscribed ?? [])].sort();
	return events.length === wanted.length && events.every((event, i) => event === wanted[i]);
}

function webhookUrl(ctx: IHookFunctions): string {
	const url = ctx.getNodeWebhookUrl('default');
	if (!url) throw new NodeOperationError(ctx.getNode(), 'n8n did not give this node a webhook URL');
	return url;
}

/** The slot an activation or a check is about (the mode's when no stored endpoint decides). */
function activationSlot(ctx: IHookFunctions, url: string): Slot {
	return hookSlot(ctx, url) ?? slotOf(ctx);
}

/** Every endpoint of the workspace (GET /webhooks, all pages). */
async function listEndpoints(ctx: IHookFunctions): Promise<RemoteEndpoint[]> {
	const endpoints: RemoteEndpoint[] = [];
	const pages = listPages(ctx, { path: '/webhooks', pageSize: 100, maxPages: 100 });
	for await (const { records } of pages)
		endpoints.push(...(records as unknown as RemoteEndpoint[]));
	return endpoints;
}

/** DELETE /webhooks/{id}; an endpoint that is already gone counts as deleted. */
async function deleteEndpoint(ctx: IHookFunctions, id: string): Promise<void> {
	try {
		await mediaGenRequest(ctx, { method: 'DELETE', path: `/webhooks/${encodeURIComponent(id)}` });
	} catch (error) {
		if (statusOf(error) !== 404) throw asNodeError(ctx, error);
	}
}

/** Deletes endpoints at this node's URL that the node does not know (left by a lost answer). */
async function deleteStrays(
	ctx: IHookFunctions,
	endpoints: RemoteEndpoint[],
	url: string,
	keepId?: string,
): Promise<void> {
	for (const endpoint of endpoints) {
		if (endpoint.url === url && endpoint.id !== keepId) await deleteEndpoint(ctx, endpoint.id);
	}
}

/** Adds what to do to the errors a registration typically meets. */
function explain(error: unknown): unknown {
	if (!(error instanceof NodeApiError)) return error;
	const hints: Record<string, string> = {
		'403':
			"Registering endpoints needs an API key with the webhooks.manage scope, on the Pro plan or above. Without one, set Registration to Manual and create the endpoint in MediaGen's settings.",
		'422':
			'MediaGen delivers only to public https URLs: n8n must be reachable from the internet (set WEBHOOK_URL, or use a tunnel).',
	};
	const hint = hints[String(error.httpCode)];
	if (hint && !String(error.description ?? '').includes(hint))
		error.description = [error.description, hint].filter(Boolean).join('\n');
	return error;
}

/** Manual mode: the secret must be usable (checked on activation and on listen, never echoed). */
async function checkManualSecret(ctx: IHookFunctions, slot: Slot): Promise<void> {
	const { secret, label } = await manualSecret(ctx, slot);
	if (!isValidSecret(secret))
		throw new NodeOperationError(
			ctx.getNode(),
			`${label} must be the whsec_ secret MediaGen showed when the endpoint was created`,
		);
}

/**
 * Whether the slot's endpoint exists as wanted (active, at this URL, with these events); one that
 * does not is deleted, and so is any other endpoint at this URL.
 */
async function checkExists(ctx: IHookFunctions): Promise<boolean> {
	if (!isAutomatic(ctx)) {
		await checkManualSecret(ctx, activationSlot(ctx, webhookUrl(ctx)));
		return true; // manual mode: nothing is registered
	}
	const url = webhookUrl(ctx);
	const slot = activationSlot(ctx, url);
	const events = wantedEvents(ctx);
	const stored = storedEndpoint(ctx, slot);
	const endpoints = await listEndpoints(ctx);
	await deleteStrays(ctx, endpoints, url, stored?.id);
	if (!stored) return false;
	const remote = endpoints.find((endpoint) => endpoint.id === stored.id);
	const usable =
		remote !== undefined &&
		remote.status === 'active' &&
		remote.url === url &&
		sameEvents(remote.events, events) &&
		typeof stored.secret === 'string' &&
		stored.secret.length > 0;
	if (usable) return true;
	// deleted, disabled, moved or subscribed to other events: replace it
	if (remote) await deleteEndpoint(ctx, remote.id);
	setStoredEndpoint(ctx, slot, undefined);
	return false;
}

/**
 * POST /webhooks. Without an answer (or on a server fault) the endpoint may exist unknown to the
 * node: what stands at the URL is deleted before the error is passed on.
 */
async function postEndpoint(
	ctx: IHookFunctions,
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

/** Registers the slot's endpoint (replacing a stored one) and stores its id and secret. */
async function create(ctx: IHookFunctions): Promise<boolean> {
	if (!isAutomatic(ctx)) return true;
	const url = webhookUrl(ctx);
	const slot = activationSlot(ctx, url);
	const events = wantedEvents(ctx);
	const previous = storedEndpoint(ctx, slot);
	if (previous) {
		await deleteEndpoint(ctx, previous.id);
		setStoredEndpoint(ctx, slot, undefined);
	}
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
	setStoredEndpoint(ctx, slot, {
		id,
		url,
		events: Array.isArray(created.events) ? (created.events as string[]) : events,
		secret,
		createdAt: new Date().toISOString(),
	});
	return true;
}

/**
 * Deletes the slot's endpoint and any other at this URL. On failure the stored id is kept, so
 * that the next activation finds the endpoint and removes it.
 */
async function deleteRegistration(ctx: IHookFunctions): Promise<boolean> {
	if (!isAutomatic(ctx)) return true;
	const url = ctx.getNodeWebhookUrl('default');
	if (!url) return true;
	const slot = hookSlot(ctx, url);
	const stored = slot ? storedEndpoint(ctx, slot) : undefined;
	try {
		if (stored) await deleteEndpoint(ctx, stored.id);
		await deleteStrays(ctx, await listEndpoints(ctx), url);
	} catch (error) {
		ctx.logger.error(
			`MediaGen Trigger: could not delete the webhook endpoint: ${(error as Error).message}`,
		);
		return false;
	}
	if (slot) setStoredEndpoint(ctx, slot, undefined);
	return true;
}

/** n8n's webhook lifecycle methods of the trigger (`webhookMethods.default`). */
export const registrationMethods = {
	async checkExists(this: IHookFunctions): Promise<boolean> {
		try {
			return await checkExists(this);
		} catch (error) {
			throw asNodeError(this, explain(error));
		}
	},
	async create(this: IHookFunctions): Promise<boolean> {
		try {
			return await create(this);
		} catch (error) {
			throw asNodeError(this, explain(error));
		}
	},
	async delete(this: IHookFunctions): Promise<boolean> {
		return await deleteRegistration(this);
	},
};
