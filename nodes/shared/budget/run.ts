/**
 * The credit budget of one node run (docs/budget.md): before the first charged request the run
 * reads the period from the ledger and refuses the items that would cross the budget; while it
 * sends, and after, it reads the ledger again and cancels its own jobs that the ledger's order
 * puts over the budget (`walkLedger`: the same rule in every run, so that concurrent executions,
 * workflows and workers neither over- nor under-cancel); canvas runs, which reserve step by
 * step, are looked at again while the node waits for them.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ItemPlan, SendResult } from '../behaviours/behaviour';
import type { OpenJob } from '../jobs/cancel';
import { cancelJobs } from '../jobs/cancel';
import type { JobSettings } from '../jobs/output';
import { fillPath } from '../jobs/paths';
import type { PendingJob } from '../jobs/poller';
import { isToolCall } from '../jobs/toolCall';
import { asNodeError, statusOf } from '../transport/errors';
import { credentialOf, mediaGenRequest } from '../transport/request';
import { estimateAll } from './estimates';
import type { Claim, Limits, Standing } from './ledger';
import { walkLedger } from './ledger';
import { readLedger } from './ledgerRead';
import type { BudgetView, Shortfall } from './messages';
import { budgetLine, isRefusal, refusal, toolRefusal } from './messages';
import type { BudgetSettings, PeriodWindow } from './settings';
import { BUDGET_SCOPE_MESSAGE, budgetSettings, isTimeZone, periodWindow } from './settings';

/** How often a run looks again while it sends. */
export const BUDGET = {
	/** Items sent before the first look again (the other runs' pace is not known yet). */
	firstChunk: 4,
};

/** What the budget needs of a node run (run/execute.ts's run has it). */
export interface BudgetRun {
	ctx: IExecuteFunctions;
	continueOnFail: boolean;
	plans: ItemPlan[];
	results: Array<INodeExecutionData[] | undefined>;
	waiting: Array<{ job: PendingJob; settings: JobSettings }>;
}

/** A job the item started (`pending` while the node waits for it). */
interface Started {
	open: OpenJob;
	pending?: PendingJob;
	refused?: NodeOperationError;
}

/** A charging item: a job create, a charged call that answers at once, a generation retried. */
interface Item {
	plan: ItemPlan;
	kind: 'job' | 'immediate' | 'generation';
	/** Its estimate; undefined where the API has none. */
	cost?: number;
	started: Started[];
	refused?: NodeOperationError;
	/** The refusal already reached the run (run/execute.ts: the guard's, or a send's failure). */
	reported?: boolean;
}

function kindOf({ endpoint, job, charged }: ItemPlan): Item['kind'] | undefined {
	if (endpoint.nodeOperation) return undefined;
	if (endpoint.job) return job && !job.known ? 'job' : undefined;
	if (endpoint.charged) return charged && !charged.answer ? 'immediate' : undefined;
	return endpoint.reserves ? 'generation' : undefined;
}

/** A canvas step that has ended: its reservation is charged or returned, nothing to cancel. */
const STEP_ENDED = new Set(['succeeded', 'failed', 'cancelled', 'skipped']);

/** A canvas run's record: its steps reserve one by one (`nodes[].generationId`). */
const isStepwise = (record: IDataObject) => Array.isArray(record.nodes);

/** The generations whose reservations are a started record's claims in the ledger. */
function claimGens(record: IDataObject): string[] {
	if (!isStepwise(record)) return record.id ? [String(record.id)] : [];
	return (record.nodes as IDataObject[])
		.map((n) => n?.generationId)
		.filter((g): g is string => typeof g === 'string' && !!g);
}

