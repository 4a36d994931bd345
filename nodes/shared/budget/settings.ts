/**
 * The credit budget as the MediaGen API credential sets it (every workflow that uses the key
 * shares it), and its period: the day, week or month it counts, in UTC or a named time zone.
 * docs/budget.md.
 */
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { TIME_ZONES } from './zones';

export type BudgetPeriod = 'day' | 'week' | 'month';

const PERIODS: Array<{ name: string; value: 'off' | BudgetPeriod; description: string }> = [
	{ name: 'Off', value: 'off', description: 'No limit on what is spent per period' },
	{ name: 'Per Day', value: 'day', description: 'Starts again every day at midnight' },
	{ name: 'Per Week', value: 'week', description: 'Starts again every Monday at midnight' },
	{ name: 'Per Month', value: 'month', description: 'Starts again on the 1st at midnight' },
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
			'Limit the credits spent per day, week or month by every workflow that uses this credential. Work that would go over the limit is not started, and you are told why. The limit counts all your MediaGen workspace spends, also outside n8n. The API key needs the permission billing.view.',
	},
	{
		displayName: 'Credits per Period',
		name: 'budgetCredits',
		type: 'number',
		default: 0,
		typeOptions: { minValue: 0, numberPrecision: 0 },
		displayOptions: withPeriod,
		description:
			'The most credits your workspace may spend in one day, week or month (for example 500). Required when a budget is set: left at 0, nothing is started.',
	},
	{
		displayName: 'Time Zone',
		name: 'budgetTimeZone',
		type: 'options',
		default: 'UTC',
		options: TIME_ZONES.map((zone) => ({ name: zone.replace(/_/g, ' '), value: zone })),
		displayOptions: withPeriod,
		description: 'The time zone whose midnight starts each day, week or month of the budget',
	},
	{
		displayName: 'Keep Balance Above',
		name: 'budgetFloor',
		type: 'number',
		default: 0,
		typeOptions: { minValue: 0, numberPrecision: 0 },
		description:
			"Never start work that would bring your workspace's credit balance below this number. 0: no minimum. The API key needs the permission billing.view.",
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
	/** "2026-05-02 00:00 Europe/Berlin": where the next period starts, in local time. */
	endsAt: string;
}

interface LocalDate {
	year: number;
	month: number;
	day: number;
	/** 0 Monday … 6 Sunday */
	weekday: number;
}

/** Whether the runtime knows the time zone (Intl throws a RangeError for an unknown one). */
export function isTimeZone(timeZone: string): boolean {
	try {
		new Intl.DateTimeFormat('en-US', { timeZone });
		return true;
	} catch {
		return false;
	}
}

const formats = new Map<string, Intl.DateTimeFormat>();

/** "11/28/2026, 05:36:45": en-US numeric, 24 hours. */
const EN_US = /^(\d+)\/(\d+)\/(\d+),?\s+(\d+):(\d+):(\d+)$/;

/** The local date and wall clock of an instant in the time zone (one formatter per zone). */
function partsAt(instant: number, timeZone: string) {
	let format = formats.get(timeZone);
	if (!format) {
		format = new Intl.DateTimeFormat('en-US', {
			timeZone,
			hourCycle: 'h23',
			year: 'numeric',
			month: 'numeric',
			day: 'numeric',
			hour: 'numeric',
			minute: 'numeric',
			second: 'numeric',
		});
		formats.set(timeZone, format);
	}
	// format() and a pattern: about twice as fast as formatToParts, which is the fallback
	const m = EN_US.exec(format.format(instant));
	const part: Record<string, string> = m
		? { month: m[1], day: m[2], year: m[3], hour: m[4], minute: m[5], second: m[6] }
		: Object.fromEntries(format.formatToParts(instant).map((p) => [p.type, p.value]));
	const [year, month, day] = [Number(part.year), Number(part.month), Number(part.day)];
	const date = Date.UTC(year, month - 1, day);
	return {
		date: { year, month, day, weekday: (new Date(date).getUTCDay() + 6) % 7 },
		/** The local date and time as if it were UTC (ms, whole seconds). */
		wall:
			date +
			((Number(part.hour) % 24) * 3600 + Number(part.minute) * 60 + Number(part.second)) * 1000,
	};
}

