/**
 * Finds at MediaGen the jobs a run started before n8n lost it (the process died while the node
 * ran), so that n8n's Retry of the crashed execution waits for them instead of starting them
 * again. Each job endpoint's `recover` rule says where such jobs are listed and how they are told
 * apart; docs/batches.md lists the rules and what each one covers.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { Endpoint, RecoverRule } from './catalog/dsl';
import type { PreparedRequest } from './fields/request';
import { listPages } from './pages';
import { jobPath, timeOf } from './poller';
import type { Provenance, RunIdentity } from './runIdentity';
import { fingerprintOf, provenanceIn } from './runIdentity';
import { asNodeError, mediaGenRequest, statusOf } from './transport';

/** How far the lookups reach. */
export const RECOVERY = {
	/** Records a run's creation time may precede n8n's own record of the run's start (clocks). */
	clockMarginMs: 10 * 60_000,
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
}

/** Records of a list, newest first, down to `since` (or its start), at most RECOVERY.maxPages pages. */
export async function* listRecords(
	ctx: IExecuteFunctions,
	path: string,
	qs: IDataObject,
	since?: number,
): AsyncGenerator<IDataObject> {
	const walk = { path, qs, pageSize: RECOVERY.pageSize, maxPages: RECOVERY.maxPages };
	for await (const { records } of listPages(ctx, walk)) {
		for (const record of records) {
			const created = timeOf(record.created_at);
			if (since !== undefined && created !== undefined && created < since) return;
			yield record;
		}
	}
}

/** Generations since the run's start, read once per run and shared by its items' rules. */
class GenerationWindow {
	private records?: IDataObject[];
	constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly since?: number,
	) {}

	async all(): Promise<IDataObject[]> {
		if (!this.records) {
			this.records = [];
			for await (const r of listRecords(this.ctx, '/generations', { status: 'all' }, this.since))
				this.records.push(r);
		}
		return this.records;
	}
}

/** A value of a rule's template: `{name}` a path parameter, `{body.x}` a body field, or literal. */
function templateValue(template: string, request: PreparedRequest): unknown {
	const m = /^\{(body\.)?(\w+)\}$/.exec(template);
	if (!m) return template;
	return m[1] ? request.body?.[m[2]] : request.params[m[2]];
}

/** A dotted field of a record, e.g. `context.adProjectId`. */
function fieldOf(record: IDataObject, path: string): unknown {
	let value: unknown = record;
	for (const key of path.split('.')) value = (value as IDataObject | undefined)?.[key];
	return value;
}

function matches(record: IDataObject, match: Record<string, string>, request: PreparedRequest) {
	return Object.entries(match).every(([path, template]) => {
		const want = templateValue(template, request);
		return want === undefined || String(fieldOf(record, path)) === String(want);
	});
}

/** The jobs of each group of records that one create started: a batch, or one record. */
function groupsOf(records: IDataObject[], batch: boolean): IDataObject[][] {
	if (!batch) return records.map((r) => [r]);
	const byBatch = new Map<string, IDataObject[]>();
	for (const r of records) {
		const key = String(r.batch_id ?? r.id);
		byBatch.set(key, [...(byBatch.get(key) ?? []), r]);
	}
	return [...byBatch.values()];
}

/**
 * The provenance records that belong to this run: its token, or (when the token of the crashed
 * try was not durable) an execution whose saved data matches this run's saved data.
 */
async function ownProvenance(
	ctx: IExecuteFunctions,
	records: IDataObject[],
	identity: RunIdentity,
	runIndex: number,
): Promise<Array<{ record: IDataObject; p: Provenance }>> {
	const node = ctx.getNode();
	const workflowId = String(ctx.getWorkflow().id ?? '');
	const candidates = records
		.map((record) => ({ record, p: provenanceIn(record) }))
		.filter(
			(c): c is { record: IDataObject; p: Provenance } =>
				!!c.p &&
				c.p.workflowId === workflowId &&
				c.p.nodeId === node.id &&
				c.p.runIndex === runIndex &&
				c.p.executionId !== String(ctx.getExecutionId()),
		);
	const sameRun = new Set<string>([identity.token]);
	if (identity.fingerprint) {
		const others = [...new Set(candidates.map((c) => c.p.executionId))]
			.filter((id) => !candidates.some((c) => c.p.executionId === id && c.p.run === identity.token))
			.slice(0, RECOVERY.maxExecutions);
		for (const executionId of others) {
			const data = await ctx.getExecutionDataById(executionId).catch(() => undefined);
			const name = candidates.find((c) => c.p.executionId === executionId)?.p.node ?? node.name;
			if (data && fingerprintOf(data, name) === identity.fingerprint) {
				for (const c of candidates) if (c.p.executionId === executionId) sameRun.add(c.p.run);
			}
		}
	}
	return candidates.filter((c) => sameRun.has(c.p.run));
}

