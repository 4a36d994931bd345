/**
 * Response shapes, one function per resource (documented in docs/api-assumptions.md).
 * Internal fields (blobs, sequence numbers, secrets) never leave through anything but these.
 */
import type {
	AssetRec,
	CollectionRec,
	DeliveryRec,
	GenerationRec,
	ProjectRec,
	WebhookRec,
	Workspace,
} from './state';

export const assetView = (a: AssetRec) => ({
	id: a.id,
	kind: a.kind,
	title: a.title,
	filename: a.filename,
	mimeType: a.mimeType,
	size: a.size,
	tags: a.tags,
	favorite: a.favorite,
	projectId: a.projectId,
	visibility: a.visibility,
	source: a.source,
	generationId: a.generationId,
	characterId: a.characterId,
	duplicatedFrom: a.duplicatedFrom,
	created_at: a.created_at,
	updated_at: a.updated_at,
});

export const collectionView = (c: CollectionRec) => ({
	id: c.id,
	name: c.name,
	assetIds: c.assetIds,
	assetCount: c.assetIds.length,
	created_at: c.created_at,
	updated_at: c.updated_at,
});

export const projectView = (ws: Workspace) => (p: ProjectRec) => ({
	id: p.id,
	name: p.name,
	description: p.description,
	cover_asset_id: p.cover_asset_id,
	status: p.status,
	assetCount: ws.assets.all().filter((a) => a.projectId === p.id).length,
	created_at: p.created_at,
	updated_at: p.updated_at,
});

/** The generation record as carried in webhook data (spec, Resources). */
export const generationEventData = (g: GenerationRec) => ({
	id: g.id,
	status: g.status,
	tool: g.tool,
	mode: g.mode,
	model_id: g.model_id,
	project_id: g.project_id,
	credits_charged: g.credits_charged,
	outputs: g.outputs,
	error: g.error,
});

export const generationView = (g: GenerationRec) => ({
	...generationEventData(g),
	batch_id: g.batch_id,
	title: g.title,
	prompt: g.prompt,
	negative_prompt: g.negative_prompt,
	params: g.params,
	inputs: g.inputs,
	context: g.context,
	rights_confirmed: g.rights_confirmed,
	idempotency_key: g.idempotency_key,
	credits_estimated: g.credits_estimated,
	credits_reserved: g.credits_reserved,
	attempts: g.attempts,
	created_at: g.created_at,
	updated_at: g.updated_at,
	started_at: g.started_at,
	completed_at: g.completed_at,
});

export const webhookView = (w: WebhookRec) => ({
	id: w.id,
	url: w.url,
	description: w.description,
	events: w.events,
	status: w.status,
	consecutive_failures: w.consecutive_failures,
	disabled_reason: w.disabled_reason,
	created_at: w.created_at,
	updated_at: w.updated_at,
});

export const deliveryView = (d: DeliveryRec) => {
	const last = d.attempts[d.attempts.length - 1];
	return {
		id: d.id,
		webhook_id: d.webhook_id,
		event_id: d.event_id,
		event_type: d.event_type,
		status: d.status,
		response_status: last?.response_status ?? null,
		attempt_count: d.attempts.length,
		attempts: d.attempts,
		next_attempt_at: d.next_attempt_at,
		created_at: d.created_at,
		updated_at: d.updated_at,
	};
};

export const creditsView = (ws: Workspace) => ({
	workspace_id: ws.id,
	balance: ws.balance,
	reserved: ws.reserved,
	plan: ws.plan,
});
