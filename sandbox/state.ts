/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * In-memory state of the sandbox: configuration, workspaces, keys, and every record, stored per
 * workspace. Records carry a global sequence number used for "newest first" ordering and cursors.
 */
import { randomUUID } from 'node:crypto';
import { clock } from './clock';
import { notFound } from './http';

export type Scope =
	| 'content.read'
	| 'content.create'
	| 'content.delete'
	| 'billing.view'
	| 'webhooks.manage';
export const ALL_SCOPES: Scope[] = [
	'content.read',
	'content.create',
	'content.delete',
	'billing.view',
	'webhooks.manage',
];

export type Plan = 'starter' | 'pro';
/** Plan features; `webhooks` is what webhook endpoints need (spec: Pro and above). */
export type Feature = 'webhooks';
export const PLAN_FEATURES: Record<Plan, Feature[]> = { starter: [], pro: ['webhooks'] };
export const PLAN_CONCURRENT_JOBS: Record<Plan, number> = { starter: 2, pro: 5 };

export interface SandboxConfig {
	/** Requests per rolling minute per key; 0 disables the limit. */
	rateLimitPerMinute: number;
	/**
	 * The rate limit's rolling "minute", in real ms: 60,000. A test shortens it (a minute played
	 * in seconds, with paces scaled alike); the Retry-After follows it.
	 */
	rateLimitWindowMs: number;
	/** Multiplies every simulated delay (job durations, webhook retry schedule). */
	timeScale: number;
	/** When set, the unscaled duration of every job whose request does not choose one. */
	defaultJobDurationMs: number | null;
	/** Probability in [0..1] that a job fails (when its request does not decide). */
	failureRate: number;
	/** When set, overrides the plan's concurrent job limit for every workspace. */
	concurrentJobs: number | null;
	/** Test mode: http://localhost and 127.0.0.1 webhook URLs are accepted and delivered to. */
	allowHttpWebhooks: boolean;
	/** Uploads whose declared size is above this keep only hash and size, not their bytes. */
	maxStoredUploadBytes: number;
	/** Webhook delivery timeout in real milliseconds (not scaled). */
	webhookTimeoutMs: number;
}

export interface ApiKey {
	name: 'pro' | 'readOnly' | 'noBilling' | 'otherWorkspace' | 'starter';
	secret: string;
	workspaceId: string;
	scopes: Scope[];
	purpose: string;
}

/** Where an asset's bytes come from. Large things are never held in memory. */
export type Blob =
	| { type: 'buffer'; data: Buffer }
	| { type: 'files'; paths: string[]; size: number }
	/** Bytes generated on the fly: byte i = i % 251. */
	| { type: 'pattern'; size: number }
	/** Upload larger than maxStoredUploadBytes: only its hash and size were kept; served as the pattern. */
	| { type: 'hashOnly'; size: number; partSha256: string[] };

export interface Rec {
	id: string;
	seq: number;
	created_at: string;
	updated_at: string;
}

export interface AssetVersion {
	id: string;
	type: 'original' | 'derived';
	name: string;
	mimeType: string;
	size: number;
	created_at: string;
}

export interface AssetRec extends Rec {
	kind: 'image' | 'video' | 'audio' | 'model3d' | 'document' | 'other';
	title: string;
	filename: string;
	mimeType: string;
	size: number;
	tags: string[];
	favorite: boolean;
	projectId: string | null;
	visibility: 'private' | 'unlisted' | 'public';
	source: 'upload' | 'generation' | 'duplicate' | 'sandbox' | 'export';
	generationId: string | null;
	characterId: string | null;
	duplicatedFrom: string | null;
	blob: Blob;
	versions: AssetVersion[];
}

export interface CollectionRec extends Rec {
	name: string;
	assetIds: string[];
}

export interface ProjectRec extends Rec {
	name: string;
	description: string | null;
	cover_asset_id: string | null;
	status: 'active' | 'archived';
}

export type GenerationStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

export interface GenerationRec extends Rec {
	status: GenerationStatus;
	tool: string;
	mode: string | null;
	model_id: string;
	project_id: string | null;
	batch_id: string | null;
	title: string | null;
	prompt: string | null;
	negative_prompt: string | null;
	params: Record<string, unknown>;
	inputs: { slot: string; assetIds: string[] }[];
	context: Record<string, unknown>;
	rights_confirmed: boolean | null;
	idempotency_key: string | null;
	credits_estimated: number;
	credits_reserved: number;
	credits_charged: number;
	outputs: { asset_id: string; kind: string }[];
	error: { code: string; message: string } | null;
	attempts: number;
	started_at: string | null;
	completed_at: string | null;
}

