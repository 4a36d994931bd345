/**
 * MediaGen Trigger: starts a workflow when the service sends a signed webhook event.
 *
 * Automatic mode registers an endpoint (POST /webhooks) at the node's webhook URL on activation,
 * finds it again on checkExists and deletes it on deactivation; manual mode uses an endpoint made
 * in the service's settings and the signing secret pasted into the node. Every request is verified
 * (Standard Webhooks, ../shared/webhookSignature.ts) before anything runs.
 *
 * Node static data (`getWorkflowStaticData('node')`); every write replaces a whole top-level key,
 * because n8n's change tracking does not see changes inside objects assigned after loading:
 *   production: { id, url, events, secret, createdAt }  endpoint registered for the production URL
 *   test:       { id, url, events, secret, createdAt }  the same for n8n's test URL ("Listen")
 *   seen:       { [webhook-id]: unix seconds }          recently delivered ids (replay protection)
 * The secret lives only there: it is never put in output items, errors or log lines.
 */
import type {
	IBinaryData,
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	INodeCredentialTestResult,
	IDataObject,
	IHookFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeBaseDescription,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import {
	NodeApiError,
	NodeConnectionTypes,
	NodeOperationError,
	VersionedNodeType,
} from 'n8n-workflow';

import { downloadAssetToBinary } from '../shared/binaryDownload';
import { asNodeError, mediaGenRequest } from '../shared/transport';
import { isValidSecret, ReplayCache, verifyWebhook } from '../shared/webhookSignature';

/** The subscribable event types of the spec (doc 1, Events), without `*`. */
export const EVENT_TYPES = [
	'generation.completed',
	'generation.failed',
	'workflow.completed',
	'workflow.failed',
	'export.completed',
	'export.failed',
	'publication.published',
	'publication.failed',
] as const;

/**
 * Type of the test ping sent by POST /webhooks/{id}/test. The spec does not show the ping; the
 * package assumes this type (docs/api-assumptions.md, Webhooks).
 */
export const PING_EVENT_TYPE = 'webhook.test';

/** Delivery headers copied to the output: all of them are safe to show (no signature). */
const SAFE_HEADERS = ['webhook-id', 'webhook-timestamp', 'content-type', 'user-agent'];

/** Replay protection bounds: in memory per process, and in workflow static data. */
export const REPLAY_LIMITS = {
	memory: { maxEntries: 10_000, ttlSeconds: 3600 },
	staticData: { maxEntries: 1000, ttlSeconds: 3600 },
};

/**
 * Downloads of event outputs run inside the webhook request (n8n's main or webhook process, before
 * the execution starts, outside its cancellation): they are capped. A larger file is not fetched;
 * the item says so and the workflow can download it with MediaGen → Asset → Download, inside the
 * execution (streamed, cancel-aware). Exported so tests can lower it.
 */
export const TRIGGER_DOWNLOADS = { maxBytes: 100 * 1024 * 1024 };

type Slot = 'production' | 'test';

interface StoredEndpoint {
	id: string;
	url: string;
	events: string[];
	secret: string;
	createdAt: string;
}

interface RemoteEndpoint {
	id: string;
	url?: string;
	events?: string[];
	status?: string;
}

type Ctx = IHookFunctions | IWebhookFunctions;

/**
 * Test URLs ("Listen for test event") and the production URL each get their own endpoint. Webhook
 * requests and activations tell them apart by mode (test: manual; production: webhook / trigger).
 */
function slotOf(ctx: Ctx): Slot {
	return ctx.getMode() === 'manual' ? 'test' : 'production';
}

/**
 * The slot a lifecycle call is about. n8n deactivates both kinds in mode "internal", so the URL
 * decides when it matches a stored endpoint; otherwise the mode does (undefined for "internal":
 * a deactivation must never guess, or removing a test URL could delete the production endpoint).
 */
function hookSlot(ctx: IHookFunctions, url: string): Slot | undefined {
	for (const slot of ['test', 'production'] as const) {
		if (storedEndpoint(ctx, slot)?.url === url) return slot;
	}
	const mode = ctx.getMode();
	if (mode === 'manual') return 'test';
	if (mode === 'trigger' || mode === 'webhook') return 'production';
	return undefined;
}

function storedEndpoint(ctx: Ctx, slot: Slot): StoredEndpoint | undefined {
	const value = ctx.getWorkflowStaticData('node')[slot] as IDataObject | undefined;
	if (!value || typeof value !== 'object' || typeof value.id !== 'string') return undefined;
	return value as unknown as StoredEndpoint;
}

function setStoredEndpoint(ctx: Ctx, slot: Slot, value: StoredEndpoint | undefined): void {
	const data = ctx.getWorkflowStaticData('node');
	if (value) data[slot] = { ...value };
	else delete data[slot];
}

/** The events to subscribe to: `*` alone when chosen, otherwise the chosen types, sorted. */
function wantedEvents(ctx: IHookFunctions): string[] {
	const chosen = ctx.getNodeParameter('events', []) as string[];
	if (!Array.isArray(chosen) || chosen.length === 0)
		throw new NodeOperationError(ctx.getNode(), 'Choose at least one event to subscribe to');
	if (chosen.includes('*')) return ['*'];
	return [...new Set(chosen)].sort();
}

function sameEvents(a: string[] | undefined, b: string[]): boolean {
	const x = [...new Set(a ?? [])].sort();
	return x.length === b.length && x.every((v, i) => v === b[i]);
}

function webhookUrl(ctx: IHookFunctions): string {
	const url = ctx.getNodeWebhookUrl('default');
	if (!url) throw new NodeOperationError(ctx.getNode(), 'n8n did not give this node a webhook URL');
	return url;
}

/** Every endpoint of the workspace (GET /webhooks, following the cursor). */
async function listEndpoints(ctx: IHookFunctions): Promise<RemoteEndpoint[]> {
	const all: RemoteEndpoint[] = [];
	let before: string | undefined;
	for (let page = 0; page < 100; page++) {
		const res = await mediaGenRequest<{ data?: RemoteEndpoint[]; nextCursor?: string | null }>(
			ctx,
			{
				method: 'GET',
				path: '/webhooks',
				qs: before ? { limit: 100, before } : { limit: 100 },
			},
		);
		all.push(...(res.data ?? []));
		if (!res.nextCursor) break;
		before = String(res.nextCursor);
	}
	return all;
}

function httpCodeOf(error: unknown): string | undefined {
	return error instanceof NodeApiError ? (error.httpCode ?? undefined) : undefined;
}

/** DELETE /webhooks/{id}; an endpoint that is already gone counts as deleted. */
async function deleteEndpoint(ctx: IHookFunctions, id: string): Promise<void> {
	try {
		await mediaGenRequest(ctx, { method: 'DELETE', path: `/webhooks/${encodeURIComponent(id)}` });
	} catch (error) {
		if (httpCodeOf(error) !== '404') throw asNodeError(ctx, error);
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

function isAutomatic(ctx: Ctx): boolean {
	return ctx.getNodeParameter('registration', 'automatic') === 'automatic';
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

/** The credential type holding manual mode's secrets (node version 3 and later). */
export const SECRET_CREDENTIAL = 'mediaGenWebhookSecretApi';

/** Version 3 keeps manual mode's secrets in a credential; 1 and 2 in the node's parameter. */
const secretsInCredential = (ctx: Ctx) => ctx.getNode().typeVersion >= 3;

/**
 * Manual mode's signing secret for a slot: the credential's test or production secret (version 3),
 * or the secret pasted into the node (versions 1 and 2, which have one endpoint for both URLs).
 */
async function manualSecret(ctx: Ctx, slot: Slot): Promise<{ secret: string; name: string }> {
	if (!secretsInCredential(ctx))
		return {
			secret: String(ctx.getNodeParameter('signingSecret', '') ?? ''),
			name: 'The Signing Secret',
		};
	const data = await ctx.getCredentials(SECRET_CREDENTIAL);
	return slot === 'test'
		? { secret: String(data.testSecret ?? ''), name: 'The Test Signing Secret of the credential' }
		: {
				secret: String(data.productionSecret ?? ''),
				name: 'The Production Signing Secret of the credential',
			};
}

/** Manual mode: the secret must be usable (checked on activation and on listen, never echoed). */
async function checkManualSecret(ctx: IHookFunctions, slot: Slot): Promise<void> {
	const { secret, name } = await manualSecret(ctx, slot);
	if (!isValidSecret(secret))
		throw new NodeOperationError(
			ctx.getNode(),
			`${name} must be the whsec_ secret MediaGen showed when the endpoint was created`,
		);
}

async function checkExists(this: IHookFunctions): Promise<boolean> {
	if (!isAutomatic(this)) {
		await checkManualSecret(this, hookSlot(this, webhookUrl(this)) ?? slotOf(this));
		return true; // manual mode: nothing is registered
	}
	const url = webhookUrl(this);
	const slot = hookSlot(this, url) ?? slotOf(this);
	const events = wantedEvents(this);
	const stored = storedEndpoint(this, slot);
	const endpoints = await listEndpoints(this);
	await deleteStrays(this, endpoints, url, stored?.id);
	if (!stored) return false;
	const remote = endpoints.find((e) => e.id === stored.id);
	const usable =
		remote !== undefined &&
		remote.status === 'active' &&
		remote.url === url &&
		sameEvents(remote.events, events) &&
		typeof stored.secret === 'string' &&
		stored.secret.length > 0;
	if (usable) return true;
	// deleted, disabled, moved or subscribed to other events: replace it
	if (remote) await deleteEndpoint(this, remote.id);
	setStoredEndpoint(this, slot, undefined);
	return false;
}

async function create(this: IHookFunctions): Promise<boolean> {
	if (!isAutomatic(this)) return true;
	const url = webhookUrl(this);
	const slot = hookSlot(this, url) ?? slotOf(this);
	const events = wantedEvents(this);
	const previous = storedEndpoint(this, slot);
	if (previous) {
		await deleteEndpoint(this, previous.id);
		setStoredEndpoint(this, slot, undefined);
	}
	const description =
		`n8n: ${this.getWorkflow().name ?? 'workflow'} / ${this.getNode().name}`.slice(0, 200);
	let created: IDataObject;
	try {
		created = await mediaGenRequest<IDataObject>(this, {
			method: 'POST',
			path: '/webhooks',
			body: { url, description, events },
		});
	} catch (error) {
		const status = error instanceof NodeApiError ? Number(error.httpCode) : 0;
		if (!(status > 0 && status < 500)) {
			// no answer (or a server fault): the endpoint may exist without us knowing its id
			try {
				await deleteStrays(this, await listEndpoints(this), url);
			} catch (cleanupError) {
				this.logger.warn(
					`MediaGen Trigger: could not check for an endpoint left by a failed registration: ${(cleanupError as Error).message}`,
				);
			}
		}
		throw asNodeError(this, error);
	}
	const id = typeof created.id === 'string' ? created.id : undefined;
	const secret = typeof created.secret === 'string' ? created.secret : undefined;
	if (!id || !secret) {
		if (id) await deleteEndpoint(this, id);
		throw new NodeOperationError(
			this.getNode(),
			'MediaGen did not return the endpoint id and signing secret',
		);
	}
	setStoredEndpoint(this, slot, {
		id,
		url,
		events: Array.isArray(created.events) ? (created.events as string[]) : events,
		secret,
		createdAt: new Date().toISOString(),
	});
	return true;
}

async function deleteHook(this: IHookFunctions): Promise<boolean> {
	if (!isAutomatic(this)) return true;
	const url = this.getNodeWebhookUrl('default');
	if (!url) return true;
	const slot = hookSlot(this, url);
	const stored = slot ? storedEndpoint(this, slot) : undefined;
	try {
		if (stored) await deleteEndpoint(this, stored.id);
		// anything else at this node's URL is ours too (a registration whose answer was lost)
		await deleteStrays(this, await listEndpoints(this), url);
	} catch (error) {
		// keep the stored id so that the next activation finds the endpoint and removes it
		this.logger.error(
			`MediaGen Trigger: could not delete the webhook endpoint: ${(error as Error).message}`,
		);
		return false;
	}
	if (slot) setStoredEndpoint(this, slot, undefined);
	return true;
}

/**
 * Replay protection. Each verified webhook-id is remembered twice:
 * - in this process's memory (REPLAY_LIMITS.memory): a duplicate reaching the same process within
 *   the window is always dropped, also when several copies arrive at the same moment;
 * - in the workflow's static data (REPLAY_LIMITS.staticData). n8n loads static data for every
 *   webhook request and saves it after answering. In queue mode (the only setup where several
 *   processes receive webhooks) the receiving process just enqueues the execution, so the ids are
 *   saved and a duplicate arriving at any webhook process after the first copy's request finished
 *   is dropped. In regular mode one process receives every webhook, and there n8n's in-process
 *   start of the execution resets its "static data changed" flag, so the ids stay in memory only
 *   (which covers that process; a restart forgets them).
 * Not covered: copies reaching two different processes at the same moment (both load the static
 * data before either saves it), and ids lost when concurrent requests save the static data (n8n
 * saves it whole: the last writer wins). The service repeats an event id only when a delivery was
 * not answered with a 2xx, and the signed timestamp limits a replay to 300 s, so these windows
 * are small. An id is recorded once its signature is verified, before the execution starts: if
 * n8n then fails to start it, a redelivery of that id is dropped too (at most once, not at least).
 */
const memoryCaches = new Map<string, ReplayCache>();

function isDuplicate(ctx: IWebhookFunctions, id: string, now: number): boolean {
	const key = `${ctx.getWorkflow().id ?? ''}:${ctx.getNode().id}:${slotOf(ctx)}`;
	let memory = memoryCaches.get(key);
	if (!memory) {
		if (memoryCaches.size >= 1000) memoryCaches.delete(memoryCaches.keys().next().value as string);
		memory = new ReplayCache(REPLAY_LIMITS.memory);
		memoryCaches.set(key, memory);
	}
	const seenHere = memory.checkAndRemember(id, now);
	const data = ctx.getWorkflowStaticData('node');
	const persisted = ReplayCache.fromRecord(data.seen, REPLAY_LIMITS.staticData, now);
	const seenElsewhere = persisted.checkAndRemember(id, now);
	if (!seenElsewhere) data.seen = persisted.toRecord();
	return seenHere || seenElsewhere;
}

/**
 * Repair of a managed endpoint whose secret was rotated elsewhere (Webhook → Rotate Secret in
 * n8n or MediaGen's settings): every delivery would then fail verification until MediaGen disables
 * the endpoint. When a request with a well-formed but wrong signature reaches an endpoint this node
 * registered, the node asks MediaGen for the endpoint's recent deliveries. If the request's
 * webhook-id is one of them and not yet delivered, it came from MediaGen: MediaGen signs with a
 * secret the node does not have. The node then rotates the secret itself (the new one is returned
 * once), stores it, and logs a warning; MediaGen's next retry of the delivery verifies. A forged
 * request cannot cause a rotation (its id is not in the log) and costs at most one GET per
 * endpoint per `minIntervalMs` (per process).
 */
export const SECRET_REPAIR = { minIntervalMs: 60_000 };
const lastRepairCheck = new Map<string, number>();

interface Delivery {
	id?: string;
	event_id?: string;
	status?: string;
}

async function repairRotatedSecret(ctx: IWebhookFunctions, slot: Slot, webhookId: string) {
	const stored = storedEndpoint(ctx, slot);
	if (!stored) return;
	const now = Date.now();
	if (now - (lastRepairCheck.get(stored.id) ?? -Infinity) < SECRET_REPAIR.minIntervalMs) return;
	if (lastRepairCheck.size >= 1000) lastRepairCheck.clear();
	lastRepairCheck.set(stored.id, now);
	const path = `/webhooks/${encodeURIComponent(stored.id)}`;
	try {
		const log = await mediaGenRequest<{ data?: Delivery[] }>(ctx, {
			method: 'GET',
			path: `${path}/deliveries`,
			qs: { limit: 100 },
		});
		const genuine = (log.data ?? []).some(
			(d) => (d.event_id === webhookId || d.id === webhookId) && d.status !== 'succeeded',
		);
		if (!genuine) return;
		const rotated = await mediaGenRequest<IDataObject>(ctx, {
			method: 'POST',
			path: `${path}/rotate-secret`,
		});
		if (typeof rotated.secret !== 'string' || !isValidSecret(rotated.secret)) return;
		setStoredEndpoint(ctx, slot, { ...stored, secret: rotated.secret });
		ctx.logger.warn(
			`MediaGen Trigger "${ctx.getNode().name}": the signing secret of webhook endpoint ${stored.id}, which this node manages, was changed outside n8n, so MediaGen's deliveries failed verification. The node set a new secret; MediaGen retries the failed deliveries on its schedule. Rotate the secret of this endpoint only by deactivating and activating the workflow.`,
		);
	} catch (error) {
		ctx.logger.warn(
			`MediaGen Trigger "${ctx.getNode().name}": deliveries fail verification and the endpoint ${stored.id} could not be checked (${(error as Error).message}). If its secret was rotated, deactivate and activate the workflow.`,
		);
	}
}

/** Answers the request directly (n8n sends nothing more) with a JSON body. */
function answer(ctx: IWebhookFunctions, status: number, body: IDataObject): void {
	const res = ctx.getResponseObject();
	res.status(status).json(body);
}

function refuse(ctx: IWebhookFunctions, status: number, reason: string): IWebhookResponseData {
	ctx.logger.debug(`MediaGen Trigger refused a request (${status}): ${reason}`);
	answer(ctx, status, {
		error: status === 401 ? 'invalid_signature' : 'bad_request',
		message: reason,
	});
	return { noWebhookResponse: true };
}

async function rawBodyOf(ctx: IWebhookFunctions): Promise<Buffer | undefined> {
	const req = ctx.getRequestObject() as unknown as {
		rawBody?: Buffer | string;
		readRawBody?: () => Promise<void>;
	};
	if (req.rawBody === undefined && typeof req.readRawBody === 'function') await req.readRawBody();
	if (Buffer.isBuffer(req.rawBody)) return req.rawBody;
	if (typeof req.rawBody === 'string') return Buffer.from(req.rawBody, 'utf8');
	return undefined;
}

/** The asset ids a downloadable event refers to. */
export function assetIdsOf(event: IDataObject): string[] {
	const data = (event.data ?? {}) as IDataObject;
	if (event.type === 'generation.completed') {
		const outputs = Array.isArray(data.outputs) ? (data.outputs as IDataObject[]) : [];
		return outputs
			.map((o) => o?.asset_id ?? o?.assetId)
			.filter((id): id is string => typeof id === 'string' && id.length > 0);
	}
	if (event.type === 'export.completed') {
		// the spec says the event "includes the new asset id"; its field name is not shown
		const output = (data.output ?? {}) as IDataObject;
		const id = data.asset_id ?? data.assetId ?? output.asset_id ?? output.assetId;
		return typeof id === 'string' && id ? [id] : [];
	}
	return [];
}

/**
 * Include Generation Context: a generation event's data is the 9-field record, without the
 * generation's `context` (what the workflow that started it put there, e.g. a row's reference).
 * The option reads the generation (GET /generations/{id}) and adds its context, as it is, to the
 * output. On a failed read the event is kept: `context` is null and `contextError` says why.
 */
async function addGenerationContext(ctx: IWebhookFunctions, item: INodeExecutionData) {
	const id = String(((item.json.data ?? {}) as IDataObject).id ?? '');
	try {
		const record = await mediaGenRequest<IDataObject>(ctx, {
			method: 'GET',
			path: `/generations/${encodeURIComponent(id)}`,
		});
		item.json.context = (record?.context ?? {}) as IDataObject;
	} catch (error) {
		item.json.context = null;
		item.json.contextError = (error as Error).message;
	}
}

function binaryPropertyName(prefix: string, index: number): string {
	return index === 0 ? prefix : `${prefix}_${index}`;
}

const eventOptions = [
	{
		name: 'Export Completed',
		value: 'export.completed',
		description: 'An editor export is ready; includes the new asset ID',
	},
	{
		name: 'Export Failed',
		value: 'export.failed',
		description: 'An editor export could not be rendered',
	},
	{
		name: 'Generation Completed',
		value: 'generation.completed',
		description: 'A generation finished; its outputs are assets',
	},
	{
		name: 'Generation Failed',
		value: 'generation.failed',
		description: 'A generation failed or was cancelled; its credits were returned',
	},
	{ name: 'Publication Failed', value: 'publication.failed' },
	{ name: 'Publication Published', value: 'publication.published' },
	{
		name: 'Workflow Completed',
		value: 'workflow.completed',
		description: 'A canvas run finished; includes the output asset IDs',
	},
	{
		name: 'Workflow Failed',
		value: 'workflow.failed',
		description: 'A canvas run stopped',
	},
];

/** Versions 1 and 2, as released: manual mode's secret is a node parameter. */
const propertiesV1: INodeProperties[] = [
	{
		displayName: 'Registration',
		name: 'registration',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Automatic',
				value: 'automatic',
				description:
					'Activating the workflow creates the endpoint in MediaGen; deactivating deletes it',
			},
			{
				name: 'Manual',
				value: 'manual',
				description: "Use an endpoint made in MediaGen's settings and paste its signing secret",
			},
		],
		default: 'automatic',
	},
	{
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		required: true,
		options: [
			{ name: 'All Events (*)', value: '*', description: 'Every event, also future ones' },
			...eventOptions,
		],
		default: ['generation.completed'],
		description: 'The events the endpoint subscribes to',
		displayOptions: { show: { registration: ['automatic'] } },
	},
	{
		displayName:
			"In MediaGen's settings (Webhooks), create an endpoint with this node's Production URL, choose its events, and paste the signing secret it shows once below",
		name: 'manualNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { registration: ['manual'] } },
	},
	{
		displayName: 'Signing Secret',
		name: 'signingSecret',
		type: 'string',
		typeOptions: { password: true },
		required: true,
		default: '',
		placeholder: 'whsec_...',
		description: 'The secret MediaGen showed when the endpoint was created (starts with whsec_)',
		displayOptions: { show: { registration: ['manual'] } },
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Binary Property',
				name: 'binaryPropertyName',
				type: 'string',
				default: 'data',
				description:
					'Field for the first downloaded file; further files go to the same name followed by _1, _2 and so on',
				displayOptions: { show: { '/registration': ['automatic'] } },
			},
			{
				displayName: 'Download Files',
				name: 'downloadFiles',
				type: 'boolean',
				default: false,
				description:
					'Whether to download the outputs of Generation Completed (and the asset of Export Completed) as binary data, up to 100 MB each (larger files: use MediaGen → Asset → Download after the trigger). The request is answered before the download starts.',
				displayOptions: { show: { '/registration': ['automatic'] } },
			},
			{
				displayName: 'Include Generation Context',
				name: 'includeContext',
				type: 'boolean',
				default: false,
				description:
					"Whether to add to Generation Completed and Generation Failed events the generation's context (what the workflow that started it put there, e.g. a row's reference), read from MediaGen: the event itself does not carry it. The request is answered before the read.",
				displayOptions: { show: { '/registration': ['automatic'] } },
			},
			{
				displayName: 'Include Test Pings',
				name: 'includePings',
				type: 'boolean',
				default: false,
				description:
					'Whether test pings sent from MediaGen start the workflow (otherwise they are only acknowledged)',
			},
			{
				displayName: 'Only Event Types',
				name: 'onlyEventTypes',
				type: 'multiOptions',
				options: eventOptions,
				default: [],
				description:
					'Start the workflow only for these event types; other events are acknowledged and dropped. Empty: all.',
			},
		],
	},
];

