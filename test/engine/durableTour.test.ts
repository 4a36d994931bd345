/* eslint-disable @n8n/community-nodes/require-node-api-error -- dev-only code (tests): never published, see package.json "files" */
/**
 * Every job operation of every action node (issue #24): its run is lost as n8n loses a crashed
 * execution (the node context gone, only the data saved when the execution started), and n8n's
 * Retry of it must start no second job and charge nothing more, and output the jobs of the lost
 * run (their ids). Each node's tour (./operationTour.ts) makes what the operations need; each job
 * operation of the tour runs as the "crashed" execution, then its retry, with the saved data as
 * n8n 2.x keeps it (resumeToken) and as 1.x keeps it (nothing unique).
 */
import type { IDataObject } from 'n8n-workflow';

import { catalog } from '../../nodes/shared/catalog';
import { ACTION_NODES, versionsOf } from '../harness/actionNodes';
import { client, until } from '../harness/sandbox/helpers';
import { TestBinarySource } from '../harness/engine/binaryData';
import { chain, NODE_TYPES, retryCrashed, runWorkflow, SavedExecutions } from '../harness/engine/harness';
import type { TourContext } from '../harness/engine/operationTour';
import { TOURS } from '../harness/engine/operationTour';
import { fastJobs, nodeFactory, useSandbox } from '../harness/engine/setup';

jest.setTimeout(300_000);
NODE_TYPES['test.binarySource'] = new TestBinarySource();

/** The nodes that have job operations. */
const NODES = Object.fromEntries(
	Object.entries(ACTION_NODES).filter(([node]) =>
		catalog[node].some((g) => g.endpoints.some((e) => e.job && !e.nodeOperation)),
	),
);

const { sb, creds } = useSandbox({
	timeScale: 0.001,
	allowHttpWebhooks: true,
	binaryData: 'default',
});
fastJobs();

/** The job operations of a node (the ones that start jobs; not Wait or Collect). */
const jobOperations = (node: string) =>
	new Map(
		catalog[node].flatMap((g) =>
			g.endpoints
				.filter((e) => e.job && !e.nodeOperation)
				.map((e) => [`${g.resource}.${e.operation}`, e] as const),
		),
	);

/** Each node in version 2, and in its newest version where that is another (3: Run Matrix from its input items). */
const runs = Object.keys(NODES).flatMap((node) =>
	[...new Set([2, Math.max(...versionsOf(node))])].map((version) => [node, version] as const),
);

const settledJobs = async () => {
	const all = (await client(sb, sb.keys.pro)('GET', '/generations?status=all&limit=100')).body
		.data as IDataObject[];
	return all.every((g) => !['queued', 'running'].includes(String(g.status)));
};

describe.each([2, 1] as const)('n8n %i.x saved data', (major) => {
	test.each(runs)(
		'%s version %i: every job operation, its crashed run retried: no second job, nothing more charged, the same outputs',
		async (node, version) => {
			const factory = nodeFactory(NODES[node]);
			const jobs = jobOperations(node);
			const t: TourContext = { sb, api: client(sb, sb.keys.pro), kept: {} };
			const checked: string[] = [];
			const problems: string[] = [];
			let n = 0;
			for (const step of TOURS[node]) {
				const [resource, operation] = step.op.split('.') as [string, string];
				let params;
				try {
					params = typeof step.params === 'function' ? await step.params(t) : (step.params ?? {});
				} catch (error) {
					throw new Error(
						`${step.op}: ${(error as Error).message}; so far: ${problems.join(' | ')}`,
					);
				}
				const workflow = chain(step.items?.(t) ?? [{}], [
					...(step.before ?? []),
					factory('Operation', { resource, operation, ...params }, { typeVersion: version }),
				]);
				const e = jobs.get(step.op as `${string}.${string}`);
				const saved = new SavedExecutions();
				const id = `${node}-${major}-${n++}`;
				const startedAt = Date.now();
				const x = await runWorkflow(workflow, { credentials: creds(), executionId: id, saved });
				await step.after?.(t);
				if (x.error) {
					problems.push(`${step.op}: ${x.error.message}`);
					continue;
				}
				const out = x.json('Operation');
				if (step.keep) t.kept[step.keep] = out[0] as TourContext['kept'][string];
				if (!e) continue;

				// n8n dies while this node ran: its retry
				await until(settledJobs);
				const balance = sb.control.credits('main').balance;
				sb.control.clearRequests();
				const started = (step.before ?? []).map((b) => b.name);
				const r = await retryCrashed(
					workflow,
					{ executionId: id, startedAt },
					['Items', ...started],
					'Operation',
					{ credentials: creds(), executionId: `${id}-retry`, saved, n8nMajor: major },
				);
				const creates = sb.control
					.requests({ method: 'POST' })
					.filter((q) => q.status < 300 && !/estimate/.test(q.path));
				await until(settledJobs);
				const ids = (run: typeof x) => run.json('Operation').map((o) => String(o.id));
				if (r.error) problems.push(`${step.op} retry: ${r.error.message}`);
				else if (JSON.stringify(ids(r)) !== JSON.stringify(ids(x)))
					problems.push(`${step.op}: the retry output ${ids(r)} instead of ${ids(x)}`);
				// a keyed create may be sent again: MediaGen answers the original job (no new job)
				const keyedReplay = e.idempotent && major === 2;
				if (creates.length > (keyedReplay ? 1 : 0))
					problems.push(`${step.op}: ${creates.length} creates in the retry`);
				if (sb.control.credits('main').balance !== balance)
					problems.push(
						`${step.op}: the retry charged ${balance - sb.control.credits('main').balance}`,
					);
				checked.push(step.op);
			}
			expect(problems).toEqual([]);
			expect(checked.sort()).toEqual([...jobs.keys()].sort());
		},
	);
});
