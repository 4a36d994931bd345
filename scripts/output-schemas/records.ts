/**
 * What every endpoint answers, written once: the record shapes of docs/api-assumptions.md and the
 * spec, in the language of ./schema.ts, and `RESPONSES`, keyed by the endpoint's spec line
 * ("METHOD /path", as in the catalog). The generator (scripts/output-schemas.ts) turns these
 * answers into each operation's output item by the node's behaviour (list → one item per record,
 * jobs → the finished job's record, files, notices, Output: Simplified). Nothing here is read by
 * the nodes at runtime.
 *
 * A new operation: add its spec line here with what it answers (a job that waits needs the record
 * of its poll path, `GET <poll>`, to be here too). The unit test names any line that is missing.
 */
import type { JsonSchema } from './schema';
import {
	alwaysNull,
	boolean,
	extend,
	free,
	integer,
	list,
	nullable,
	number,
	obj,
	omit,
	page,
	string,
} from './schema';

const id = { id: string };
const times = { created_at: string, updated_at: string };
const error = nullable(obj({ code: string, message: string }));
/** A file a job made: `outputs` of generations, runs and exports. */
const output = obj({ asset_id: string, kind: string });

/** `{ id, deleted: true }` (docs/api-assumptions.md, Deletes). */
export const deleted = obj({ ...id, deleted: boolean });
/** Every estimate endpoint: `{ credits, breakdown }`. */
export const estimate = obj({
	credits: integer,
	breakdown: list(obj({ item: string, credits: integer })),
});

// ---------------------------------------------------------------------------------------------
// Doc 1: workspace, assets, collections, projects, credits, generations, webhooks, analytics

export const workspace = obj({
	...id,
	name: string,
	plan: string,
	features: list(string),
	scopes: list(string),
	credits: obj({ balance: integer, reserved: integer }),
	created_at: string,
});

export const asset = obj({
	...id,
	kind: string,
	title: string,
	filename: string,
	mimeType: string,
	size: integer,
	tags: list(string),
	favorite: boolean,
	projectId: nullable(string),
	visibility: string,
	source: string,
	generationId: nullable(string),
	characterId: nullable(string),
	duplicatedFrom: nullable(string),
	...times,
});

const upload = obj({
	...id,
	partSize: integer,
	parts: list(obj({ partNumber: integer, url: string })),
	expiresAt: string,
	kind: string,
});

/** GET /assets/{id}/download: a short-lived signed URL and what it serves. */
export const downloadLink = obj(
	{ url: string, filename: string, mimeType: string, size: integer },
	{ expiresAt: string },
);

const assetVersion = obj({
	...id,
	type: string,
	name: string,
	mimeType: string,
	size: integer,
	created_at: string,
});

const collection = obj({
	...id,
	name: string,
	assetIds: list(string),
	assetCount: integer,
	...times,
});

const project = obj({
	...id,
	name: string,
	description: nullable(string),
	cover_asset_id: nullable(string),
	status: string,
	assetCount: integer,
	...times,
});

const credits = obj({ workspace_id: string, balance: integer, reserved: integer, plan: string });

const ledgerEntry = obj({
	id: integer,
	type: string,
	amount: integer,
	balance_after: integer,
	generation_id: nullable(string),
	description: string,
	created_at: string,
});

/** The generation record as carried in webhook data (spec doc 1, Resources). */
export const generationEvent = {
	...id,
	status: string,
	tool: string,
	mode: nullable(string),
	model_id: string,
	project_id: nullable(string),
	credits_charged: integer,
	outputs: list(output),
	error,
};

/** Where in n8n a job was started: `context.n8n`, added by Generation → Create (docs/batches.md). */
const provenance = obj(
	{
		workflowId: string,
		nodeId: string,
		node: string,
		executionId: string,
		run: string,
		runIndex: integer,
		itemIndex: integer,
	},
	// the item's request (a fingerprint and its rank among equal ones: durable/identity.ts)
	{ request: string },
);

/**
 * The generation record: every job of docs 2 and 3 is one too. `context` is the caller's object
 * (plus what the service adds per tool, and the node's provenance under `n8n`).
 */
