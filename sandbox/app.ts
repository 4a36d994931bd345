/* eslint-disable no-console -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * The sandbox's services wired together: configuration, state, timers, faults, rate limit,
 * request log, file store, the generation engine and the webhook engine.
 */
import { Faults } from './faults';
import { FileStore } from './files';
import { Hooks, type HooksHost } from './hooks';
import { Jobs, type JobsHost } from './jobs';
import { RateLimiter } from './rateLimit';
import { RequestLog } from './requestLog';
import { State, type SandboxConfig } from './state';
import { Scheduler } from './timers';

export const DEFAULT_CONFIG: SandboxConfig = {
	rateLimitPerMinute: 120,
	rateLimitWindowMs: 60_000,
	timeScale: 1,
	defaultJobDurationMs: null,
	failureRate: 0,
	concurrentJobs: null,
	allowHttpWebhooks: false,
	maxStoredUploadBytes: 256 * 1024 * 1024,
	webhookTimeoutMs: 10_000,
};

export class App implements HooksHost, JobsHost {
	config: SandboxConfig;
	readonly state: State;
	readonly scheduler: Scheduler;
	readonly faults = new Faults();
	readonly rateLimiter: RateLimiter;
	readonly requestLog = new RequestLog();
	readonly files = new FileStore();
	readonly jobs: Jobs;
	readonly hooks: Hooks;
	/** `http://host:port`, set once listening. */
	origin = '';

	constructor(
		private readonly initial: SandboxConfig,
		readonly quiet: boolean,
	) {
		this.config = { ...initial };
		this.state = new State(() => this.config);
		this.scheduler = new Scheduler(() => this.config.timeScale);
		this.rateLimiter = new RateLimiter(
			() => this.config.rateLimitPerMinute,
			() => this.config.rateLimitWindowMs,
		);
		this.jobs = new Jobs(this);
		this.hooks = new Hooks(this);
	}

	get baseUrl(): string {
		return `${this.origin}/v1`;
	}

	/** Back to the state and configuration of start-up. */
	reset(): void {
		this.scheduler.clear();
		this.hooks.reset();
		this.jobs.reset();
		this.state.reset();
		this.faults.clear();
		this.faults.releaseDelays();
		this.rateLimiter.clear();
		this.requestLog.clear();
		this.files.clear();
		this.config = { ...this.initial };
	}

	close(): void {
		this.scheduler.clear();
		this.faults.releaseDelays();
		this.hooks.reset();
		this.files.close();
	}

	log(message: string): void {
		if (!this.quiet) console.log(message);
	}
}
