/**
 * Workflows whose last publication did not set up the trigger's checks: n8n 2.x decides at
 * publication whether a trigger runs on every start (a node type with a `trigger` method), so a
 * workflow published with a version of this package before it had one runs no check on start and
 * no periodic check until it is published again (docs/trigger-internals.md, Upgrading). Such a
 * workflow's deliveries still run this version's code: a verified one says so in n8n's log and
 * in the execution, and checks the endpoint as a start would (at most every KEEPER.minutes).
 */
import type { IExecuteFunctions, IHookFunctions, IWebhookFunctions } from 'n8n-workflow';

import { catchUp, KEEPER } from './catchUp';
import { bringInLine, endpointToKeep, listEndpoints, wantedEvents } from './endpoints';
import type { StoredEndpoint, TriggerContext } from './slots';
import { isAutomatic, slotOf, storedEndpoint } from './slots';

/** Static data: set by every activation of the production endpoint by this version's lifecycle. */
const CHECKED_ON_START = 'checkedOnStart';

/**
 * Records that the workflow's activation ran this version's webhook lifecycle, which n8n pairs
 * with the `trigger` method (the checks on start and every 10 minutes). Called by checkExists.
 */
export function markActivation(ctx: IHookFunctions): void {
	const data = ctx.getWorkflowStaticData('node');
	if (data[CHECKED_ON_START] !== true) data[CHECKED_ON_START] = true;
}

/**
 * The production endpoint of an automatic trigger whose workflow was last published without the
 * checks (no activation by this version recorded), when it is at the node's URL.
 */
function uncheckedEndpoint(ctx: IWebhookFunctions | IExecuteFunctions): StoredEndpoint | undefined {
	if (slotOf(ctx) !== 'production' || !isAutomatic(ctx)) return undefined;
	if (ctx.getWorkflowStaticData('node')[CHECKED_ON_START] === true) return undefined;
	return storedEndpoint(ctx, 'production');
}

function workflowLabel(ctx: TriggerContext): string {
	const workflow = ctx.getWorkflow();
	return `MediaGen Trigger "${ctx.getNode().name}" in workflow "${workflow.name ?? ''}" (${workflow.id ?? ''})`;
}

/** What to do, as the log and the execution hint say it. */
export const REPUBLISH_ADVICE =
	'Publish the workflow again (unpublish and publish it, or publish any change) so that n8n checks its webhook endpoint on every start and every 10 minutes.';

/** Per workflow and node (this process): when a delivery last started a check. */
const lastChecks = new Map<string, number>();

/** The endpoint checked as on a start (`first`) or by the periodic check; never throws. */
async function checkFromDelivery(
	ctx: IWebhookFunctions,
	stored: StoredEndpoint,
	first: boolean,
): Promise<void> {
	try {
		const endpoint = endpointToKeep(await listEndpoints(ctx), stored.url, stored.id);
		if (!endpoint) return; // the request verified with its secret: gone since; the next activation registers one
		const events = wantedEvents(ctx);
		if (await bringInLine(ctx, endpoint, events)) await catchUp(ctx, endpoint.id, events, first);
	} catch (error) {
		ctx.logger.warn(
			`${workflowLabel(ctx)}: could not check its webhook endpoint (${(error as Error).message})`,
		);
	}
}

/**
 * On a verified delivery (only MediaGen has the secret) of a workflow published without the
 * checks: the first one in this process logs a warning naming the workflow and what to do, and
 * it and later ones, at most every KEEPER.minutes, check the endpoint in the background (events
 * set, enabled when MediaGen disabled it, failed deliveries sent again).
 */
export function checkEarlierPublication(ctx: IWebhookFunctions): void {
	const stored = uncheckedEndpoint(ctx);
	if (!stored || stored.url !== ctx.getNodeWebhookUrl('default')) return;
	const key = `${ctx.getWorkflow().id ?? ''}/${ctx.getNode().id}`;
	const now = Date.now();
	const last = lastChecks.get(key);
	if (last !== undefined && now - last < KEEPER.minutes * 60_000) return;
	if (lastChecks.size >= 1000 && last === undefined)
		lastChecks.delete(lastChecks.keys().next().value as string);
	lastChecks.set(key, now);
	if (last === undefined)
		ctx.logger.warn(
			`${workflowLabel(ctx)} was published with an earlier version of n8n-nodes-mediagen: n8n runs no check of its webhook endpoint on start and no periodic check for it, so an endpoint MediaGen disabled while n8n was down for hours stays disabled. Until then its endpoint is checked, and failed deliveries sent again, only when an event reaches it (at most every ${KEEPER.minutes} minutes). ${REPUBLISH_ADVICE}`,
		);
	void checkFromDelivery(ctx, stored, last === undefined);
}

/** The same in the execution: a hint on the trigger's output (n8n shows it in the node's panel). */
export function hintEarlierPublication(ctx: IExecuteFunctions): void {
	if (!uncheckedEndpoint(ctx)) return;
	ctx.addExecutionHints({
		message: `This workflow was published with an earlier version of n8n-nodes-mediagen: n8n does not check this trigger's webhook endpoint on start. ${REPUBLISH_ADVICE}`,
		location: 'outputPane',
	});
}
