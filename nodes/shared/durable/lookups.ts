/**
 * What the lookups of ./recovery.ts read at MediaGen and how: the run's Lookup, MediaGen's clock
 * against n8n's (and the band where a record may be the lost try's or older), a list read back to
 * a time, a record's entries, the provenance records of this run, and `pick`, which gives an
 * item the records found for its request or names it unsure. docs/batches.md.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { ChargedRule, Endpoint, RecoverRule } from '../catalog/dsl';
import type { PreparedRequest } from '../fields/request';
import { fillPath, timeOf } from '../jobs/paths';
import { asNodeError, statusOf } from '../transport/errors';
import { listPages } from '../transport/pages';
import { mediaGenRequest } from '../transport/request';
import type { Provenance, RunIdentity } from './identity';
import { anchorOf, provenanceIn, stableJson } from './identity';
import { sameRunsBefore } from './savedRuns';

/** How far the lookups reach. */
export const RECOVERY = {
	/**
	 * How far n8n's clock and MediaGen's may differ (docs/api-assumptions.md, Clocks): also between
	 * n8n's clock at the lost try and at the retry (an NTP step after a restart, another main).
	 */
	clockMarginMs: 10 * 60_000,
	/** MediaGen's clock read now (its Date header): whole seconds and the request's time. */
	measuredMarginMs: 2_000,
	/** How long MediaGen answers a replayed Idempotency-Key with the original (24 h), less an hour. */
	keyLifetimeMs: 23 * 3_600_000,
	/** Records per list page. */
	pageSize: 100,
	/** Pages read at most per list. */
	maxPages: 50,
	/** Other executions whose saved data is compared with this run's (fingerprint). */
	maxExecutions: 20,
};

/** What recovery needs of one item's plan. */
export interface RecoverablePlan {
	itemIndex: number;
	endpoint: Endpoint;
	request: PreparedRequest;
	/** What the item asks for, and which of the run's equal requests it is (identity.ts). */
	requestId?: string;
	/** The key is the user's own Idempotency Key. */
	ownKey?: boolean;
}

/** What a lookup is about: the run, its position, when its lost try began, what is taken. */
export interface Lookup {
	ctx: IExecuteFunctions;
	identity: RunIdentity;
	/** The run's position (n8n's run index less the runs its crash recovery added). */
	position: number;
	/** n8n's clock (ms): the lost try of this position began after it. */
	after?: number;
	/** Ids of jobs and tasks other items and positions took. */
	claimed: Set<string>;
	/** Whether this run may repeat a lost try (n8n's Retry, or a sub-execution of one). */
	retrying: boolean;
	/**
	 * Whether a lost try may have run this node: else only exact matches (provenance, keys) are
	 * taken, never records found by the record they belong to (another run's on the same record).
	 */
	ranBefore: boolean;
	/**
	 * Whether an earlier try of this run had the item's request refused (nothing done then): a
	 * job found for it by its record was made since, by a later try n8n lost or by another
	 * execution, and nothing tells which.
	 */
	refusedBefore?: (itemIndex: number, request?: string) => boolean;
	/** Requests go out although the execution was cancelled (Stop). */
	ignoreCancel?: boolean;
	/** Keyed creates are looked up too (else a key MediaGen still replays needs no lookup). */
	findKeyed?: boolean;
	/**
	 * Whether the node may run more than once in an execution (loops.ts repeatsInExecution):
	 * then more records found on one record than the run's items asked for are its later
	 * positions' (taken oldest first), else another execution's (the items are unsure).
	 */
	repeats?: boolean;
	/**
	 * A sub-execution (Execute Workflow) whose parent execution n8n rebuilt after a crash: n8n
	 * saves no trace of which call of the parent a sub-execution is (docs/batches.md), so work
	 * another execution did for this sub-workflow's item may be another call's. It is never taken,
	 * the item is unsure.
	 */
	subOfRetried?: boolean;
	/** Now (ms), for tests. */
	now?: number;
	/** MediaGen's clock against n8n's (ms), read once per run by its first lookup (Clock). */
	skew?: Promise<number | undefined>;
}

/** n8n's Retry whose saved data shows no try of this node: it may hide one (recovery.ts). */
export const unshownTry = (l: Lookup) => l.retrying && !l.subOfRetried && !l.ranBefore;

