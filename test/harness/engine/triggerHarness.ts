/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * A stand-in for n8n's webhook side, driving the real MediaGen Trigger through n8n-core's own
 * HookContext and WebhookContext, the way n8n's WebhookService / ActiveWorkflowManager /
 * TestWebhooks / LiveWebhooks do:
 * - activation: checkExists, then create when it answers false (mode "trigger", or "manual" with
 *   isTest for the test URL), and the node's `trigger` method beside it (n8n 2.40.7's
 *   WorkflowTriggerActivator.activateInternal runs both; its crons are kept to be fired by a
 *   test); deactivation: delete (mode "internal", as n8n does for both);
 * - workflow static data lives in a "database" copy: every operation builds a new Workflow from
 *   it and saves it back when n8n would (it changed), exactly like n8n's saveStaticData;
 * - a node:http server on 127.0.0.1 plays n8n's webhook endpoint: each request's body is handled
 *   as n8n 2.40.7 does (n8nRequest.ts), then handed to the node's webhook() through WebhookContext,
 *   answered as n8n answers (the node's own answer, its webhookResponse, or "Workflow was
 *   started"; a webhook() that throws: 500 and a failed execution), and the workflow is then run by
 *   n8n-core's WorkflowExecute from the trigger's output; an execution that changed static data
 *   saves its copy when it ends (n8n's workflowExecuteAfter hook).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import {
	ExecutionLifecycleHooks,
	HookContext,
	TriggerContext,
	WebhookContext,
	WorkflowExecute,
} from 'n8n-core';
import type {
	IConnections,
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	IRun,
	IWebhookData,
	IWebhookDescription,
	IWebhookResponseData,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { createRunExecutionData, sleep, Workflow } from 'n8n-workflow';

import { checkSlot, recoveriesSettled } from '../../../nodes/MediaGenTrigger/catchUp';
import { MediaGenTrigger } from '../../../nodes/MediaGenTrigger/MediaGenTrigger.node';
import { createAdditionalData, NODE_TYPES, NodeTypes, type RunOptions } from './harness';
import { N8nResponseError, parseRequestBody, rawBodyReader } from './n8nRequest';

export const TRIGGER_TYPE = 'n8n-nodes-mediagen.mediaGenTrigger';

/**
 * Test-only node after the trigger: passes its items on (json and binary) unchanged. With the
 * parameter `writeStaticData`, it first waits `delayMs` and writes the workflow's global static
 * data (what a Code node can do), so that its execution saves its copy of static data.
 */
class PassThrough implements INodeType {
	description = {
		displayName: 'Pass Through',
		name: 'passThrough',
		group: ['transform'],
		version: 1,
		description: 'Passes items on',
		defaults: { name: 'After' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [
			{
				displayName: 'Write Static Data',
				name: 'writeStaticData',
				type: 'boolean',
				default: false,
			},
			{ displayName: 'Delay', name: 'delayMs', type: 'number', default: 0 },
		],
	} as unknown as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		if (this.getNodeParameter('writeStaticData', 0, false) === true) {
			await sleep(this.getNodeParameter('delayMs', 0, 0) as number);
			this.getWorkflowStaticData('global').lastRun = Date.now();
		}
		return [this.getInputData()];
	}
}

NODE_TYPES[TRIGGER_TYPE] = new MediaGenTrigger();
NODE_TYPES['test.passThrough'] = new PassThrough();

/** One request the fake n8n received, and what it answered. */
export interface ReceivedRequest {
	path: string;
	test: boolean;
	headers: IncomingMessage['headers'];
	body: string;
	status: number;
	response: string;
	result?: IWebhookResponseData;
	/** webhook() threw: n8n answered 500 and recorded a failed execution (its error workflow runs). */
	failedExecution?: boolean;
	/** ms from the request's last byte to the answer's end, inside the server. */
	answerMs: number;
	/** Wall-clock time (Date.now()) of the answer's end, to order it against other logs. */
	answeredAt: number;
	/** Whether a workflow execution was started for it. */
	started: boolean;
}

/** A minimal express-like Response over node's ServerResponse (what nodes call on it). */
type ExpressLike = ServerResponse & {
	status(code: number): ExpressLike;
	json(body: unknown): ExpressLike;
	send(body?: unknown): ExpressLike;
	set(name: string, value: string): ExpressLike;
	header(name: string, value: string): ExpressLike;
};

function expressResponse(res: ServerResponse): ExpressLike {
	const r = res as ExpressLike;
	r.status = (code) => {
		res.statusCode = code;
		return r;
	};
	r.set = (name, value) => {
		res.setHeader(name, value);
		return r;
	};
	r.header = r.set;
	r.json = (body) => {
		if (!res.headersSent) res.setHeader('content-type', 'application/json; charset=utf-8');
		res.end(JSON.stringify(body));
		return r;
	};
	r.send = (body) => {
		if (body === undefined) res.end();
		else if (Buffer.isBuffer(body) || typeof body === 'string') res.end(body);
		else return r.json(body);
		return r;
	};
	return r;
}

const clone = <T>(value: T | undefined): T => JSON.parse(JSON.stringify(value ?? {})) as T;

export interface FakeN8nOptions {
	credentials: RunOptions['credentials'];
	parameters: INodeParameters;
	workflowId?: string;
	/**
	 * Queue mode: the webhook process only enqueues the execution and a worker runs it with its own
	 * copy of the workflow. Regular mode (default): the execution starts in the same process, on
	 * the same static data object, which resets n8n's "static data changed" flag before the webhook
	 * handler saves (as n8n's WorkflowRunner.runMainProcess does).
	 */
	queueMode?: boolean;
	/** The trigger's node version (default 2). */
	typeVersion?: number;
	/** Parameters of the node after the trigger (PassThrough's writeStaticData, delayMs). */
	afterParameters?: INodeParameters;
	/**
	 * The n8n whose static data handling is played (default 2, as 2.40.7): in 2.x every run of a
	 * webhook's execution first makes a Workflow over the request's static data object
	 * (establishContextForPersistence in workflow-runner.js), which resets n8n's "changed" flag,
	 * so a request that starts an execution saves no static data, in either mode; in 1.x a queued
	 * execution leaves the flag, and the webhook process saves.
	 */
	n8nMajor?: 1 | 2;
}

export class FakeN8n {
	readonly workflowId: string;

	readonly node: INode;

	/** The "database" copy of the workflow's static data. */
	staticData: IDataObject = {};

	/** Test webhook registration (n8n keeps it in its registration cache, not in the database). */
	testStaticData?: IDataObject;

	active = false;

	listening = false;

	/** n8n is down: every request's connection is broken off (its registrations stay as they are). */
	offline = false;

	readonly requests: ReceivedRequest[] = [];

	readonly runs: IRun[] = [];

	/** The crons the trigger's `trigger` method registered (n8n's registerCron) while active. */
	crons: Array<() => void> = [];

	/** The cron expressions the trigger registered, and their callbacks (n8n passes the time). */
	cronExpressions: string[] = [];

	cronTicks: Array<(at: Date) => void> = [];

	/** The trigger's class of the node's version. */
	readonly triggerType: INodeType;

	/** The node type answering requests (swap it to play another webhook process). */
	webhookProcess: INodeType;

	private readonly pending = new Set<Promise<void>>();

	private server!: Server;

	private origin = '';

	private constructor(private readonly options: FakeN8nOptions) {
		this.workflowId = options.workflowId ?? `wf-${randomUUID().slice(0, 8)}`;
		this.node = {
			id: randomUUID(),
			name: 'MediaGen Trigger',
			type: TRIGGER_TYPE,
			typeVersion: options.typeVersion ?? 2,
			position: [0, 0],
			webhookId: randomUUID(),
			parameters: options.parameters,
			credentials: {
				mediaGenApi: { id: 'cred-1', name: 'MediaGen sandbox' },
				...(options.credentials.mediaGenWebhookSecretApi
					? { mediaGenWebhookSecretApi: { id: 'cred-2', name: 'MediaGen webhook secret' } }
					: {}),
			},
		};
		this.triggerType = new NodeTypes().getByNameAndVersion(TRIGGER_TYPE, this.node.typeVersion);
		this.webhookProcess = this.triggerType;
	}

	static async start(options: FakeN8nOptions): Promise<FakeN8n> {
		const n8n = new FakeN8n(options);
		n8n.server = createServer((req, res) => {
			if (n8n.offline) {
				req.socket.destroy(); // n8n is down: the connection breaks off unanswered
				return;
			}
			const work = n8n.handle(req, res).catch((error: Error) => {
				if (!res.headersSent) res.statusCode = 500;
				res.end(JSON.stringify({ message: error.message }));
			});
			n8n.track(work);
		});
		n8n.server.keepAliveTimeout = 5000;
		await new Promise<void>((resolve) => n8n.server.listen(0, '127.0.0.1', () => resolve()));
		n8n.origin = `http://127.0.0.1:${(n8n.server.address() as AddressInfo).port}`;
		return n8n;
	}

	get productionUrl(): string {
		return `${this.origin}/webhook/${this.node.webhookId}/webhook`;
	}

	get testUrl(): string {
		return `${this.origin}/webhook-test/${this.node.webhookId}/webhook`;
	}

	setParameters(parameters: INodeParameters): void {
		this.node.parameters = parameters;
	}

	workflowData(): IWorkflowBase {
		const after: INode = {
			id: randomUUID(),
			name: 'After',
			type: 'test.passThrough',
			typeVersion: 1,
			position: [200, 0],
			parameters: this.options.afterParameters ?? {},
		};
		const connections: IConnections = {
			[this.node.name]: { main: [[{ node: after.name, type: 'main', index: 0 }]] },
		};
		return {
			id: this.workflowId,
			name: 'trigger test',
			active: this.active,
			isArchived: false,
			createdAt: new Date(),
			updatedAt: new Date(),
			activeVersionId: null,
			nodes: [clone(this.node), after],
			connections,
		} as IWorkflowBase;
	}

	private workflow(staticData: IDataObject): Workflow {
		const data = this.workflowData();
		return new Workflow({
			id: data.id,
			name: data.name,
			nodes: data.nodes,
			connections: data.connections,
			nodeTypes: new NodeTypes(),
			active: this.active,
			staticData,
		});
	}

	additionalData(executionId: string = randomUUID()): IWorkflowExecuteAdditionalData {
		return {
			...createAdditionalData(this.options.credentials, executionId),
			webhookBaseUrl: `${this.origin}/webhook`,
			webhookTestBaseUrl: `${this.origin}/webhook-test`,
			webhookWaitingBaseUrl: `${this.origin}/webhook-waiting`,
		} as IWorkflowExecuteAdditionalData;
	}

	private webhookData(
		workflow: Workflow,
		additionalData: IWorkflowExecuteAdditionalData,
		isTest: boolean,
	): IWebhookData {
		const description = this.triggerType.description.webhooks?.[0] as IWebhookDescription;
		return {
			httpMethod: 'POST',
			node: this.node.name,
			path: `${this.node.webhookId}/webhook`,
			webhookDescription: description,
			workflowId: workflow.id,
			workflowExecuteAdditionalData: additionalData,
			isTest: isTest || undefined,
		};
	}

	/** n8n's WebhookService.runWebhookMethod. */
	private async hook(
		method: 'checkExists' | 'create' | 'delete',
		workflow: Workflow,
		mode: WorkflowExecuteMode,
		activation: WorkflowActivateMode,
		isTest: boolean,
	): Promise<boolean> {
		const additionalData = this.additionalData();
		const webhookData = this.webhookData(workflow, additionalData, isTest);
		const node = workflow.getNode(this.node.name)!;
		const context = new HookContext(workflow, node, additionalData, mode, activation, webhookData);
		const fn = this.triggerType.webhookMethods!.default![method];
		return (await fn.call(context)) as boolean;
	}

	private save(workflow: Workflow): void {
		if ((workflow.staticData as IDataObject).__dataChanged === true)
			this.staticData = clone(workflow.staticData);
	}

	/** The node's `trigger` method, as n8n's TriggersAndPollers runs it; its crons are kept. */
	private async startTrigger(workflow: Workflow, activation: WorkflowActivateMode): Promise<void> {
		if (!this.triggerType.trigger) return; // a trigger without one (as released before)
		const node = workflow.getNode(this.node.name)!;
		const fail = (error: Error) => {
			throw error;
		};
		const context = new TriggerContext(
			workflow,
			node,
			this.additionalData(),
			'trigger',
			activation,
			() => fail(new Error('the MediaGen Trigger must never emit from its trigger method')),
			fail,
			fail,
			{
				registerCron: (cron, onTick) => {
					this.cronExpressions.push(cron.expression);
					this.cronTicks.push(onTick);
					// a tick at the minute the node's check runs (n8n ticks every minute)
					const at = new Date();
					at.setUTCMinutes(checkSlot(this.workflowId, this.node.id).minute);
					this.crons.push(() => onTick(at));
				},
			},
		);
		await this.triggerType.trigger!.call(context);
	}

	/**
	 * n8n 2.40.7's WorkflowTriggerActivator.activateInternal (publish, re-publish, every start of
	 * n8n): the webhooks (checkExists, create) and the trigger method side by side on one Workflow,
	 * then static data saved.
	 */
	async activate(activation: WorkflowActivateMode = 'activate'): Promise<void> {
		this.active = true;
		this.crons = [];
		const workflow = this.workflow(clone(this.staticData));
		const [webhooks, trigger] = await Promise.allSettled([
			(async () => {
				if (!(await this.hook('checkExists', workflow, 'trigger', activation, false)))
					await this.hook('create', workflow, 'trigger', activation, false);
			})(),
			this.startTrigger(workflow, activation),
		]);
		this.save(workflow);
		// the retry of missed deliveries runs in the background: tests wait for it here
		await recoveriesSettled();
		const failed = [webhooks, trigger].find((result) => result.status === 'rejected');
		if (failed) {
			this.active = false;
			throw (failed as PromiseRejectedResult).reason;
		}
	}

	/** Fires the periodic checks the trigger registered (what n8n's cron does) and waits for them. */
	async fireCrons(): Promise<void> {
		for (const tick of this.crons) tick();
		await recoveriesSettled();
	}

	/** ActiveWorkflowManager.clearWebhooks: delete in mode internal; the trigger's crons go. */
	async deactivate(): Promise<boolean> {
		this.active = false;
		this.crons = [];
		const workflow = this.workflow(clone(this.staticData));
		const result = await this.hook('delete', workflow, 'internal', 'update', false);
		this.save(workflow);
		return result;
	}

	/** TestWebhooks.needsWebhook: register at the test URL (mode manual). */
	async listen(): Promise<void> {
		const workflow = this.workflow(clone(this.staticData));
		this.listening = true;
		try {
			if (!(await this.hook('checkExists', workflow, 'manual', 'manual', true)))
				await this.hook('create', workflow, 'manual', 'manual', true);
		} catch (error) {
			// n8n removes the test webhooks again when registration fails
			await this.hook('delete', workflow, 'internal', 'update', true);
			this.listening = false;
			throw error;
		}
		this.testStaticData = clone(workflow.staticData);
	}

	/** TestWebhooks.deactivateWebhooks (after the test event, or on timeout). */
	async stopListening(): Promise<void> {
		const workflow = this.workflow(clone(this.testStaticData ?? this.staticData));
		await this.hook('delete', workflow, 'internal', 'update', true);
		this.listening = false;
		this.testStaticData = undefined;
	}

	/** Waits for requests and executions under way. */
	async settle(): Promise<void> {
		while (this.pending.size) await Promise.all([...this.pending]);
	}

	private track(work: Promise<void>): void {
		this.pending.add(work);
		void work.finally(() => this.pending.delete(work));
	}

	/** The request's record, and its answer's status, body and time captured when it ends. */
	private recordOf(req: IncomingMessage, res: ServerResponse, path: string): ReceivedRequest {
		const received = performance.now();
		const record: ReceivedRequest = {
			path,
			test: path.startsWith('/webhook-test/'),
			headers: req.headers,
			body: '',
			status: 0,
			response: '',
			answerMs: 0,
			answeredAt: 0,
			started: false,
		};
		this.requests.push(record);
		const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
		(res as unknown as { end: (...args: unknown[]) => ServerResponse }).end = (...args) => {
			record.status = res.statusCode;
			record.response =
				typeof args[0] === 'string' || Buffer.isBuffer(args[0]) ? String(args[0]) : '';
			record.answerMs = performance.now() - received;
			record.answeredAt = Date.now();
			return end(...args);
		};
		return record;
	}

	/**
	 * WebhookService.runWebhook inside webhook-helpers.executeWebhook: a webhook() that throws is
	 * answered 500 and n8n runs a failed execution (and the workflow's error workflow).
	 */
	private async runWebhook(
		context: WebhookContext,
		record: ReceivedRequest,
		response: ExpressLike,
	): Promise<IWebhookResponseData | undefined> {
		try {
			return (await this.webhookProcess.webhook!.call(context)) as IWebhookResponseData;
		} catch (error) {
			record.failedExecution = true;
			if (!response.headersSent)
				response
					.status(500)
					.json({ message: `Workflow could not be started: ${(error as Error).message}` });
			return undefined;
		}
	}

	/** LiveWebhooks / TestWebhooks.executeWebhook + webhook-helpers.executeWebhook, condensed. */
	private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const path = new URL(req.url ?? '/', this.origin).pathname;
		const record = this.recordOf(req, res, path);
		const { test } = record;
		const response = expressResponse(res);
		const expected = new URL(test ? this.testUrl : this.productionUrl).pathname;
		const registered = test ? this.listening : this.active;
		if (path !== expected || req.method !== 'POST' || !registered) {
			response.status(404).json({ message: 'The requested webhook is not registered' });
			return;
		}
		// n8n's body handling before the node (n8nRequest.ts): a body it cannot parse is refused
		const request = rawBodyReader(req);
		try {
			await parseRequestBody(request, this.node.typeVersion);
		} catch (error) {
			const status = error instanceof N8nResponseError ? error.status : 500;
			response.status(status).json({ message: (error as Error).message });
			return;
		}

		const staticData: IDataObject = clone(test ? this.testStaticData : this.staticData);
		const workflow = this.workflow(staticData);
		const mode: WorkflowExecuteMode = test ? 'manual' : 'webhook';
		const executionId = randomUUID();
		const additionalData = {
			...this.additionalData(executionId),
			httpRequest: request,
			httpResponse: response,
		} as unknown as IWorkflowExecuteAdditionalData;
		const webhookData = this.webhookData(workflow, additionalData, test);
		const node = workflow.getNode(this.node.name)!;
		const context = new WebhookContext(workflow, node, additionalData, mode, webhookData, [], null);
		const result = await this.runWebhook(context, record, response);
		record.body = request.rawBody?.toString('utf8') ?? '';
		if (!result) return;
		record.result = result;
		if (test) this.testStaticData = clone(workflow.staticData);
		if (result.noWebhookResponse && !test) this.save(workflow); // answered by the node itself

		if (result.workflowData) {
			record.started = true;
			// 2.x: the run makes a Workflow over the request's static data first (resets "changed")
			if (this.options.n8nMajor !== 1 || !this.options.queueMode) this.workflow(staticData);
			const executionStaticData = this.options.queueMode ? clone(staticData) : staticData;
			this.track(this.execute(result.workflowData, mode, executionStaticData, executionId));
		}
		if (!result.noWebhookResponse) {
			// n8n's onReceived answer: the description's responseData ("noData": empty body)
			if (result.workflowData)
				response
					.status(200)
					.send(
						this.triggerType.description.webhooks?.[0]?.responseData === 'noData'
							? undefined
							: { message: 'Workflow was started' },
					);
			else
				response.status(200).json(result.webhookResponse ?? { message: 'Webhook call received' });
			// LiveWebhooks saves static data after the answer
			if (!test) this.save(workflow);
		}
		if (test && result.workflowData) await this.stopListening();
	}

	/** WorkflowRunner: runs the workflow from the trigger's output with n8n-core's engine. */
	private async execute(
		data: INodeExecutionData[][],
		mode: WorkflowExecuteMode,
		staticData: IDataObject,
		executionId: string,
	): Promise<void> {
		const workflowData = this.workflowData();
		const workflow = this.workflow(staticData);
		const hooks = new ExecutionLifecycleHooks(
			mode,
			executionId as `${string}-${string}-${string}-${string}-${string}`,
			workflowData,
		);
		let finished: (run: IRun) => void = () => {};
		const done = new Promise<IRun>((resolve) => (finished = resolve));
		hooks.addHandler('workflowExecuteAfter', (run, newStaticData) => {
			// n8n saves the execution's copy of static data when a node changed it (not for tests)
			if (newStaticData && mode !== 'manual') this.staticData = clone(newStaticData);
			finished(run);
		});
		const additionalData = {
			...this.additionalData(executionId),
			hooks,
		} as IWorkflowExecuteAdditionalData;
		const runExecutionData = createRunExecutionData({
			executionData: {
				nodeExecutionStack: [
					{ node: workflow.getNode(this.node.name)!, data: { main: data }, source: null },
				],
			},
		});
		await new WorkflowExecute(additionalData, mode, runExecutionData).processRunExecutionData(
			workflow,
		);
		this.runs.push(await done);
	}

	/** Items the node after the trigger received, per run. */
	outputs(): INodeExecutionData[][] {
		return this.runs.map((run) => run.data.resultData.runData.After?.[0]?.data?.main?.[0] ?? []);
	}

	async close(): Promise<void> {
		await this.settle();
		this.server.closeAllConnections();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}
}