export const generation = obj({
	...generationEvent,
	batch_id: nullable(string),
	title: nullable(string),
	prompt: nullable(string),
	negative_prompt: nullable(string),
	params: free,
	inputs: list(obj({ slot: string, assetIds: list(string) })),
	context: obj({}, { n8n: provenance }, true),
	rights_confirmed: nullable(boolean),
	idempotency_key: nullable(string),
	credits_estimated: integer,
	credits_reserved: integer,
	attempts: integer,
	...times,
	started_at: nullable(string),
	completed_at: nullable(string),
});

/** Endpoints that start several jobs: one batch. */
const batch = obj({ batchId: string, data: list(generation), nextCursor: alwaysNull });

const voice = obj({
	voice_id: string,
	name: string,
	category: string,
	labels: obj({ gender: string, accent: string, age: string }),
	preview_url: string,
});

const webhook = obj({
	...id,
	url: string,
	description: string,
	events: list(string),
	status: string,
	consecutive_failures: integer,
	disabled_reason: nullable(string),
	...times,
});
/** The answers that carry the signing secret, shown once. */
const webhookWithSecret = extend(webhook, { secret: string });

const delivery = obj({
	...id,
	webhook_id: string,
	event_id: string,
	event_type: string,
	status: string,
	response_status: nullable(integer),
	attempt_count: integer,
	attempts: list(
		obj({
			attempt: integer,
			at: string,
			response_status: nullable(integer),
			error: nullable(string),
			duration_ms: integer,
		}),
	),
	next_attempt_at: nullable(string),
	...times,
});

const period = obj({ days: integer, from: string, to: string });
const performance = {
	posts: integer,
	views: integer,
	likes: integer,
	comments: integer,
	shares: integer,
	engagementRate: number,
};

const overview = obj({
	period,
	channel: nullable(string),
	assets: obj({ total: integer, byKind: free }),
	generations: obj({
		total: integer,
		completed: integer,
		failed: integer,
		creditsCharged: integer,
	}),
	posts: obj({ total: integer }),
	engagement: obj({
		views: integer,
		likes: integer,
		comments: integer,
		shares: integer,
		rate: number,
	}),
	ads: obj({ impressions: integer, clicks: integer, ctr: number, spend: number }),
	dataFreshness: obj({ updated_at: string, lagMinutes: integer }),
});

const comparison = obj({
	period,
	channel: nullable(string),
	dimension: string,
	rows: list(obj({ value: string, ...performance })),
});

const creativeReport = obj({
	...id,
	asset: obj({ ...id, kind: string, title: string }),
	origin: obj({
		source: string,
		generation_id: nullable(string),
		tool: nullable(string),
		model_id: nullable(string),
		prompt: nullable(string),
	}),
	editedVariants: list(obj({ asset_id: string, kind: string, title: string, created_at: string })),
	destinations: list(obj({ channel: string, posted_at: string, ...performance })),
	results: obj({ views: integer, likes: integer, posts: integer, engagementRate: number }),
});

// ---------------------------------------------------------------------------------------------
// Doc 2: characters, presets, series; brand kits, products, ad projects, marketing

const characterBase = obj({
	...id,
	name: string,
	type: string,
	attributes: free,
	customPrompt: string,
	negativePrompt: string,
	baseModelId: nullable(string),
	seed: nullable(integer),
	voice: obj({}, { modelId: string, voice: string, language: string, description: string }),
	personality: obj({}, { traits: list(string), bio: string, niche: string }),
	stylePublic: boolean,
	presetId: nullable(string),
	description: nullable(string),
	category: nullable(string),
	studioDraft: boolean,
	favorite: boolean,
	coverAssetId: nullable(string),
	identityPrompt: string,
	referenceCount: integer,
	duplicatedFrom: nullable(string),
	...times,
});
/** Every answer about one character: with its references and the projects of its jobs. */
const character = extend(characterBase, {
	references: list(
		obj({
			assetId: string,
			kind: string,
			label: nullable(string),
			primary: boolean,
			rightsConfirmed: boolean,
			generationId: nullable(string),
			added_at: string,
			asset: obj({ ...id, kind: string, title: string }),
		}),
	),
	projects: list(obj({ ...id, name: string, status: string })),
});

const preset = obj({
	...id,
	name: string,
	type: string,
	attributes: free,
	starter: boolean,
	...times,
});

const seriesItem = obj({
	...id,
	seriesId: string,
	characterId: string,
	number: integer,
	title: string,
	format: string,
	hook: string,
	scene: string,
	script: string,
	caption: string,
	hashtags: list(string),
	status: string,
	generationId: nullable(string),
	assetIds: list(string),
	...times,
});

