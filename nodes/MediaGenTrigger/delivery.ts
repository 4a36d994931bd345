/**
 * The webhook handler: verifies each request (Standard Webhooks) before anything runs, drops
 * repeats and unwanted types, and starts the workflow with the event; whatever the body, it
 * answers and never throws (docs/trigger-internals.md, Delivery).
 */
import type {
	IDataObject,
	INodeExecutionData,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { PING_EVENT_TYPE } from '../shared/webhooks/deliveries';
import { verifyWebhook } from './webhookSignature';
import type { TriggerOptions } from './properties';
import { checkEarlierPublication } from './publication';
import { isDuplicate } from './replay';
import { repairRotatedSecret } from './secretRepair';
import { isAutomatic, madeWhileInactive, manualSecret, slotOf, storedEndpoint } from './slots';

export { PING_EVENT_TYPE };

/** Delivery headers copied to the output: all of them are safe to show (no signature). */
const SAFE_HEADERS = ['webhook-id', 'webhook-timestamp', 'content-type', 'user-agent'];

type RequestHeaders = ReturnType<IWebhookFunctions['getHeaderData']>;

/** A request that passed verification, or the answer that refused it (already sent). */
type Verification =
	| { ok: true; webhookId: string; event: IDataObject; headers: RequestHeaders }
	| { ok: false; response: IWebhookResponseData };

/** Answers the request directly (n8n sends nothing more) with a JSON body. */
function answer(ctx: IWebhookFunctions, status: number, body: IDataObject): void {
	ctx.getResponseObject().status(status).json(body);
}

function refuse(ctx: IWebhookFunctions, status: number, reason: string): IWebhookResponseData {
	ctx.logger.debug(`MediaGen Trigger refused a request (${status}): ${reason}`);
	answer(ctx, status, {
		error: status === 401 ? 'invalid_signature' : 'bad_request',
		message: reason,
	});
	return { noWebhookResponse: true };
}

/**
 * The request body exactly as received (n8n reads it on demand for a type it does not parse), or
 * why it cannot be had: a body n8n's form-data parser consumed (multipart), one that does not
 * match its content-length or its content-encoding. MediaGen sends none of these.
 */
async function rawBodyOf(ctx: IWebhookFunctions): Promise<Buffer | string> {
	const request = ctx.getRequestObject() as unknown as {
		rawBody?: Buffer | string;
		readRawBody?: () => Promise<void>;
	};
	try {
		if (request.rawBody === undefined && typeof request.readRawBody === 'function')
			await request.readRawBody();
	} catch (error) {
		return `The request body could not be read (${(error as Error).message})`;
	}
	if (Buffer.isBuffer(request.rawBody)) return request.rawBody;
	if (typeof request.rawBody === 'string') return Buffer.from(request.rawBody, 'utf8');
	return 'The raw request body is not available (MediaGen sends application/json)';
}

/**
 * Checks the signature with the slot's secret, then reads the event exactly as signed. A wrong
 * signature at a registered endpoint may mean a secret rotated elsewhere: after the refusal is
 * sent, the secret is repaired when MediaGen's delivery log proves the request genuine.
 */
async function verify(ctx: IWebhookFunctions, automatic: boolean): Promise<Verification> {
	const slot = slotOf(ctx);
	const secret = automatic
		? (storedEndpoint(ctx, slot)?.secret ?? '')
		: (await manualSecret(ctx, slot)).secret;
	const rawBody = await rawBodyOf(ctx);
	if (typeof rawBody === 'string') return { ok: false, response: refuse(ctx, 400, rawBody) };
	const headers = ctx.getHeaderData();
	const verified = verifyWebhook({ secret, headers, rawBody });
	if (!verified.ok) {
		const response = refuse(ctx, 401, verified.reason);
		const webhookId = headers['webhook-id'];
		// well-formed (one id, a timestamp in time), only the signature did not match
		if (automatic && verified.badSignature && typeof webhookId === 'string')
			await repairRotatedSecret(ctx, slot, {
				webhookId,
				timestamp: Number(headers['webhook-timestamp']),
			});
		return { ok: false, response };
	}
	let event: unknown;
	try {
		event = JSON.parse(rawBody.toString('utf8'));
	} catch {
		return { ok: false, response: refuse(ctx, 400, 'The body is not JSON') };
	}
	if (!event || typeof event !== 'object' || Array.isArray(event))
		return { ok: false, response: refuse(ctx, 400, 'The body is not a JSON object') };
	return { ok: true, webhookId: verified.id, event: event as IDataObject, headers };
}

/** Why an event is acknowledged without a run ('ping' or its type), or undefined to run it. */
function ignoredAs(type: string, options: TriggerOptions): string | undefined {
	if (type === PING_EVENT_TYPE && !options.includePings) return 'ping';
	const only = options.onlyEventTypes ?? [];
	if (only.length > 0 && type !== PING_EVENT_TYPE && !only.includes(type)) return type;
	return undefined;
}

/** The output item: the event's fields and the delivery headers that are safe to show. */
function eventItem(event: IDataObject, headers: RequestHeaders): INodeExecutionData {
	const shownHeaders: IDataObject = {};
	for (const name of SAFE_HEADERS) {
		const value = headers[name];
		if (typeof value === 'string') shownHeaders[name] = value;
	}
	return {
		json: {
			id: event.id,
			type: event.type,
			created_at: event.created_at,
			workspace_id: event.workspace_id,
			data: event.data,
			headers: shownHeaders,
		},
	};
}

/** One request: verified, then dropped, acknowledged or started. */
async function handle(ctx: IWebhookFunctions): Promise<IWebhookResponseData> {
	const automatic = isAutomatic(ctx);
	const verification = await verify(ctx, automatic);
	if (!verification.ok) return verification.response;
	const { webhookId, event, headers } = verification;

	// a repeat is answered 2xx, so that the service stops retrying it
	if (isDuplicate(ctx, webhookId, Math.floor(Date.now() / 1000)))
		return { webhookResponse: { received: true, duplicate: true } };
	// MediaGen's own retries of an event of a time the workflow was deactivated (catchUp.ts)
	if (automatic && madeWhileInactive(storedEndpoint(ctx, slotOf(ctx)), event.created_at))
		return {
			webhookResponse: { received: true, ignored: 'made while the workflow was deactivated' },
		};
	// a workflow published before this version's checks: told and checked (publication.ts)
	if (automatic) checkEarlierPublication(ctx);
	const options = ctx.getNodeParameter('options', {}) as TriggerOptions;
	const ignored = ignoredAs(String(event.type ?? ''), options);
	if (ignored !== undefined) return { webhookResponse: { received: true, ignored } };

	// answered when the execution starts; its context and files are added in the execution
	// (the trigger's execute method, enrichment.ts)
	return { workflowData: [[eventItem(event, headers)]] };
}

/**
 * Handles one webhook request (the node's `webhook` method). It never throws: n8n would answer
 * 500, record a failed execution and run the workflow's error workflow for any request, from
 * anyone who knows the URL. An unexpected failure is logged and answered 500 (MediaGen retries).
 */
export async function receiveDelivery(ctx: IWebhookFunctions): Promise<IWebhookResponseData> {
	try {
		return await handle(ctx);
	} catch (error) {
		ctx.logger.error(
			`MediaGen Trigger "${ctx.getNode().name}" could not handle a request: ${(error as Error).message}`,
		);
		if (!ctx.getResponseObject().headersSent)
			answer(ctx, 500, {
				error: 'internal',
				message: "The trigger could not handle the request; see n8n's log",
			});
		return { noWebhookResponse: true };
	}
}
