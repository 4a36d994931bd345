import type { FieldMap } from '../dsl';
import { endpoint, startsGenerations, group, json, matching, ref, str } from '../dsl';

/** Body shared by estimate and run. */
const body: FieldMap = {
	productId: ref('product', { required: true }),
	brandKitId: ref('brandKit'),
	characterId: ref('character'),
	headline: str({ max: 120, default: '' }),
	extra: str({ max: 1000, default: '', rows: 3, description: 'Extra instructions' }),
	aspectRatio: str({ max: 8, placeholder: 'e.g. 9:16' }),
	modelId: str({ max: 80, displayName: 'Model ID' }),
	params: json({ default: {}, description: 'Model settings as a JSON object' }),
	projectId: ref('project'),
	idempotencyKey: str({ max: 120, derived: 'idempotencyKey' }),
};
const templateId = {
	id: str({ displayName: 'Template ID', placeholder: 'e.g. product-spotlight' }),
};

/** Spec doc 2, "Marketing templates". */
export const marketingTemplates = group(
	'marketingTemplate',
	'Marketing Template',
	{ doc: 2, section: 'Marketing templates' },
	[
		endpoint('estimate', 'POST /marketing/templates/{id}/estimate', 'content.create', {
			name: 'Estimate',
			action: 'Estimate the cost of a marketing template',
			description: 'Return the credit cost of running a template; nothing is charged',
			path: templateId,
			body,
		}),
		endpoint('run', 'POST /marketing/templates/{id}/run', 'content.create', {
			name: 'Run',
			action: 'Run a marketing template',
			description:
				'Run a template for a product and brand, waiting by default. Credits are charged only on success.',
			toolText:
				'Run a template for a product and brand; by default waits for the job and returns its outputs. Credits are charged only on success.',
			path: templateId,
			body,
			idempotent: true,
			job: startsGenerations(
				matching({ 'context.templateId': '{id}', 'context.productId': '{body.productId}' }),
				'/marketing/templates/{id}/estimate',
			),
		}),
	],
);