const series = obj({
	...id,
	characterId: string,
	title: string,
	theme: string,
	audience: string,
	language: string,
	personality: string,
	tone: string,
	categories: list(string),
	videoSeconds: integer,
	destinations: list(string),
	itemCount: integer,
	items: list(seriesItem),
	...times,
});

const characterEstimate = extend(estimate, {
	conditioning: obj({
		identityPrompt: string,
		negativePrompt: string,
		referenceAssetIds: list(string),
		seed: nullable(integer),
		modelId: string,
		tool: string,
		purpose: string,
	}),
});

const brandKit = obj({
	...id,
	name: string,
	website: string,
	tone: string,
	guidelines: string,
	colors: list(obj({ name: string, hex: string })),
	fonts: list(obj({ name: string, role: string })),
	assets: list(obj({ assetId: string, role: string })),
	...times,
});

const productFields = {
	name: string,
	description: string,
	category: string,
	features: list(string),
	benefits: list(string),
	price: string,
	currency: string,
	url: string,
};
/** Import and describe: a draft product, not stored; `import` says where it came from. */
const productDraft = obj({
	...productFields,
	imageAssetIds: list(string),
	source: string,
	import: free,
});
const product = obj({
	...id,
	...productFields,
	brandKitId: nullable(string),
	imageAssetIds: list(string),
	source: string,
	import: nullable(free),
	...times,
});

const copyItem = obj({
	...id,
	adProjectId: string,
	kind: string,
	content: string,
	language: string,
	selected: boolean,
	data: free,
	origin: string,
	...times,
});

/** List entries of ad projects; single answers add their copy. */
const adProjectSummary = obj({
	...id,
	name: string,
	entry: string,
	productId: nullable(string),
	brandKitId: nullable(string),
	format: string,
	sourceAssetId: nullable(string),
	step: integer,
	audience: free,
	strategy: free,
	presenter: obj({ characterIds: list(string) }),
	visual: free,
	settings: free,
	copyCount: integer,
	variantCount: integer,
	...times,
});
const adProject = extend(adProjectSummary, { copy: list(copyItem) });

const combination = {
	language: nullable(string),
	hook: nullable(string),
	script: nullable(string),
	cta: nullable(string),
	presenter: nullable(string),
	style: nullable(string),
	aspect: nullable(string),
	duration: nullable(integer),
};
const matrixPreview = obj({
	combinations: list(obj({ ...combination, credits: integer })),
	count: integer,
	credits: integer,
});

const variant = obj({
	...id,
	adProjectId: string,
	batchId: string,
	generationId: string,
	dimensions: obj(combination),
	status: string,
	result: nullable(obj({ assetId: string, kind: string })),
	error,
	credits_charged: integer,
	winner: boolean,
	...times,
});

// ---------------------------------------------------------------------------------------------
// Doc 3: editor, effects, audio mixes, cinema, canvas, 3D, agent

const exportFields = {
	...id,
	status: string,
	kind: string,
	sourceId: string,
	assetId: nullable(string),
	outputs: list(output),
	error,
};
/** An edit's render: its settings come with it. */
const renderExport = obj({
	...exportFields,
	preset: string,
	still: boolean,
	options: free,
	created_at: string,
	completed_at: nullable(string),
});
/** An audio mix's export: with its format. */
const audioExport = obj({
	...exportFields,
	format: string,
	created_at: string,
	completed_at: nullable(string),
});

const edit = obj({
	...id,
	name: string,
	label: nullable(string),
	preset: nullable(string),
	sourceAssetId: string,
	projectId: nullable(string),
	parentId: nullable(string),
	version: integer,
	duration: number,
	timeline: free,
	thumbnailAssetId: nullable(string),
	assets: list(asset),
	exports: list(renderExport),
	aiTasks: list(
		obj({
			...id,
			type: string,
			status: string,
			credits: integer,
			result: free,
			created_at: string,
		}),
	),
	...times,
});

const smartCrop = obj({
	editId: string,
	preset: string,
	aspectRatio: string,
	crops: list(obj({ clipId: string, x: number, y: number, width: number, height: number })),
});

