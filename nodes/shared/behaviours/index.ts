/** Which behaviour an operation has, and the form parameters it brings. */
import type { INodeProperties } from 'n8n-workflow';

import type { Endpoint } from '../catalog/dsl';
import type { Behaviour } from './behaviour';
import { charged } from './charged';
import { download } from './download';
import { IDEMPOTENCY_OPTION } from './idempotency';
import { job } from './job';
import { list } from './list';
import { plain } from './plain';
import { resultAsset } from './resultAsset';
import { textResult } from './textResult';
import { upload } from './upload';
import { webhookRetry } from './webhookRetry';

/**
 * Each behaviour and the mark of a declaration that gives an endpoint that behaviour; an endpoint
 * without any mark is `plain`. A declaration has at most one of these marks
 * (test/unit/behaviours.test.ts checks the catalog), so their order here decides nothing.
 */
export const BEHAVIOURS: ReadonlyArray<{
	name: string;
	is: (e: Endpoint) => boolean;
	behaviour: Behaviour;
}> = [
	{
		name: 'webhookRetry',
		is: (e) => e.nodeOperation?.kind === 'retryDeliveries',
		behaviour: webhookRetry,
	},
	{ name: 'upload', is: (e) => e.binary === 'upload', behaviour: upload },
	{ name: 'list', is: (e) => !!e.paginate, behaviour: list },
	{ name: 'download', is: (e) => e.binary === 'download', behaviour: download },
	{ name: 'textResult', is: (e) => e.binary === 'text', behaviour: textResult },
	{ name: 'job', is: (e) => !!e.job, behaviour: job },
	{ name: 'resultAsset', is: (e) => e.binary === 'resultAsset', behaviour: resultAsset },
	{ name: 'charged', is: (e) => !!e.charged, behaviour: charged },
];

/** The behaviour of an endpoint: the one its declaration marks, else plain. */
export function behaviourOf(endpoint: Endpoint): Behaviour {
	return BEHAVIOURS.find((b) => b.is(endpoint))?.behaviour ?? plain;
}

/**
 * The behaviour's parameters in form order: those before the optional fields' collection, and
 * those after it, ending with the Options collection (options sorted by name).
 */
export function behaviourProperties(endpoint: Endpoint): {
	beforeOptional: INodeProperties[];
	afterOptional: INodeProperties[];
} {
	const own = behaviourOf(endpoint).properties(endpoint);
	const options = [
		...(own.options ?? []),
		...(endpoint.idempotent ? [IDEMPOTENCY_OPTION] : []),
	].sort((a, b) => a.displayName.localeCompare(b.displayName));
	const afterOptional = [...(own.afterOptional ?? [])];
	if (options.length) {
		afterOptional.push({
			displayName: 'Options',
			name: 'options',
			type: 'collection',
			placeholder: 'Add Option',
			default: {},
			options,
		});
	}
	return { beforeOptional: own.beforeOptional ?? [], afterOptional };
}
