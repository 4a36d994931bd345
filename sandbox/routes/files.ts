/**
 * Signed file URLs served by the sandbox itself (no bearer key; HMAC signature in the query):
 *   PUT  /files/uploads/{workspaceId}/{uploadId}/{partNumber}   upload one part, answers ETag
 *   GET  /files/assets/{workspaceId}/{assetId}                  download (HEAD too)
 */
import type { App } from '../app';
import { ApiError, conflict, notFound } from '../http';
import type { FileRouteDef } from '../route';
import type { AssetRec, Workspace } from '../state';

/** Download links live 15 minutes; upload part URLs 1 hour. */
export const DOWNLOAD_TTL_SECONDS = 15 * 60;
export const UPLOAD_TTL_SECONDS = 60 * 60;

export function downloadLink(app: App, ws: Workspace, a: AssetRec) {
	const { url, expiresAt } = app.files.sign(
		app.origin,
		`/files/assets/${ws.id}/${a.id}`,
		DOWNLOAD_TTL_SECONDS,
	);
	return { url, expiresAt, filename: a.filename, mimeType: a.mimeType, size: a.size };
}

export const partUrl = (app: App, ws: Workspace, uploadId: string, partNumber: number) =>
	app.files.sign(
		app.origin,
		`/files/uploads/${ws.id}/${uploadId}/${partNumber}`,
		UPLOAD_TTL_SECONDS,
	);

const workspaceOf = (app: App, id: string): Workspace => {
	const ws = app.state.workspaces.get(id);
	if (!ws) throw notFound('Workspace', id);
	return ws;
};

/** RFC 6266 attachment header with an ASCII fallback and the UTF-8 name. */
const disposition = (filename: string) =>
	`attachment; filename="${filename.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(filename)}`;

export const fileRoutes: FileRouteDef[] = [
	{
		method: 'PUT',
		path: '/files/uploads/{workspaceId}/{uploadId}/{partNumber}',
		handler: async ({ app, params, req }) => {
			const ws = workspaceOf(app, params.workspaceId);
			const up = ws.uploads.get(params.uploadId);
			const n = Number(params.partNumber);
			if (up.status !== 'pending') throw conflict(`Upload ${up.id} is already completed`);
			if (Date.parse(up.expiresAt) < Date.now())
				throw new ApiError(403, 'url_expired', 'The upload has expired');
			if (!Number.isInteger(n) || n < 1 || n > up.partCount)
				throw new ApiError(404, 'not_found', `Upload ${up.id} has no part ${params.partNumber}`);
			const received = await app.files.receive(req, up.storeBytes, up.partSize);
			const previous = up.parts.get(n);
			if (previous?.path) app.files.remove([previous.path]);
			const etag = `"${received.md5}"`;
			up.parts.set(n, { etag, size: received.size, path: received.path, sha256: received.sha256 });
			return { status: 200, headers: { etag, 'access-control-expose-headers': 'ETag' }, text: '' };
		},
	},
	{
		method: 'GET',
		path: '/files/assets/{workspaceId}/{assetId}',
		handler: ({ app, params }) => {
			const a = workspaceOf(app, params.workspaceId).assets.get(params.assetId);
			return {
				status: 200,
				headers: {
					'content-type': a.mimeType,
					'content-length': a.size,
					'content-disposition': disposition(a.filename),
					'cache-control': 'private, max-age=0',
				},
				stream: app.files.open(a.blob),
			};
		},
	},
];
