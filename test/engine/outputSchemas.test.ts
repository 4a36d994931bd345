/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * Every operation's real output against the output schema the package ships for it. Each action
 * node's tour (./operationTour.ts) runs every operation of the node, in node versions 2 and 1,
 * through n8n-core's engine against the sandbox, everything else at the node's defaults; the
 * trigger, in each of its versions, receives every kind of event the sandbox sends. Each output
 * item is validated (Ajv, JSON Schema draft-07) against the committed file under
 * nodes/<Node>/__schema__/ with every listed object closed: a field the output has and the schema
 * lacks, a field the schema requires and the output lacks, or a wrong type fails.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import Ajv from 'ajv';
import type { IDataObject } from 'n8n-workflow';

import { MediaGenTrigger } from '../../nodes/MediaGenTrigger/MediaGenTrigger.node';
import { catalog } from '../../nodes/shared/catalog';
import { endpointsOf } from '../../nodes/shared/catalog/versions';
import { ROOT, listedNodes, versionDir } from '../../scripts/output-schemas';
import type { JsonSchema } from '../../scripts/output-schemas/schema';
import { ACTION_NODES, versionsOf } from '../harness/actionNodes';
import { client, until } from '../harness/sandbox/helpers';
import { TestBinarySource } from '../harness/engine/binaryData';
import { NODE_TYPES } from '../harness/engine/harness';
import type { TourContext } from '../harness/engine/operationTour';
import { TOURS, asset, call, generation, runnableGraph } from '../harness/engine/operationTour';
import { fastJobs, nodeFactory, useSandbox } from '../harness/engine/setup';
import { FakeN8n } from '../harness/engine/triggerHarness';

jest.setTimeout(300_000);
NODE_TYPES['test.binarySource'] = new TestBinarySource();

const NODES = ACTION_NODES;

const { sb, flow } = useSandbox({
	timeScale: 0.001,
	allowHttpWebhooks: true,
	binaryData: 'default',
});
fastJobs();

const dirOf = Object.fromEntries(listedNodes().map((n) => [n.name, n.dir]));

/** The schema with every object that lists its properties closed, unless it says it is open. */
function strict(schema: JsonSchema): object {
	return {
		...schema,
		...(schema.properties && {
			properties: Object.fromEntries(
				Object.entries(schema.properties).map(([k, s]) => [k, strict(s)]),
			),
			additionalProperties: schema.additionalProperties ?? false,
		}),
		...(schema.items && { items: strict(schema.items) }),
	};
}

const ajv = new Ajv({ allErrors: true, allowUnionTypes: true });

/**
 * A check of output items against the shipped file `nodes/<Node>/__schema__/v<x.y.z>/<name>.json`:
 * what is wrong with an item, one line per problem, each starting with `label`.
 */
function shippedSchema(node: string, version: number, name: string) {
	const path = join(ROOT, dirOf[node], '__schema__', versionDir(version), `${name}.json`);
	const validate = ajv.compile(strict(JSON.parse(readFileSync(path, 'utf8')) as JsonSchema));
	return (item: IDataObject, label: string): string[] =>
		validate(item)
			? []
			: (validate.errors ?? []).map((e) => {
					const extra = (e.params as { additionalProperty?: string }).additionalProperty;
					return `${label}: ${e.instancePath || '(item)'} ${e.message}${extra ? `: ${extra}` : ''}`;
				});
}

describe.each(Object.keys(NODES))('%s', (node) => {
	const factory = nodeFactory(NODES[node]);

	test('the tour runs every operation of the node', () => {
		const operations = catalog[node].flatMap((g) =>
			g.endpoints.map((e) => `${g.resource}.${e.operation}`),
		);
		expect(TOURS[node].map((s) => s.op).sort()).toEqual(operations.sort());
	});

	test.each([...versionsOf(node)].reverse())(
		'version %d: every output fits its schema',
		async (version) => {
			const t: TourContext = { sb, api: client(sb, sb.keys.pro), kept: {} };
			const problems: string[] = [];
			const inVersion = new Set(
				catalog[node].flatMap((g) =>
					endpointsOf(g, version).map((e) => `${g.resource}.${e.operation}`),
				),
			);
			for (const step of TOURS[node].filter((s) => inVersion.has(s.op))) {
				const [resource, operation] = step.op.split('.');
				const params =
					typeof step.params === 'function' ? await step.params(t) : (step.params ?? {});
				const r = await flow(
					[
						...(step.before ?? []),
						factory('Operation', { resource, operation, ...params }, { typeVersion: version }),
					],
					step.items?.(t),
				);
				await step.after?.(t);
				if (r.error) {
					problems.push(`${step.op}: ${r.error.message} ${r.error.description ?? ''}`);
					continue;
				}
				const out = r.json('Operation');
				if (step.keep) t.kept[step.keep] = out[0] as TourContext['kept'][string];
				if (!out.length) problems.push(`${step.op}: no output item to check`);
				const check = shippedSchema(node, version, `${resource}/${operation}`);
				out.forEach((item, i) => problems.push(...check(item, `${step.op} item ${i}`)));
			}
			expect(problems).toEqual([]);
		},
	);
});

describe('mediaGenTrigger', () => {
	const versions = Object.keys(new MediaGenTrigger().nodeVersions).map(Number);

	test.each(versions)(
		'version %d: every event the service sends fits the schema',
		async (version) => {
			const t: TourContext = { sb, api: client(sb, sb.keys.pro), kept: {} };
			const n8n = await FakeN8n.start({
				credentials: { mediaGenApi: { apiKey: sb.keys.pro, baseUrl: sb.baseUrl } },
				typeVersion: version,
				parameters: { registration: 'automatic', events: ['*'], options: { includePings: true } },
			});
			try {
				await n8n.activate();
				const seen = async (type: string) =>
					await until(() => n8n.outputs().some((items) => items[0]?.json.type === type));
				// generations (canvas steps make generations too)
				await generation(t);
				await generation(t, {}, true);
				await seen('generation.completed');
				await seen('generation.failed');
				// canvas runs
				const flow = await call(t, 'POST', '/canvas', { name: 'Events' });
				await call(t, 'PATCH', `/canvas/${flow.id}`, { graph: runnableGraph, version: 1 });
				await call(t, 'POST', `/canvas/${flow.id}/runs`, {});
				await seen('workflow.completed');
				// exports
				const edit = await call(t, 'POST', '/edits', { sourceAssetId: asset(t, 'video') });
				await call(t, 'POST', `/edits/${edit.id}/render`, {});
				await seen('export.completed');
				// every job fails from here on
				sb.control.setConfig({ failureRate: 1 });
				await call(t, 'POST', `/canvas/${flow.id}/runs`, {});
				await seen('workflow.failed');
				await call(t, 'POST', `/edits/${edit.id}/render`, {});
				await seen('export.failed');
				// the test ping
				const [endpoint] = (await call(t, 'GET', '/webhooks')).data as IDataObject[];
				await call(t, 'POST', `/webhooks/${String(endpoint.id)}/test`);
				await seen('webhook.test');
				await n8n.settle();
			} finally {
				sb.control.setConfig({ failureRate: 0 });
				await n8n.close();
			}
			const check = shippedSchema('mediaGenTrigger', version, 'output');
			const problems = n8n
				.outputs()
				.flat()
				.flatMap((item) => check(item.json, String(item.json.type)));
			expect(problems).toEqual([]);
		},
	);
});