/** Version 3: manual mode's secrets come from the MediaGen Webhook Secret API credential. */
const propertiesV3: INodeProperties[] = propertiesV1.flatMap((p): INodeProperties[] => {
	if (p.name === 'signingSecret') return [];
	if (p.name !== 'manualNotice') return [p];
	return [
		{
			displayName:
				"In MediaGen's settings (Webhooks), create an endpoint with this node's Production URL and choose its events; put the signing secret it shows once into a MediaGen Webhook Secret API credential. For test events, make a second endpoint with the Test URL and put its secret in the credential's Test Signing Secret.",
			name: 'manualCredentialNotice',
			type: 'notice',
			default: '',
			displayOptions: { show: { registration: ['manual'] } },
		},
	];
});

const baseDescription: INodeTypeBaseDescription = {
	displayName: 'MediaGen Trigger',
	name: 'mediaGenTrigger',
	icon: { light: 'file:../../icons/mediagen.svg', dark: 'file:../../icons/mediagen.dark.svg' },
	group: ['trigger'],
	description:
		'Starts the workflow when MediaGen sends an event: generations, canvas runs, exports, publications',
	// Version 2 changes nothing in the node: it tells n8n (2.40) not to evaluate, for every
	// request, the expression it reads a version 1 webhook node's "binaryData" option with, which
	// needs an expression isolate (bench/README.md, B6). Versions 1 and 2 behave the same.
	// Version 3 moves manual mode's signing secret out of the workflow into a credential of its
	// own (MediaGen Webhook Secret API), with a second secret for the Test URL.
	defaultVersion: 3,
};

