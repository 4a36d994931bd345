/**
 * Endpoint registration: n8n's webhook lifecycle (checkExists, create, delete) keeps exactly one
 * MediaGen webhook endpoint per slot at the node's URL in automatic mode, brings back one MediaGen
 * disabled, and checks manual mode's secret (docs/trigger-internals.md, Registration).
 */
import type { IHookFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { asNodeError } from '../shared/transport/errors';
import { catchUp } from './catchUp';
import type { RemoteEndpoint } from './endpoints';
import {
	bringInLine,
	deleteEndpoint,
	deleteStrays,
	endpointToKeep,
	isTransient,
	listEndpoints,
	registerEndpoint,
	rotateSecret,
	wantedEvents,
} from './endpoints';
import type { Slot, StoredEndpoint } from './slots';
import {
	hookSlot,
	isAutomatic,
	manualSecret,
	setStoredEndpoint,
	slotOf,
	storedEndpoint,
} from './slots';
import { markActivation } from './publication';
import { isValidSecret } from './webhookSignature';

/**
 * How long a deactivated production endpoint is kept before it is deleted: re-publishing a changed
 * trigger removes and re-adds it (n8n 2.x), and the endpoint, its secret and its pending retries
 * are kept across that. Exported for tests.
 */
export const DEACTIVATION = { graceMs: 15_000 };

/** Production endpoints of this process waiting for deletion: endpoint id -> node URL. */
const retiring = new Map<string, string>();

/**
 * Cancels the grace deletions of this process for endpoints at this URL (the trigger is added
 * again); whether there was one (a re-publish).
 */
function cancelGraceDeletions(url: string): boolean {
	let cancelled = false;
	for (const [id, at] of retiring) {
		if (at !== url) continue;
		retiring.delete(id);
		cancelled = true;
	}
	return cancelled;
}

/** Windows of deliberate inactivity kept per endpoint (the shortest is dropped beyond). */
const MAX_INACTIVE_WINDOWS = 20;

/**
 * The stored endpoint of a trigger added again: a deactivation that was not a re-publish (the
 * endpoint was not waiting for its grace deletion in this process) becomes a window of
 * inactivity, whose events are never replayed.
 */
function reactivated(stored: StoredEndpoint, republished: boolean): StoredEndpoint {
	const { inactiveSince, ...endpoint } = stored;
	if (!inactiveSince || republished) return endpoint;
	const inactive = [...(stored.inactive ?? []), [inactiveSince, new Date().toISOString()]] as Array<
		[string, string]
	>;
	const span = ([from, to]: [string, string]) => Date.parse(to) - Date.parse(from);
	while (inactive.length > MAX_INACTIVE_WINDOWS) {
		const shortest = inactive.reduce(
			(best, window, i) => (span(window) < span(inactive[best]) ? i : best),
			0,
		);
		inactive.splice(shortest, 1);
	}
	return { ...endpoint, inactive };
}

/** The deletions after a grace period under way in this process. */
const graceDeletions = new Set<Promise<void>>();

/** Resolves when every deletion after a grace period of this process is done (for tests). */
export async function deactivationsSettled(): Promise<void> {
	while (graceDeletions.size) await Promise.all([...graceDeletions]);
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
 * The slot's stored endpoint when it is at this URL. One stored for another URL belongs to a copy
 * of the workflow (an import, another n8n): it is forgotten here, never deleted.
 */
function ownStoredEndpoint(
	ctx: IHookFunctions,
	slot: Slot,
	url: string,
): StoredEndpoint | undefined {
	const stored = storedEndpoint(ctx, slot);
	if (!stored || stored.url === url) return stored;
	ctx.logger.info(
		`MediaGen Trigger "${ctx.getNode().name}": the workflow's data names webhook endpoint ${stored.id} at another URL (a copy of another workflow); it is left as it is and this node registers its own`,
	);
	setStoredEndpoint(ctx, slot, undefined);
	return undefined;
}

/**
 * The secret of the endpoint kept at this URL: the stored one, or a new one when the node does not
 * have it (the endpoint is taken over: a lost answer, a static data copy saved over the
 * registration). Stored at once, with the endpoint.
 */
async function keepEndpoint(
	ctx: IHookFunctions,
	slot: Slot,
	endpoint: RemoteEndpoint,
	known: StoredEndpoint | undefined,
	events: string[],
): Promise<void> {
	const same = known?.id === endpoint.id;
	const now = new Date().toISOString();
	const kept: StoredEndpoint = {
		...(same ? known : { createdAt: now, inactive: known?.inactive }),
		id: endpoint.id,
		url: endpoint.url ?? '',
		events,
		secret: same ? known.secret : '',
	};
	if (!kept.secret) {
		kept.secret = await rotateSecret(ctx, endpoint.id);
		kept.secretAt = new Date().toISOString();
		ctx.logger.info(
			`MediaGen Trigger "${ctx.getNode().name}": took over webhook endpoint ${endpoint.id} at its URL (new secret)`,
		);
	}
	setStoredEndpoint(ctx, slot, kept);
}

/**
 * Whether the slot's endpoint exists at this URL (kept, taken over, enabled, events set); any other
 * endpoint at this URL is deleted. False when none is there: n8n then calls create. When MediaGen
 * does not answer, a stored endpoint is kept as it is: the activation does not fail for it, and the
 * periodic check tries again.
 */
async function checkExists(ctx: IHookFunctions): Promise<boolean> {
	if (!isAutomatic(ctx)) {
		await checkManualSecret(ctx, activationSlot(ctx, webhookUrl(ctx)));
		return true; // manual mode: nothing is registered
	}
	const url = webhookUrl(ctx);
	const slot = activationSlot(ctx, url);
	if (slot === 'production') markActivation(ctx); // n8n runs this version's checks for it
	const events = wantedEvents(ctx);
	// the trigger is added again: its endpoint stays, whatever MediaGen answers now
	const republished = cancelGraceDeletions(url);
	let known = ownStoredEndpoint(ctx, slot, url);
	if (known?.inactiveSince) {
		known = reactivated(known, republished);
		setStoredEndpoint(ctx, slot, known);
	}
	try {
		const endpoints = await listEndpoints(ctx);
		const keep = endpointToKeep(endpoints, url, known?.id);
		await deleteStrays(ctx, endpoints, url, keep?.id);
		if (!keep) {
			if (known) {
				ctx.logger.warn(
					`MediaGen Trigger "${ctx.getNode().name}": its webhook endpoint ${known.id} was deleted at MediaGen (outside n8n); the events MediaGen had for it are lost. A new endpoint is registered.`,
				);
				setStoredEndpoint(ctx, slot, undefined);
			}
			return false;
		}
		retiring.delete(keep.id); // a re-added trigger keeps its endpoint
		await keepEndpoint(ctx, slot, keep, known, events);
		const receiving = await bringInLine(ctx, keep, events);
		// the events MediaGen could not deliver: sent again, in the background
		if (slot === 'production' && receiving) void catchUp(ctx, keep.id, events, true);
		return true;
	} catch (error) {
		const stored = storedEndpoint(ctx, slot);
		if (!(stored?.url === url && isTransient(error))) throw asNodeError(ctx, error);
		ctx.logger.warn(
			`MediaGen Trigger "${ctx.getNode().name}": could not check webhook endpoint ${stored.id} (${(error as Error).message}); kept as it is, the periodic check tries again`,
		);
		return true;
	}
}

/** Registers the slot's endpoint (replacing a stored one at this URL) and stores its id and secret. */
async function create(ctx: IHookFunctions): Promise<boolean> {
	if (!isAutomatic(ctx)) return true;
	const url = webhookUrl(ctx);
	const slot = activationSlot(ctx, url);
	const events = wantedEvents(ctx);
	const previous = ownStoredEndpoint(ctx, slot, url);
	if (previous) {
		await deleteEndpoint(ctx, previous.id);
		setStoredEndpoint(ctx, slot, undefined);
	}
	await registerEndpoint(ctx, slot, url, events);
	return true;
}

/**
 * Deletes a deactivated production endpoint after the grace period, unless the trigger was added
 * again meanwhile (a re-publish), in which case checkExists took it over.
 */
function deleteAfterGrace(ctx: IHookFunctions, id: string, url: string): void {
	retiring.set(id, url);
	const deletion = (async () => {
		await sleep(DEACTIVATION.graceMs);
		if (retiring.get(id) !== url) return;
		retiring.delete(id);
		try {
			await deleteEndpoint(ctx, id);
		} catch (error) {
			ctx.logger.error(
				`MediaGen Trigger: could not delete the webhook endpoint ${id} of a deactivated trigger: ${(error as Error).message}`,
			);
		}
	})();
	graceDeletions.add(deletion);
	void deletion.finally(() => graceDeletions.delete(deletion));
}

/**
 * Deactivation. The production endpoint is kept for DEACTIVATION.graceMs (a re-publish adds the
 * trigger again at once) and then deleted; the test URL's endpoint, and anything else at the URL,
 * at once. On failure the stored id is kept, so that the next activation finds the endpoint.
 */
async function deleteRegistration(ctx: IHookFunctions): Promise<boolean> {
	if (!isAutomatic(ctx)) return true;
	const url = ctx.getNodeWebhookUrl('default');
	if (!url) return true;
	const slot = hookSlot(ctx, url);
	const stored = slot ? storedEndpoint(ctx, slot) : undefined;
	let own = stored?.url === url ? stored : undefined;
	if (slot === 'production' && own && !own.inactiveSince) {
		// from now on the workflow is off: events of this time are never replayed
		own = { ...own, inactiveSince: new Date().toISOString() };
		setStoredEndpoint(ctx, slot, own);
	}
	try {
		const endpoints = await listEndpoints(ctx);
		if (slot === 'production' && own) {
			await deleteStrays(ctx, endpoints, url, own.id);
			if (endpoints.some((endpoint) => endpoint.id === own?.id)) deleteAfterGrace(ctx, own.id, url);
			return true; // kept in static data: a re-added trigger takes it over
		}
		if (own) await deleteEndpoint(ctx, own.id);
		await deleteStrays(ctx, endpoints, url);
	} catch (error) {
		ctx.logger.error(
			`MediaGen Trigger: could not delete the webhook endpoint: ${(error as Error).message}`,
		);
		return false;
	}
	if (slot && own) setStoredEndpoint(ctx, slot, undefined);
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
