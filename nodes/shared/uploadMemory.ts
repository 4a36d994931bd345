/**
 * What an upload keeps in the node context (`getContext('node')`), which n8n keeps for Retry On
 * Fail and saves with the execution for its Retry: per run position and item, the upload whose complete
 * was sent (with its parts) and, once answered, its asset. A re-run of that item asks MediaGen for
 * that upload's asset instead of uploading again. The reasons: docs/files.md, Upload.
 */
import { createHash } from 'node:crypto';

import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

/** One item's upload as remembered. */
export interface RememberedUpload {
	/** What the upload was for (see uploadKey): another file or body is another upload. */
	key: string;
	uploadId: string;
	/** The parts the complete listed (kept until its answer is known). */
	parts?: Array<{ partNumber: number; etag: string }>;
	/** The asset the complete answered. */
	assetId?: string;
}

/** Per run position (n8n's run index less the runs its crash recovery added), then per item. */
type Uploads = Record<string, Record<string, RememberedUpload>>;

const KEY = 'mediaGenUploads';

/** What an upload is for: its POST /uploads body and the stored file it reads, if any. */
export function uploadKey(startBody: IDataObject, binaryId: string | undefined): string {
	const material = JSON.stringify({ body: startBody, file: binaryId ?? null });
	return createHash('sha256').update(material).digest('hex').slice(0, 32);
}

export interface UploadMemory {
	/** The upload an earlier try of this run made for the item, if it was for the same thing. */
	remembered(): RememberedUpload | undefined;
	/** Notes an upload whose complete is about to be sent. */
	completing(uploadId: string, parts: Array<{ partNumber: number; etag: string }>): void;
	/** Notes the asset the complete answered. */
	completed(uploadId: string, assetId: string): void;
	/** Forgets the item's upload (it made no asset: a re-run starts a new one). */
	forget(): void;
}

/** The memory of one item's upload in one run position of the node. */
export function uploadMemory(
	ctx: IExecuteFunctions,
	position: number,
	itemIndex: number,
	key: string,
): UploadMemory {
	const context = ctx.getContext('node');
	const all = (context[KEY] ??= {}) as Uploads;
	const run = String(position);
	const item = String(itemIndex);
	const set = (entry: RememberedUpload) => {
		all[run] ??= {};
		all[run][item] = entry;
	};
	return {
		remembered: () => {
			const entry = all[run]?.[item];
			return entry?.key === key ? entry : undefined;
		},
		completing: (uploadId, parts) => set({ key, uploadId, parts }),
		completed: (uploadId, assetId) => set({ key, uploadId, assetId }),
		forget: () => {
			if (all[run]) delete all[run][item];
		},
	};
}