const apiCredential = {
	name: 'mediaGenApi',
	required: true,
	displayOptions: { show: { registration: ['automatic'] } },
};

const SUBTITLE =
	'={{$parameter["registration"] === "manual" ? "Manual endpoint" : $parameter["events"].join(", ")}}';

function versionDescription(
	version: number | number[],
	properties: INodeProperties[],
): INodeTypeDescription {
	return {
		...baseDescription,
		version,
		defaults: { name: 'MediaGen Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				// answered as soon as the execution is started, with an empty 200 (n8n would
				// otherwise send its default response option's name, "firstEntryJson", as the body)
				responseMode: 'onReceived',
				responseData: 'noData',
				path: 'webhook',
			},
		],
		properties,
	};
}

/** What every version of the trigger does; the versions below differ in their description. */
abstract class MediaGenTriggerBehaviour {
	methods = {
		credentialTest: {
			/** The secrets cannot be checked with MediaGen (it never shows them again): their form is. */
			async webhookSecretTest(
				this: ICredentialTestFunctions,
				credential: ICredentialsDecrypted,
			): Promise<INodeCredentialTestResult> {
				const data = credential.data ?? {};
				const problems = [
					isValidSecret(String(data.productionSecret ?? ''))
						? undefined
						: 'The Production Signing Secret is not a whsec_ secret',
					data.testSecret && !isValidSecret(String(data.testSecret))
						? 'The Test Signing Secret is not a whsec_ secret'
						: undefined,
				].filter(Boolean);
				return problems.length
					? { status: 'Error', message: problems.join('; ') }
					: { status: 'OK', message: 'The signing secrets have the whsec_ form' };
			},
		},
	};

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				try {
					return await checkExists.call(this);
				} catch (error) {
					throw asNodeError(this, explain(error));
				}
			},
			async create(this: IHookFunctions): Promise<boolean> {
				try {
					return await create.call(this);
				} catch (error) {
					throw asNodeError(this, explain(error));
				}
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return await deleteHook.call(this);
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		// 1. verify, before anything else
		const automatic = isAutomatic(this);
		const secret = automatic
			? (storedEndpoint(this, slotOf(this))?.secret ?? '')
			: (await manualSecret(this, slotOf(this))).secret;
		const rawBody = await rawBodyOf(this);
		if (!rawBody) return refuse(this, 401, 'The raw request body is not available');
		const headers = this.getHeaderData();
		const verified = verifyWebhook({ secret, headers, rawBody });
		if (!verified.ok) {
			const refused = refuse(this, 401, verified.reason);
			const webhookId = headers['webhook-id'];
			if (automatic && verified.badSignature && typeof webhookId === 'string')
				await repairRotatedSecret(this, slotOf(this), webhookId);
			return refused;
		}

		// 2. the event, exactly as signed
		let event: IDataObject;
		try {
			event = JSON.parse(rawBody.toString('utf8')) as IDataObject;
		} catch {
			return refuse(this, 400, 'The body is not JSON');
		}
		if (!event || typeof event !== 'object' || Array.isArray(event))
			return refuse(this, 400, 'The body is not a JSON object');

		// 3. drop duplicates (answered 2xx so the service stops retrying)
		const now = Math.floor(Date.now() / 1000);
		if (isDuplicate(this, verified.id, now))
			return { webhookResponse: { received: true, duplicate: true } };

		const options = this.getNodeParameter('options', {}) as {
			onlyEventTypes?: string[];
			includePings?: boolean;
			downloadFiles?: boolean;
			binaryPropertyName?: string;
			includeContext?: boolean;
		};
		const type = String(event.type ?? '');
		if (type === PING_EVENT_TYPE && !options.includePings)
			return { webhookResponse: { received: true, ignored: 'ping' } };
		const only = options.onlyEventTypes ?? [];
		if (only.length > 0 && type !== PING_EVENT_TYPE && !only.includes(type))
			return { webhookResponse: { received: true, ignored: type } };

		const shownHeaders: IDataObject = {};
		for (const name of SAFE_HEADERS) {
			const value = headers[name];
			if (typeof value === 'string') shownHeaders[name] = value;
		}
		const item: INodeExecutionData = {
			json: {
				id: event.id,
				type: event.type,
				created_at: event.created_at,
				workspace_id: event.workspace_id,
				data: event.data,
				headers: shownHeaders,
			},
		};

		// 4. the generation's context and files: answer first (the service allows 10 s), then read
		// the generation and stream the files into binary data
		const withContext =
			automatic && options.includeContext === true && type.startsWith('generation.');
		const assetIds = automatic && options.downloadFiles ? assetIdsOf(event) : [];
		if (!withContext && assetIds.length === 0) return { workflowData: [[item]] };

		answer(this, 200, { received: true });
		if (withContext) await addGenerationContext(this, item);
		const prefix = (options.binaryPropertyName ?? '').trim() || 'data';
		const binary: Record<string, IBinaryData> = {};
		const downloadErrors: IDataObject[] = [];
		for (const [index, assetId] of assetIds.entries()) {
			try {
				const result = await downloadAssetToBinary(this, assetId, {
					propertyName: binaryPropertyName(prefix, index),
					maxBytes: TRIGGER_DOWNLOADS.maxBytes,
					tooLargeHint:
						'The trigger downloads files up to this size only. Turn Download Files off and add MediaGen → Asset → Download after the trigger: it streams any size inside the execution.',
				});
				binary[result.propertyName] = result.binary;
			} catch (error) {
				// the request is answered already: keep the event, say what is missing
				downloadErrors.push({ asset_id: assetId, message: (error as Error).message });
			}
		}
		if (Object.keys(binary).length) item.binary = binary;
		if (downloadErrors.length) item.json.downloadErrors = downloadErrors;
		return { noWebhookResponse: true, workflowData: [[item]] };
	}
}

