/**
 * What one n8n process shares per API key: the key's identity (its Base URL and a hash of the
 * key, never the key itself) and paces for work that many workflows on one key do at once (the
 * trigger's replays of missed events after an outage and its periodic checks, the credit
 * budget's long ledger reads): per pace, a bucket of `burst` turns, refilled at `perMinute`, for
 * every workflow of the process on that key together. Nothing is shared between processes.
 */
import { createHash } from 'node:crypto';

import type { MediaGenContext } from './context';
import { credentialOf } from './request';
import { pause } from './retry';

/** The credential's identity within this process: its Base URL and a hash of its key. */
export async function keyIdentity(ctx: MediaGenContext): Promise<string> {
	const { data } = await credentialOf(ctx);
	const hash = createHash('sha256')
		.update(String(data?.apiKey ?? ''))
		.digest('hex')
		.slice(0, 24);
	return `${String(data?.baseUrl ?? '')}|${hash}`;
}

interface Bucket {
	turns: number;
	/** When `turns` was last brought up to date (ms). */
	at: number;
}

/** One bucket per pace name and key, for the whole process. */
const buckets = new Map<string, Bucket>();

/** A pace: at most `burst` turns at once, then `perMinute` turns a minute. */
export interface Pace {
	name: string;
	burst: number;
	perMinute: number;
}

/**
 * Waits for a turn of `pace` on the context's key, shared by every workflow of this process that
 * uses the key: the first `burst` turns at once, then one every `60 s / perMinute`. Cancelled
 * with the execution (`signal`).
 */
export async function takeTurn(
	ctx: MediaGenContext,
	pace: Pace,
	signal?: AbortSignal,
): Promise<void> {
	const id = `${pace.name}|${await keyIdentity(ctx)}`;
	const gapMs = 60_000 / pace.perMinute;
	for (;;) {
		const now = Date.now();
		const bucket = buckets.get(id) ?? { turns: pace.burst, at: now };
		bucket.turns = Math.min(pace.burst, bucket.turns + (now - bucket.at) / gapMs);
		bucket.at = now;
		buckets.set(id, bucket);
		if (bucket.turns >= 1) {
			bucket.turns -= 1;
			return;
		}
		await pause(Math.ceil((1 - bucket.turns) * gapMs), signal);
	}
}
