/**
 * Waiting for a run's jobs (issue #12, points 3, 4 and 6): the clock counts running time, not
 * queue time; the run's jobs are polled together with list requests; Stop cancels them at the
 * service and nothing is charged for them. Against the sandbox over real HTTP, through n8n-core.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { CANCEL } from '../../nodes/shared/jobs/cancel';
import { POLLING } from '../../nodes/shared/jobs/poller';
import { client, until } from '../harness/sandbox/helpers';
import { chain, mediaGen, startWorkflow } from '../harness/engine/harness';
import { fastJobs, useSandbox } from '../harness/engine/setup';

// Job times here are real milliseconds: the sandbox runs at time scale 1.
const { sb, creds, runOne } = useSandbox({ timeScale: 1 });
fastJobs();

const generation = (durationMs: number, options: INodeParameters = {}): INodeParameters => ({
	resource: 'generation',
	operation: 'create',
	modelId: 'test-model',
	prompt: '={{ "item " + $itemIndex }}',
	additionalFields: { params: JSON.stringify({ sandbox: { durationMs } }) },
	options,
});

const items = (n: number) => Array.from({ length: n }, (_, i) => ({ i }));

/** Every generation of the Pro workspace, newest first. */
async function generations(): Promise<IDataObject[]> {
	const res = await client(sb, sb.keys.pro)('GET', '/generations?status=all&limit=100');
	return res.body.data as IDataObject[];
}

const ms = (iso: unknown) => Date.parse(String(iso));

describe('the clock counts running time, not queue time', () => {
	test('one job at a time, 16 jobs of 250 ms, timeout 0.05 min (3 s): all 16 delivered', async () => {
		// each job runs 250 ms against a 3 s clock: only a machine stalled for over 2.7 s could let a
		// job's running time pass its timeout; the queue (16 × 250 ms) is longer than the clock
		sb.control.setConfig({ concurrentJobs: 1 });
		const { out, error } = await runOne(
			mediaGen('G', generation(250, { timeoutMinutes: 0.05 })),
			items(16),
		);
		expect(error).toBeUndefined();
		expect(out).toHaveLength(16);
		expect(out.every((o) => o.status === 'completed')).toBe(true);
		// the test means something: the last job waited in the queue longer than the timeout
		const last = out[15];
		expect(ms(last.started_at) - ms(last.created_at)).toBeGreaterThan(3000);
		// and the service ran them one at a time
		const spans = out
			.map((o) => [ms(o.started_at), ms(o.completed_at)])
			.sort((a, b) => a[0] - b[0]);
		for (let i = 1; i < spans.length; i++)
			expect(spans[i][0]).toBeGreaterThanOrEqual(spans[i - 1][1]);
	});

	test('a timed-out item names its job id and status and says it may still be charged', async () => {
		const { out, error } = await runOne(
			mediaGen('G', generation(600_000, { timeoutMinutes: 0.005 }), { continueOnFail: true }),
			items(1),
		);
		expect(error).toBeUndefined();
		const [job] = await generations();
		expect(job.status).toBe('running');
		expect(out[0].error).toBe(
			`Job ${String(job.id)} is still running after 0.005 minutes of running`,
		);
		expect(out[0].description).toMatch(`Job ID ${String(job.id)}, status running`);
		expect(out[0].description).toMatch(/may still be charged/);
		// the item failed only once the job had run for the whole timeout (the last poll at the deadline)
		const failedAt = Date.now();
		expect(failedAt - ms(job.started_at)).toBeGreaterThanOrEqual(300);
	});

	test('without Continue On Fail the node error names the job and its status', async () => {
		const { error } = await runOne(mediaGen('G', generation(600_000, { timeoutMinutes: 0.005 })));
		const [job] = await generations();
		expect(error?.message).toBe(
			`Job ${String(job.id)} is still running after 0.005 minutes of running`,
		);
		expect(error?.description).toMatch(/may still be charged/);
	});
});

