/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/** HTTP face of ../control.ts under /__sandbox/ (no auth). Documented in sandbox/README.md. */
import type { IncomingMessage } from 'node:http';
import type { App } from '../app';
import { keyTable, makeControl } from '../control';
import { ApiError, errorReply, json, readJsonBody, type Reply } from '../http';

export async function controlRoutes(
	app: App,
	req: IncomingMessage,
	method: string,
	path: string,
	url: URL,
): Promise<Reply> {
	const c = makeControl(app);
	try {
		const body = (method === 'GET' || method === 'DELETE' ? undefined : await readJsonBody(req)) as
			| Record<string, unknown>
			| undefined;
		const p = path.replace(/^\/__sandbox/, '').replace(/\/$/, '');
		const q = Object.fromEntries(url.searchParams);
		const credits = /^\/workspaces\/([^/]+)\/credits$/.exec(p);
		switch (`${method} ${credits ? '/workspaces/{ref}/credits' : p}`) {
			case 'POST /reset':
				c.reset();
				return json({ reset: true });
			case 'GET /config':
				return json(c.config());
			case 'PATCH /config':
			case 'POST /config':
				return json(c.setConfig(body ?? {}));
			case 'GET /keys':
				return json({ baseUrl: app.baseUrl, keys: keyTable() });
			case 'GET /workspaces/{ref}/credits':
				return json(c.credits(decodeURIComponent(credits![1])));
			case 'PUT /workspaces/{ref}/credits':
			case 'POST /workspaces/{ref}/credits':
				return json(c.setCredits(decodeURIComponent(credits![1]), body?.balance as number));
			case 'GET /faults':
				return json({ data: c.faults() });
			case 'POST /faults':
				return json(c.addFault((body ?? {}) as never), 201);
			case 'DELETE /faults':
				c.clearFaults();
				return json({ cleared: true });
			case 'GET /requests':
				return json({ data: c.requests({ method: q.method, path: q.path }) });
			case 'DELETE /requests':
				c.clearRequests();
				return json({ cleared: true });
			case 'GET /deliveries':
				return json({ data: c.deliveries() });
			case 'DELETE /deliveries':
				c.clearDeliveries();
				return json({ cleared: true });
			case 'GET /notifications':
				return json({ data: c.notifications() });
			case 'POST /jobs/hold':
				return json(c.holdJobs());
			case 'POST /jobs/step':
				return json(c.stepJobs());
			case 'POST /jobs/release':
				return json(c.releaseJobs());
			case 'POST /assets/large':
				return json(c.createLargeAsset((body ?? {}) as never), 201);
			default:
				throw new ApiError(404, 'not_found', `No control route ${method} ${path}`);
		}
	} catch (e) {
		if (e instanceof ApiError) return errorReply(e, 'req_control');
		return errorReply(new ApiError(422, 'validation_failed', (e as Error).message), 'req_control');
	}
}
