/** Per-key rolling-minute rate limit. */
export interface RateDecision {
	allowed: boolean;
	limit: number;
	remaining: number;
	retryAfterSeconds: number;
}

const WINDOW_MS = 60_000;

export class RateLimiter {
	private readonly hits = new Map<string, number[]>();
	constructor(private readonly limit: () => number) {}
	/** Records a hit for `key` unless over the limit. A limit of 0 allows everything. */
	hit(key: string, at = Date.now()): RateDecision {
		const limit = this.limit();
		if (limit <= 0) return { allowed: true, limit: 0, remaining: 0, retryAfterSeconds: 0 };
		const list = (this.hits.get(key) ?? []).filter((t) => t > at - WINDOW_MS);
		this.hits.set(key, list);
		if (list.length >= limit) {
			const retryAfterSeconds = Math.max(1, Math.ceil((list[0] + WINDOW_MS - at) / 1000));
			return { allowed: false, limit, remaining: 0, retryAfterSeconds };
		}
		list.push(at);
		return { allowed: true, limit, remaining: limit - list.length, retryAfterSeconds: 0 };
	}
	clear(): void {
		this.hits.clear();
	}
}
