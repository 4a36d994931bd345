/**
 * The user's other requests on an API key beside what a test or benchmark measures (the credit
 * budget's first read: test/engine/ledgerScale.test.ts, bench/ledgerRead.ts): `GET /credits`
 * every `everyMs`, on a fixed schedule (not after the previous answer), sent directly with the
 * key and never retried, as an HTTP Request node would; each answer's status kept.
 */
import { sleep } from 'n8n-workflow';

import type { Sandbox } from '../../../sandbox';

export interface KeyLoad {
	/** Every answer so far: when it was sent (ms) and its status (0: no answer). */
	answers: Array<{ at: number; status: number }>;
	/** The answers 429 so far. */
	refused(): number;
	/** Stops sending and waits for the answers still open. */
	stop(): Promise<void>;
}

export function keyLoad(sb: Sandbox, everyMs: number, key = sb.keys.pro): KeyLoad {
	const answers: KeyLoad['answers'] = [];
	const open = new Set<Promise<void>>();
	const send = () => {
		const at = Date.now();
		const answered = fetch(`${sb.baseUrl}/credits`, { headers: { authorization: `Bearer ${key}` } })
			.then(async (res) => {
				await res.arrayBuffer();
				answers.push({ at, status: res.status });
			})
			.catch(() => {
				answers.push({ at, status: 0 });
			});
		open.add(answered);
		void answered.finally(() => open.delete(answered));
	};
	let on = true;
	const schedule = (async () => {
		for (let next = Date.now(); on; next += everyMs) {
			send();
			await sleep(Math.max(0, next + everyMs - Date.now()));
		}
	})();
	return {
		answers,
		refused: () => answers.filter((a) => a.status === 429).length,
		async stop() {
			on = false;
			await schedule;
			await Promise.all([...open]);
		},
	};
}

/** The most of `times` (ms, any order) within any `windowMs` (a rolling minute: 60,000). */
export function mostWithin(times: number[], windowMs: number): number {
	const sorted = [...times].sort((a, b) => a - b);
	let most = 0;
	let from = 0;
	for (let to = 0; to < sorted.length; to++) {
		while (sorted[to] - sorted[from] >= windowMs) from++;
		most = Math.max(most, to - from + 1);
	}
	return most;
}

/** The credit budget's requests in the sandbox's log: ledger pages and the active list. */
export const budgetRequests = (sb: Sandbox) =>
	sb.control
		.requests({ method: 'GET' })
		.filter(
			(r) =>
				/\/credits\/ledger$/.test(r.path) ||
				(/\/generations$/.test(r.path) && r.query.status === 'active'),
		);