export class RunBudget {
	private readonly items: Item[];
	private window?: PeriodWindow;
	private walk = walkLedger([], 0, {});
	/** The newest ledger entry when the run checked first: later claims of its jobs are its own. */
	private before = 0;
	private newest = 0;
	/** Since the last read: items sent and what they were estimated to take. */
	private sentSinceRead = 0;
	private costSinceRead = 0;
	/** An item without an estimate was sent since the last read: read again before the next. */
	private unpricedSinceRead = false;
	private chunk = BUDGET.firstChunk;
	/** What this run's canvas runs will still reserve (steps not started yet). */
	private remainder = 0;
	private stopped = false;
	private readonly decided = new Set<string>();

	constructor(
		private readonly run: BudgetRun,
		private readonly settings: BudgetSettings,
	) {
		this.items = run.plans.flatMap((plan) => {
			const kind = kindOf(plan);
			return kind ? [{ plan, kind, started: [] }] : [];
		});
	}

	/** The budget of a run whose credential sets one; undefined (no request at all) otherwise. */
	static async of(run: BudgetRun): Promise<RunBudget | undefined> {
		if (!run.plans.some((plan) => kindOf(plan))) return undefined;
		const settings = budgetSettings((await credentialOf(run.ctx)).data);
		return settings ? new RunBudget(run, settings) : undefined;
	}

	private get limits(): Limits {
		const { settings } = this;
		return {
			...(settings.period ? { budget: settings.credits ?? 0 } : {}),
			...(settings.floor > 0 ? { floor: settings.floor } : {}),
		};
	}

	private get view(): BudgetView {
		const window = this.window ?? periodWindow('day', 'UTC', Date.now());
		return { settings: this.settings, window, walk: this.walk };
	}

	private short(item: Item, earlier: number, cancelled?: { id: string; cost: number }): Shortfall {
		const { itemIndex, endpoint } = item.plan;
		const estimate = cancelled?.cost || item.cost;
		return { itemIndex, operation: endpoint.name, estimate, earlier, cancelled: cancelled?.id };
	}

	/** Nothing is left for any item, whatever it costs. */
	private get empty(): boolean {
		return this.walk.blocked || this.walk.room - this.remainder <= 0;
	}

	private fits(item: Item, earlier: number): boolean {
		const left = this.walk.room - this.remainder - earlier;
		if (this.walk.blocked) return false;
		return item.cost === undefined ? left > 0 : item.cost <= left;
	}

	/**
	 * The ledger read again and walked, in the period that holds MediaGen's clock at this read: a
	 * period that turns while the run sends or waits is followed (what was booked before it turned
	 * counts for the period before).
	 */
	private async read(): Promise<void> {
		const { settings } = this;
		const read = await readLedger(
			this.run.ctx,
			(now) => (this.window = periodWindow(settings.period ?? 'day', settings.timeZone, now)).start,
			`${settings.period ?? 'day'}|${settings.timeZone}`,
		);
		this.newest = read.newest;
		this.walk = walkLedger(read.entries, read.start, this.limits);
	}

	/** The error of every charging item when the ledger cannot be read (nothing is sent). */
	private unchecked(error: unknown): NodeOperationError {
		const node = this.run.ctx.getNode();
		if (statusOf(error) === 403)
			return new NodeOperationError(node, BUDGET_SCOPE_MESSAGE, {
				description:
					'A key without billing.view cannot read GET /credits/ledger, so the budget cannot be checked; nothing was started or charged.',
			});
		const cause = asNodeError(this.run.ctx, error);
		return new NodeOperationError(
			node,
			`The credit budget could not be checked: ${cause.message}`,
			{
				description:
					`${cause.description ?? ''} The budget set in the MediaGen API credential reads GET /credits/ledger before anything is charged.`.trim(),
			},
		);
	}