/** The jobs a rule that reads elsewhere than /generations finds after `since`, oldest first. */
async function foundElsewhere(
	ctx: IExecuteFunctions,
	rule: Exclude<RecoverRule, { by: 'provenance' | 'generations' }>,
	request: PreparedRequest,
	since: number | undefined,
): Promise<IDataObject[]> {
	const path = jobPath(rule.path, '', request.params);
	const after = (at: unknown) => since === undefined || (timeOf(at) ?? Infinity) >= since;
	try {
		return await readElsewhere(ctx, rule, path, after, since);
	} catch (error) {
		// the record the jobs belong to does not exist: no job of it can have started
		if (statusOf(error) === 404) return [];
		throw asNodeError(ctx, error);
	}
}

async function readElsewhere(
	ctx: IExecuteFunctions,
	rule: Exclude<RecoverRule, { by: 'provenance' | 'generations' }>,
	path: string,
	after: (at: unknown) => boolean,
	since: number | undefined,
): Promise<IDataObject[]> {
	if (rule.by === 'self') {
		// a job started again in place (a failed canvas run retried): it left `failed` after `since`
		const job = await mediaGenRequest<IDataObject>(ctx, { method: 'GET', path });
		return job && job.status !== 'failed' && after(job.updated_at) ? [job] : [];
	}
	let records: IDataObject[] = [];
	if (rule.by === 'list') {
		for await (const r of listRecords(ctx, path, {}, since)) records.push(r);
	} else {
		const parent = await mediaGenRequest<IDataObject>(ctx, { method: 'GET', path });
		const within = parent?.[rule.within];
		records = Array.isArray(within) ? (within as IDataObject[]) : [];
	}
	return records
		.filter((r) => after(r.created_at))
		.sort((a, b) => (timeOf(a.created_at) ?? 0) - (timeOf(b.created_at) ?? 0));
}

/**
 * For every plan whose endpoint starts jobs, the jobs the crashed try of this run had started
 * (by item index). A plan absent from the answer had started nothing that can be found: it is
 * sent (once). Keyed endpoints with a durable identity need no lookup: the same key returns the
 * original job (spec: credit rule 6).
 */
export async function recoverStartedJobs(
	ctx: IExecuteFunctions,
	plans: RecoverablePlan[],
	identity: RunIdentity,
	runIndex: number,
): Promise<Map<number, IDataObject[]>> {
	const found = new Map<number, IDataObject[]>();
	const since = identity.since === undefined ? undefined : identity.since - RECOVERY.clockMarginMs;
	const generations = new GenerationWindow(ctx, since);
	const claimed = new Set<string>();
	const claim = (itemIndex: number, jobs: IDataObject[]) => {
		for (const j of jobs) claimed.add(String(j.id));
		found.set(itemIndex, jobs);
	};
	const unclaimed = (group: IDataObject[]) => group.every((r) => !claimed.has(String(r.id)));

	let own: Map<number, IDataObject[]> | undefined;
	for (const plan of plans) {
		const rule = plan.endpoint.job?.recover;
		if (!rule) continue;
		if (rule.by === 'provenance') {
			if (!own) {
				own = new Map();
				const mine = await ownProvenance(ctx, await generations.all(), identity, runIndex);
				for (const { record, p } of mine.reverse())
					own.set(p.itemIndex, [...(own.get(p.itemIndex) ?? []), record]);
			}
			const jobs = own.get(plan.itemIndex);
			if (jobs) claim(plan.itemIndex, jobs);
			continue;
		}
		if (plan.endpoint.idempotent && identity.durable && plan.request.idempotencyKey) continue;
		let groups: IDataObject[][];
		if (rule.by === 'generations') {
			const records = (await generations.all())
				.filter((r) => matches(r, rule.match, plan.request))
				.reverse();
			groups = groupsOf(records, !!rule.batch);
		} else {
			groups = (await foundElsewhere(ctx, rule, plan.request, since)).map((r) => [r]);
		}
		const group = groups.find(unclaimed);
		if (group) claim(plan.itemIndex, group);
	}
	return found;
}

/** What Generation → Collect looks for: the provenance of the generations a run started. */
export interface CollectQuery {
	executionId?: string;
	workflowId?: string;
	node?: string;
	/** How far back the generations are read, in hours. */
	hours: number;
}

/**
 * The generations whose provenance names the execution (and/or workflow and node), oldest item
 * first: every job of a run n8n lost, found without n8n's saved data (queue mode, where a lost
 * worker's execution is left without it).
 */
export async function collectByProvenance(
	ctx: IExecuteFunctions,
	query: CollectQuery,
	now = Date.now(),
): Promise<IDataObject[]> {
	const found: Array<{ record: IDataObject; p: Provenance }> = [];
	const since = now - query.hours * 3_600_000;
	for await (const record of listRecords(ctx, '/generations', { status: 'all' }, since)) {
		const p = provenanceIn(record);
		if (!p) continue;
		if (query.executionId && p.executionId !== query.executionId) continue;
		if (query.workflowId && p.workflowId !== query.workflowId) continue;
		if (query.node && p.node !== query.node && p.nodeId !== query.node) continue;
		found.push({ record, p });
	}
	return found
		.reverse()
		.sort((a, b) => a.p.runIndex - b.p.runIndex || a.p.itemIndex - b.p.itemIndex)
		.map((f) => f.record);
}