const span = { start: number, end: number };
const analysis = obj({
	...id,
	editId: string,
	version: integer,
	metadata: obj({
		duration: number,
		width: integer,
		height: integer,
		fps: number,
		hasAudio: boolean,
	}),
	silences: list(obj(span)),
	scenes: list(obj({ ...span, score: number })),
	waveform: list(number),
	frames: list(obj({ time: number })),
	transcript: nullable(obj({ language: string, cues: list(free) })),
	credits: integer,
	created_at: string,
});

const aiMessage = obj({
	...id,
	role: string,
	content: string,
	baseVersion: nullable(integer),
	version: nullable(integer),
	credits: integer,
	created_at: string,
});

const editVersion = obj({
	version: integer,
	name: string,
	label: nullable(string),
	preset: nullable(string),
	reason: string,
	current: boolean,
	created_at: string,
});

const effectCollection = obj({
	...id,
	name: string,
	items: list(obj({ effectId: string, on: boolean })),
	itemCount: integer,
	...times,
});

const audioMix = obj({
	...id,
	name: string,
	version: integer,
	tracks: list(
		obj({
			...id,
			assetId: string,
			start: number,
			in: number,
			out: number,
			volume: number,
			fadeIn: number,
			fadeOut: number,
			muted: boolean,
		}),
	),
	duration: number,
	exports: list(audioExport),
	...times,
});

const shot = obj({
	...id,
	sceneId: string,
	projectId: string,
	position: integer,
	title: string,
	action: string,
	dialogue: string,
	camera: free,
	lighting: nullable(string),
	duration: integer,
	characters: list(string),
	props: list(string),
	promptOverride: nullable(string),
	videoModelId: nullable(string),
	frameAssetId: nullable(string),
	frameGenerationId: nullable(string),
	frameStatus: nullable(string),
	videoAssetId: nullable(string),
	videoGenerationId: nullable(string),
	videoStatus: nullable(string),
	...times,
});

const scene = obj({
	...id,
	projectId: string,
	position: integer,
	title: string,
	locationId: nullable(string),
	description: string,
	mood: string,
	lighting: string,
	characters: list(string),
	props: list(string),
	shots: list(shot),
	...times,
});

const proposal = obj({
	...id,
	brief: string,
	status: string,
	storyboardModelId: string,
	videoModelId: string,
	totalSeconds: integer,
	scenes: list(free),
	created_at: string,
});

const cinemaFields = {
	...id,
	name: string,
	logline: string,
	style: string,
	aspectRatio: string,
	storyboardModelId: nullable(string),
	videoModelId: nullable(string),
};
const counts = { sceneCount: integer, shotCount: integer, totalSeconds: integer };
const cinemaSummary = obj({ ...cinemaFields, ...counts, hasProposal: boolean, ...times });
const cinemaMetadata = obj({
	...cinemaFields,
	continuity: free,
	...counts,
	scenes: list(scene),
	...times,
	exported_at: string,
});
const cinemaProject = extend(omit(cinemaMetadata, 'exported_at'), {
	proposal: nullable(proposal),
});

const template = obj({
	...id,
	name: string,
	description: string,
	category: string,
	nodeCount: integer,
	graph: free,
});

const canvasWorkflow = obj({
	...id,
	name: string,
	description: string,
	templateId: nullable(string),
	projectId: nullable(string),
	visibility: string,
	version: integer,
	graph: free,
	validation: obj({
		valid: boolean,
		issues: list(obj({ path: string, message: string, code: string })),
	}),
	shared: boolean,
	shareToken: nullable(string),
	importedFrom: nullable(string),
	duplicatedFrom: nullable(string),
	...times,
});

const canvasEstimate = extend(estimate, {
	nodes: list(obj({ nodeId: string, type: string, credits: integer })),
});

const canvasRun = obj({
	...id,
	workflowId: string,
	workflowVersion: integer,
	status: string,
	nodes: list(
		obj({
			nodeId: string,
			type: string,
			status: string,
			generationId: nullable(string),
			credits: integer,
			credits_estimated: integer,
			outputs: list(output),
			error,
		}),
	),
	outputs: list(output),
	credits_estimated: integer,
	credits_charged: integer,
	expectedCredits: nullable(integer),
	error,
	attempts: integer,
	...times,
	started_at: nullable(string),
	completed_at: nullable(string),
});

const scene3dSummary = obj({
	...id,
	name: string,
	projectId: nullable(string),
	version: integer,
	objectCount: integer,
	renderCount: integer,
	...times,
});
const render = obj({ ...id, assetId: string, kind: string, created_at: string });
const scene3d = obj({
	...id,
	name: string,
	projectId: nullable(string),
	version: integer,
	scene: free,
	renders: list(render),
	files: list(asset),
	...times,
});

