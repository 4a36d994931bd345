/**
 * What the credit budget tells: the refusal of an item (an error, an error item with Continue
 * On Fail, or a tool's answer to an AI agent), and the line of the run's cost hint.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Standing } from './ledger';
import type { BudgetSettings, PeriodWindow } from './settings';

/** The budget as a run sees it: the settings, the period, and where the period stands. */
export interface BudgetView {
	settings: BudgetSettings;
	window: PeriodWindow;
	walk: Standing;
}

/** What one refused item needed and what was left for it. */
export interface Shortfall {
	itemIndex: number;
	operation: string;
	/** The item's estimate (undefined: the operation has none). */
	estimate?: number;
	/** Credits this run's earlier items took since the ledger was read. */
	earlier: number;
	/** A job of the item that was started and then cancelled (races). */
	cancelled?: string;
	/** Not estimated: nothing was left for any item. */
	unpriced?: boolean;
}

const credits = (n: number) => `${n} credit${n === 1 ? '' : 's'}`;

/**
 * What is left, worded after the limits set: "3 credits left of the budget of 100 credits per
 * day", "3 credits left above the balance floor of 50" (Keep Balance Above alone), or the budget
 * "with the balance kept above 50" when both are set.
 */
function leftText({ settings }: BudgetView, left: number): string {
	const floor = settings.floor > 0 ? settings.floor : undefined;
	if (!settings.period) return `${credits(left)} left above the balance floor of ${floor ?? 0}`;
	const budget = `${credits(left)} left of the budget of ${credits(settings.credits ?? 0)} per ${settings.period}`;
	return floor === undefined ? budget : `${budget} with the balance kept above ${floor}`;
}

/** What the run's last read leaves for a new call. */
const leftOf = (view: BudgetView, short: Shortfall) =>
	view.walk.blocked ? 0 : Math.max(0, view.walk.room - short.earlier);

/** The figures of a refusal (also a tool's answer). */
export function figuresOf(view: BudgetView, short: Shortfall): IDataObject {
	const { walk, settings, window } = view;
	return {
		budget: settings.period ? (settings.credits ?? 0) : null,
		period: settings.period ? window.label : null,
		keepBalanceAbove: settings.floor > 0 ? settings.floor : null,
		spent: walk.spent,
		reserved: walk.reserved,
		balance: walk.balance,
		estimate: short.estimate ?? null,
		thisRunBefore: short.earlier,
		left: Math.max(0, walk.room - short.earlier),
		resetsAt: settings.period ? window.endsAt : null,
	};
}

function why(view: BudgetView, short: Shortfall): string {
	const { walk, settings } = view;
	const left = leftOf(view, short);
	const need = short.cancelled
		? `its job reserved ${credits(short.estimate ?? 0)}`
		: short.unpriced
			? 'nothing is left for it'
			: short.estimate === undefined
				? 'its cost is not known before it starts'
				: `it needs an estimated ${credits(short.estimate)}`;
	const figures = [
		settings.period ? `spent ${walk.spent}, reserved ${walk.reserved} this ${settings.period}` : '',
		settings.floor > 0 ? `balance ${walk.balance}` : '',
		short.earlier ? `this run's earlier items ${short.earlier}` : '',
	].filter(Boolean);
	const over = walk.blocked ? ' (a reservation before it is already over the budget)' : '';
	return `${need}, ${leftText(view, left)}: ${figures.join(', ')}${over}`;
}

/** What the user can do: raise the limit, or wait (named), or add credits (the floor). */
function whatToDo(view: BudgetView, short: Shortfall): string {
	const { settings, window } = view;
	const left = leftOf(view, short);
	const period = settings.period
		? `raise Credits per Period in the MediaGen API credential, or run it again after ${window.endsAt}, when the budget starts again`
		: '';
	const floor =
		settings.floor > 0 &&
		(!settings.period || view.walk.balance - settings.floor - short.earlier < (short.estimate ?? 1))
			? 'add credits to the workspace, or lower Keep Balance Above in the MediaGen API credential'
			: '';
	const smaller =
		left > 0 && short.estimate !== undefined
			? ` Work that costs at most ${credits(left)} can still start now.`
			: '';
	return `To run it: ${[period, floor].filter(Boolean).join('; or ') || 'raise the limit in the MediaGen API credential'}.${smaller}`;
}

/** The error of an item the budget refused (before sending it, or after, its job cancelled). */
export function refusal(
	ctx: IExecuteFunctions,
	view: BudgetView,
	short: Shortfall,
): NodeOperationError {
	const item = `item ${short.itemIndex + 1} (${short.operation})`;
	const message = short.cancelled
		? `Credit budget: ${item} was cancelled once it showed in the credit ledger; ${why(view, short)} before it`
		: `Credit budget: ${item} was refused; ${why(view, short)}`;
	const { window, settings } = view;
	const description = [
		short.cancelled
			? `Its job ${short.cancelled} was cancelled at MediaGen: its reservation was returned, nothing is charged for it. Reservations count in the order MediaGen booked them; other executions may have reserved first.`
			: '',
		`The budget is set in the MediaGen API credential (Credit Budget, Keep Balance Above) and counts everything the workspace spent and reserved${settings.period ? ` in the ${window.label}` : ''}, also outside n8n.`,
		whatToDo(view, short),
	]
		.filter(Boolean)
		.join(' ');
	const error = new NodeOperationError(ctx.getNode(), message, {
		itemIndex: short.itemIndex,
		description,
	});
	(error as NodeOperationError & { budget?: IDataObject }).budget = figuresOf(view, short);
	return error;
}

/** A refusal as a tool answers it to an AI agent or MCP client: readable, not a failure. */
export function toolRefusal(error: NodeOperationError): IDataObject {
	const figures = (error as NodeOperationError & { budget?: IDataObject }).budget ?? {};
	const left = Number(figures.left ?? 0);
	const until = figures.resetsAt ? ` until ${String(figures.resetsAt)}` : '';
	const need =
		figures.estimate === null || figures.estimate === undefined
			? 'its cost is not known before it starts'
			: `it needs an estimated ${credits(Number(figures.estimate))}`;
	const limit = figures.budget === null ? 'above the balance floor' : 'of the credit budget';
	return {
		refused: true,
		reason: 'creditBudget',
		message: error.message,
		details: error.description ?? null,
		budget: figures,
		next:
			left > 0
				? `This call was not started: ${need} and ${credits(left)} ${left === 1 ? 'is' : 'are'} left ${limit}${until}. A call that costs at most ${credits(left)} can still be made (check its cost first); otherwise tell the user.`
				: `Nothing more can be started with this tool now: nothing is left ${limit}${until}. Do not call it again for this; tell the user.`,
	};
}

/** Whether an error is the budget's refusal. */
export function isRefusal(error: unknown): error is NodeOperationError {
	return !!(error as { budget?: unknown } | undefined)?.budget;
}

/** The line of the cost hint: how much of the budget is used (at the run's last look). */
export function budgetLine(view: BudgetView, refused: number): string {
	const { walk, settings, window } = view;
	const parts: string[] = [];
	if (settings.period) {
		parts.push(
			`credit budget: ${walk.spent + walk.reserved} of ${settings.credits ?? 0} used this ${settings.period} (${walk.spent} charged, ${walk.reserved} reserved, as this run last saw it; starts again ${window.endsAt})`,
		);
	}
	if (settings.floor > 0) parts.push(`balance ${walk.balance}, kept above ${settings.floor}`);
	if (refused) parts.push(`${refused} item${refused === 1 ? '' : 's'} refused by the budget`);
	return parts.join('; ');
}