export interface UploadRec extends Rec {
	status: 'pending' | 'completed';
	filename: string;
	mimeType: string;
	size: number;
	projectId: string | null;
	title: string | null;
	tags: string[];
	partSize: number;
	partCount: number;
	expiresAt: string;
	/** Bytes are kept on disk unless the upload is larger than maxStoredUploadBytes. */
	storeBytes: boolean;
	parts: Map<number, { etag: string; size: number; path: string | null; sha256: string }>;
	assetId: string | null;
}

export interface WebhookRec extends Rec {
	url: string;
	description: string;
	events: string[];
	status: 'active' | 'disabled';
	secret: string;
	consecutive_failures: number;
	disabled_reason: string | null;
}

export interface DeliveryAttempt {
	attempt: number;
	at: string;
	response_status: number | null;
	error: string | null;
	duration_ms: number;
}

export interface DeliveryRec extends Rec {
	webhook_id: string;
	event_id: string;
	event_type: string;
	payload: string;
	status: 'pending' | 'succeeded' | 'failed';
	attempts: DeliveryAttempt[];
	next_attempt_at: string | null;
	/** Scheduled retries are part of the event's automatic schedule (test pings have none). */
	scheduled: boolean;
}

export interface LedgerEntry {
	id: number;
	type: 'grant' | 'adjustment' | 'reserve' | 'release' | 'charge';
	amount: number;
	balance_after: number;
	generation_id: string | null;
	description: string;
	created_at: string;
}

/**
 * What `GET /credits/ledger` lists without `all`: every entry but the reservation bookkeeping
 * (`reserve`, `release`), also one of a type booked through the control that the sandbox never
 * books itself (docs/api-assumptions.md, "Ledger reads of the credit budget").
 */
const isSettled = (type: string) => type !== 'reserve' && type !== 'release';

export interface IdempotencyRecord {
	bodyHash: string;
	status: number;
	body: unknown;
	expiresAt: number;
}

/** A map of records of one kind in one workspace; `get` answers 404 for unknown ids. */
export class Store<T extends Rec> {
	readonly map = new Map<string, T>();
	constructor(readonly what: string) {}
	get(id: string): T {
		const r = this.map.get(id);
		if (!r) throw notFound(this.what, id);
		return r;
	}
	find(id: string): T | undefined {
		return this.map.get(id);
	}
	put(r: T): T {
		this.map.set(r.id, r);
		return r;
	}
	delete(id: string): boolean {
		return this.map.delete(id);
	}
	all(): T[] {
		return [...this.map.values()];
	}
	/** Checks that every id exists; 404 listing the missing ones otherwise. */
	requireAll(ids: string[]): T[] {
		const missing = ids.filter((id) => !this.map.has(id));
		if (missing.length) {
			const e = notFound(this.what, missing.join(', '));
			e.details.ids = missing;
			throw e;
		}
		return ids.map((id) => this.map.get(id)!);
	}
}

export class Workspace {
	readonly assets = new Store<AssetRec>('Asset');
	readonly collections = new Store<CollectionRec>('Collection');
	readonly projects = new Store<ProjectRec>('Project');
	readonly generations = new Store<GenerationRec>('Generation');
	readonly uploads = new Store<UploadRec>('Upload');
	readonly webhooks = new Store<WebhookRec>('Webhook endpoint');
	readonly deliveries = new Store<DeliveryRec>('Webhook delivery');
	readonly idempotency = new Map<string, IdempotencyRecord>();
	readonly ledger: LedgerEntry[] = [];
	private readonly settledEntries: LedgerEntry[] = [];
	balance = 0;
	reserved = 0;
	readonly created_at = now();
	constructor(
		readonly id: string,
		readonly alias: 'main' | 'other' | 'starter',
		readonly name: string,
		readonly plan: Plan,
	) {}

