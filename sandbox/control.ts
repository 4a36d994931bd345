/**
 * Test control, in-process. The same operations are served over HTTP under /__sandbox/ (no auth),
 * see routes/control.ts and README.md.
 */
import type { App } from './app';
import type { FaultInput, Fault } from './faults';
import type { Notification, SentDelivery } from './hooks';
import { createAsset } from './library';
import type { RequestEvent, RequestGate, RequestLogEntry } from './requestLog';
import { clock } from './clock';
import { KEYS, type LedgerEntry, type SandboxConfig } from './state';
import type { HoldState } from './timers';
import { parse, z } from './validation';
import { assetView, creditsView } from './views';

export const configPatch = z
	.object({
		rateLimitPerMinute: z.number().int().min(0),
		rateLimitWindowMs: z.number().int().min(1),
		timeScale: z.number().positive(),
		defaultJobDurationMs: z.number().int().min(0).nullable(),
		failureRate: z.number().min(0).max(1),
		concurrentJobs: z.number().int().min(1).nullable(),
		allowHttpWebhooks: z.boolean(),
		maxStoredUploadBytes: z.number().int().min(0),
		webhookTimeoutMs: z.number().int().min(1),
	})
	.partial();

export const largeAssetInput = z.object({
	/** Workspace alias (main | other | starter), key name (pro, ...) or id; default main. */
	workspace: z.string().default('main'),
	size: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
	filename: z.string().max(255).default('large.bin'),
	mimeType: z.string().max(100).default('application/octet-stream'),
	title: z.string().max(200).optional(),
	projectId: z.string().uuid().optional(),
});

export type WorkspaceRef =
	| 'main'
	| 'other'
	| 'starter'
	| 'pro'
	| 'readOnly'
	| 'noBilling'
	| 'otherWorkspace'
	| (string & {});
export type AssetJson = ReturnType<typeof assetView>;
export interface LedgerBooking {
	type: LedgerEntry['type'];
	amount: number;
	generationId?: string | null;
	at: number;
}
export type CreditsJson = ReturnType<typeof creditsView>;

export interface SandboxControl {
	/** Back to the start-up state: data, credits, config, faults, logs, pending timers, clock. */
	reset(): void;
	/**
	 * Sets MediaGen's clock (what `created_at` and the Date header say) to this instant (ms) from
	 * now on, running on from there; null: the real clock again. Jobs keep their real timing.
	 */
	setClock(at: number | null): void;
	config(): SandboxConfig;
	setConfig(patch: Partial<SandboxConfig>): SandboxConfig;
	/** Sets a workspace's spendable balance (books an adjustment in the ledger). */
	setCredits(workspace: WorkspaceRef, balance: number): CreditsJson;
	credits(workspace: WorkspaceRef): CreditsJson;
	/** A copy of a workspace's whole ledger in booking order (what `GET /credits/ledger?all=true` pages). */
	ledger(workspace: WorkspaceRef): LedgerEntry[];
	/**
	 * Books ledger entries as they are (a workspace's history at scale, e.g. a month of 100,000
	 * jobs, without running them): each changes the balance; `at` (ms) is its `created_at`.
	 * In-process only. Returns the workspace's credits after.
	 */
	bookLedger(workspace: WorkspaceRef, entries: LedgerBooking[]): CreditsJson;
	addFault(fault: FaultInput): Fault;
	faults(): Fault[];
	/** Ends every delay fault's wait now: the held answers are written (see Faults.releaseDelays). */
	releaseDelays(): number;
	clearFaults(): void;
	/** Forgets every Idempotency-Key a workspace's creates used, as 24 hours later. */
	expireIdempotencyKeys(workspace: WorkspaceRef): void;
	/** Removes one fault by its id; false when it was used up or removed already. */
	removeFault(id: number): boolean;
	/** Request log; `path` is a regular expression searched in the request path. */
	requests(filter?: { method?: string; path?: string }): RequestLogEntry[];
	clearRequests(): void;
	/**
	 * Calls `fn` synchronously on each request event from now on (an answer logged, an answer held
	 * back by a delay fault), e.g. to kill a process at an exact request; returns the unsubscribe.
	 * In-process only; `reset()` does not remove watchers.
	 */
	watchRequests(fn: (e: RequestEvent) => void): () => void;
	/**
	 * Puts `gate` in front of every `/v1` request from now on (see RequestGate: a test decides
	 * when each request is handled, e.g. in an order fast-check's scheduler draws); returns the
	 * removal. In-process only; `reset()` does not remove it.
	 */
	gateRequests(gate: RequestGate): () => void;
	/** Every webhook HTTP request the sandbox sent (one entry per attempt). */
	deliveries(): SentDelivery[];
	clearDeliveries(): void;
	/** Notifications to endpoint creators (endpoint disabled after 15 failed events). */
	notifications(): Notification[];
	/** An asset of `size` bytes generated on the fly when downloaded (byte i = i % 251). */
	createLargeAsset(input: z.input<typeof largeAssetInput>): AssetJson;
	/**
	 * Holds every job where it is (queued, running, a canvas step, an export, a webhook retry): from
	 * now on nothing moves on by itself until `stepJobs()` or `releaseJobs()`. `reset()` releases.
	 */
	holdJobs(): HoldState;
	/** Moves every job one step now (queued -> running, running -> done, ...), held or not. */
	stepJobs(): HoldState;
	/** Stops holding; what came due meanwhile happens now, the rest on its own time. */
	releaseJobs(): HoldState;
}

