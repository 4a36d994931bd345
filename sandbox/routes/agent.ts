/**
 * MediaGen Agent: spec doc 3, "Agent". A deterministic fake planner: each message runs the free
 * tools it needs at once and proposes the paid action it asks for (never runs it: the spec has no
 * approve endpoint, only reject). Records per workspace, kept here.
 */
import { conflict, json } from '../http';
import { estimate } from '../jobs';
import { paginate } from '../pagination';
import { route } from '../route';
import { now, recBase, Store, touch, type Rec, type Workspace } from '../state';
import { pageQuery, str, z } from '../validation';

interface Message {
	id: string;
	role: 'user' | 'assistant';
	text: string;
	toolCalls: ToolCall[];
	actionIds: string[];
	created_at: string;
}

interface ToolCall {
	tool: string;
	input: Record<string, unknown>;
	output: Record<string, unknown>;
}

interface SessionRec extends Rec {
	title: string;
	status: 'active' | 'archived';
	/** Name of the API key that created it: lists show the caller's conversations only. */
	owner: string;
	messages: Message[];
	archived_at: string | null;
}

interface ActionRec extends Rec {
	sessionId: string;
	messageId: string;
	tool: string;
	status: 'proposed' | 'rejected';
	input: Record<string, unknown>;
	credits: number;
	rejected_at: string | null;
}

class AgentStore {
	readonly sessions = new Store<SessionRec>('Agent session');
	readonly actions = new Store<ActionRec>('Agent action');
}
const stores = new WeakMap<Workspace, AgentStore>();
const agentOf = (ws: Workspace): AgentStore => {
	let s = stores.get(ws);
	if (!s) stores.set(ws, (s = new AgentStore()));
	return s;
};

/** Tools of the sandbox agent: free ones run during planning, paid ones are proposed. */
export const AGENT_TOOLS = [
	{ name: 'search_assets', paid: false, description: 'Search the workspace assets' },
	{ name: 'list_projects', paid: false, description: 'List the workspace projects' },
	{ name: 'get_credits', paid: false, description: 'Read the credit balance' },
	{ name: 'generate_image', paid: true, description: 'Generate an image (tool agent)' },
	{ name: 'generate_video', paid: true, description: 'Generate a 5 second video (tool agent)' },
	{
		name: 'generate_audio',
		paid: true,
		description: 'Generate a 30 second audio track (tool agent)',
	},
] as const;

const PAID_MODE: Record<string, string> = {
	generate_image: 'image',
	generate_video: 'video',
	generate_audio: 'audio',
};

const actionView = (a: ActionRec) => ({
	id: a.id,
	sessionId: a.sessionId,
	messageId: a.messageId,
	tool: a.tool,
	status: a.status,
	input: a.input,
	credits: a.credits,
	created_at: a.created_at,
	updated_at: a.updated_at,
	rejected_at: a.rejected_at,
});

const messageView = (m: Message) => ({ ...m });

const sessionSummary = (s: SessionRec) => ({
	id: s.id,
	title: s.title,
	status: s.status,
	messageCount: s.messages.length,
	created_at: s.created_at,
	updated_at: s.updated_at,
	archived_at: s.archived_at,
});

const sessionView = (ws: Workspace) => (s: SessionRec) => ({
	...sessionSummary(s),
	messages: s.messages.map(messageView),
	actions: agentOf(ws)
		.actions.all()
		.filter((a) => a.sessionId === s.id)
		.sort((a, b) => a.seq - b.seq)
		.map(actionView),
});

const words = (text: string) => text.toLowerCase().match(/[a-z0-9]+/g) ?? [];

/**
 * The plan for a message, decided by its words: `asset|assets|library|find|search` runs
 * search_assets, `project|projects` list_projects, `credit|credits|balance|cost` get_credits;
 * a creation word (`create|make|generate|render|draw|produce|design`) or a medium word proposes
 * one paid action: video/clip/animation → generate_video, audio/voice/music/sound → generate_audio,
 * otherwise generate_image.
 */
function plan(ws: Workspace, text: string): { calls: ToolCall[]; paid: string | null } {
	const w = new Set(words(text));
	const any = (...xs: string[]) => xs.some((x) => w.has(x));
	const calls: ToolCall[] = [];
	if (any('asset', 'assets', 'library', 'find', 'search')) {
		const found = ws.assets.all();
		calls.push({
			tool: 'search_assets',
			input: { q: text.slice(0, 200) },
			output: { count: found.length, assetIds: found.slice(0, 10).map((a) => a.id) },
		});
	}
	if (any('project', 'projects'))
		calls.push({
			tool: 'list_projects',
			input: {},
			output: {
				count: ws.projects.all().length,
				projects: ws.projects.all().map((p) => ({ id: p.id, name: p.name })),
			},
		});
	if (any('credit', 'credits', 'balance', 'cost'))
		calls.push({
			tool: 'get_credits',
			input: {},
			output: { balance: ws.balance, reserved: ws.reserved },
		});
	const video = any('video', 'videos', 'clip', 'clips', 'animation', 'animate');
	const audio = any('audio', 'voice', 'voiceover', 'music', 'sound', 'song');
	const image = any('image', 'images', 'picture', 'photo', 'illustration', 'poster');
	const create = any('create', 'make', 'generate', 'render', 'draw', 'produce', 'design');
	const paid =
		create || video || audio || image
			? video
				? 'generate_video'
				: audio
					? 'generate_audio'
					: 'generate_image'
			: null;
	return { calls, paid };
}

