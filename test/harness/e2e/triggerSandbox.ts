/**
 * The sandbox as the trigger e2e suites drive it (outage, upgrade): its API with the pro key, the
 * trigger's endpoint (found by the webhook id in n8n's URL), its deliveries, and generations whose
 * generation.completed events MediaGen has logged.
 */
import type { Sandbox } from '../../../sandbox';
import { patientClient, until } from '../sandbox/helpers';
import { MIN } from './workflows';

type Json = Record<string, unknown>;

export function triggerSandbox(sb: () => Sandbox, webhookId: string, prompt: string) {
	/**
	 * The test's own requests share the key's 120 a minute with n8n (the trigger's recovery reads
	 * deliveries too): a 429 waits the Retry-After it names and asks again (patientClient).
	 */
	async function api<T = Json>(method: string, p: string, body?: unknown): Promise<T> {
		const res = await patientClient(sb(), sb().keys.pro)<T>(method, p, body);
		if (res.status >= 300)
			throw new Error(`${method} ${p}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
		return res.body;
	}
	/** The trigger's endpoint at the sandbox (at n8n's URL for the trigger). */
	async function endpoint(): Promise<Json | undefined> {
		const list = await api<{ data: Json[] }>('GET', '/webhooks?limit=100');
		return list.data.find((w) => String(w.url).includes(webhookId));
	}
	async function deliveries(id: string): Promise<Json[]> {
		return (await api<{ data: Json[] }>('GET', `/webhooks/${id}/deliveries?limit=100`)).data;
	}
	/** `count` generations; their generation.completed events' ids, once MediaGen logged them. */
	async function events(count: number, endpointId: string, known: Set<string>): Promise<string[]> {
		for (let i = 0; i < count; i++)
			await api('POST', '/generations', {
				modelId: 'flux-pro',
				tool: 'image',
				prompt: `${prompt} ${i}`,
			});
		const made = (await until(
			async () => {
				const fresh = (await deliveries(endpointId)).filter((d) => !known.has(String(d.id)));
				return fresh.length === count ? fresh : undefined;
			},
			2 * MIN,
			1000, // the sandbox allows 120 requests a minute with the key n8n uses too
		)) as Json[];
		for (const d of made) known.add(String(d.id));
		return made.map((d) => String(d.event_id));
	}
	return { api, endpoint, deliveries, events };
}
