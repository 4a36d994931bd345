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

export class RequestLog {
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