const agentStatus = obj({
	configured: boolean,
	model: string,
	tools: list(obj({ name: string, paid: boolean, description: string, credits: integer })),
});

const toolCall = obj({ tool: string, input: free, output: free });
const agentMessage = obj({
	...id,
	role: string,
	text: string,
	toolCalls: list(toolCall),
	actionIds: list(string),
	created_at: string,
});
const agentAction = obj({
	...id,
	sessionId: string,
	messageId: string,
	tool: string,
	status: string,
	input: free,
	credits: integer,
	...times,
	rejected_at: nullable(string),
});
const sessionSummary = obj({
	...id,
	title: string,
	status: string,
	messageCount: integer,
	...times,
	archived_at: nullable(string),
});
const session = extend(sessionSummary, {
	messages: list(agentMessage),
	actions: list(agentAction),
});

// ---------------------------------------------------------------------------------------------
// The answer of every endpoint, by spec line

export const RESPONSES: Record<string, JsonSchema> = {
	// MediaGen (doc 1)
	'GET /analytics/overview': overview,
	'GET /analytics/compare': comparison,
	'GET /analytics/creatives/{id}': creativeReport,
	'GET /assets': page(asset),
	'GET /assets/{id}': asset,
	'PATCH /assets/{id}': asset,
	'POST /assets/delete': obj({ ids: list(string), deleted: boolean, count: integer }),
	'POST /assets/{id}/duplicate': asset,
	'GET /assets/{id}/download': downloadLink,
	'GET /assets/{id}/versions': page(assetVersion),
	'POST /uploads': upload,
	'POST /uploads/{id}/complete': asset,
	'GET /collections': page(collection),
	'POST /collections': collection,
	'DELETE /collections/{id}': deleted,
	'POST /collections/{id}/items': collection,
	'GET /credits': credits,
	'GET /credits/ledger': page(ledgerEntry, {}, nullable(integer)),
	'POST /generations/estimate': estimate,
	'POST /generations': generation,
	'GET /generations': page(generation),
	'GET /generations/{id}': generation,
	'POST /generations/{id}/cancel': generation,
	'POST /generations/{id}/retry': generation,
	'GET /generations/{id}/subtitles': string,
	'GET /projects': page(project),
	'POST /projects': project,
	'GET /projects/{id}': project,
	'PATCH /projects/{id}': project,
	'DELETE /projects/{id}': extend(deleted, { assetsDeleted: integer }),
	'POST /projects/{id}/duplicate': project,
	'POST /projects/{id}/assets': project,
	'POST /projects/{id}/assets/remove': project,
	'POST /prompt/assist': obj({ action: string, result: string, results: list(string) }),
	'GET /voices/voiceprovider': page(voice),
	'GET /webhooks': page(webhook, { eventTypes: list(string) }),
	'POST /webhooks': webhookWithSecret,
	'PATCH /webhooks/{id}': webhook,
	'DELETE /webhooks/{id}': deleted,
	'POST /webhooks/{id}/rotate-secret': webhookWithSecret,
	'POST /webhooks/{id}/test': delivery,
	'GET /webhooks/{id}/deliveries': page(delivery),
	'POST /webhooks/deliveries/{id}/retry': delivery,
	'GET /workspace': workspace,

	// MediaGen Influencer (doc 2)
	'POST /characters': character,
	'GET /characters': page(characterBase),
	'GET /characters/{id}': character,
	'PATCH /characters/{id}': character,
	'DELETE /characters/{id}': deleted,
	'POST /characters/{id}/duplicate': character,
	'POST /characters/{id}/references': character,
	'DELETE /characters/{id}/references/{assetId}': character,
	'POST /characters/{id}/looks': batch,
	'POST /characters/{id}/reference-set/estimate': estimate,
	'POST /characters/{id}/reference-set': batch,
	'POST /characters/{id}/estimate': characterEstimate,
	'POST /characters/{id}/generate': generation,
	'POST /characters/{id}/formats/{formatId}/estimate': estimate,
	'POST /characters/{id}/formats/{formatId}': generation,
	'GET /characters/{id}/generations': page(generation),
	'GET /characters/presets': page(preset),
	'POST /characters/presets': preset,
	'DELETE /characters/presets/{id}': deleted,
	'GET /characters/series/{id}': series,
	'DELETE /characters/series/{id}': deleted,
	'POST /characters/{id}/series': series,
	'GET /characters/{id}/series': page(series),
	'POST /characters/series/{id}/ideas': page(seriesItem, {}, alwaysNull),
	'PATCH /characters/series-items/{id}': seriesItem,
	'DELETE /characters/series-items/{id}': deleted,
	'POST /characters/series-items/{id}/generate': generation,

	// MediaGen Ads (doc 2)
	'GET /brands': page(brandKit),
	'POST /brands': brandKit,
	'GET /brands/{id}': brandKit,
	'PATCH /brands/{id}': brandKit,
	'DELETE /brands/{id}': deleted,
	'POST /brands/{id}/assets': brandKit,
	'POST /products/import': productDraft,
	'POST /products/describe': productDraft,
	'GET /products': page(product),
	'POST /products': product,
	'GET /products/{id}': product,
	'PATCH /products/{id}': product,
	'DELETE /products/{id}': deleted,
	'GET /ads': page(adProjectSummary),
	'POST /ads': adProject,
	'GET /ads/{id}': adProject,
	'PATCH /ads/{id}': adProject,
	'DELETE /ads/{id}': deleted,
	'POST /ads/{id}/matrix/preview': matrixPreview,
	'POST /ads/{id}/matrix/run': batch,
	'POST /ads/{id}/copy/generate': page(copyItem, {}, alwaysNull),
	'POST /ads/{id}/copy': copyItem,
	'PATCH /ads/copy/{id}': copyItem,
	'DELETE /ads/copy/{id}': deleted,
	'GET /ads/{id}/variants': page(variant),
	'POST /ads/variants/{id}/winner': variant,
	'POST /ads/{id}/export': asset,
	'POST /marketing/templates/{id}/estimate': estimate,
	'POST /marketing/templates/{id}/run': generation,

	// MediaGen Editor (doc 3)
	'GET /edits': page(edit),
	'POST /edits': edit,
	'GET /edits/{id}': edit,
	'PUT /edits/{id}': edit,
	'DELETE /edits/{id}': deleted,
	'POST /edits/{id}/duplicate': edit,
	'POST /edits/{id}/render': renderExport,
	'POST /edits/{id}/thumbnail': asset,
	'POST /edits/{id}/smart-crop': smartCrop,
	'POST /edits/{id}/captions/estimate': estimate,
	'POST /edits/{id}/captions': edit,
	'POST /edits/{id}/captions/translate': edit,
	'POST /edits/{id}/cleanup': edit,
	'POST /edits/{id}/highlights': page(edit, {}, alwaysNull),
	'POST /edits/{id}/analyze': analysis,
	'GET /edits/{id}/analysis': analysis,
	'POST /edits/{id}/ai/estimate': estimate,
	'POST /edits/{id}/ai': edit,
	'GET /edits/{id}/ai': page(aiMessage, {}, alwaysNull),
	'GET /edits/{id}/versions': page(editVersion, {}, alwaysNull),
	'POST /edits/{id}/versions/{number}/restore': edit,
	'POST /edits/{id}/dub': generation,
	'GET /effects/collections': page(effectCollection),
	'POST /effects/collections': effectCollection,
	'DELETE /effects/collections/{id}': deleted,
	'POST /effects/collections/{id}/items': effectCollection,
	'POST /effects/{id}/estimate': estimate,
	'POST /effects/{id}/run': generation,
	'GET /audio/mixes': page(audioMix),
	'POST /audio/mixes': audioMix,
	'GET /audio/mixes/{id}': audioMix,
	'PUT /audio/mixes/{id}': audioMix,
	'DELETE /audio/mixes/{id}': deleted,
	'POST /audio/mixes/{id}/export': audioExport,

	// MediaGen Cinema (doc 3)
	'GET /cinema': page(cinemaSummary),
	'POST /cinema': cinemaProject,
	'GET /cinema/{id}': cinemaProject,
	'PATCH /cinema/{id}': cinemaProject,
	'DELETE /cinema/{id}': deleted,
	'POST /cinema/{id}/estimate': estimate,
	'POST /cinema/{id}/generate': batch,
	'POST /cinema/{id}/director': extend(proposal, { projectId: string }),
	'DELETE /cinema/{id}/director': deleted,
	'POST /cinema/{id}/director/apply': cinemaProject,
	'POST /cinema/{id}/export/sequence': edit,
	'POST /cinema/{id}/export/storyboard': asset,
	'GET /cinema/{id}/export/metadata': cinemaMetadata,
	'POST /cinema/{id}/scenes': scene,
	'PATCH /cinema/scenes/{id}': scene,
	'DELETE /cinema/scenes/{id}': extend(deleted, { shotsDeleted: integer }),
	'POST /cinema/scenes/{id}/shots': shot,
	'PATCH /cinema/shots/{id}': shot,
	'DELETE /cinema/shots/{id}': deleted,
	'POST /cinema/shots/{id}/move': shot,
	'POST /cinema/shots/{id}/frame': shot,

	// MediaGen Canvas (doc 3)
	'GET /canvas': page(canvasWorkflow),
	'POST /canvas': canvasWorkflow,
	'GET /canvas/{id}': canvasWorkflow,
	'PATCH /canvas/{id}': canvasWorkflow,
	'DELETE /canvas/{id}': deleted,
	'POST /canvas/{id}/duplicate': canvasWorkflow,
	'POST /canvas/{id}/share': canvasWorkflow,
	'POST /canvas/import': canvasWorkflow,
	'POST /canvas/{id}/estimate': canvasEstimate,
	'POST /canvas/{id}/runs': canvasRun,
	'GET /canvas/runs/{runId}': canvasRun,
	'GET /canvas/{id}/runs': page(canvasRun),
	'POST /canvas/runs/{runId}/cancel': canvasRun,
	'POST /canvas/runs/{runId}/retry': canvasRun,
	'GET /canvas/templates': page(template),

	// MediaGen 3D (doc 3)
	'POST /3d/ai/scene': obj({ prompt: string, objects: list(free), count: integer }),
	'GET /3d/scenes': page(scene3dSummary),
	'POST /3d/scenes': scene3d,
	'GET /3d/scenes/{id}': scene3d,
	'PUT /3d/scenes/{id}': scene3d,
	'PATCH /3d/scenes/{id}': scene3d,
	'DELETE /3d/scenes/{id}': deleted,
	'POST /3d/scenes/{id}/duplicate': scene3d,
	'POST /3d/scenes/{id}/renders': extend(render, { sceneId: string, asset }),

	// MediaGen Agent (doc 3)
	'GET /agent/status': agentStatus,
	'GET /agent/sessions': page(sessionSummary),
	'POST /agent/sessions': session,
	'GET /agent/sessions/{id}': session,
	'DELETE /agent/sessions/{id}': session,
	'POST /agent/sessions/{id}/messages': obj({
		sessionId: string,
		messages: list(agentMessage),
		toolCalls: list(toolCall),
		actions: list(agentAction),
	}),
	'POST /agent/actions/{id}/reject': agentAction,
};