export function makeControl(app: App): SandboxControl {
	return {
		reset: () => {
			clock.offsetMs = 0;
			app.reset();
		},
		setClock: (at) => {
			clock.offsetMs = at === null ? 0 : at - Date.now();
		},
		config: () => ({ ...app.config }),
		setConfig: (patch) => {
			Object.assign(app.config, parse(configPatch, patch));
			return { ...app.config };
		},
		setCredits: (ref, balance) => {
			const b = parse(z.number().int().min(0), balance, 'balance');
			const ws = app.state.workspace(ref);
			if (b !== ws.balance) ws.book('adjustment', b - ws.balance, 'Balance set by sandbox control');
			return creditsView(ws);
		},
		credits: (ref) => creditsView(app.state.workspace(ref)),
		ledger: (ref) => app.state.workspace(ref).ledger.map((e) => ({ ...e })),
		bookLedger: (ref, entries) => {
			const ws = app.state.workspace(ref);
			for (const e of entries)
				ws.book(
					e.type,
					e.amount,
					'Booked by sandbox control',
					e.generationId ?? null,
					new Date(e.at).toISOString(),
				);
			return creditsView(ws);
		},
		addFault: (f) => app.faults.add(f),
		faults: () => app.faults.all(),
		releaseDelays: () => app.faults.releaseDelays(),
		clearFaults: () => app.faults.clear(),
		expireIdempotencyKeys: (ref) => app.state.workspace(ref).idempotency.clear(),
		removeFault: (id) => app.faults.remove(id),
		requests: (filter) => app.requestLog.list(filter),
		clearRequests: () => app.requestLog.clear(),
		watchRequests: (fn) => app.requestLog.watch(fn),
		gateRequests: (gate) => {
			app.requestLog.gate = gate;
			return () => {
				if (app.requestLog.gate === gate) app.requestLog.gate = undefined;
			};
		},
		deliveries: () => [...app.hooks.sent],
		clearDeliveries: () => {
			app.hooks.sent.length = 0;
		},
		notifications: () => [...app.hooks.notifications],
		holdJobs: () => app.scheduler.hold(),
		stepJobs: () => app.scheduler.step(),
		releaseJobs: () => app.scheduler.release(),
		createLargeAsset: (input) => {
			const i = parse(largeAssetInput, input);
			const ws = app.state.workspace(i.workspace);
			if (i.projectId) ws.projects.get(i.projectId);
			return assetView(
				createAsset(ws, {
					filename: i.filename,
					mimeType: i.mimeType,
					size: i.size,
					blob: { type: 'pattern', size: i.size },
					source: 'sandbox',
					title: i.title,
					projectId: i.projectId,
				}),
			);
		},
	};
}

export const keyTable = () =>
	KEYS.map(({ name, secret, workspaceId, scopes, purpose }) => ({
		name,
		key: secret,
		workspaceId,
		scopes,
		purpose,
	}));