/** What a lookup found: jobs or answers by item, and the items it cannot prove were not done. */
export interface Found {
	found: Map<number, IDataObject[]>;
	unsure: Map<number, string>;
}

/** MediaGen's clock against n8n's, read once per run (kept on its Lookup) from a Date header. */
export class Clock {
	constructor(private readonly lookup: Lookup) {}

	/**
	 * `after` (n8n's clock) as a bound on MediaGen's `created_at`: records at or after it were
	 * made after the lost try began, if n8n's clock did not move between that try and now.
	 */
	async bound(): Promise<number | undefined> {
		const { after } = this.lookup;
		if (after === undefined) return undefined;
		const skew = await (this.lookup.skew ??= this.read());
		return skew === undefined
			? after - RECOVERY.clockMarginMs
			: after + skew - RECOVERY.measuredMarginMs;
	}

	/**
	 * The start of the band before `bound()` where a record may still be the lost try's, n8n's
	 * clock having been stepped since (up to the documented 10 minutes): such a record is neither
	 * taken nor ignored, its item is unsure.
	 */
	async band(): Promise<number | undefined> {
		const { after } = this.lookup;
		if (after === undefined) return undefined;
		const skew = await (this.lookup.skew ??= this.read());
		return after + (skew ?? 0) - RECOVERY.clockMarginMs;
	}

	private async read(): Promise<number | undefined> {
		let date: number | undefined;
		const sent = Date.now();
		await mediaGenRequest(this.lookup.ctx, {
			method: 'GET',
			path: '/workspace',
			ignoreCancel: this.lookup.ignoreCancel,
			onHeaders: (headers) => {
				const parsed = Date.parse(String(headers.date ?? ''));
				if (Number.isFinite(parsed)) date = parsed;
			},
		}).catch(() => undefined);
		// the Date header has whole seconds: its middle, against the middle of the request
		return date === undefined ? undefined : date + 500 - Math.round((sent + Date.now()) / 2);
	}
}

/**
 * A job or run cancelled at MediaGen (Stop cancels what a run waits for) is no result and was
 * charged nothing (its credits returned): no lookup takes or names it, and its item is sent
 * again (under a key of this execution where MediaGen answers the key with it: job.ts).
 */
const live = (record: IDataObject) => record.status !== 'cancelled';

/** A list's live records, newest first, down to `since` (or its start); whether it got there. */
export class Window {
	private read?: Promise<{ records: IDataObject[]; complete: boolean }>;
	/** The cancelled records the walk left out (a key MediaGen answers with one: job.ts). */
	readonly cancelled: IDataObject[] = [];
	constructor(
		private readonly lookup: Lookup,
		private readonly path: string,
		private readonly qs: IDataObject,
		private readonly since: () => Promise<number | undefined>,
	) {}

	async records() {
		return await (this.read ??= this.walk());
	}

	private async walk() {
		const since = await this.since();
		const records: IDataObject[] = [];
		const walk = {
			path: this.path,
			qs: this.qs,
			pageSize: RECOVERY.pageSize,
			maxPages: RECOVERY.maxPages,
			ignoreCancel: this.lookup.ignoreCancel,
		};
		let pages = 0;
		let ended = false;
		for await (const page of listPages(this.lookup.ctx, walk)) {
			pages++;
			for (const record of page.records) {
				const created = timeOf(record.created_at);
				if (since !== undefined && created !== undefined && created < since)
					return { records, complete: true };
				(live(record) ? records : this.cancelled).push(record);
			}
			ended = !page.records.length || page.next === undefined;
		}
		return { records, complete: ended || pages < RECOVERY.maxPages };
	}
}

/**
 * A value of a rule's template: `{name}` a path parameter, `{body.x}` a body field, or literal
 * (`*` before it: the record's field ends with it).
 */
export function templateValue(template: string, request: PreparedRequest): unknown {
	const m = /^\*?\{(body\.)?(\w+)\}$/.exec(template);
	if (!m) return template;
	return m[1] ? request.body?.[m[2]] : request.params[m[2]];
}

/** A dotted field of a record, e.g. `context.adProjectId`. */
export function fieldOf(record: IDataObject, path: string): unknown {
	let value: unknown = record;
	for (const key of path.split('.')) value = (value as IDataObject | undefined)?.[key];
	return value;
}

