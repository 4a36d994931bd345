/**
 * A workflow published with a package before the trigger had its checks (issue #37, finding 8):
 * n8n 2.x runs nothing of its trigger on start until it is published again, so its static data
 * holds what the earlier package's activation left (no `checkedOnStart`) and no periodic check
 * runs. Its first verified event tells n8n's log and the execution, and has MediaGen send the
 * failed deliveries again. The real node in n8n-core's contexts (triggerHarness.ts) against the
 * sandbox; in a real n8n 2.40.7 with the earlier package built from git:
 * test/e2e/upgrade.e2e.test.ts.
 */
import type { IDataObject } from 'n8n-workflow';

import { DELIVERY_RECOVERY } from '../../nodes/shared/webhooks/deliveries';
import type { FakeN8n } from '../harness/engine/triggerHarness';
import { runsPerEvent, useTriggerKit } from '../harness/engine/triggerKit';

const kit = useTriggerKit({ timeScale: 0.001 });
const { sb, logs, until, fakeN8n, automatic, stored, generate, outage, sleep } = kit;

const WARNING = 'was published with an earlier version of n8n-nodes-mediagen';

beforeAll(() => {
	DELIVERY_RECOVERY.retriesPerMinute = 60_000; // no pacing here (60 a minute in n8n)
});

/** The trigger's hints in each run (n8n shows them in the node's output panel). */
function hints(n8n: FakeN8n): string[] {
	return n8n.runs.flatMap((run) =>
		(run.data.resultData.runData['MediaGen Trigger'] ?? []).flatMap((task) =>
			(task.hints ?? []).map((hint) => hint.message),
		),
	);
}

/** A trigger activated by this version, then its static data as an earlier package left it. */
async function publishedBefore(): Promise<{ n8n: FakeN8n; id: string }> {
	const n8n = await fakeN8n(automatic());
	await n8n.activate();
	const data = n8n.staticData['node:MediaGen Trigger'] as IDataObject;
	expect(data.checkedOnStart).toBe(true);
	delete data.checkedOnStart;
	return { n8n, id: String(stored(n8n)?.id) };
}

test('published before the checks: the first event warns once, naming the workflow, and the failed deliveries run once each', async () => {
	const { n8n, id } = await publishedBefore();
	const failed = await outage(n8n, id, 3);
	logs.length = 0;
	await generate();
	await until(() => n8n.runs.length === 4);
	await sleep(300);
	const events = [...failed.map((d) => d.event_id), ...Object.keys(runsPerEvent(n8n))];
	expect(runsPerEvent(n8n)).toEqual(Object.fromEntries(events.map((e) => [e, 1])));
	const warnings = logs.filter((l) => l.includes(WARNING));
	expect(warnings).toHaveLength(1);
	expect(warnings[0]).toMatch(/MediaGen Trigger "MediaGen Trigger" in workflow ".*" \(.+\)/);
	expect(warnings[0]).toContain('Publish the workflow again');
	expect(hints(n8n).length).toBeGreaterThan(0);
	expect(hints(n8n).every((hint) => hint.includes('earlier version'))).toBe(true);

	// the next event within 10 minutes: no second warning, no second check
	sb.control.clearRequests();
	await generate();
	await until(() => n8n.runs.length === 5);
	await sleep(300);
	expect(logs.filter((l) => l.includes(WARNING))).toHaveLength(1);
	expect(sb.control.requests({ method: 'GET', path: '/deliveries' })).toHaveLength(0);
});

test('published by this version: an event says nothing and checks nothing', async () => {
	const n8n = await fakeN8n(automatic());
	await n8n.activate();
	logs.length = 0;
	sb.control.clearRequests();
	await generate();
	await until(() => n8n.runs.length === 1);
	await sleep(300);
	expect(logs.filter((l) => l.includes(WARNING))).toHaveLength(0);
	expect(hints(n8n)).toEqual([]);
	expect(sb.control.requests({ method: 'GET', path: '/deliveries' })).toHaveLength(0);
});
