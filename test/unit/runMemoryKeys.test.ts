/**
 * The run memory's keys (nodes/shared/durable/memory.ts): the key of its own execution an item's
 * request was sent under is kept until the item is answered or refused, found by the request id
 * (the item's index may differ in a later try), per run position, and gone when the run ends well.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { runMemory } from '../../nodes/shared/durable/memory';

/** The node context and execution id a run memory reads: all it asks of n8n. */
function fakeCtx(context: IDataObject = {}): IExecuteFunctions {
	return {
		getContext: () => context,
		getExecutionId: () => '42',
	} as unknown as IExecuteFunctions;
}

test('a keyed request is found by its request id until it is answered', () => {
	const ctx = fakeCtx();
	const memory = runMemory(ctx, 0);
	memory.sending(1);
	memory.keyed(1, 'req-b', 'key-of-42');
	expect(memory.keyOf('req-b')).toBe('key-of-42');
	expect(memory.keyOf('req-a')).toBeUndefined();
	// another position keeps its own
	expect(runMemory(ctx, 1).keyOf('req-b')).toBeUndefined();
	// a later try (a new memory over the same node context) finds it
	expect(runMemory(ctx, 0).keyOf('req-b')).toBe('key-of-42');
	memory.add(1, [{ id: 'job-1', status: 'queued' }], false, 'req-b');
	expect(memory.keyOf('req-b')).toBeUndefined();
});

test('a refusal forgets the key; so does a run that ended well', () => {
	const ctx = fakeCtx();
	const memory = runMemory(ctx, 0);
	memory.keyed(0, 'req-a', 'key-a');
	memory.notDone(0, 'req-a');
	expect(memory.keyOf('req-a')).toBeUndefined();
	memory.keyed(2, 'req-c', 'key-c');
	memory.clear(false);
	expect(runMemory(ctx, 0).keyOf('req-c')).toBeUndefined();
});
