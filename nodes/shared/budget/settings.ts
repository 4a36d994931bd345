/**
 * The credit budget as the MediaGen API credential sets it (every workflow that uses the key
 * shares it), and its period: the day, week or month it counts, in UTC or a named time zone.
 * docs/budget.md.
 */
import type { IDataObject, INodeProperties } from 'n8n-workflow';

export type BudgetPeriod = 'day' | 'week' | 'month';

const PERIODS: Array<{ name: string; value: 'off' | BudgetPeriod; description: string }> = [
	{ name: 'Off', value: 'off', description: 'No credit budget per period' },
	{ name: 'Per Day', value: 'day', description: 'From midnight in the time zone below' },
	{ name: 'Per Week', value: 'week', description: 'From Monday midnight in the time zone below' },
	{
		name: 'Per Month',
		value: 'month',
		description: 'From the 1st, midnight, in the time zone below',
	},
];

const withPeriod = { show: { budgetPeriod: ['day', 'week', 'month'] } };

/** The credential's optional budget fields: all off by default (saved credentials stay valid). */
export const BUDGET_PROPERTIES: INodeProperties[] = [
	{
		displayName: 'Credit Budget',
		name: 'budgetPeriod',
		type: 'options',
		default: 'off',
		options: PERIODS,
		description:
			'A budget every MediaGen node using this credential honours, across executions, workflows and queue-mode workers: work that would take what the workspace spent and reserved in the period above the budget is refused before it starts. Needs the scope billing.view (the node reads the credit ledger).',
	},
	{
		displayName: 'Credits per Period',
		name: 'budgetCredits',
		type: 'number',
		default: 0,
		typeOptions: { minValue: 0, numberPrecision: 0 },
		displayOptions: withPeriod,
		description:
			'The most the workspace may spend (charged and reserved) in one period. It counts everything the workspace spent, also outside n8n. 0 allows nothing.',
	},
	{
		displayName: 'Time Zone',
		name: 'budgetTimeZone',
		type: 'string',
		default: 'UTC',
		placeholder: 'Europe/Berlin',
		displayOptions: withPeriod,
		description: 'Where the period starts at midnight: UTC or an IANA time zone name',
	},
	{
		displayName: 'Keep Balance Above',
		name: 'budgetFloor',
		type: 'number',
		default: 0,
		typeOptions: { minValue: 0, numberPrecision: 0 },
		description:
			"Never start work that would take the workspace's spendable balance below this many credits. 0: no floor. Needs the scope billing.view.",
	},
];

/** The credential test's URL: the ledger when a budget is set (it needs billing.view). */
export const BUDGET_TEST_URL =
	'={{ ($credentials.budgetPeriod && $credentials.budgetPeriod !== "off") || $credentials.budgetFloor > 0 ? "/credits/ledger?limit=1" : "/workspace" }}';

/** What a key without billing.view is told when a budget is set. */
export const BUDGET_SCOPE_MESSAGE =
	'The credit budget set in this credential reads the credit ledger, which needs the scope billing.view: give the API key billing.view in MediaGen (API section), or turn the budget off';

/** A budget as the credential sets it. */
export interface BudgetSettings {
	/** Credits per period, when a period is set. */
	credits?: number;
	period?: BudgetPeriod;
	timeZone: string;
	/** The spendable balance never goes below this (0: no floor). */
	floor: number;
}

/** The credential's budget, or undefined when it sets none (no request is ever sent for it). */
export function budgetSettings(data: IDataObject | undefined): BudgetSettings | undefined {
	const period = String(data?.budgetPeriod ?? 'off');
	const floor = Math.max(0, Number(data?.budgetFloor ?? 0) || 0);
	const hasPeriod = period === 'day' || period === 'week' || period === 'month';
	if (!hasPeriod && floor <= 0) return undefined;
	return {
		...(hasPeriod ? { period, credits: Math.max(0, Number(data?.budgetCredits ?? 0) || 0) } : {}),
		timeZone: String(data?.budgetTimeZone ?? '').trim() || 'UTC',
		floor,
	};
}

// ---------------------------------------------------------------------------------------------
// Periods

/** The instants a period starts and ends (ms), and how to name them. */
export interface PeriodWindow {
	start: number;
	end: number;
	/** "day of 2026-05-01 (Europe/Berlin)" */
	label: string;
	/** "2026-05-02 00:00 Europe/Berlin" */
	endsAt: string;
}

interface LocalDate {
	year: number;
	month: number;
	day: number;
	/** 0 Monday … 6 Sunday */
	weekday: number;
}

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** Whether the runtime knows the time zone (Intl throws a RangeError for an unknown one). */
export function isTimeZone(timeZone: string): boolean {
	try {
		new Intl.DateTimeFormat('en-US', { timeZone });
		return true;
	} catch {
		return false;
	}
}

function partsAt(instant: number, timeZone: string) {
	const parts = new Intl.DateTimeFormat('en-US', {
		timeZone,
		hourCycle: 'h23',
		year: 'numeric',
		month: 'numeric',
		day: 'numeric',
		hour: 'numeric',
		minute: 'numeric',
		second: 'numeric',
		weekday: 'short',
	}).formatToParts(new Date(instant));
	const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
	return {
		date: {
			year: Number(get('year')),
			month: Number(get('month')),
			day: Number(get('day')),
			weekday: WEEKDAYS.indexOf(get('weekday')),
		},
		wall: Date.UTC(
			Number(get('year')),
			Number(get('month')) - 1,
			Number(get('day')),
			Number(get('hour')) % 24,
			Number(get('minute')),
			Number(get('second')),
		),
	};
}

/** The instant of a local midnight in the time zone (summer time included). */
function midnight(year: number, month: number, day: number, timeZone: string): number {
	const wall = Date.UTC(year, month - 1, day);
	const offset = (instant: number) =>
		partsAt(instant, timeZone).wall - (instant - (instant % 1000));
	const first = wall - offset(wall);
	return wall - offset(first);
}

function dateText(instant: number, timeZone: string): string {
	const { date } = partsAt(instant, timeZone);
	const two = (n: number) => String(n).padStart(2, '0');
	return `${date.year}-${two(date.month)}-${two(date.day)}`;
}

/** The period that holds `now` (ms) in the time zone. */
export function periodWindow(period: BudgetPeriod, timeZone: string, now: number): PeriodWindow {
	const today: LocalDate = partsAt(now, timeZone).date;
	let from = { year: today.year, month: today.month, day: today.day };
	let to: typeof from;
	const shift = (d: typeof from, days: number, months = 0) => {
		const t = new Date(Date.UTC(d.year, d.month - 1 + months, d.day + days));
		return { year: t.getUTCFullYear(), month: t.getUTCMonth() + 1, day: t.getUTCDate() };
	};
	if (period === 'day') to = shift(from, 1);
	else if (period === 'week') {
		from = shift(from, -today.weekday);
		to = shift(from, 7);
	} else {
		from = { ...from, day: 1 };
		to = shift(from, 0, 1);
	}
	const start = midnight(from.year, from.month, from.day, timeZone);
	const end = midnight(to.year, to.month, to.day, timeZone);
	const zone = timeZone === 'UTC' ? 'UTC' : timeZone;
	return {
		start,
		end,
		label: `${period} of ${dateText(start, timeZone)}${period === 'day' ? '' : ` to ${dateText(end - 1, timeZone)}`} (${zone})`,
		endsAt: `${dateText(end, timeZone)} 00:00 ${zone}`,
	};
}