	/**
	 * The guard phase: estimates, the period read from the ledger, and the items (in order) that
	 * the budget has no room for refused before anything is sent.
	 */
	async guard(): Promise<Map<number, unknown>> {
		const refused = new Map<number, unknown>();
		if (!this.items.length) return refused;
		const refuseAll = (error: unknown) => {
			for (const item of this.items) refused.set(item.plan.itemIndex, error);
			return refused;
		};
		const setting = this.settingError();
		if (setting) return refuseAll(setting);
		try {
			await this.read();
		} catch (error) {
			return refuseAll(this.unchecked(error));
		}
		if (this.empty) {
			// nothing is left for any item: refused without estimating (no request more)
			for (const item of this.items) {
				item.refused = refusal(this.run.ctx, this.view, { ...this.short(item, 0), unpriced: true });
				item.reported = true;
				refused.set(item.plan.itemIndex, item.refused);
			}
			return this.answerTools(refused);
		}
		const unpriced = this.items.filter((item) => item.cost === undefined).length;
		for (const [itemIndex, error] of await estimateAll(this.run.ctx, this.items))
			refused.set(itemIndex, error);
		if (this.items.filter((item) => item.cost === undefined).length < unpriced) {
			// the estimates took their time: what the other runs booked meanwhile
			try {
				await this.read();
			} catch (error) {
				return refuseAll(this.unchecked(error));
			}
		}
		this.before = this.newest;
		let earlier = 0;
		for (const item of this.items) {
			if (refused.has(item.plan.itemIndex)) continue;
			if (this.fits(item, earlier)) earlier += item.cost ?? 0;
			else {
				item.refused = refusal(this.run.ctx, this.view, this.short(item, earlier));
				item.reported = true;
				refused.set(item.plan.itemIndex, item.refused);
			}
		}
		this.chunk = Math.max(
			1,
			Math.min(BUDGET.firstChunk, Math.floor(this.walk.room / this.averageCost() / 2)),
		);
		return this.answerTools(refused);
	}

	/**
	 * The credential's budget fields that cannot work, told before any request: a time zone the
	 * runtime does not know, a period without credits (it would block everything).
	 */
	private settingError(): NodeOperationError | undefined {
		const { timeZone, period, credits } = this.settings;
		const node = this.run.ctx.getNode();
		if (period && !isTimeZone(timeZone))
			return new NodeOperationError(
				node,
				`The time zone of the credit budget is not known: '${timeZone}'`,
				{
					description:
						'Choose a Time Zone in the MediaGen API credential (UTC or one of the list, such as Europe/Berlin). Nothing was started or charged.',
				},
			);
		if (period && !((credits ?? 0) > 0))
			return new NodeOperationError(
				node,
				`The credit budget per ${period} has no amount: Credits per Period is ${credits ?? 0}`,
				{
					description: `Credit Budget is set to Per ${period[0].toUpperCase()}${period.slice(1)} in the MediaGen API credential, but Credits per Period is ${credits ?? 0}, which would stop every generation. Enter the most credits your workspace may spend per ${period} (for example 500), or set Credit Budget to Off. Nothing was started or charged.`,
				},
			);
		return undefined;
	}

	private averageCost(): number {
		const known = this.items.filter((i) => i.cost !== undefined && i.cost > 0);
		return known.length ? known.reduce((n, i) => n + (i.cost ?? 0), 0) / known.length : 1;
	}

	/** Before an item is sent: looks at the ledger again when due; false (or throws) to refuse it. */
	async allows(plan: ItemPlan): Promise<boolean> {
		const item = this.items.find((i) => i.plan === plan);
		if (!item) return true;
		if (!this.stopped && (this.sentSinceRead >= this.chunk || this.unpricedSinceRead)) {
			try {
				await this.recheck();
			} catch {
				// not read now: the look after sending decides
			}
		}
		if (!this.stopped && this.fits(item, this.costSinceRead)) {
			this.costSinceRead += item.cost ?? 0;
			this.sentSinceRead++;
			if (item.cost === undefined) this.unpricedSinceRead = true;
			return true;
		}
		item.refused = refusal(this.run.ctx, this.view, this.short(item, this.costSinceRead));
		if (this.run.continueOnFail || isToolCall(this.run.ctx)) return false;
		this.stopped = true;
		item.reported = true;
		throw item.refused;
	}

