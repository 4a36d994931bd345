import type { Attempt, RetryFailure } from '../../nodes/shared/transport/retry';
import { RETRY, pause, withRetries } from '../../nodes/shared/transport/retry';

type Budget = 'limited' | 'fault';
interface Failure extends RetryFailure<Budget> {
	reason: string;
}

/** Attempts that give the listed outcomes in turn, counting how many ran. */
function script(outcomes: Array<Attempt<string, Failure>>) {
	const run = { count: 0 };
	const attempt = async () => {
		const outcome = outcomes[run.count++];
		if (!outcome) throw new Error('more attempts than scripted');
		return outcome;
	};
	return { run, attempt };
}

const fail = (budget: Budget | undefined, extra: Partial<Failure> = {}) => ({
	ok: false as const,
	failure: { budget, reason: `${budget ?? 'refused'} ${extra.waitMs ?? ''}`, ...extra },
});
const succeed = (value: string) => ({ ok: true as const, value });

class GaveUp extends Error {
	constructor(
		readonly failure: Failure,
		readonly retries: Record<Budget, number>,
	) {
		super(failure.reason);
	}
}
const giveUp = (failure: Failure, retries: Record<Budget, number>) => new GaveUp(failure, retries);

describe('withRetries, the one retry loop', () => {
	const saved = { ...RETRY };
	beforeEach(() => Object.assign(RETRY, { baseDelayMs: 20, maxDelayMs: 160 }));
	afterAll(() => Object.assign(RETRY, saved));

	test('gives the first success; a failure of each budget is retried within that budget', async () => {
		const { run, attempt } = script([
			fail('limited', { waitMs: 0 }),
			fail('fault', { waitMs: 0 }),
			fail('limited', { waitMs: 0 }),
			succeed('done'),
		]);
		const value = await withRetries({ budgets: { limited: 2, fault: 1 }, attempt, giveUp });
		expect(value).toBe('done');
		expect(run.count).toBe(4);
	});

	test('past its budget a failure gives up, with the retries spent per budget', async () => {
		const { run, attempt } = script([
			fail('fault', { waitMs: 0 }),
			fail('limited', { waitMs: 0 }),
			fail('fault', { waitMs: 0 }),
			fail('fault', { waitMs: 0 }),
		]);
		const error = await withRetries({ budgets: { limited: 8, fault: 2 }, attempt, giveUp }).catch(
			(e: unknown) => e,
		);
		expect(error).toBeInstanceOf(GaveUp);
		expect((error as GaveUp).retries).toEqual({ limited: 1, fault: 2 });
		expect(run.count).toBe(4);
	});

	test('a failure without a budget, or of a budget of 0, is not retried', async () => {
		for (const [budget, budgets] of [
			[undefined, { limited: 8, fault: 4 }],
			['fault', { limited: 8, fault: 0 }],
		] as const) {
			const { run, attempt } = script([fail(budget), succeed('never')]);
			const error = await withRetries({ budgets, attempt, giveUp }).catch((e: unknown) => e);
			expect((error as GaveUp).retries).toEqual({ limited: 0, fault: 0 });
			expect(run.count).toBe(1);
		}
	});

	test('an attempt that throws ends the loop with its error', async () => {
		let count = 0;
		const attempt = async (): Promise<Attempt<string, Failure>> => {
			count++;
			throw new Error('refused for good');
		};
		await expect(
			withRetries({ budgets: { limited: 8, fault: 4 }, attempt, giveUp }),
		).rejects.toThrow('refused for good');
		expect(count).toBe(1);
	});

	describe('the waits between attempts (on a fake clock, jitter at its top)', () => {
		beforeEach(() => {
			jest.useFakeTimers();
			jest.spyOn(Math, 'random').mockReturnValue(1);
		});
		afterEach(() => {
			jest.useRealTimers();
			jest.restoreAllMocks();
		});

		/** The attempts run by each of the given times (ms after the start). */
		async function attemptsBy(outcomes: Array<Attempt<string, Failure>>, times: number[]) {
			const { run, attempt } = script(outcomes);
			const done = withRetries({ budgets: { limited: 8, fault: 8 }, attempt, giveUp });
			const counts: number[] = [];
			let now = 0;
			for (const time of times) {
				await jest.advanceTimersByTimeAsync(time - now);
				now = time;
				counts.push(run.count);
			}
			await jest.runAllTimersAsync();
			await done;
			return counts;
		}

		test("a failure's own wait (Retry-After) is waited", async () => {
			const outcomes = [fail('limited', { waitMs: 150 }), succeed('x')];
			expect(await attemptsBy(outcomes, [149, 150])).toEqual([1, 2]);
		});
		test('else the backoff of its budget: 20, 40, 80 ms; each budget has its own', async () => {
			const outcomes = [fail('fault'), fail('fault'), fail('limited'), fail('fault'), succeed('x')];
			// fault waits 20 (attempt 2 at 20), fault 40 (attempt 3 at 60), limited 20 (4 at 80),
			// fault 80 (5 at 160)
			const counts = await attemptsBy(outcomes, [19, 20, 59, 60, 79, 80, 159, 160]);
			expect(counts).toEqual([1, 2, 2, 3, 3, 4, 4, 5]);
		});
		test('cancelling ends a wait at once, and no attempt follows', async () => {
			const controller = new AbortController();
			const { run, attempt } = script([fail('limited', { waitMs: 10_000 }), succeed('never')]);
			const budgets = { limited: 8, fault: 4 };
			const done = withRetries({ budgets, attempt, giveUp, signal: controller.signal });
			const outcome = done.catch((error: Error) => error);
			await jest.advanceTimersByTimeAsync(30);
			controller.abort();
			// the wait ends without the fake clock moving on: nothing waited for the 10 s
			expect(await outcome).toEqual(new Error('The execution was cancelled'));
			jest.clearAllTimers();
			expect(run.count).toBe(1);
		});
		test('a retry `now` does not wait at all', async () => {
			const outcomes = [fail('fault', { now: true }), fail('limited', { now: true }), succeed('x')];
			expect(await attemptsBy(outcomes, [0])).toEqual([3]);
		});
		test('a wait of 0 is no wait', async () => {
			const outcomes = [fail('fault', { waitMs: 0 }), fail('limited', { waitMs: 0 }), succeed('x')];
			expect(await attemptsBy(outcomes, [1])).toEqual([3]);
		});
	});

	test('a retry `now` spends a retry of its budget without waiting and without the limit', async () => {
		const { run, attempt } = script([
			fail('fault', { now: true }),
			fail('fault', { now: true }),
			fail('fault', { waitMs: 0 }),
		]);
		const error = await withRetries({ budgets: { limited: 0, fault: 1 }, attempt, giveUp }).catch(
			(e: unknown) => e,
		);
		// two retries at once although the budget holds one, then the limit applies
		expect((error as GaveUp).retries).toEqual({ limited: 0, fault: 2 });
		expect(run.count).toBe(3);
	});
});

describe('pause', () => {
	test('waits the time given, without a signal or with one that is not aborted', async () => {
		for (const signal of [undefined, new AbortController().signal]) {
			const started = Date.now();
			await pause(50, signal);
			expect(Date.now() - started).toBeGreaterThanOrEqual(45);
		}
	});
	test('an aborted signal ends it before it starts', async () => {
		const controller = new AbortController();
		controller.abort();
		const started = Date.now();
		await expect(pause(10_000, controller.signal)).rejects.toThrow('The execution was cancelled');
		expect(Date.now() - started).toBeLessThan(1_000);
	});
});