	/** Applies a signed change to the spendable balance and records it (`at`: another time). */
	book(
		type: LedgerEntry['type'],
		amount: number,
		description: string,
		generationId: string | null = null,
		at?: string,
	): LedgerEntry {
		this.balance += amount;
		const e: LedgerEntry = {
			id: this.ledger.length + 1,
			type,
			amount,
			balance_after: this.balance,
			generation_id: generationId,
			description,
			created_at: at ?? now(),
		};
		this.ledger.push(e);
		if (isSettled(type)) this.settledEntries.push(e);
		return e;
	}

	/** The settled entries (all but reserve and release) in booking order: `GET /credits/ledger`. */
	settled(): LedgerEntry[] {
		return this.settledEntries;
	}
}

let seqCounter = 0;
export const nextSeq = (): number => ++seqCounter;
export const newId = (): string => randomUUID();
export const now = (): string => new Date(Date.now() + clock.offsetMs).toISOString();

/** Base fields of a new record. */
export const recBase = (): Rec => {
	const t = now();
	return { id: newId(), seq: nextSeq(), created_at: t, updated_at: t };
};
export const touch = (r: Rec): void => {
	r.updated_at = now();
};

export const WORKSPACE_IDS = {
	main: '6f1c2a7e-1b4d-4c8e-9a51-0d2f3b4c5a61',
	other: '8a2d3b8f-2c5e-4d9f-8b62-1e3a4c5d6b72',
	starter: '9b3e4c9a-3d6f-4eaa-9c73-2f4b5d6e7c83',
} as const;

export const KEYS: ApiKey[] = [
	{
		name: 'pro',
		secret: 'sbx_pro_all_scopes_9f8e7d6c5b4a',
		workspaceId: WORKSPACE_IDS.main,
		scopes: ALL_SCOPES,
		purpose: 'Pro workspace "Main", all scopes',
	},
	{
		name: 'readOnly',
		secret: 'sbx_pro_read_only_1a2b3c4d5e6f',
		workspaceId: WORKSPACE_IDS.main,
		scopes: ['content.read'],
		purpose: 'same workspace "Main", content.read only (403 elsewhere)',
	},
	{
		name: 'noBilling',
		secret: 'sbx_pro_no_billing_7p8q9r0s1t',
		workspaceId: WORKSPACE_IDS.main,
		scopes: ALL_SCOPES.filter((s) => s !== 'billing.view'),
		purpose: 'same workspace "Main", every scope but billing.view (the ledger answers 403)',
	},
	{
		name: 'otherWorkspace',
		secret: 'sbx_other_workspace_7g8h9i0j',
		workspaceId: WORKSPACE_IDS.other,
		scopes: ALL_SCOPES,
		purpose: 'Pro workspace "Other", all scopes (404 for Main\'s data)',
	},
	{
		name: 'starter',
		secret: 'sbx_starter_plan_k1l2m3n4o5',
		workspaceId: WORKSPACE_IDS.starter,
		scopes: ALL_SCOPES,
		purpose: 'Starter-plan workspace, all scopes (403 plan_required for webhooks)',
	},
];

export const INITIAL_CREDITS: Record<Plan, number> = { pro: 1000, starter: 100 };

/** The whole mutable state; `reset` brings it back to the start. */
export class State {
	workspaces = new Map<string, Workspace>();
	constructor(private readonly cfg: () => SandboxConfig) {
		this.reset();
	}
	reset(): void {
		this.workspaces = new Map();
		const make = (alias: 'main' | 'other' | 'starter', name: string, plan: Plan) => {
			const ws = new Workspace(WORKSPACE_IDS[alias], alias, name, plan);
			ws.book('grant', INITIAL_CREDITS[plan], `Initial ${plan} plan credits`);
			this.workspaces.set(ws.id, ws);
		};
		make('main', 'Main', 'pro');
		make('other', 'Other', 'pro');
		make('starter', 'Starter', 'starter');
	}
	keyFor(secret: string): ApiKey | undefined {
		return KEYS.find((k) => k.secret === secret);
	}
	workspace(ref: string): Workspace {
		const byAlias = [...this.workspaces.values()].find((w) => w.alias === ref || w.id === ref);
		const byKey = KEYS.find((k) => k.name === ref);
		const ws = byAlias ?? (byKey ? this.workspaces.get(byKey.workspaceId) : undefined);
		if (!ws) throw notFound('Workspace', ref);
		return ws;
	}
	concurrentJobs(ws: Workspace): number {
		return this.cfg().concurrentJobs ?? PLAN_CONCURRENT_JOBS[ws.plan];
	}
}