// ---------------------------------------------------------------------------------------------
// What the nodes build themselves

/** Asset → Download: the file's details beside the binary (the signed URL only when asked). */
export const downloadInfo = obj(
	{ assetId: string, filename: string, mimeType: string, size: integer },
	{ expiresAt: string },
);

/**
 * Webhook → Retry Failed Deliveries (a node operation): what it found and did, and the retried
 * deliveries as MediaGen answered the retries.
 */
export const deliveryRetries = obj({
	webhook_id: string,
	status: string,
	enabled: boolean,
	failed: integer,
	retried: integer,
	delivered: integer,
	skipped: integer,
	logTruncated: boolean,
	deliveries: list(delivery),
});

/** Generation → Get Subtitles: the text, also as the binary file. */
export const subtitles = obj({ ...id, format: string, text: string });

/**
 * MediaGen Trigger, every version: one item per event, as signed, with the delivery headers that
 * are safe to show. `data` is the generation record for generation events; canvas runs, exports
 * and the test ping carry their own records there (the spec shows none of them), so the
 * generation fields are listed but not required, and other keys may come.
 */
export const triggerEvent = obj(
	{
		...id,
		type: string,
		created_at: string,
		workspace_id: string,
		data: obj({}, generationEvent, true),
		headers: obj(
			{ 'webhook-id': string, 'webhook-timestamp': string, 'content-type': string },
			{ 'user-agent': string },
		),
	},
	{ downloadErrors: list(obj({ asset_id: string, message: string })) },
);
