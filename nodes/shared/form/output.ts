/**
 * Output: Raw or Simplified (node version 2): the parameter on the form, and what it does to a
 * large record (the run applies it to every output item: run/execute.ts).
 */
import type { IDataObject, INodeExecutionData, INodeProperties } from 'n8n-workflow';

/** Records with more fields than this are simplified (n8n's UX guideline). */
const SIMPLE_MAX_FIELDS = 10;

/** The fields a simplified record keeps, in this order, where the record has them. */
const SIMPLE_FIELDS = [
	'id',
	'name',
	'title',
	'status',
	'kind',
	'tool',
	'model_id',
	'prompt',
	'project_id',
	'projectId',
	'generationId',
	'filename',
	'mimeType',
	'size',
	'url',
	'outputs',
	'files',
	'credits_charged',
	'credits',
	'error',
	// the user's own fields and the node's provenance (`context.n8n`): what ties a job to its row
	'context',
	'created_at',
	'completed_at',
	'nextCursor',
	'notice',
];

/** A record with the fields a user or model needs; small records stay as they are. */
export function simplify(record: IDataObject): IDataObject {
	if (Object.keys(record).length <= SIMPLE_MAX_FIELDS) return record;
	const out: IDataObject = {};
	for (const key of SIMPLE_FIELDS) if (key in record) out[key] = record[key];
	return out;
}

export const OUTPUT_PROPERTY: INodeProperties = {
	displayName: 'Output',
	name: 'output',
	type: 'options',
	default: 'simplified',
	description: 'How much of each record to return',
	options: [
		{
			name: 'Simplified',
			value: 'simplified',
			description:
				'The fields you usually need: ID, name or title, status, model, prompt, outputs, credits, error, file details and times',
		},
		{ name: 'Raw', value: 'raw', description: 'Every field MediaGen returns' },
	],
};

/** An item's outputs as its Output parameter (`output`) asks: Raw as they are; Simplified: each simplified. */
export function applyOutput(output: unknown, items: INodeExecutionData[]): void {
	if (output !== 'simplified') return;
	for (const item of items) item.json = simplify(item.json);
}
