/**
 * The ledger's summary a workflow saves in its static data (nodes/shared/budget/ledgerSummary.ts):
 * sealed with an HMAC keyed with the API key, opened only for the same slot (key and period
 * settings), the same settings and an unchanged content; never holding the key.
 */
import type { IDataObject } from 'n8n-workflow';

import { SANDBOX_KEYS } from '../../sandbox';
import type { LedgerSummary } from '../../nodes/shared/budget/ledgerSummary';
import { openSummary, sealSummary, slotOf, SUMMARY } from '../../nodes/shared/budget/ledgerSummary';

/** The API key the HMAC is keyed with: the sandbox's. */
const KEY = SANDBOX_KEYS.pro;
const LABEL = 'month|Europe/Berlin';
const SLOT = slotOf('https://api.example.test|0123456789abcdef01234567', LABEL);

const summary: LedgerSummary = {
	since: Date.UTC(2027, 0, 1) - 3_600_000,
	anchor: {
		id: 29_031,
		type: 'reserve',
		amount: -4,
		gen: 'gen_abc',
		at: Date.UTC(2027, 0, 20, 11),
		balanceAfter: 40_396,
	},
	after: false,
	balance: 40_400,
	spent: 36_020,
	skip: [29_033, 29_040],
	prefixAt: Date.UTC(2027, 0, 20, 10, 59),
};

const sealed = () => sealSummary(summary, SLOT, LABEL, KEY) as IDataObject;
/** The sealed summary as n8n's database gives it back (JSON). */
const stored = () => JSON.parse(JSON.stringify(sealed())) as IDataObject;

test('sealed and opened again (through JSON, as n8n stores static data): the same summary', () => {
	expect(openSummary(stored(), SLOT, LABEL, KEY)).toEqual(summary);
	const none = { ...summary, anchor: { ...summary.anchor, gen: null }, skip: [], prefixAt: null };
	const again = JSON.parse(JSON.stringify(sealSummary(none, SLOT, LABEL, KEY))) as IDataObject;
	expect(openSummary(again, SLOT, LABEL, KEY)).toEqual(none);
});

test('the slot: the same for the same key identity and settings, another for either changed; never the key', () => {
	expect(slotOf('u|h', 'day|UTC')).toBe(slotOf('u|h', 'day|UTC'));
	expect(slotOf('u|h', 'day|UTC')).not.toBe(slotOf('u|h2', 'day|UTC'));
	expect(slotOf('u|h', 'day|UTC')).not.toBe(slotOf('u|h', 'week|UTC'));
	expect(JSON.stringify(sealed())).not.toContain(KEY);
	expect(SLOT).toMatch(/^[0-9a-f]{24}$/);
});

test.each<[string, (s: IDataObject) => IDataObject]>([
	['spent lowered', (s) => ({ ...s, spent: Number(s.spent) - 100 })],
	['balance raised', (s) => ({ ...s, balance: Number(s.balance) + 1 })],
	['a closing id removed', (s) => ({ ...s, skip: [29_033] })],
	['the anchor moved', (s) => ({ ...s, anchor: { ...(s.anchor as IDataObject), id: 29_032 } })],
	[
		'the anchor at another amount',
		(s) => ({ ...s, anchor: { ...(s.anchor as IDataObject), amount: -5 } }),
	],
	['"after" flipped', (s) => ({ ...s, after: true })],
	['another period start', (s) => ({ ...s, since: Number(s.since) + 86_400_000 })],
	['prefixAt changed', (s) => ({ ...s, prefixAt: null })],
	['no HMAC', (s) => ({ ...s, mac: undefined })],
	['an HMAC that is not hex', (s) => ({ ...s, mac: 'not hex' })],
	['a truncated HMAC', (s) => ({ ...s, mac: String(s.mac).slice(0, 10) })],
	['another version', (s) => ({ ...s, v: 2 })],
	['a number as text', (s) => ({ ...s, spent: String(s.spent) })],
	['a closing id that is not an integer', (s) => ({ ...s, skip: [29_033.5, 29_040] })],
	['no anchor', (s) => ({ ...s, anchor: undefined })],
])('an edited summary is refused: %s', (_name, edit) => {
	expect(openSummary(edit(stored()), SLOT, LABEL, KEY)).toBeUndefined();
});

test('refused for another key (its HMAC), another slot, other period settings, or what is not a summary', () => {
	expect(openSummary(stored(), SLOT, LABEL, SANDBOX_KEYS.readOnly)).toBeUndefined();
	expect(openSummary(stored(), slotOf('other', LABEL), LABEL, KEY)).toBeUndefined();
	expect(openSummary(stored(), SLOT, 'month|UTC', KEY)).toBeUndefined();
	// sealed for another key: the HMAC of this key does not match
	const other = sealSummary(summary, SLOT, LABEL, 'another key') as IDataObject;
	expect(openSummary(other, SLOT, LABEL, KEY)).toBeUndefined();
	for (const value of [undefined, null, 'text', 42, [], {}])
		expect(openSummary(value, SLOT, LABEL, KEY)).toBeUndefined();
});

test(`bounded: a summary with more than ${SUMMARY.maxSkip} closing ids is not sealed (nor opened)`, () => {
	const many = Array.from({ length: SUMMARY.maxSkip + 1 }, (_, i) => 30_000 + i);
	expect(sealSummary({ ...summary, skip: many }, SLOT, LABEL, KEY)).toBeUndefined();
	const most = { ...summary, skip: many.slice(0, SUMMARY.maxSkip) };
	const at = sealSummary(most, SLOT, LABEL, KEY) as IDataObject;
	expect(openSummary(at, SLOT, LABEL, KEY)).toEqual(most);
	expect(openSummary({ ...at, skip: many }, SLOT, LABEL, KEY)).toBeUndefined();
	expect(JSON.stringify(at).length).toBeLessThan(3_000);
});
