/** The default Idempotency-Key of a create: derived from the run's identity (identity.ts). */
import { createHash } from 'node:crypto';

/**
 * The default Idempotency-Key: the same in every try of one item of one run position of one node
 * (n8n's Retry On Fail, its Retry: the run's token and position are the same), different for a
 * new run, another node, another run of the node, another item.
 */
export function defaultIdempotencyKey(parts: {
	/** The run's token (identity.ts). */
	token: string;
	nodeId: string;
	/** The run's position: n8n's run index less the runs its crash recovery added. */
	position: number;
	itemIndex: number;
}): string {
	const material = `${parts.token}|${parts.nodeId}|${parts.position}|${parts.itemIndex}`;
	return `n8n-${createHash('sha256').update(material).digest('hex').slice(0, 48)}`;
}