export const agentRoutes = [
	route({
		method: 'GET',
		path: '/agent/status',
		scope: 'content.read',
		handler: () =>
			json({
				configured: true,
				model: 'sandbox-planner',
				tools: AGENT_TOOLS.map((t) => ({
					...t,
					credits: t.paid ? estimate('agent', PAID_MODE[t.name], {}).credits : 0,
				})),
			}),
	}),
	route({
		method: 'GET',
		path: '/agent/sessions',
		scope: 'content.read',
		query: z.object(pageQuery),
		handler: ({ ws, key, query }) => {
			const mine = agentOf(ws)
				.sessions.all()
				.filter((s) => s.owner === key.name && s.status === 'active');
			return json(paginate(mine, query, sessionSummary));
		},
	}),
	route({
		method: 'POST',
		path: '/agent/sessions',
		scope: 'content.create',
		body: z.object({ title: str(120).optional() }),
		handler: ({ ws, key, body }) => {
			const s = agentOf(ws).sessions.put({
				...recBase(),
				title: body.title ?? 'New conversation',
				status: 'active',
				owner: key.name,
				messages: [],
				archived_at: null,
			});
			return json(sessionView(ws)(s), 201);
		},
	}),
	route({
		method: 'GET',
		path: '/agent/sessions/{id}',
		scope: 'content.read',
		handler: ({ ws, params }) => json(sessionView(ws)(agentOf(ws).sessions.get(params.id))),
	}),
	route({
		method: 'DELETE',
		path: '/agent/sessions/{id}',
		scope: 'content.create',
		handler: ({ ws, params }) => {
			const s = agentOf(ws).sessions.get(params.id);
			if (s.status !== 'archived') {
				s.status = 'archived';
				s.archived_at = now();
				touch(s);
			}
			return json(sessionView(ws)(s));
		},
	}),
	route({
		method: 'POST',
		path: '/agent/sessions/{id}/messages',
		scope: 'content.create',
		body: z.object({ text: str(8000) }),
		handler: ({ ws, params, body }) => {
			const store = agentOf(ws);
			const s = store.sessions.get(params.id);
			if (s.status === 'archived')
				throw conflict(`Agent session ${s.id} is archived`, { status: s.status });
			const user: Message = {
				id: recBase().id,
				role: 'user',
				text: body.text,
				toolCalls: [],
				actionIds: [],
				created_at: now(),
			};
			const { calls, paid } = plan(ws, body.text);
			const reply: Message = {
				id: recBase().id,
				role: 'assistant',
				text: '',
				toolCalls: calls,
				actionIds: [],
				created_at: now(),
			};
			const actions: ActionRec[] = [];
			if (paid) {
				const a = store.actions.put({
					...recBase(),
					sessionId: s.id,
					messageId: reply.id,
					tool: paid,
					status: 'proposed',
					input: { prompt: body.text.slice(0, 2000), modelId: 'agent-default' },
					credits: estimate('agent', PAID_MODE[paid], {}).credits,
					rejected_at: null,
				});
				actions.push(a);
				reply.actionIds.push(a.id);
			}
			const ran = calls.map((c) => c.tool).join(', ');
			reply.text =
				(ran ? `I ran ${ran}. ` : '') +
				(paid
					? `I propose ${paid} for ${actions[0].credits} credits; it needs your confirmation.`
					: 'Nothing here needs credits.');
			if (s.messages.length === 0 && s.title === 'New conversation')
				s.title = body.text.slice(0, 120);
			s.messages.push(user, reply);
			touch(s);
			return json({
				sessionId: s.id,
				messages: [messageView(user), messageView(reply)],
				toolCalls: calls,
				actions: actions.map(actionView),
			});
		},
	}),
	route({
		method: 'POST',
		path: '/agent/actions/{id}/reject',
		scope: 'content.create',
		handler: ({ ws, params }) => {
			const a = agentOf(ws).actions.get(params.id);
			if (a.status !== 'proposed')
				throw conflict(
					`Agent action ${a.id} is ${a.status}; only proposed actions can be rejected`,
					{
						status: a.status,
					},
				);
			a.status = 'rejected';
			a.rejected_at = now();
			touch(a);
			return json(actionView(a));
		},
	}),
];