const DAY = 86_400_000;

/** The local date of an instant, as the UTC midnight of that date (ms): comparable. */
const dayOf = (instant: number, timeZone: string) => {
	const { wall } = partsAt(instant, timeZone);
	return wall - (((wall % DAY) + DAY) % DAY);
};

/**
 * The first instant of a local date in the time zone: its midnight, or, where the clock jumps
 * over midnight (America/Santiago, Atlantic/Azores, America/Havana), the instant of the jump.
 * When the offset is the same 15 hours before and after the date's midnight (as UTC), that is
 * the offset of its midnight (offsets are within ±14 hours). Otherwise each offset in force
 * around the date gives a candidate: the earliest that is midnight on the date is its start
 * unless an instant before it is on the date too; else the start is searched between the last
 * candidate before the date and the first on it.
 */
function midnight(year: number, month: number, day: number, timeZone: string): Midnight {
	const wall = Date.UTC(year, month - 1, day);
	const key = `${timeZone} ${wall}`;
	const cached = midnights.get(key);
	if (cached !== undefined) return cached;
	const offsetAt = (instant: number) =>
		partsAt(instant, timeZone).wall - (instant - (instant % 1000));
	const around = [wall - 15 * HOUR, wall + 15 * HOUR].map(offsetAt);
	const start = around[0] === around[1] ? wall - around[0] : jumpInto(wall, timeZone, offsetAt);
	const found = { start, at: around[0] === around[1] ? '00:00' : timeText(start, timeZone) };
	if (midnights.size >= 2_000) midnights.clear();
	midnights.set(key, found);
	return found;
}

/** Where a local date starts, and its local time then ("00:00", or "01:00" after a jump). */
interface Midnight {
	start: number;
	at: string;
}

/** The start of a local date (as UTC midnight `wall`) whose offset changes around it. */
function jumpInto(wall: number, timeZone: string, offsetAt: (instant: number) => number): number {
	const candidates = [...new Set([wall - DAY, wall, wall + DAY].map((t) => wall - offsetAt(t)))];
	const exact = candidates.filter((t) => partsAt(t, timeZone).wall === wall);
	const first = exact.length ? Math.min(...exact) : undefined;
	if (first !== undefined && dayOf(first - 1, timeZone) < wall) return first;
	// midnight does not exist on the date (or is not its first instant): the jump into the date
	const earlier = candidates.filter((t) => dayOf(t, timeZone) < wall);
	let lo = earlier.length ? Math.max(...earlier) : wall - DAY;
	let hi = first ?? Math.min(...candidates.filter((t) => t > lo), wall + DAY);
	while (dayOf(hi, timeZone) < wall) hi += HOUR;
	while (hi - lo > 1) {
		const mid = Math.floor((lo + hi) / 2);
		if (dayOf(mid, timeZone) < wall) lo = mid;
		else hi = mid;
	}
	return hi;
}

/** Local midnights already found, by zone and date (a run finds the same ones again). */
const midnights = new Map<string, Midnight>();
const HOUR = 3_600_000;

const two = (n: number) => String(n).padStart(2, '0');

/** "01:00": the local time of an instant. */
function timeText(instant: number, timeZone: string): string {
	const at = new Date(partsAt(instant, timeZone).wall);
	return `${two(at.getUTCHours())}:${two(at.getUTCMinutes())}`;
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
	const { start } = midnight(from.year, from.month, from.day, timeZone);
	const next = midnight(to.year, to.month, to.day, timeZone);
	const end = next.start;
	const zone = timeZone === 'UTC' ? 'UTC' : timeZone;
	const text = (d: typeof from) => `${d.year}-${two(d.month)}-${two(d.day)}`;
	return {
		start,
		end,
		label: `${period} of ${text(from)}${period === 'day' ? '' : ` to ${text(shift(to, -1))}`} (${zone})`,
		endsAt: `${text(to)} ${next.at} ${zone}`,
	};
}
