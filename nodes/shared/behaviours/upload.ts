/** Asset → Upload: a binary property's file sent in parts to signed URLs, then completed. */
import { binaryFileInfo } from '../files/file';
import { uploadBinary } from '../files/upload';
import type { Behaviour } from './behaviour';
import { binaryProperty, binaryPropertyOf, outputs, requestPlan } from './behaviour';

export const upload: Behaviour = {
	properties: () => ({
		afterOptional: [
			binaryProperty(
				'Input Binary Field',
				'Name of the binary property holding the file to upload',
			),
		],
	}),
	async prepare(ctx, endpoint, itemIndex) {
		// the file is checked here, before any item sends anything (binaryFileInfo)
		const propertyName = binaryPropertyOf(ctx, itemIndex);
		const file = await binaryFileInfo(ctx, itemIndex, propertyName);
		const plan = requestPlan(ctx, endpoint, itemIndex, {
			filename: file.fileName,
			mimeType: file.mimeType,
			size: file.size,
		});
		return { ...plan, upload: { propertyName, file } };
	},
	async send(ctx, { request, itemIndex, upload: subject }, run) {
		const propertyName = subject?.propertyName ?? binaryPropertyOf(ctx, itemIndex);
		const file = subject?.file ?? (await binaryFileInfo(ctx, itemIndex, propertyName));
		const asset = await uploadBinary(
			ctx,
			{ itemIndex, propertyName, file },
			request.body ?? {},
			(key) => run.memory.upload(itemIndex, key),
		);
		return outputs([asset], itemIndex);
	},
};