	/** After an item was sent: the jobs it started, to be found in the ledger. */
	sent(plan: ItemPlan, result: SendResult): void {
		const item = this.items.find((i) => i.plan === plan);
		if (!item || item.kind === 'immediate') return;
		if (result.kind === 'jobs') {
			for (const job of result.jobs) item.started.push({ open: job, pending: job });
			return;
		}
		const cancel = plan.endpoint.job?.cancel ?? plan.endpoint.reserves?.cancel;
		for (const { json } of result.items) {
			const id = String(json.id);
			const cancelPath = cancel ? fillPath(cancel, id, plan.request.params) : undefined;
			item.started.push({ open: { id, itemIndex: plan.itemIndex, cancelPath, record: json } });
		}
	}

	/** This run's claims in the ledger: a started job's reservations made after its first read. */
	private claimsOf(record: IDataObject): Claim[] {
		return claimGens(record)
			.map((gen) => this.walk.byGen.get(gen))
			.filter((c): c is Claim => !!c && c.entry > this.before);
	}

	/**
	 * What a canvas run the node waits for will still reserve: the estimates of its steps not
	 * started yet, from its record read after the ledger (a step that starts in between is in
	 * neither, so none is counted twice), with that record.
	 */
	private async stepsLeft(started: Started) {
		const job = started.pending;
		if (!job || !isStepwise(job.record)) return undefined;
		const record = await mediaGenRequest<IDataObject>(this.run.ctx, {
			method: 'GET',
			path: job.pollPath,
			itemIndex: job.itemIndex,
		});
		const nodes = Array.isArray(record?.nodes) ? (record.nodes as IDataObject[]) : [];
		const waiting = nodes.filter((n) => n.status === 'pending' && !n.generationId);
		const left = waiting.reduce((sum, n) => sum + (Number(n.credits_estimated) || 0), 0);
		return { record, left };
	}

	/**
	 * The ledger read again: this run's jobs whose reservations are over are cancelled (a canvas
	 * run also when what its steps will still reserve does not fit in what is left), and the next
	 * look is planned from the pace of the other runs.
	 */
	private async recheck(): Promise<void> {
		const previous = this.newest;
		await this.read();
		const cancel: Array<{ item: Item; started: Started; cost: number; before: Standing }> = [];
		let left = this.walk.room;
		let mine = 0;
		const mineNew = new Set<number>();
		for (const item of this.items) {
			for (const started of item.started) {
				if (started.refused || started.pending?.error || started.pending?.result) continue;
				const steps = await this.stepsLeft(started).catch(() => undefined);
				const claims = this.claimsOf(
					steps?.record ?? started.pending?.record ?? started.open.record,
				);
				for (const claim of claims) if (claim.entry > previous) mineNew.add(claim.entry);
				const open = claims.filter((c) => !this.decided.has(`${c.entry}`));
				const over = open.filter((c) => c.over);
				for (const claim of open) if (!claim.over) this.decided.add(`${claim.entry}`);
				const remainder = steps?.left ?? 0;
				if (over.length || remainder > left) {
					const cost = over.reduce((n, c) => n + c.cost, 0) || remainder;
					const before = over[0]?.before ?? { ...this.walk, room: left };
					cancel.push({ item, started, cost, before });
				} else left -= remainder;
			}
		}
		for (const entry of mineNew) mine += this.walk.claims.find((c) => c.entry === entry)?.cost ?? 0;
		const all = this.walk.claims.filter((c) => c.entry > previous).reduce((n, c) => n + c.cost, 0);
		this.remainder = this.walk.room - left;
		await this.cancel(cancel);
		const pace = mine > 0 ? Math.max(1, all / mine) : 1;
		this.chunk = Math.max(
			1,
			Math.floor((this.walk.room - this.remainder) / this.averageCost() / (2 * pace)),
		);
		this.sentSinceRead = 0;
		this.costSinceRead = 0;
		this.unpricedSinceRead = false;
	}

