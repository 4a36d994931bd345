/** The request log tests read to assert what was (not) sent. */
export interface RequestLogEntry {
	seq: number;
	time: string;
	method: string;
	/** Full path without the query, e.g. "/v1/generations" or "/files/uploads/...". */
	path: string;
	query: Record<string, string>;
	/** Name of the API key used ("pro", "readOnly", ...), null when none or unknown. */
	keyName: string | null;
	status: number;
	/** The Idempotency-Key header of any request, or the body key on routes that honour one. */
	idempotencyKey: string | null;
	requestId: string;
	/** Set when a fault dropped the response (the work was done, no answer was sent). */
	dropped: boolean;
	/** Set when a fault injected the status. */
	injected: boolean;
	durationMs: number;
	/** API requests open at the sandbox when this one arrived, itself included (1 = alone). */
	inFlight: number;
}

/**
 * What a watcher of the request log hears, synchronously, as it happens: `answered`, a request's
 * log entry (its answer written, or dropped); `held`, a request whose work is done and whose
 * answer a delay fault holds back (it is in flight: made at the API, not answered).
 */
export type RequestEvent =
	| { type: 'answered'; entry: RequestLogEntry }
	| { type: 'held'; method: string; path: string; idempotencyKey: string | null; status: number };

/** A request as a gate sees it (see RequestGate). */
export interface GatedRequest {
	method: string;
	path: string;
	headers: Record<string, string | string[] | undefined>;
}

/**
 * A test's gate in front of every `/v1` request (before faults, authentication and the work):
 * the request waits until the promise settles. It resolves to `'refuse'` (the request is answered
 * 503 without any work: a request of a process already dead), or to a function that hears the
 * answer's status and JSON once the work is done, or to nothing. In-process only.
 */
export type RequestGate = (
	r: GatedRequest,
) => Promise<'refuse' | ((status: number, json: unknown) => void) | void>;

export class RequestLog {
	/** The gate every `/v1` request waits on (setGate), if any. */
	gate?: RequestGate;
	private entries: RequestLogEntry[] = [];
	private seq = 0;
	private open = 0;
	private readonly watchers = new Set<(e: RequestEvent) => void>();
	/** Calls `fn` on every event from now on (see RequestEvent); returns the unsubscribe. */
	watch(fn: (e: RequestEvent) => void): () => void {
		this.watchers.add(fn);
		return () => this.watchers.delete(fn);
	}
	/** Tells the watchers (a watcher that throws does not stop the request or the others). */
	notify(e: RequestEvent): void {
		for (const fn of [...this.watchers]) {
			try {
				fn(e);
			} catch {
				/* a test's watcher: not the sandbox's business */
			}
		}
	}
	/** Counts a request as open until `end`; returns how many are open, this one included. */
	begin(): number {
		return ++this.open;
	}
	end(): void {
		this.open--;
	}
	add(e: Omit<RequestLogEntry, 'seq'>): void {
		const entry = { ...e, seq: ++this.seq };
		this.entries.push(entry);
		if (this.entries.length > 10_000) this.entries.shift();
		this.notify({ type: 'answered', entry: { ...entry } });
	}
	list(filter: { method?: string; path?: string } = {}): RequestLogEntry[] {
		return this.entries.filter(
			(e) =>
				(!filter.method || e.method === filter.method.toUpperCase()) &&
				(!filter.path || new RegExp(filter.path).test(e.path)),
		);
	}
	clear(): void {
		this.entries = [];
	}
}