describe('polling cost does not grow with the batch', () => {
	/** Runs n jobs of `durationMs` all at once; returns the poll requests it took. */
	async function pollsFor(n: number, durationMs: number) {
		sb.control.reset();
		sb.control.setConfig({ concurrentJobs: n });
		const { out, error } = await runOne(mediaGen('G', generation(durationMs)), items(n));
		expect(error).toBeUndefined();
		expect(out.filter((o) => o.status === 'completed')).toHaveLength(n);
		return {
			list: sb.control.requests({ method: 'GET', path: '/generations$' }),
			single: sb.control.requests({ method: 'GET', path: '/generations/[^/]+$' }).length,
			all: sb.control.requests().length,
		};
	}

	test('40 parallel jobs are polled with about as many list requests as one job, no single reads', async () => {
		const one = await pollsFor(1, 800);
		const forty = await pollsFor(40, 800);
		expect(one.single).toBe(0);
		expect(forty.single).toBe(0);
		expect(forty.list.every((r) => r.query.status === 'all' && r.query.limit === '100')).toBe(true);
		expect(forty.list.length).toBeLessThanOrEqual(2 * one.list.length + 2);
		// creates + polls: well under 2.5 requests per job
		expect(forty.all / 40).toBeLessThan(2.5);
	});

	test('150 jobs: pages of 100, every job delivered', async () => {
		sb.control.setConfig({ concurrentJobs: 150 });
		const { out, error } = await runOne(mediaGen('G', generation(500)), items(150));
		expect(error).toBeUndefined();
		expect(out.filter((o) => o.status === 'completed')).toHaveLength(150);
		const list = sb.control.requests({ method: 'GET', path: '/generations$' });
		expect(list.some((r) => r.query.before !== undefined)).toBe(true);
		expect(sb.control.requests({ method: 'GET', path: '/generations/[^/]+$' })).toHaveLength(0);
	});

	test('300 jobs queued 25 at a time: all delivered, read from the page of the oldest waiting ones', async () => {
		sb.control.setConfig({ concurrentJobs: 25 });
		sb.control.setCredits('main', 10_000);
		const { out, error } = await runOne(mediaGen('G', generation(200)), items(300));
		expect(error).toBeUndefined();
		expect(out.filter((o) => o.status === 'completed')).toHaveLength(300);
		const list = sb.control.requests({ method: 'GET', path: '/generations$' });
		// a look reads from a remembered cursor, not always from the newest of the 3 pages
		expect(list.filter((r) => r.query.before !== undefined).length).toBeGreaterThan(0);
		expect(list.length / 300).toBeLessThan(1.5);
		expect(sb.control.requests({ method: 'GET', path: '/generations/[^/]+$' })).toHaveLength(0);
	});

	test('the poller keeps under its own request cap', async () => {
		const saved = { ...POLLING };
		// a cap of 5 requests per 2 × maxMs (400 ms) while 1 s jobs are polled every 20 ms
		Object.assign(POLLING, { minMs: 20, maxMs: 200, fraction: 0, requestsPerWindow: 5 });
		try {
			const { error } = await runOne(mediaGen('G', generation(1000)), items(3));
			expect(error).toBeUndefined();
			const times = sb.control
				.requests({ method: 'GET', path: '/generations$' })
				.map((r) => Date.parse(r.time));
			// The cap holds on send times: 5 per 400 ms. The sandbox logs arrival times, which a
			// loaded machine shifts by scheduling delays, so the whole span is counted (with 200 ms of
			// slack) rather than each window. Without the cap, polls every 20 ms for 1 s jobs give
			// several times this bound.
			expect(times.length).toBeGreaterThan(5);
			const span = times[times.length - 1] - times[0];
			expect(times.length).toBeLessThanOrEqual(5 * (Math.floor((span + 200) / 400) + 1));
		} finally {
			Object.assign(POLLING, saved);
		}
	});
});

describe('Stop cancels the jobs at the service', () => {
	test('8 long jobs (5 running, 3 queued): all cancelled, nothing charged', async () => {
		const before = sb.control.credits('main');
		const started = startWorkflow(chain(items(8), [mediaGen('G', generation(60_000_000))]), {
			credentials: creds(),
		});
		// wait (by condition, not by time) until the run is in its wait: 8 jobs, 5 of them running
		await until(async () => {
			const all = await generations();
			return all.length === 8 && all.filter((g) => g.status === 'running').length === 5;
		});
		await until(
			() => sb.control.requests({ method: 'GET', path: '/generations$' }).length > 0,
			20_000,
		);
		started.cancel();
		const result = await started.done;
		expect(result.run.status).toBe('canceled');
		await until(async () => (await generations()).every((g) => g.status === 'cancelled'));
		expect(
			sb.control.requests({ method: 'POST', path: '/generations/[^/]+/cancel$' }),
		).toHaveLength(8);
		const after = sb.control.credits('main');
		expect(after.balance).toBe(before.balance);
		expect(after.reserved).toBe(0);
		for (const g of await generations()) expect(g.credits_charged).toBe(0);
		expect(result.taskData('G')?.error?.message).toMatch(
			/^The execution was cancelled: cancelled 8 job\(s\) at MediaGen in \d+ ms \(nothing is charged for them\)/,
		);
	});

	test('the cancel budget bounds the time spent; jobs not reached are named', async () => {
		const saved = { ...CANCEL };
		Object.assign(CANCEL, { budgetMs: 300, inFlight: 1 });
		// every cancel's answer is held for 10 minutes (let go at the end): the budget (300 ms) ends
		// first; a node that waited for even one answer would not end within the bound below, which
		// leaves all the room a loaded machine needs
		sb.control.addFault({
			kind: 'delay',
			method: 'POST',
			path: '/cancel$',
			delayMs: 600_000,
			count: 3,
		});
		try {
			const started = startWorkflow(chain(items(3), [mediaGen('G', generation(60_000_000))]), {
				credentials: creds(),
			});
			await until(
				() => sb.control.requests({ method: 'GET', path: '/generations$' }).length > 0,
				20_000,
			);
			const at = Date.now();
			started.cancel();
			const result = await started.done;
			expect(Date.now() - at).toBeLessThan(30_000);
			expect(result.run.status).toBe('canceled');
			const message = result.taskData('G')?.error?.message ?? '';
			expect(message).toMatch(
				/^The execution was cancelled: not cancelled, may still be charged: /,
			);
			for (const g of await generations())
				expect(message).toContain(`${String(g.id)} (not reached within the cancel budget)`);
		} finally {
			sb.control.releaseDelays();
			Object.assign(CANCEL, saved);
		}
	});
});
