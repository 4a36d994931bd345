/** Asset → Upload: a binary property's file sent in parts to signed URLs, then completed. */
import { binaryFileInfo, uploadBinary } from '../binaryUpload';
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
		const propertyName = binaryPropertyOf(ctx, itemIndex);
		const file = await binaryFileInfo(ctx, itemIndex, propertyName);
		const plan = requestPlan(ctx, endpoint, itemIndex, {
			filename: file.fileName,
			mimeType: file.mimeType,
			size: file.size,
		});
		return { ...plan, upload: { propertyName } };
	},
	async send(ctx, { request, itemIndex, upload: file }) {
		const propertyName = file?.propertyName ?? binaryPropertyOf(ctx, itemIndex);
		return outputs(
			[await uploadBinary(ctx, itemIndex, propertyName, request.body ?? {})],
			itemIndex,
		);
	},
};
