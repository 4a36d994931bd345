/**
 * n8n-workflow runs some regular expressions through its guarded engine (`safeRegex`: node:vm with
 * a 250 ms wall-clock timeout), and n8n fails the whole execution when one times out. The timeout
 * is wall-clock, so on a loaded machine it can fire for any pattern, however linear. Our nodes
 * keep every value out of that path: nothing in their descriptions hands n8n a pattern to run
 * (resource locator mode `validation` or `extractValue` regexes, `_cnd.regex` display conditions).
 * Ids are checked by the nodes themselves (fields/validation.ts), before any request.
 *
 * The test replaces n8n's engine with one that times out on every call, as the guarded one may
 * under load, and runs real workflows through n8n-core's engine: none of them may reach it.
 */
import {
	resetSafeRegexEngine,
	setSafeRegexEngine,
	type INodeProperties,
	type INodeType,
	type RegexEngine,
} from 'n8n-workflow';

import { MediaGen } from '../../nodes/MediaGen/MediaGen.node';
import { MediaGen3d } from '../../nodes/MediaGen3d/MediaGen3d.node';
import { MediaGenAds } from '../../nodes/MediaGenAds/MediaGenAds.node';
import { MediaGenAgent } from '../../nodes/MediaGenAgent/MediaGenAgent.node';
import { MediaGenCanvas } from '../../nodes/MediaGenCanvas/MediaGenCanvas.node';
import { MediaGenCinema } from '../../nodes/MediaGenCinema/MediaGenCinema.node';
import { MediaGenEditor } from '../../nodes/MediaGenEditor/MediaGenEditor.node';
import { MediaGenInfluencer } from '../../nodes/MediaGenInfluencer/MediaGenInfluencer.node';
import { MediaGenTrigger } from '../../nodes/MediaGenTrigger/MediaGenTrigger.node';
import { nodeFactory, rl, useSandbox } from '../harness/engine/setup';

const NODES: INodeType[] = [
	// every version of every action node
	...[
		new MediaGen(),
		new MediaGen3d(),
		new MediaGenAds(),
		new MediaGenAgent(),
		new MediaGenCanvas(),
		new MediaGenCinema(),
		new MediaGenEditor(),
		new MediaGenInfluencer(),
	].flatMap((n) => Object.values(n.nodeVersions)),
	// every version of the (versioned) trigger
	...[1, 2, 3].map((v) => new MediaGenTrigger().getNodeType(v)),
];

const { sb, runner } = useSandbox();
const { run: run3d } = runner(nodeFactory(new MediaGen3d()), '3D');
const { run: runCore } = runner(nodeFactory(new MediaGen()), 'MediaGen');

/** n8n's guarded engine as it behaves when the machine is busy: every call times out. */
const calls: Array<{ pattern: string; inputLength: number }> = [];
const timesOut = (pattern: string, input: string): never => {
	calls.push({ pattern, inputLength: input.length });
	throw new Error('Regular expression execution timed out');
};
const busyEngine: RegexEngine = {
	exec: timesOut,
	test: timesOut,
	replace: timesOut,
	matchAll: timesOut,
	split: timesOut,
};

beforeAll(() => setSafeRegexEngine(busyEngine));
afterAll(() => resetSafeRegexEngine());
beforeEach(() => {
	calls.length = 0;
});

/** Every property of a description, nested collection options and fixed-collection values too. */
function* walk(properties: INodeProperties[]): Generator<INodeProperties> {
	for (const p of properties) {
		yield p;
		for (const o of p.options ?? []) {
			if ('values' in o && Array.isArray(o.values)) yield* walk(o.values);
			else if ('type' in o && 'name' in o) yield* walk([o as INodeProperties]);
		}
	}
}

test('no node description hands n8n a pattern to run', () => {
	const found: string[] = [];
	for (const nodeType of NODES) {
		const { name, properties } = nodeType.description;
		for (const p of walk(properties)) {
			for (const mode of p.modes ?? []) {
				if (mode.validation?.some((v) => typeof v === 'object' && v.type === 'regex'))
					found.push(`${name}.${p.name} mode ${mode.name}: validation regex`);
				if (mode.extractValue) found.push(`${name}.${p.name} mode ${mode.name}: extractValue`);
			}
			if (p.extractValue) found.push(`${name}.${p.name}: extractValue`);
			if (JSON.stringify(p.displayOptions ?? {}).includes('"regex"'))
				found.push(`${name}.${p.name}: displayOptions regex`);
		}
	}
	expect(found).toEqual([]);
});

describe('workflows never reach the guarded engine', () => {
	test('3D save with a located scene and a 1 MB scene document', async () => {
		const created = await run3d({ resource: 'scene', operation: 'create', name: 'Big' });
		expect(created.error).toBeUndefined();
		const id = String(created.out[0].id);
		const objects = Array.from({ length: 9000 }, (_, i) => ({
			id: `box-${i}`,
			name: `Box ${i} ${'x'.repeat(80)}`,
		}));
		const scene = JSON.stringify({ objects });
		expect(scene.length).toBeGreaterThan(1_000_000);
		const saved = await run3d({
			resource: 'scene',
			operation: 'save',
			scene3dId: rl(id),
			scene,
			version: 1,
		});
		expect(saved.error).toBeUndefined();
		expect(saved.out[0]).toMatchObject({ id, version: 2 });
		expect(calls).toEqual([]);
	});

	test('an id typed by hand (spaces around it, or not a UUID) is checked by the node', async () => {
		const project = await runCore({ resource: 'project', operation: 'create', name: 'P' });
		const id = String(project.out[0].id);
		const got = await runCore({
			resource: 'project',
			operation: 'get',
			projectId: rl(` ${id} `),
		});
		expect(got.error).toBeUndefined();
		expect(got.out[0].id).toBe(id);
		sb.control.clearRequests();
		const bad = await runCore({
			resource: 'project',
			operation: 'get',
			projectId: rl('x'.repeat(100_000)),
		});
		expect(bad.error?.message).toMatch(/^Project.* must be a UUID, got /);
		expect(sb.control.requests()).toHaveLength(0);
		expect(calls).toEqual([]);
	});
});
