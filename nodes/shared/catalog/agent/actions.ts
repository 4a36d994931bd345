import { endpoint, group, str } from '../dsl';

/** Spec doc 3, "Agent": actions the agent proposes. */
export const agentActions = group('action', 'Action', { doc: 3, section: 'Agent' }, [
	endpoint('reject', 'POST /agent/actions/{id}/reject', 'content.create', {
		name: 'Reject',
		action: 'Reject a proposed agent action',
		path: { id: str({ required: true, displayName: 'Action ID' }) },
	}),
]);