	/** Cancels jobs at MediaGen; each one cancelled is refused, one that ended first is kept. */
	private async cancel(
		list: Array<{ item: Item; started: Started; cost: number; before: Standing }>,
	): Promise<void> {
		if (!list.length) return;
		await cancelJobs(
			this.run.ctx,
			list.map((c) => c.started.open),
		);
		for (const { item, started, cost, before } of list) {
			const status = String(started.open.record.status);
			if (status !== 'cancelled' && status !== 'failed') continue;
			const cancelled = { id: started.open.id, cost };
			started.refused = refusal(
				this.run.ctx,
				{ ...this.view, walk: before },
				this.short(item, 0, cancelled),
			);
			if (started.pending) started.pending.error = started.refused;
		}
	}

	/**
	 * After the send phase: the last look at this run's new jobs. Returns the items refused (not
	 * sent, or all their jobs cancelled), taken out of what the run waits for and outputs.
	 */
	async afterSending(): Promise<Map<number, unknown>> {
		if (this.items.some((item) => item.started.length)) {
			try {
				await this.recheck();
			} catch {
				// the ledger could not be read: the jobs already started are kept (docs/budget.md)
			}
		}
		const refused = new Map<number, unknown>();
		const gone = new Set<PendingJob>();
		for (const item of this.items) {
			const { started } = item;
			if (started.length && started.every((s) => s.refused)) {
				item.refused = started[0].refused;
				for (const s of started) if (s.pending) gone.add(s.pending);
				this.run.results[item.plan.itemIndex] = undefined;
			}
			if (item.refused && !item.reported) refused.set(item.plan.itemIndex, item.refused);
		}
		this.run.waiting = this.run.waiting.filter((w) => !gone.has(w.job));
		return this.answerTools(refused);
	}

	/**
	 * While the node waits: a canvas run whose steps reserved since the last look is looked at. A
	 * step's reservation not in the entries walked is either booked since the last read, or closed
	 * and folded into the ledger's summary (ledgerRead.ts): only a step still running is looked for.
	 */
	readonly onLook = async (): Promise<void> => {
		const fresh = this.items.some((item) =>
			item.started.some(
				(s) =>
					s.pending &&
					!s.pending.error &&
					!s.pending.result &&
					isStepwise(s.pending.record) &&
					((s.pending.record.nodes as IDataObject[]) ?? []).some((step) => {
						const gen = step?.generationId;
						if (typeof gen !== 'string' || !gen) return false;
						const claim = this.walk.byGen.get(gen);
						if (claim) return !this.decided.has(`${claim.entry}`);
						return !STEP_ENDED.has(String(step.status));
					}),
			),
		);
		if (!fresh) return;
		try {
			await this.recheck();
		} catch {
			// looked at again at the next look
		}
	};

	/** For a tool call, refusals are its answer (readable by the model), not a failure. */
	private answerTools(refused: Map<number, unknown>): Map<number, unknown> {
		if (!isToolCall(this.run.ctx)) return refused;
		for (const [itemIndex, error] of refused) {
			if (!isRefusal(error)) continue;
			this.run.results[itemIndex] = [{ json: toolRefusal(error), pairedItem: { item: itemIndex } }];
			this.run.plans = this.run.plans.filter((p) => p.itemIndex !== itemIndex);
			refused.delete(itemIndex);
		}
		return refused;
	}

	/** The cost hint's line: how much of the budget is used, as the run last read it. */
	hint(): string | undefined {
		if (!this.items.length || this.window === undefined) return undefined;
		const refused = this.items.filter((i) => i.refused).length;
		// this run's own reservations as its jobs ended since: charged, or returned
		const standing = { ...this.walk };
		for (const { pending } of this.items.flatMap((i) => i.started)) {
			if (!pending || !(pending.result || pending.error)) continue;
			for (const claim of this.claimsOf(pending.record)) {
				if (claim.state !== 'held' || claim.over) continue;
				standing.reserved -= claim.cost;
				if (pending.result) standing.spent += claim.cost;
			}
		}
		return budgetLine({ ...this.view, walk: standing }, refused);
	}
}
