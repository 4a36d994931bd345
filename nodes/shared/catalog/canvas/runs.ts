import { endpoint, group, int, str } from '../dsl';
import { MAX_SAFE, workflowId } from './workflows';

const runId = { runId: str({ required: true, displayName: 'Run ID' }) };
const poll = { poll: '/canvas/runs/{jobId}', cancel: '/canvas/runs/{jobId}/cancel' };

/** Spec doc 3, "Canvas workflows": runs of a workflow. */
export const canvasRuns = group('run', 'Run', { doc: 3, section: 'Canvas workflows' }, [
	endpoint('start', 'POST /canvas/{id}/runs', 'content.create', {
		name: 'Start',
		action: 'Start a canvas run',
		description:
			'Run a canvas workflow and, by default, wait for its outputs. Failed steps are not charged.',
		toolText:
			'Run a canvas workflow; by default waits for it and returns its outputs. Failed steps are not charged.',
		path: workflowId,
		body: {
			expectedCredits: int({
				min: 0,
				max: MAX_SAFE,
				description:
					'The credits you confirm; left empty, the workflow is estimated first and that estimate is sent. The run is refused when the estimate differs.',
			}),
		},
		estimateInto: { path: '/canvas/{id}/estimate', field: 'expectedCredits' },
		job: {
			...poll,
			estimate: '/canvas/{id}/estimate',
			recover: { by: 'list', path: '/canvas/{id}/runs' },
		},
	}),
	endpoint('get', 'GET /canvas/runs/{runId}', 'content.read', {
		name: 'Get',
		action: 'Get a canvas run',
		description: 'Get a canvas run with its per-node status and outputs',
		path: runId,
	}),
	endpoint('wait', 'GET /canvas/runs/{runId}', 'content.read', {
		name: 'Wait',
		action: 'Wait for a canvas run to finish',
		description:
			'Wait for a run started earlier (with Wait for Completion off) and return it as Start does',
		path: runId,
		job: { ...poll, waitsOnly: true },
		nodeOperation: { kind: 'wait', jobId: 'runId', since: 2 },
	}),
	endpoint('getAll', 'GET /canvas/{id}/runs', 'content.read', {
		name: 'Get Many',
		action: 'Get many runs of a canvas workflow',
		description: 'Get the run history of a canvas workflow',
		path: workflowId,
		paginate: 'string',
	}),
	endpoint('cancel', 'POST /canvas/runs/{runId}/cancel', 'content.create', {
		name: 'Cancel',
		action: 'Cancel a canvas run',
		description: 'Cancel a canvas run; the reservations of its unfinished steps are returned',
		path: runId,
	}),
	endpoint('retry', 'POST /canvas/runs/{runId}/retry', 'content.create', {
		name: 'Retry',
		action: 'Retry a canvas run',
		description:
			'Run the failed and skipped steps of a run again; succeeded steps are kept. By default waits for it.',
		path: runId,
		job: { ...poll, recover: { by: 'self', path: '/canvas/runs/{runId}' } },
	}),
]);