/** A recorded or requested value as text: an object as JSON with its keys sorted. */
const textOf = (value: unknown) =>
	value !== null && typeof value === 'object' ? stableJson(value) : String(value);

/**
 * Whether a record holds what the request asks for, field by field; a list the request sends
 * (e.g. a cinema generate's `shotIds`, a matrix run's `combos`: one job per entry) asks for a
 * record holding one of its entries, an empty list for any.
 */
export function matches(
	record: IDataObject,
	match: Record<string, string>,
	request: PreparedRequest,
) {
	return Object.entries(match).every(([path, template]) => {
		const want = templateValue(template, request);
		const value = textOf(fieldOf(record, path));
		if (Array.isArray(want)) return !want.length || want.some((w) => textOf(w) === value);
		if (want !== undefined && template.startsWith('*')) return value.endsWith(String(want));
		return want === undefined || value === String(want);
	});
}

/**
 * Whether the records one create started (a batch, or one record) are the work of this request:
 * each matches it, and together they hold every entry of a list it sends (a create for shots
 * a and b made one job per shot).
 */
export function groupMatches(
	group: IDataObject[],
	match: Record<string, string>,
	request: PreparedRequest,
) {
	if (!group.every((r) => matches(r, match, request))) return false;
	return Object.entries(match).every(([path, template]) => {
		const want = templateValue(template, request);
		if (!Array.isArray(want)) return true;
		const held = new Set(group.map((r) => textOf(fieldOf(r, path))));
		return want.every((w) => held.has(textOf(w)));
	});
}

/** The jobs of each group of records that one create started: a batch, or one record. */
export function groupsOf(records: IDataObject[], batch: boolean): IDataObject[][] {
	if (!batch) return records.map((r) => [r]);
	const byBatch = new Map<string, IDataObject[]>();
	for (const r of records) {
		const key = String(r.batch_id ?? r.id);
		byBatch.set(key, [...(byBatch.get(key) ?? []), r]);
	}
	return [...byBatch.values()];
}

/**
 * The provenance records that belong to this run and position: its token, or (when the token of
 * the lost try was not durable) an execution whose saved data matches this run's saved data.
 */
export async function ownProvenance(
	lookup: Lookup,
	records: IDataObject[],
	anyPosition = false,
): Promise<Array<{ record: IDataObject; p: Provenance }>> {
	const { ctx, identity } = lookup;
	const node = ctx.getNode();
	const candidates = positionProvenance(lookup, records, anyPosition);
	// a sub-execution of a rebuilt parent: only what this execution itself did is surely its own
	if (lookup.subOfRetried)
		return candidates.filter((c) => c.p.executionId === String(ctx.getExecutionId() ?? ''));
	const sameRun = new Set<string>([identity.token]);
	// the execution this Retry copied, named by its saved data: its runs are the lost try
	for (const c of candidates) if (identity.retried?.includes(c.p.executionId)) sameRun.add(c.p.run);
	if (identity.fingerprint) {
		const others = [...new Set(candidates.map((c) => c.p.executionId))]
			.filter((id) => !candidates.some((c) => c.p.executionId === id && c.p.run === identity.token))
			.slice(0, RECOVERY.maxExecutions);
		for (const executionId of others) {
			const data = await ctx.getExecutionDataById(executionId).catch(() => undefined);
			const name = candidates.find((c) => c.p.executionId === executionId)?.p.node ?? node.name;
			// an execution with an anchor derived a durable token, this run's if it were its lost try:
			// another execution of the workflow started in the same second, killed with it (n8n's
			// recovery saves whole seconds), has the same start times
			if (data && !anchorOf(data) && (await sameRunsBefore(ctx, data, name))) {
				for (const c of candidates) if (c.p.executionId === executionId) sameRun.add(c.p.run);
			}
		}
	}
	return candidates.filter((c) => sameRun.has(c.p.run));
}

/**
 * The provenance records of this workflow, node and run position (`anyPosition`: of every
 * position), whichever run made them.
 */
export function positionProvenance(
	lookup: Lookup,
	records: IDataObject[],
	anyPosition = false,
): Array<{ record: IDataObject; p: Provenance }> {
	const node = lookup.ctx.getNode();
	const workflowId = String(lookup.ctx.getWorkflow().id ?? '');
	return records
		.map((record) => ({ record, p: provenanceIn(record) }))
		.filter(
			(c): c is { record: IDataObject; p: Provenance } =>
				!!c.p &&
				c.p.workflowId === workflowId &&
				c.p.nodeId === node.id &&
				(anyPosition || c.p.runIndex === lookup.position),
		);
}

