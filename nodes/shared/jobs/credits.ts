/** A job's credits guard: its estimate (free) and Max Credits, checked before it starts. */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { mediaGenRequest } from '../transport/request';

/** POSTs an estimate and returns its credit cost. */
export async function estimateCredits(
	ctx: IExecuteFunctions,
	estimatePath: string,
	body: unknown,
	itemIndex: number,
): Promise<number> {
	const estimate = await mediaGenRequest<IDataObject>(ctx, {
		method: 'POST',
		path: estimatePath,
		body: body ?? {},
		itemIndex,
	});
	const credits = Number(estimate?.credits);
	if (!Number.isFinite(credits)) {
		throw new NodeOperationError(ctx.getNode(), 'The estimate did not return a credit cost', {
			itemIndex,
			description: 'Nothing was started or charged.',
		});
	}
	return credits;
}

/** Refuses, before anything is created, a job whose estimate is above Max Credits. */
export function checkMaxCredits(
	ctx: IExecuteFunctions,
	credits: number,
	maxCredits: number,
	itemIndex: number,
): void {
	if (credits > maxCredits) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Estimated cost is ${credits} credits, above Max Credits (${maxCredits})`,
			{ itemIndex, description: 'Nothing was started or charged. Raise Max Credits to allow it.' },
		);
	}
}
