/** Per-key rate limit over a rolling window: a minute (60,000 ms) unless a test shortens it. */
export interface RateDecision {
	allowed: boolean;
	limit: number;
	remaining: number;
	retryAfterSeconds: number;
}

export class RateLimiter {
	private readonly hits = new Map<string, number[]>();
	constructor(
		private readonly limit: () => number,
		private readonly window: () => number,
	) {}
	/** Records a hit for `key` unless over the limit. A limit of 0 allows everything. */
	hit(key: string, at = Date.now()): RateDecision {
		const limit = this.limit();
		const windowMs = this.window();
		if (limit <= 0) return { allowed: true, limit: 0, remaining: 0, retryAfterSeconds: 0 };
		const list = (this.hits.get(key) ?? []).filter((t) => t > at - windowMs);
		this.hits.set(key, list);
		if (list.length >= limit) {
			const retryAfterSeconds = Math.max(1, Math.ceil((list[0] + windowMs - at) / 1000));
			return { allowed: false, limit, remaining: 0, retryAfterSeconds };
		}
		list.push(at);
		return { allowed: true, limit, remaining: limit - list.length, retryAfterSeconds: 0 };
	}
	clear(): void {
		this.hits.clear();
	}
}
