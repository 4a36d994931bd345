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

/** The behaviour of an endpoint (at most one of them applies to any endpoint of the catalog). */
export function behaviourOf(endpoint: Endpoint): Behaviour {
	if (endpoint.nodeOperation?.kind === 'retryDeliveries') return webhookRetry;
	if (endpoint.binary === 'upload') return upload;
	if (endpoint.paginate) return list;
	if (endpoint.binary === 'download') return download;
	if (endpoint.binary === 'text') return textResult;
	if (endpoint.job) return job;
	if (endpoint.binary === 'resultAsset') return resultAsset;
	if (endpoint.charged) return charged;
	return plain;
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