/**
 * Why an item of a sub-execution of a rebuilt parent is unsure: MediaGen holds work for its
 * request that another execution of this sub-workflow made (`ids`), and n8n saves nothing that
 * says whether that execution was this call of the parent or another one.
 */
export function otherCallHit(ids: string[]): string {
	return `MediaGen holds ${ids.join(', ')} for this item's request, made by another execution of this sub-workflow before n8n's Retry of its parent: the parent may call this sub-workflow more than once, and the node cannot tell which call made it`;
}

/**
 * The records a rule that reads elsewhere than /generations finds after `since`, oldest first,
 * at the rule's path for `request` (or at `request`, a path already filled).
 */
export async function foundElsewhere(
	lookup: Lookup,
	rule: Exclude<RecoverRule, { by: 'provenance' | 'generations' }>,
	request: PreparedRequest | string,
	since: number | undefined,
): Promise<{ records: IDataObject[]; complete: boolean }> {
	const path = typeof request === 'string' ? request : fillPath(rule.path, '', request.params);
	const after = (at: unknown) => since === undefined || (timeOf(at) ?? Infinity) >= since;
	try {
		const read =
			rule.by === 'list'
				? await new Window(lookup, path, {}, async () => since).records()
				: { records: await readRecord(lookup, rule, path, after), complete: true };
		const records = read.records
			.filter((r) => after(r.created_at) && live(r))
			.sort((a, b) => (timeOf(a.created_at) ?? 0) - (timeOf(b.created_at) ?? 0));
		return { records, complete: read.complete };
	} catch (error) {
		// the record the jobs belong to does not exist: no job of it can have started
		if (statusOf(error) === 404) return { records: [], complete: true };
		throw asNodeError(lookup.ctx, error);
	}
}

export async function readRecord(
	lookup: Lookup,
	rule: Extract<RecoverRule, { by: 'record' | 'self' }>,
	path: string,
	after: (at: unknown) => boolean,
): Promise<IDataObject[]> {
	const record = await mediaGenRequest<IDataObject>(lookup.ctx, {
		method: 'GET',
		path,
		ignoreCancel: lookup.ignoreCancel,
	});
	if (rule.by === 'self') {
		// a job started again in place (a failed canvas run retried): it left `failed` after `since`
		return record && record.status !== 'failed' && after(record.updated_at)
			? [{ ...record, created_at: record.updated_at }]
			: [];
	}
	const within = record?.[rule.within];
	return Array.isArray(within) ? (within as IDataObject[]) : [];
}

/** Why an item is unsure when a list was not read back to the lost try's start. */
export function boundHit(path: string, since: number | undefined): string {
	const back = since === undefined ? '' : ` back to ${new Date(since).toISOString()}`;
	return `MediaGen's list ${path} holds more than ${RECOVERY.maxPages * RECOVERY.pageSize} records since the lost try began${back}: the node read that many and could not tell whether this item's job was started`;
}

/** The lookups of one run: lists read once and shared by its items' rules. */
export class Lookups {
	readonly clock: Clock;
	private readonly windows = new Map<string, Window>();
	/** How many plans of each group of equal asks (askOf) were looked up already. */
	private readonly asked = new Map<string, number>();
	constructor(
		readonly lookup: Lookup,
		/** The plans looked up together: how many of them ask for the same record's work. */
		private readonly plans: RecoverablePlan[] = [],
	) {
		this.clock = new Clock(lookup);
	}

	/** Generations since the lost try may have begun (or, for keys, since they can be replayed). */
	generations(since: 'lostTry' | 'keyLifetime'): Window {
		let window = this.windows.get(since);
		if (!window) {
			const { lookup } = this;
			const bound =
				since === 'lostTry'
					? () => this.clock.band()
					: async () => (lookup.now ?? Date.now()) - 24 * 3_600_000;
			window = new Window(lookup, '/generations', { status: 'all' }, bound);
			this.windows.set(since, window);
		}
		return window;
	}

