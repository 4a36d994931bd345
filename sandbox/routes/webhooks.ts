/** Webhooks (doc 1; scope webhooks.manage and the Pro plan for all). Delivery lives in ../hooks.ts. */
import type { Ctx } from '../route';
import { json, validationError } from '../http';
import { EVENT_TYPES, EVENT_TYPES_WITH_ALL, newSecret, urlProblem } from '../hooks';
import { route } from '../route';
import { recBase, touch } from '../state';
import { oneOf, pageQuery, str, z } from '../validation';
import { paginate } from '../pagination';
import { deliveryView, webhookView } from '../views';

const events = z.array(oneOf(EVENT_TYPES_WITH_ALL));
const common = { scope: 'webhooks.manage', feature: 'webhooks' } as const;

/** Public https only (http://localhost in test mode); 422 on the `url` field otherwise. */
function checkUrl(ctx: Ctx, url: string | undefined): void {
	if (url === undefined) return;
	const problem = urlProblem(url, ctx.app.config.allowHttpWebhooks);
	if (problem) throw validationError([{ path: 'url', message: problem, code: 'invalid_url' }]);
}

export const webhookRoutes = [
	route({
		...common,
		method: 'GET',
		path: '/webhooks',
		query: z.object(pageQuery),
		handler: ({ ws, query }) =>
			json({ ...paginate(ws.webhooks.all(), query, webhookView), eventTypes: [...EVENT_TYPES] }),
	}),
	route({
		...common,
		method: 'POST',
		path: '/webhooks',
		body: z.object({ url: str(2000).url(), description: str(200).default(''), events }),
		handler: (ctx) => {
			const { ws, body } = ctx;
			checkUrl(ctx, body.url);
			const w = ws.webhooks.put({
				...recBase(),
				url: body.url,
				description: body.description,
				events: [...new Set(body.events)],
				status: 'active',
				secret: newSecret(),
				consecutive_failures: 0,
				disabled_reason: null,
			});
			return json({ ...webhookView(w), secret: w.secret }, 201);
		},
	}),
	route({
		...common,
		method: 'PATCH',
		path: '/webhooks/{id}',
		body: z.object({
			url: str(2000).url().optional(),
			description: str(200).optional(),
			events: events.optional(),
			status: oneOf(['active', 'disabled'] as const).optional(),
		}),
		handler: (ctx) => {
			const { ws, params, body } = ctx;
			const w = ws.webhooks.get(params.id);
			checkUrl(ctx, body.url);
			if (body.url !== undefined) w.url = body.url;
			if (body.description !== undefined) w.description = body.description;
			if (body.events !== undefined) w.events = [...new Set(body.events)];
			if (body.status !== undefined && body.status !== w.status) {
				w.status = body.status;
				w.disabled_reason = body.status === 'disabled' ? 'Disabled by request' : null;
				if (body.status === 'active') w.consecutive_failures = 0;
			}
			touch(w);
			return json(webhookView(w));
		},
	}),
	route({
		...common,
		method: 'DELETE',
		path: '/webhooks/{id}',
		handler: ({ app, ws, params }) => {
			const w = ws.webhooks.get(params.id);
			const ds = ws.deliveries.all().filter((d) => d.webhook_id === w.id);
			app.hooks.forget(ds.map((d) => d.id));
			for (const d of ds) ws.deliveries.delete(d.id);
			ws.webhooks.delete(w.id);
			return json({ id: w.id, deleted: true });
		},
	}),
	route({
		...common,
		method: 'POST',
		path: '/webhooks/{id}/rotate-secret',
		handler: ({ ws, params }) => {
			const w = ws.webhooks.get(params.id);
			w.secret = newSecret();
			touch(w);
			return json({ ...webhookView(w), secret: w.secret });
		},
	}),
	route({
		...common,
		method: 'POST',
		path: '/webhooks/{id}/test',
		handler: async ({ app, ws, params }) =>
			json(deliveryView(await app.hooks.test(ws, ws.webhooks.get(params.id)))),
	}),
	route({
		...common,
		method: 'GET',
		path: '/webhooks/{id}/deliveries',
		query: z.object(pageQuery),
		handler: ({ ws, params, query }) => {
			const w = ws.webhooks.get(params.id);
			return json(
				paginate(
					ws.deliveries.all().filter((d) => d.webhook_id === w.id),
					query,
					deliveryView,
				),
			);
		},
	}),
	route({
		...common,
		method: 'POST',
		path: '/webhooks/deliveries/{id}/retry',
		handler: async ({ app, ws, params }) =>
			json(deliveryView(await app.hooks.retry(ws, ws.deliveries.get(params.id)))),
	}),
];
