/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * Fault injection: fail the next N matching requests (before or, with `afterWork`, after doing the
 * work), drop the next N matching responses after the work is done (socket destroyed without an
 * answer), or delay the next N matching responses.
 */
import { parse, z } from './validation';

export const faultInput = z.object({
	kind: z.enum(['fail', 'drop', 'delay']),
	/** HTTP method to match (any when absent). */
	method: z.string().optional(),
	/** Regular expression searched in the request path, e.g. "/generations$" (any when absent). */
	path: z.string().optional(),
	/** How many matching requests it applies to; default 1. */
	count: z.number().int().min(1).default(1),
	/** Matching requests let through before it applies (e.g. 2: from the third on); default 0. */
	skip: z.number().int().min(0).default(0),
	/** fail: the status (default 500) and error code (default "internal" or "injected_fault"). */
	status: z.number().int().min(100).max(599).default(500),
	code: z.string().optional(),
	message: z.string().optional(),
	/** fail: do the work first, then answer the fault (the answer of a done create is lost). */
	afterWork: z.boolean().default(false),
	/** delay: milliseconds (real time, not scaled); `releaseDelays()` ends every delay at once. */
	delayMs: z.number().int().min(0).default(1000),
});
export type FaultInput = z.input<typeof faultInput>;
export type Fault = z.output<typeof faultInput> & {
	id: number;
	remaining: number;
	skipping: number;
};

export class Faults {
	private list: Fault[] = [];
	private nextId = 1;
	/** The answers a delay holds now: each ends at its time or when released. */
	private readonly held = new Set<() => void>();
	add(input: FaultInput): Fault {
		const f = parse(faultInput, input);
		new RegExp(f.path ?? ''); // throws on a bad pattern
		const fault: Fault = { ...f, id: this.nextId++, remaining: f.count, skipping: f.skip };
		this.list.push(fault);
		return fault;
	}
	all(): Fault[] {
		return this.list.map((f) => ({ ...f }));
	}
	clear(): void {
		this.list = [];
	}
	/**
	 * Holds an answer for the delay's time, or until `releaseDelays()`; the wait does not keep the
	 * process alive (a test may end while it holds).
	 */
	async hold(delay: Fault): Promise<void> {
		await new Promise<void>((resolve) => {
			const end = () => {
				clearTimeout(timer);
				this.held.delete(end);
				resolve();
			};
			const timer = setTimeout(end, delay.delayMs).unref();
			this.held.add(end);
		});
	}
	/**
	 * Ends every delay now (the held answers are written): a test holds an answer as long as it
	 * needs (a long `delayMs`) and lets it go when it has seen what it waited for, whatever the
	 * machine's load. Returns how many answers it let go.
	 */
	releaseDelays(): number {
		const ends = [...this.held];
		for (const end of ends) end();
		return ends.length;
	}
	/** Removes one fault (a test's, once it is no longer wanted); false when it is gone. */
	remove(id: number): boolean {
		const before = this.list.length;
		this.list = this.list.filter((f) => f.id !== id);
		return this.list.length < before;
	}
	/** Consumes and returns the first fault of `kind` matching the request, if any. */
	take(kind: Fault['kind'], method: string, path: string): Fault | undefined {
		const f = this.list.find(
			(x) =>
				x.kind === kind &&
				x.remaining > 0 &&
				(!x.method || x.method.toUpperCase() === method) &&
				(!x.path || new RegExp(x.path).test(path)),
		);
		if (!f) return undefined;
		if (f.skipping > 0) {
			f.skipping--;
			return undefined;
		}
		f.remaining--;
		if (f.remaining === 0) this.list = this.list.filter((x) => x !== f);
		return f;
	}
}
