import { endpoint, group, ref, str } from '../dsl';

const sessionId = { id: ref('agentSession', { displayName: 'Session' }) };

/** Spec doc 3, "Agent": whether the agent is configured, and its tools. */
export const agentStatus = group('agent', 'Agent', { doc: 3, section: 'Agent' }, [
	endpoint('getStatus', 'GET /agent/status', 'content.read', {
		name: 'Get Status',
		action: 'Get the agent status',
		description: 'Get whether the agent is configured, and its tools',
	}),
]);

/** Spec doc 3, "Agent": conversations. */
export const agentSessions = group('session', 'Session', { doc: 3, section: 'Agent' }, [
	endpoint('getAll', 'GET /agent/sessions', 'content.read', {
		name: 'Get Many',
		action: 'Get many agent sessions',
		description: 'Get your conversations with the agent',
		paginate: 'string',
	}),
	endpoint('create', 'POST /agent/sessions', 'content.create', {
		name: 'Create',
		action: 'Create an agent session',
		body: { title: str({ max: 120 }) },
	}),
	endpoint('get', 'GET /agent/sessions/{id}', 'content.read', {
		name: 'Get',
		action: 'Get an agent session',
		description: 'Get a conversation with its messages and actions',
		path: sessionId,
	}),
	endpoint('archive', 'DELETE /agent/sessions/{id}', 'content.create', {
		name: 'Archive',
		action: 'Archive an agent session',
		path: sessionId,
	}),
	endpoint('sendMessage', 'POST /agent/sessions/{id}/messages', 'content.create', {
		name: 'Send Message',
		action: 'Send a message to the agent',
		description:
			'Send a message; the agent plans, runs free tools and proposes paid actions (nothing is charged here)',
		path: sessionId,
		body: { text: str({ required: true, max: 8000, rows: 4 }) },
	}),
]);
