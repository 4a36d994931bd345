/**
 * The trigger's two endpoints, one per webhook URL (the "slot": production, or test while n8n
 * listens for a test event): which one a call is about, what the node keeps of each in its static
 * data (docs/trigger-internals.md, Static data), and manual mode's signing secret for each.
 */
import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	INodeCredentialTestResult,
	ITriggerFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { WEBHOOK_SECRET_CREDENTIAL } from '../shared/transport/context';
import { isValidSecret } from './webhookSignature';

export type Slot = 'production' | 'test';

/** The n8n contexts the trigger runs in: activation, request, its periodic check, execution. */
export type TriggerContext =
	| IHookFunctions
	| IWebhookFunctions
	| ITriggerFunctions
	| IExecuteFunctions;

/** An endpoint the node registered, as kept in static data under its slot. */
export interface StoredEndpoint {
	id: string;
	url: string;
	events: string[];
	secret: string;
	createdAt: string;
	/** When the node set the secret it holds (ISO, n8n's clock): secretRepair.ts. */
	secretAt?: string;
	/** Set by a deactivation, until the trigger is added again (registration.ts). */
	inactiveSince?: string;
	/**
	 * The times [from, to) the workflow was deactivated while MediaGen kept the endpoint (ISO),
	 * at most 20: their events are never replayed (catchUp.ts).
	 */
	inactive?: Array<[string, string]>;
}

/** The slot of a webhook request or an activation: test in n8n's mode "manual". */
export function slotOf(ctx: TriggerContext): Slot {
	return ctx.getMode() === 'manual' ? 'test' : 'production';
}

/**
 * The slot a lifecycle call is about: the one whose stored endpoint has this URL, otherwise the
 * mode's; none for n8n's mode "internal" (a deactivation of either kind never guesses).
 */
export function hookSlot(ctx: IHookFunctions, url: string): Slot | undefined {
	for (const slot of ['test', 'production'] as const) {
		if (storedEndpoint(ctx, slot)?.url === url) return slot;
	}
	const mode = ctx.getMode();
	if (mode === 'manual') return 'test';
	if (mode === 'trigger' || mode === 'webhook') return 'production';
	return undefined;
}

/** Whether something made at `isoTime` was made while the workflow was deactivated. */
export function madeWhileInactive(stored: StoredEndpoint | undefined, isoTime: unknown): boolean {
	const made = Date.parse(typeof isoTime === 'string' ? isoTime : '');
	return (stored?.inactive ?? []).some(
		([from, to]) => made >= Date.parse(from) && made < Date.parse(to),
	);
}

export function storedEndpoint(ctx: TriggerContext, slot: Slot): StoredEndpoint | undefined {
	const value = ctx.getWorkflowStaticData('node')[slot] as IDataObject | undefined;
	if (!value || typeof value !== 'object' || typeof value.id !== 'string') return undefined;
	return value as unknown as StoredEndpoint;
}

/** Replaces the slot's whole key: n8n's change tracking sees only top-level writes. */
export function setStoredEndpoint(
	ctx: TriggerContext,
	slot: Slot,
	endpoint: StoredEndpoint | undefined,
): void {
	const data = ctx.getWorkflowStaticData('node');
	if (endpoint) data[slot] = { ...endpoint };
	else delete data[slot];
}

export function isAutomatic(ctx: TriggerContext): boolean {
	return ctx.getNodeParameter('registration', 'automatic') === 'automatic';
}

/** A manual-mode secret and what messages call it (the secret itself is never shown). */
export interface ManualSecret {
	secret: string;
	label: string;
}

/**
 * Manual mode's signing secret for a slot: from the MediaGen Webhook Secret API credential
 * (version 3: a production and a test secret), or pasted into the node (versions 1 and 2).
 */
export async function manualSecret(ctx: TriggerContext, slot: Slot): Promise<ManualSecret> {
	if (ctx.getNode().typeVersion < 3)
		return {
			secret: String(ctx.getNodeParameter('signingSecret', '') ?? ''),
			label: 'The Signing Secret',
		};
	const data = await ctx.getCredentials(WEBHOOK_SECRET_CREDENTIAL);
	return slot === 'test'
		? { secret: String(data.testSecret ?? ''), label: 'The Test Signing Secret of the credential' }
		: {
				secret: String(data.productionSecret ?? ''),
				label: 'The Production Signing Secret of the credential',
			};
}

/**
 * The credential test of MediaGen Webhook Secret API: MediaGen never shows a secret again, so
 * only the form of the secrets can be checked.
 */
export async function webhookSecretTest(
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
}
