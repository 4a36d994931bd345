/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only test code (real n8n e2e), never published: see package.json "files" */
/**
 * A scripted, OpenAI-compatible chat model for the agent e2e test: a `node:http` server on
 * 127.0.0.1:<free port> answering `POST /v1/chat/completions` (and `GET /v1/models`).
 *
 * It plays a SCRIPT: the n-th answer is step n, where n is the number of assistant turns with
 * tool calls already in the conversation the client sent (so a step is taken only after the
 * results of the previous one came back). A tool step answers with `tool_calls` naming one of
 * the tools offered in the request (an error answer if it was not offered) and its arguments;
 * arguments may be computed from the tool results received so far. After the last step it
 * answers with a final text. Both plain JSON and `stream: true` (SSE chunks) are served.
 *
 * Every request is recorded as received, so a test asserts on what the agent sent back: the
 * tools it offered and the tool results (`role: 'tool'` messages).
 */
import { appendFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One message of the chat-completions API, as the client sent it. */
export interface ChatMessage {
	role: 'system' | 'user' | 'assistant' | 'tool' | string;
	content?: string | Array<{ type: string; text?: string }> | null;
	tool_calls?: Array<{
		id: string;
		type: 'function';
		function: { name: string; arguments: string };
	}>;
	tool_call_id?: string;
	name?: string;
}

/** One tool offered in a request (`tools[]`). */
export interface OfferedTool {
	type: 'function';
	function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

export interface ChatRequest {
	model: string;
	messages: ChatMessage[];
	tools?: OfferedTool[];
	stream?: boolean;
	[key: string]: unknown;
}

/** A tool result received from the client, with the call it answers. */
export interface ToolResult {
	tool: string;
	callId: string;
	/** the message's content as text */
	content: string;
	/** the content parsed as JSON, or undefined when it is not JSON */
	json: unknown;
}

export type ScriptStep =
	| {
			/** name of a tool the client offers */
			tool: string;
			/** the arguments, or a function of the tool results received so far (oldest first) */
			args: Record<string, unknown> | ((results: ToolResult[]) => Record<string, unknown>);
	  }
	| { text: string };

export interface FakeModel {
	/** Base URL for an OpenAI credential: http://127.0.0.1:<port>/v1 */
	baseUrl: string;
	/** Every chat-completions request, in order */
	requests: ChatRequest[];
	/** Problems met while playing the script (a tool not offered, a bad body); empty when fine */
	errors: string[];
	/** Tool results in the last request (the whole conversation so far) */
	toolResults(): ToolResult[];
	close(): Promise<void>;
}

const text = (c: ChatMessage['content']) =>
	typeof c === 'string' ? c : Array.isArray(c) ? c.map((p) => p.text ?? '').join('') : '';

/** The tool results in a conversation, matched to the assistant's calls by id. */
export function toolResultsOf(messages: ChatMessage[]): ToolResult[] {
	const names = new Map<string, string>();
	for (const m of messages) for (const c of m.tool_calls ?? []) names.set(c.id, c.function.name);
	return messages
		.filter((m) => m.role === 'tool')
		.map((m) => {
			const content = text(m.content);
			let json: unknown;
			try {
				json = JSON.parse(content);
			} catch {
				json = undefined;
			}
			const callId = m.tool_call_id ?? '';
			return { tool: names.get(callId) ?? m.name ?? '', callId, content, json };
		});
}

export async function startFakeModel(
	script: ScriptStep[],
	finalText = 'All done.',
): Promise<FakeModel> {
	const requests: ChatRequest[] = [];
	const errors: string[] = [];
	let seq = 0;

	const answer = (body: ChatRequest) => {
		const done = body.messages.filter((m) => m.role === 'assistant' && m.tool_calls?.length);
		const step: ScriptStep = script[done.length] ?? { text: finalText };
		if ('text' in step) return { content: step.text };
		const offered = (body.tools ?? []).map((t) => t.function.name);
		if (!offered.includes(step.tool)) {
			const msg = `step ${done.length + 1}: tool ${step.tool} is not offered (offered: ${offered.join(', ') || 'none'})`;
			errors.push(msg);
			return { content: `SCRIPT ERROR: ${msg}` };
		}
		let args: Record<string, unknown>;
		try {
			args = typeof step.args === 'function' ? step.args(toolResultsOf(body.messages)) : step.args;
		} catch (e) {
			const msg = `step ${done.length + 1} (${step.tool}): arguments failed: ${(e as Error).message}`;
			errors.push(msg);
			return { content: `SCRIPT ERROR: ${msg}` };
		}
		return {
			toolCall: { id: `call_${++seq}`, name: step.tool, arguments: JSON.stringify(args) },
		};
	};

	const server = createServer((req: IncomingMessage, res: ServerResponse) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			const url = (req.url ?? '').split('?')[0];
			if (req.method === 'GET' && /\/models$/.test(url)) {
				res.writeHead(200, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ object: 'list', data: [{ id: 'fake-model', object: 'model' }] }));
				return;
			}
			if (req.method !== 'POST' || !/\/chat\/completions$/.test(url)) {
				res.writeHead(404, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ error: { message: `no route ${req.method} ${url}` } }));
				return;
			}
			let body: ChatRequest;
			try {
				body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
			} catch (e) {
				errors.push(`unparsable body: ${(e as Error).message}`);
				res.writeHead(400, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ error: { message: 'invalid JSON' } }));
				return;
			}
			requests.push(body);
			if (process.env.FAKE_MODEL_DUMP)
				appendFileSync(process.env.FAKE_MODEL_DUMP, `${JSON.stringify(body)}\n`);
			const a = answer(body);
			const id = `chatcmpl-${requests.length}`;
			const created = Math.floor(Date.now() / 1000);
			const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
			const toolCalls = a.toolCall
				? [
						{
							id: a.toolCall.id,
							type: 'function',
							function: { name: a.toolCall.name, arguments: a.toolCall.arguments },
						},
					]
				: undefined;
			const finish = a.toolCall ? 'tool_calls' : 'stop';
			if (body.stream) {
				res.writeHead(200, {
					'content-type': 'text/event-stream',
					'cache-control': 'no-cache',
					connection: 'keep-alive',
				});
				const chunk = (delta: Record<string, unknown>, finishReason: string | null, extra = {}) =>
					res.write(
						`data: ${JSON.stringify({
							id,
							object: 'chat.completion.chunk',
							created,
							model: body.model,
							choices: [{ index: 0, delta, finish_reason: finishReason }],
							...extra,
						})}\n\n`,
					);
				chunk({ role: 'assistant', content: a.toolCall ? null : '' }, null);
				if (toolCalls) {
					chunk({ tool_calls: toolCalls.map((c, index) => ({ index, ...c })) }, null);
				} else {
					chunk({ content: a.content }, null);
				}
				chunk({}, finish, { usage });
				res.end('data: [DONE]\n\n');
				return;
			}
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(
				JSON.stringify({
					id,
					object: 'chat.completion',
					created,
					model: body.model,
					choices: [
						{
							index: 0,
							message: {
								role: 'assistant',
								content: a.toolCall ? null : a.content,
								...(toolCalls ? { tool_calls: toolCalls } : {}),
							},
							finish_reason: finish,
						},
					],
					usage,
				}),
			);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}/v1`,
		requests,
		errors,
		toolResults: () => toolResultsOf(requests.at(-1)?.messages ?? []),
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
