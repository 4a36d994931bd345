/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * Scaled timers that can all be cancelled at once (reset, close), and held: every job's progress
 * (queued -> running -> done, canvas steps, exports, webhook retries) is one of these timers, so a
 * test that holds them acts on a job that cannot move on until it steps or releases them.
 */
interface Scheduled {
	fn: () => void;
	/** Real time (ms) the event is due. */
	due: number;
	/** Came due while held: waits for release or step. */
	waiting: boolean;
}

/**
 * A factor on every scaled delay, for finding races (docs/development.md): with
 * MEDIAGEN_SANDBOX_RACE_FACTOR=0.0001 every job, step and retry that is not held happens at once,
 * so a test that passes only while a job is still running fails. Tests leave it unset (1).
 */
const RACE_FACTOR = Number(process.env.MEDIAGEN_SANDBOX_RACE_FACTOR ?? 1);

export class Scheduler {
	private readonly events = new Map<NodeJS.Timeout, Scheduled>();
	private held = false;
	constructor(private readonly scale: () => number) {}
	/** Runs fn after `ms` simulated milliseconds (multiplied by the time scale). */
	after(ms: number, fn: () => void): NodeJS.Timeout {
		const delay = this.real(ms);
		const h = setTimeout(() => {
			const e = this.events.get(h);
			if (!e) return;
			if (this.held) {
				e.waiting = true;
				return;
			}
			this.events.delete(h);
			fn();
		}, delay);
		this.events.set(h, { fn, due: Date.now() + delay, waiting: false });
		return h;
	}
	cancel(h: NodeJS.Timeout | undefined): void {
		if (!h) return;
		clearTimeout(h);
		this.events.delete(h);
	}
	clear(): void {
		for (const h of this.events.keys()) clearTimeout(h);
		this.events.clear();
		this.held = false;
	}
	/** The real delay for `ms` simulated milliseconds. */
	real(ms: number): number {
		return Math.max(0, Math.round(ms * this.scale() * RACE_FACTOR));
	}

	/** From now on, events that come due wait (in order) until `step()` or `release()`. */
	hold(): HoldState {
		this.held = true;
		return this.state(0);
	}
	/**
	 * Runs every event scheduled at this moment, due or not, once, in the order they are due; the
	 * events they schedule in turn wait for the next step (or run on time when not held).
	 */
	step(): HoldState {
		const now = [...this.events].sort((a, b) => a[1].due - b[1].due).map(([h]) => h);
		let ran = 0;
		for (const h of now) {
			const e = this.events.get(h);
			if (!e) continue; // cancelled by an earlier event of this step
			clearTimeout(h);
			this.events.delete(h);
			e.fn();
			ran++;
		}
		return this.state(ran);
	}
	/** Stops holding: the events that came due while held run now, in the order they were due. */
	release(): HoldState {
		this.held = false;
		const due = [...this.events]
			.filter(([, e]) => e.waiting)
			.sort((a, b) => a[1].due - b[1].due)
			.map(([h]) => h);
		let ran = 0;
		for (const h of due) {
			const e = this.events.get(h);
			if (!e) continue;
			this.events.delete(h);
			e.fn();
			ran++;
		}
		return this.state(ran);
	}
	private state(ran: number): HoldState {
		return { held: this.held, ran, pending: this.events.size };
	}
}

/** What a hold / step / release did: `ran` events, `pending` still scheduled. */
export interface HoldState {
	held: boolean;
	ran: number;
	pending: number;
}
