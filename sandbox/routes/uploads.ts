/**
 * Uploads (doc 1): POST /uploads answers signed part URLs (see ./files.ts); complete checks every
 * part's number, ETag and the size sum, then creates the asset.
 */
import { ApiError, json, validationError, type Issue } from '../http';
import { createAsset, kindFromMime } from '../library';
import { route } from '../route';
import { now, recBase } from '../state';
import { int, str, uuid, z } from '../validation';
import { assetView } from '../views';
import { partUrl, UPLOAD_TTL_SECONDS } from './files';

export const MIN_PART_SIZE = 8 * 1024 * 1024;
export const MAX_PARTS = 10_000;

/** 8 MiB, or more (whole MiB) when 10,000 parts of 8 MiB would not hold the file. */
export const partSizeFor = (size: number): number =>
	Math.max(MIN_PART_SIZE, Math.ceil(size / MAX_PARTS / 1048576) * 1048576);

export const uploadRoutes = [
	route({
		method: 'POST',
		path: '/uploads',
		scope: 'content.create',
		body: z.object({
			filename: str(255),
			mimeType: str(100),
			size: int(0, 9007199254740991),
			projectId: uuid().optional(),
			title: str(200).optional(),
			tags: z.array(z.string()).optional(),
		}),
		handler: ({ app, ws, body }) => {
			if (body.projectId) ws.projects.get(body.projectId);
			const partSize = partSizeFor(body.size);
			const partCount = Math.max(1, Math.ceil(body.size / partSize));
			const base = recBase();
			const up = ws.uploads.put({
				...base,
				status: 'pending',
				filename: body.filename,
				mimeType: body.mimeType,
				size: body.size,
				projectId: body.projectId ?? null,
				title: body.title ?? null,
				tags: body.tags ?? [],
				partSize,
				partCount,
				expiresAt: new Date(Date.now() + UPLOAD_TTL_SECONDS * 1000).toISOString(),
				storeBytes: body.size <= app.config.maxStoredUploadBytes,
				parts: new Map(),
				assetId: null,
			});
			const parts = Array.from({ length: partCount }, (_, i) => ({
				partNumber: i + 1,
				url: partUrl(app, ws, up.id, i + 1).url,
			}));
			return json(
				{
					id: up.id,
					partSize,
					parts,
					expiresAt: up.expiresAt,
					kind: kindFromMime(up.mimeType, up.filename),
				},
				201,
			);
		},
	}),
	route({
		method: 'POST',
		path: '/uploads/{id}/complete',
		scope: 'content.create',
		body: z.object({ parts: z.array(z.object({ partNumber: int(1, 10000), etag: str(200) })) }),
		handler: ({ ws, params, body }) => {
			const up = ws.uploads.get(params.id);
			if (up.status === 'completed') return json(assetView(ws.assets.get(up.assetId!)));
			if (Date.parse(up.expiresAt) < Date.now())
				throw new ApiError(409, 'conflict', `Upload ${up.id} has expired`);
			const issues: Issue[] = [];
			const listed = new Set<number>();
			const unquote = (e: string) => e.replace(/^W\//, '').replace(/^"|"$/g, '');
			body.parts.forEach((p, i) => {
				const stored = up.parts.get(p.partNumber);
				if (p.partNumber > up.partCount)
					issues.push({
						path: `parts.${i}.partNumber`,
						message: `Upload has ${up.partCount} part(s)`,
						code: 'too_big',
					});
				else if (listed.has(p.partNumber))
					issues.push({
						path: `parts.${i}.partNumber`,
						message: `Part ${p.partNumber} listed twice`,
						code: 'custom',
					});
				else if (!stored)
					issues.push({
						path: `parts.${i}.partNumber`,
						message: `Part ${p.partNumber} was not uploaded`,
						code: 'custom',
					});
				else if (unquote(stored.etag) !== unquote(p.etag))
					issues.push({
						path: `parts.${i}.etag`,
						message: `ETag does not match part ${p.partNumber}`,
						code: 'custom',
					});
				listed.add(p.partNumber);
			});
			for (let n = 1; n <= up.partCount; n++)
				if (!listed.has(n))
					issues.push({
						path: 'parts',
						message: `Part ${n} is missing from the list`,
						code: 'custom',
					});
			const total = [...up.parts.values()].reduce((s, p) => s + p.size, 0);
			if (!issues.length && total !== up.size)
				issues.push({
					path: 'parts',
					message: `Parts hold ${total} bytes; the upload declared ${up.size}`,
					code: 'custom',
				});
			if (issues.length) throw validationError(issues);
			const ordered = [...up.parts.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
			const asset = createAsset(ws, {
				filename: up.filename,
				mimeType: up.mimeType,
				size: up.size,
				blob: up.storeBytes
					? { type: 'files', paths: ordered.map((p) => p.path!), size: up.size }
					: { type: 'hashOnly', size: up.size, partSha256: ordered.map((p) => p.sha256) },
				source: 'upload',
				title: up.title,
				tags: up.tags,
				projectId: up.projectId,
			});
			up.status = 'completed';
			up.assetId = asset.id;
			up.updated_at = now();
			return json(assetView(asset), 201);
		},
	}),
];
