/**
 * Node types the engine harness runs besides the package's own: a start node (`test.items`), a
 * slow node to kill a process in (`test.slow`), and faithful subsets of four n8n-nodes-base
 * nodes under their own type names, so that a workflow here has the shape it has in n8n:
 * Loop Over Items (`n8n-nodes-base.splitInBatches` version 3), Execute Workflow
 * (`n8n-nodes-base.executeWorkflow`: source database, modes "once for all items" and "each item",
 * Wait For Sub-Workflow Completion), its trigger (`n8n-nodes-base.executeWorkflowTrigger`,
 * passthrough) and Wait (`n8n-nodes-base.wait`, a time interval under 65 s). Each follows the
 * node of n8n-nodes-base 2.40.7 (dist/nodes/SplitInBatches/v3, dist/nodes/ExecuteWorkflow,
 * dist/nodes/Wait), read there; what is left out is named at each class.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	IPairedItemData,
	ISourceData,
} from 'n8n-workflow';
import { deepCopy, NodeOperationError, sleep } from 'n8n-workflow';

const describe = (d: Record<string, unknown>) => d as unknown as INodeType['description'];

/** Test-only start node: emits the items given in its `items` parameter (JSON array). */
export class TestItems implements INodeType {
	description = describe({
		displayName: 'Test Items',
		name: 'testItems',
		group: ['input'],
		version: 1,
		description: 'Emits the configured items',
		defaults: { name: 'Items' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [{ displayName: 'Items', name: 'items', type: 'json', default: '[{}]' }],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const raw = this.getNodeParameter('items', 0) as string | IDataObject[];
		const items = (typeof raw === 'string' ? JSON.parse(raw) : raw) as IDataObject[];
		return [items.map((json) => ({ json }))];
	}
}

/**
 * Test-only: waits `ms` milliseconds (n8n-workflow's sleep; `retryMs` instead in an execution of
 * mode `retry`), then passes its input on, like n8n's Wait node for an interval under 65 s (which
 * n8n also waits in-process). The node a crash test kills n8n in, after a MediaGen node.
 */
export class TestSlow implements INodeType {
	description = describe({
		displayName: 'Test Slow',
		name: 'testSlow',
		group: ['transform'],
		version: 1,
		description: 'Waits, then passes its input on',
		defaults: { name: 'Slow' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [
			{ displayName: 'Milliseconds', name: 'ms', type: 'number', default: 1000 },
			{ displayName: 'In a Retry', name: 'retryMs', type: 'number', default: -1 },
		],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const retryMs = this.getNodeParameter('retryMs', 0, -1) as number;
		const inRetry = this.getMode() === 'retry' && retryMs >= 0;
		await sleep(inRetry ? retryMs : (this.getNodeParameter('ms', 0) as number));
		return [this.getInputData()];
	}
}

/** The Wait node's units, in seconds (n8n-nodes-base dist/nodes/Wait/Wait.node.js). */
const WAIT_UNIT_SECONDS: Record<string, number> = {
	seconds: 1,
	minutes: 60,
	hours: 60 * 60,
	days: 60 * 60 * 24,
};

/**
 * Wait (`n8n-nodes-base.wait` version 1.1), Resume "After Time Interval": the amount in its
 * unit; an interval under 65 s is waited in-process and the node returns its input (n8n's node
 * sets a timer, and resolves at once when the execution is cancelled), as here with n8n-workflow's
 * sleep. Left out: a longer interval (n8n puts the execution to wait in the database, which the
 * harness does not model: it throws), resuming at a date, on a webhook or a form.
 */
export class Wait implements INodeType {
	description = describe({
		displayName: 'Wait',
		name: 'wait',
		group: ['organization'],
		version: [1, 1.1],
		description: 'Wait before continue with execution',
		defaults: { name: 'Wait' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [
			{ displayName: 'Resume', name: 'resume', type: 'string', default: 'timeInterval' },
			{ displayName: 'Wait Amount', name: 'amount', type: 'number', default: 5 },
			{ displayName: 'Wait Unit', name: 'unit', type: 'string', default: 'seconds' },
		],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		if (this.getNodeParameter('resume', 0) !== 'timeInterval')
			throw new NodeOperationError(this.getNode(), 'The harness models Resume: After Time Interval only');
		const unit = WAIT_UNIT_SECONDS[this.getNodeParameter('unit', 0) as string];
		const amount = this.getNodeParameter('amount', 0) as number;
		if (!unit) throw new NodeOperationError(this.getNode(), 'Invalid wait unit.');
		if (typeof amount !== 'number' || amount < 0)
			throw new NodeOperationError(this.getNode(), 'Invalid wait amount.');
		const waitMs = amount * unit * 1000;
		if (waitMs >= 65_000)
			throw new NodeOperationError(this.getNode(), 'The harness does not model waiting executions');
		let cancelled = () => {};
		const cancel = new Promise<void>((resolve) => (cancelled = resolve));
		this.onExecutionCancellation(() => cancelled());
		await Promise.race([sleep(waitMs), cancel]);
		return [this.getInputData()];
	}
}

interface LoopContext extends IDataObject {
	currentRunIndex: number;
	maxRunIndex: number;
	sourceData: ISourceData | null;
	items: INodeExecutionData[];
	processedItems: INodeExecutionData[];
	noItemsLeft: boolean;
	done: boolean;
}

/**
 * Loop Over Items, n8n-nodes-base's SplitInBatchesV3.execute: the first run (no `items` in the
 * node context, or option Reset) keeps the input in the node context and returns the first batch
 * on output 1 ("loop"); every later run returns the next batch and adds its own input (the loop's
 * results) to `processedItems`; when nothing is left it returns `processedItems` on output 0
 * ("done"). Paired items as n8n sets them (sourceOverwrite to the first run's source).
 */
export class LoopOverItems implements INodeType {
	description = describe({
		displayName: 'Loop Over Items (Split in Batches)',
		name: 'splitInBatches',
		group: ['organization'],
		version: 3,
		description: 'Split data into batches and iterate over each batch',
		defaults: { name: 'Loop Over Items' },
		inputs: ['main'],
		outputs: ['main', 'main'],
		outputNames: ['done', 'loop'],
		properties: [
			{ displayName: 'Batch Size', name: 'batchSize', type: 'number', default: 1 },
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				default: {},
				options: [{ displayName: 'Reset', name: 'reset', type: 'boolean', default: false }],
			},
		],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData().slice();
		const ctx = this.getContext('node') as LoopContext;
		const batchSize = this.getNodeParameter('batchSize', 0) as number;
		const options = this.getNodeParameter('options', 0, {}) as { reset?: boolean };
		const returnItems: INodeExecutionData[] = [];
		if (ctx.items === undefined || options.reset === true) {
			ctx.currentRunIndex = 0;
			ctx.maxRunIndex = Math.ceil(items.length / batchSize);
			ctx.sourceData = deepCopy(this.getInputSourceData());
			returnItems.push(...items.splice(0, batchSize));
			ctx.items = [...items];
			ctx.processedItems = [];
		} else {
			ctx.currentRunIndex += 1;
			returnItems.push(...ctx.items.splice(0, batchSize));
			const sourceOverwrite = this.getInputSourceData();
			const processed = items.map((item, index) => ({
				...item,
				pairedItem: { sourceOverwrite, item: index } as IPairedItemData,
			}));
			ctx.processedItems = [...ctx.processedItems, ...processed];
			for (const item of returnItems) item.pairedItem = pairedWithSource(item, ctx.sourceData);
		}
		ctx.noItemsLeft = ctx.items.length === 0;
		if (returnItems.length === 0) {
			ctx.done = true;
			return [ctx.processedItems, []];
		}
		ctx.done = false;
		return [[], returnItems];
	}
}

/** SplitInBatchesV3's getPairedItemInformation: the item's pairing, its source the first run's. */
function pairedWithSource(
	item: INodeExecutionData,
	source: ISourceData | null,
): IPairedItemData | IPairedItemData[] {
	const overwrite = (p: number | IPairedItemData) =>
		(typeof p === 'number'
			? { item: p, sourceOverwrite: source }
			: { ...p, sourceOverwrite: source }) as IPairedItemData;
	if (item.pairedItem === undefined) return overwrite(0);
	return Array.isArray(item.pairedItem)
		? item.pairedItem.map(overwrite)
		: overwrite(item.pairedItem);
}

/** Execute Workflow Trigger, input source "passthrough": the caller's items as they come. */
export class ExecuteWorkflowTrigger implements INodeType {
	description = describe({
		displayName: 'Execute Workflow Trigger',
		name: 'executeWorkflowTrigger',
		group: ['trigger'],
		version: 1.1,
		description: 'Starts a workflow called by Execute Workflow',
		defaults: { name: 'When Executed by Another Workflow' },
		inputs: [],
		outputs: ['main'],
		properties: [
			{ displayName: 'Input Source', name: 'inputSource', type: 'string', default: 'passthrough' },
		],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [this.getInputData()];
	}
}

/**
 * Execute Workflow (ExecuteWorkflow.node execute): the sub-workflow `workflowId` (source
 * "database") run through `this.executeWorkflow` with `parentExecution` {executionId, workflowId}
 * of this execution, mode "each" (one sub-execution per item, each output item paired with its
 * item and given `metadata.subExecution`) or "once" (one sub-execution for all items, its output
 * paired by position). Left out: sources other than database, workflow input mappings (the
 * items go as they are, as with a passthrough trigger), continue-on-fail, not waiting.
 */
export class ExecuteWorkflow implements INodeType {
	description = describe({
		displayName: 'Execute Workflow',
		name: 'executeWorkflow',
		group: ['transform'],
		version: 1.2,
		description: 'Execute another workflow',
		defaults: { name: 'Execute Workflow' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [
			{ displayName: 'Source', name: 'source', type: 'string', default: 'database' },
			{ displayName: 'Workflow ID', name: 'workflowId', type: 'string', default: '' },
			{ displayName: 'Mode', name: 'mode', type: 'string', default: 'once' },
		],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData().map((item, index) => ({
			...item,
			index,
			pairedItem: { item: index },
		}));
		const proxy = this.getWorkflowDataProxy(0);
		const raw = this.getNodeParameter('workflowId', 0) as string | { value: string };
		const workflowInfo = { id: typeof raw === 'string' ? raw : raw.value };
		const parentExecution = { executionId: proxy.$execution.id, workflowId: proxy.$workflow.id };
		const options = { parentExecution, executionMode: this.getMode() };
		if (this.getNodeParameter('mode', 0) === 'each') {
			const returnData: INodeExecutionData[][] = [];
			for (let i = 0; i < items.length; i++) {
				try {
					const result = await this.executeWorkflow(workflowInfo, [items[i]], undefined, options);
					for (const [outputIndex, output] of (result.data as INodeExecutionData[][]).entries()) {
						for (const item of output) {
							item.pairedItem = { item: i };
							const subExecution = { executionId: result.executionId, workflowId: workflowInfo.id };
							item.metadata = { subExecution };
						}
						(returnData[outputIndex] ??= []).push(...output);
					}
				} catch (error) {
					throw new NodeOperationError(this.getNode(), error as Error, {
						message: `Error executing workflow with item at index ${i}`,
						description: (error as Error).message,
						itemIndex: i,
					});
				}
			}
			return returnData;
		}
		const result = await this.executeWorkflow(workflowInfo, items, undefined, options);
		this.setMetadata({
			subExecution: { executionId: result.executionId, workflowId: workflowInfo.id },
			subExecutionsCount: 1,
		});
		const outputs = result.data as INodeExecutionData[][];
		for (const output of outputs) {
			for (const [index, item] of output.entries()) {
				if (output.length === items.length) item.pairedItem = { item: index };
				else item.pairedItem ??= items.map((_, i) => ({ item: i }));
			}
		}
		return outputs;
	}
}
