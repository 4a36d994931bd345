/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/** Scaled timers that can all be cancelled at once (reset, close). */
export class Scheduler {
	private readonly handles = new Set<NodeJS.Timeout>();
	constructor(private readonly scale: () => number) {}
	/** Runs fn after `ms` simulated milliseconds (multiplied by the time scale). */
	after(ms: number, fn: () => void): NodeJS.Timeout {
		const h = setTimeout(
			() => {
				this.handles.delete(h);
				fn();
			},
			Math.max(0, Math.round(ms * this.scale())),
		);
		this.handles.add(h);
		return h;
	}
	cancel(h: NodeJS.Timeout | undefined): void {
		if (!h) return;
		clearTimeout(h);
		this.handles.delete(h);
	}
	clear(): void {
		for (const h of this.handles) clearTimeout(h);
		this.handles.clear();
	}
	/** The real delay for `ms` simulated milliseconds. */
	real(ms: number): number {
		return Math.max(0, Math.round(ms * this.scale()));
	}
}