	/** Whether MediaGen still replays this run's keys (the lost try began less than a day ago). */
	keysReplay(): boolean {
		const { after, now } = this.lookup;
		return after !== undefined && (now ?? Date.now()) - after < RECOVERY.keyLifetimeMs;
	}

	/**
	 * How many plans ask for what `plan` asks for: all of the run's, and those not looked up yet
	 * (this one included).
	 */
	left(plan: RecoverablePlan, rule: ChargedRule | RecoverRule): Asks {
		const ask = askOf(plan, rule);
		const all = this.plans.filter((p) => askOf(p, rule) === ask).length || 1;
		const done = this.asked.get(ask) ?? 0;
		this.asked.set(ask, done + 1);
		return { all, left: Math.max(1, all - done) };
	}
}

/** What a plan asks of a rule's records: the endpoint and every value its rule matches on. */
export function askOf(plan: RecoverablePlan, rule: ChargedRule | RecoverRule): string {
	const match =
		'evidence' in rule
			? rule.evidence.match
			: 'match' in rule
				? rule.match
				: ({} as Record<string, string>);
	const values = Object.values(match).map((t) => templateValue(t, plan.request));
	return JSON.stringify([plan.endpoint.name, plan.request.path, values]);
}

/** How many of a run's items ask for the same work (Lookups.left). */
export interface Asks {
	all: number;
	left: number;
}

const idsOf = (gs: IDataObject[][]) => gs.flatMap((g) => g.map((r) => String(r.id))).join(', ');

/**
 * Records (groups) found for an item, with their MediaGen time: taken, unsure, or none. Records
 * found by what they belong to carry nothing of the run that made them: more than the items
 * left to ask for them, or more than one when the run asks for the same work more than once,
 * may hold another execution's: unsure (outside a loop, whose later positions take the rest);
 * so may records made since the lost try began when more than asked for were also made in the
 * band before it (the lost try's own, if n8n's clock was stepped since), in a loop too.
 */
export async function pick(
	lookups: Lookups,
	groups: IDataObject[][],
	claimed: Set<string>,
	{ all, left }: Asks,
	time: (r: IDataObject) => number | undefined = (r) => timeOf(r.created_at),
): Promise<{ jobs?: IDataObject[]; unsure?: string }> {
	const free = groups.filter((g) => g.every((r) => !claimed.has(String(r.id))));
	if (!free.length) return {};
	const sure = await lookups.clock.bound();
	const inBand = (g: IDataObject[]) =>
		sure !== undefined && g.some((r) => (time(r) ?? Infinity) < sure);
	const certain = free.filter((g) => !inBand(g));
	const banded = free.filter(inBand);
	const band = `made up to ${RECOVERY.clockMarginMs / 60_000} minutes before it by n8n's clock now`;
	// the band's records may be the lost try's own (n8n's clock moved since): named too
	const alsoBanded = banded.length ? `; also ${idsOf(banded)}, ${band}` : '';
	if (certain.length > left && !lookups.lookup.repeats)
		return {
			unsure: `MediaGen holds ${certain.length} jobs for this item's request made since the lost try began (${idsOf(certain)}${alsoBanded}), more than the ${left} item(s) of this run that asked for it: another execution worked on the same record, and the node cannot tell which is this item's`,
		};
	if (certain.length > 1 && all > 1 && !lookups.lookup.repeats)
		return {
			unsure: `MediaGen holds ${certain.length} jobs for this item's request made since the lost try began (${idsOf(certain)}${alsoBanded}), and ${all} items of this run ask for the same: the lost try may have made fewer of them (the input changed, or n8n died before) and another execution the rest, and the node cannot tell which are this run's`,
		};
	if (certain.length && banded.length && free.length > left)
		return {
			unsure: `MediaGen holds ${idsOf(certain)} for this item's request made since the lost try began, and ${idsOf(banded)} ${band}: if n8n's clock moved since that try (docs/api-assumptions.md, Clocks), the earlier one is the lost try's and the later another execution's, so the node cannot tell which is this item's`,
		};
	if (certain.length) return { jobs: certain[0] };
	return {
		unsure: `MediaGen holds ${idsOf(free)}, made up to ${RECOVERY.clockMarginMs / 60_000} minutes before the lost try began by n8n's clock now: n8n's clock may have moved since that try (docs/api-assumptions.md, Clocks), so the node cannot tell whether it is this item's or older work`,
	};
}
