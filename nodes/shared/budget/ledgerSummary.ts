/**
 * The ledger's summary a workflow keeps in its static data (docs/budget.md, "The first read of a
 * period in a process"), so that a new n8n process's first read of the ledger for that workflow
 * reads back only to where the summary stops, not the whole period. What is kept: the period's
 * start and settings, the entry the summary is anchored at (the oldest reservation still held
 * when it was saved, or the newest entry when none was), the period as the rule stood there
 * (spent, balance), the ids of later entries that close a reservation booked before it, and an
 * HMAC of all of it keyed with the API key: a summary edited by hand (a Code node) or saved for
 * another key is refused. Never the key itself; no entries.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { credentialOf } from '../transport/request';
import type { LedgerEntry } from './ledger';

export const SUMMARY = {
	/** The workflow's global static data field that holds the summaries (one per key and period). */
	field: 'mediaGenBudgetLedger',
	version: 1,
	/** A summary with more closing ids than this is not saved (its size stays bounded). */
	maxSkip: 200,
	/** Summaries kept per workflow (one per credential and period setting it uses). */
	maxSlots: 8,
};

/** Where the rule starts for a period: at (or just after) `anchor`, with the period before it. */
export interface LedgerSummary {
	/** The period's start (ms). */
	since: number;
	/** The entry the summary is anchored at, as the ledger shows it. */
	anchor: LedgerEntry;
	/** The period as it stood just after `anchor` (true) or just before it (false). */
	after: boolean;
	/** The spendable balance there (the walk's). */
	balance: number;
	/** Charged in the period there. */
	spent: number;
	/** Later entries that close a reservation booked before that point (skipped by the walk). */
	skip: number[];
	/** `created_at` of the newest entry summarised (at most; null: none). */
	prefixAt: number | null;
}

/** The summary's slot in the static data: a hash of the key's identity and the period settings. */
export function slotOf(keyIdentity: string, label: string): string {
	return createHash('sha256').update(`${keyIdentity}|${label}`).digest('hex').slice(0, 24);
}

/** Every field, in one order, for the HMAC. */
function content(s: LedgerSummary, slot: string, label: string): string {
	const a = s.anchor;
	return JSON.stringify([
		SUMMARY.version,
		slot,
		label,
		s.since,
		[a.id, a.type, a.amount, a.gen, a.at, a.balanceAfter],
		s.after,
		s.balance,
		s.spent,
		s.skip,
		s.prefixAt,
	]);
}

const macOf = (s: LedgerSummary, slot: string, label: string, secret: string) =>
	createHmac('sha256', secret)
		.update(content(s, slot, label))
		.digest('hex');

/** The summary as saved (plain JSON, with its HMAC); undefined when it is too large to keep. */
export function sealSummary(
	s: LedgerSummary,
	slot: string,
	label: string,
	secret: string,
): IDataObject | undefined {
	if (s.skip.length > SUMMARY.maxSkip) return undefined;
	return {
		v: SUMMARY.version,
		label,
		since: s.since,
		anchor: { ...s.anchor },
		after: s.after,
		balance: s.balance,
		spent: s.spent,
		skip: [...s.skip],
		prefixAt: s.prefixAt,
		mac: macOf(s, slot, label, secret),
	};
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isId = (v: unknown): v is number => Number.isSafeInteger(v);

function anchorOf(v: unknown): LedgerEntry | undefined {
	if (!v || typeof v !== 'object') return undefined;
	const a = v as IDataObject;
	if (!isId(a.id) || typeof a.type !== 'string' || !isNumber(a.amount)) return undefined;
	if (!isNumber(a.at) || !isNumber(a.balanceAfter)) return undefined;
	if (a.gen !== null && typeof a.gen !== 'string') return undefined;
	return {
		id: a.id,
		type: a.type,
		amount: a.amount,
		gen: a.gen,
		at: a.at,
		balanceAfter: a.balanceAfter,
	};
}

/**
 * The summary saved in `value`, when it is one, for this slot and period settings, and its HMAC
 * (keyed with the API key) matches: else undefined (the first read then reads as without one).
 */
export function openSummary(
	value: unknown,
	slot: string,
	label: string,
	secret: string,
): LedgerSummary | undefined {
	if (!value || typeof value !== 'object') return undefined;
	const v = value as IDataObject;
	if (v.v !== SUMMARY.version || v.label !== label || typeof v.mac !== 'string') return undefined;
	const anchor = anchorOf(v.anchor);
	const { since, balance, spent, skip, prefixAt, after } = v;
	if (!anchor || !isNumber(since) || !isNumber(balance) || !isNumber(spent)) return undefined;
	if (typeof after !== 'boolean' || (prefixAt !== null && !isNumber(prefixAt))) return undefined;
	if (!Array.isArray(skip) || skip.length > SUMMARY.maxSkip || !skip.every(isId)) return undefined;
	const s: LedgerSummary = { since, anchor, after, balance, spent, skip: [...skip], prefixAt };
	const want = Buffer.from(macOf(s, slot, label, secret), 'hex');
	const got = Buffer.from(v.mac, 'hex');
	return got.length === want.length && timingSafeEqual(got, want) ? s : undefined;
}

/** The workflow's static data, where n8n gives it (every node context of n8n 1.x and 2.x does). */
function staticData(ctx: IExecuteFunctions): IDataObject | undefined {
	try {
		return typeof ctx.getWorkflowStaticData === 'function'
			? ctx.getWorkflowStaticData('global')
			: undefined;
	} catch {
		return undefined;
	}
}

const secretOf = async (ctx: IExecuteFunctions) =>
	String((await credentialOf(ctx)).data?.apiKey ?? '');

const slotsOf = (data: IDataObject | undefined): IDataObject => {
	const slots = data?.[SUMMARY.field];
	return slots && typeof slots === 'object' && !Array.isArray(slots) ? (slots as IDataObject) : {};
};

/** The summary this workflow saved for the key and period settings, verified; else undefined. */
export async function loadSummary(
	ctx: IExecuteFunctions,
	keyIdentity: string,
	label: string,
): Promise<LedgerSummary | undefined> {
	const slot = slotOf(keyIdentity, label);
	const saved = slotsOf(staticData(ctx))[slot];
	if (saved === undefined) return undefined;
	return openSummary(saved, slot, label, await secretOf(ctx));
}

/**
 * Saves the summary in the workflow's static data (n8n stores it with the workflow after a
 * production execution), when it differs from what is there. The field is assigned anew: n8n
 * sees a change of static data only through its top-level objects (ObservableObject).
 */
export async function saveSummary(
	ctx: IExecuteFunctions,
	keyIdentity: string,
	label: string,
	summary: LedgerSummary,
): Promise<void> {
	const data = staticData(ctx);
	if (!data) return;
	const slot = slotOf(keyIdentity, label);
	const sealed = sealSummary(summary, slot, label, await secretOf(ctx));
	const slots = slotsOf(data);
	// too large to keep: an older summary of the slot stays (still right, it reads back further)
	if (!sealed || JSON.stringify(slots[slot]) === JSON.stringify(sealed)) return;
	const others = Object.entries(slots).filter(([name]) => name !== slot);
	data[SUMMARY.field] = Object.fromEntries([
		...others.slice(Math.max(0, others.length - SUMMARY.maxSlots + 1)),
		[slot, sealed],
	]);
}