/** Versions 1 and 2, as released: manual mode's secret is a node parameter. */
class MediaGenTriggerV1 extends MediaGenTriggerBehaviour implements INodeType {
	description: INodeTypeDescription = {
		...versionDescription([1, 2], propertiesV1),
		icon: { light: 'file:../../icons/mediagen.svg', dark: 'file:../../icons/mediagen.dark.svg' },
		group: ['trigger'],
		subtitle: SUBTITLE,
		credentials: [apiCredential],
	};
}

/** Version 3: manual mode's secrets in a MediaGen Webhook Secret API credential. */
class MediaGenTriggerV3 extends MediaGenTriggerBehaviour implements INodeType {
	description: INodeTypeDescription = {
		...versionDescription(3, propertiesV3),
		icon: { light: 'file:../../icons/mediagen.svg', dark: 'file:../../icons/mediagen.dark.svg' },
		group: ['trigger'],
		subtitle: SUBTITLE,
		credentials: [
			apiCredential,
			{
				name: 'mediaGenWebhookSecretApi',
				required: true,
				testedBy: 'webhookSecretTest',
				displayOptions: { show: { registration: ['manual'] } },
			},
		],
	};
}

/**
 * MediaGen Trigger, versions 1 and 2 (manual mode's secret pasted into the node) and 3 (the
 * default: manual mode's secrets in a MediaGen Webhook Secret API credential).
 */
export class MediaGenTrigger extends VersionedNodeType {
	constructor() {
		const v1 = new MediaGenTriggerV1();
		super({ 1: v1, 2: v1, 3: new MediaGenTriggerV3() }, baseDescription);
	}
}
