/**
 * MediaGen Influencer (spec doc 2): character presets, content series, characters. Records and
 * the job glue live in ../influencer/model.ts; jobs run through ../jobs.ts like generations.
 */
import { ApiError, conflict, json, validationError } from '../http';
import type { GenerationInput } from '../jobs';
import { paginate } from '../pagination';
import { route } from '../route';
import { recBase, touch, type Workspace } from '../state';
import { int, obj, oneOf, pageQuery, qBool, str, uuid, z } from '../validation';
import { generationView } from '../views';
import {
	CATEGORIES,
	CHARACTER_TYPES,
	characterView,
	checkFormatId,
	combined,
	compileIdentity,
	DESTINATIONS,
	itemView,
	mainLook,
	modelFor,
	presetView,
	promptFor,
	REFERENCE_KINDS,
	REFERENCE_SET_KINDS,
	referenceIds,
	seriesView,
	startJobs,
	storeOf,
	writeIdeas,
	type CharacterRec,
	type InfluencerStore,
} from '../influencer/model';

// ---------------------------------------------------------------------------------------------
// Schemas, as in the spec

const voice = z.object({
	modelId: str(80).optional(),
	voice: str(120).optional(),
	language: str(20).optional(),
	description: str(500).optional(),
});
const personality = z.object({
	traits: z.array(z.string()).optional(),
	bio: str(1000).optional(),
	niche: str(120).optional(),
});

/** Fields shared by create and update, all optional and without defaults. */
const characterFields = {
	name: str(60).optional(),
	type: oneOf(CHARACTER_TYPES).optional(),
	attributes: obj().optional(),
	customPrompt: str(1500).optional(),
	negativePrompt: str(1000).optional(),
	baseModelId: z.string().optional(),
	seed: int().optional(),
	voice: voice.optional(),
	personality: personality.optional(),
	stylePublic: z.boolean().optional(),
	presetId: z.string().optional(),
	description: str(500).optional(),
	category: oneOf(CATEGORIES).optional(),
};

/**
 * Create: defaults type natural, attributes {}, prompts '' are applied in the handler, where a
 * preset named by presetId may fill type and attributes first.
 */
const createBody = z.object({
	...characterFields,
	name: str(60),
	studioDraft: z.boolean().optional(),
});
const updateBody = z.object({
	...characterFields,
	favorite: z.boolean().optional(),
	coverAssetId: uuid().optional(),
	save: z.boolean().optional(),
});

const generationBody = z.object({
	modelId: str(80),
	mode: str(40).optional(),
	prompt: str(5000).default(''),
	params: obj().default({}),
	inputs: z.array(z.object({ slot: str(40), assetIds: z.array(uuid()) })).default([]),
	referenceAssetIds: z.array(uuid()).optional(),
	purpose: oneOf(['look', 'content', 'motion'] as const).default('content'),
	tool: oneOf(['influencer', 'motion', 'image', 'video'] as const).default('influencer'),
	presetId: str(40).optional(),
	formatId: str(60).optional(),
	projectId: uuid().optional(),
	title: str(200).optional(),
	idempotencyKey: str(120).optional(),
	rightsConfirmed: z.boolean().optional(),
});

const referenceSetBody = z.object({
	kinds: z.array(oneOf(REFERENCE_SET_KINDS)).min(1),
	modelId: str(80).optional(),
	projectId: uuid().optional(),
});

const formatBody = z.object({
	sourceVideoAssetId: uuid().optional(),
	extraImageAssetIds: z.array(uuid()).optional(),
	startFrameAssetId: uuid().optional(),
	prompt: str(3000).optional(),
	projectId: uuid().optional(),
	idempotencyKey: str(120).optional(),
	rightsConfirmed: z.boolean().optional(),
});

const seriesBody = z.object({
	title: str(120),
	theme: str(500).default(''),
	audience: str(300).default(''),
	language: str(20).default('en'),
	personality: str(300).default(''),
	tone: str(120).default(''),
	categories: z.array(z.string()).default([]),
	videoSeconds: int(3, 30).default(8),
	destinations: z.array(oneOf(DESTINATIONS)).default([]),
	count: int(1, 12).default(6),
});

const itemBody = z.object({
	title: str(200).optional(),
	format: oneOf(['image', 'video'] as const).optional(),
	hook: str(500).optional(),
	scene: str(3000).optional(),
	script: str(3000).optional(),
	caption: str(2200).optional(),
	hashtags: z.array(z.string()).optional(),
});

// ---------------------------------------------------------------------------------------------
// Helpers

const character = (ws: Workspace, id: string) => storeOf(ws).characters.get(id);
const reply = (ws: Workspace, c: CharacterRec, status = 200) => json(characterView(ws, c), status);

function recompile(c: CharacterRec): void {
	c.identityPrompt = compileIdentity(c);
	touch(c);
}

/** Removes a character's series and their ideas. */
function dropSeries(st: InfluencerStore, characterId: string): void {
	for (const s of st.series.all().filter((x) => x.characterId === characterId)) {
		for (const id of s.itemIds) st.items.delete(id);
		st.series.delete(s.id);
	}
}

/** The generation a character generate (or its estimate) starts. */
function generateInput(
	ws: Workspace,
	c: CharacterRec,
	body: z.output<typeof generationBody>,
): GenerationInput {
	if (body.referenceAssetIds) ws.assets.requireAll(body.referenceAssetIds);
	const refs = body.referenceAssetIds ?? referenceIds(ws, c);
	const params = { ...body.params };
	if (c.seed !== null && params.seed === undefined) params.seed = c.seed;
	return {
		modelId: body.modelId,
		mode: body.mode,
		tool: body.tool,
		prompt: promptFor(c, body.prompt),
		negativePrompt: c.negativePrompt || undefined,
		params,
		inputs: [...body.inputs, ...(refs.length ? [{ slot: 'reference', assetIds: refs }] : [])],
		projectId: body.projectId,
		title: body.title ?? `${c.name} (${body.purpose})`,
		context: {
			characterId: c.id,
			purpose: body.purpose,
			...(body.presetId !== undefined ? { presetId: body.presetId } : {}),
			...(body.formatId !== undefined ? { formatId: body.formatId } : {}),
		},
		rightsConfirmed: body.rightsConfirmed,
	};
}

function referenceSetInputs(
	ws: Workspace,
	c: CharacterRec,
	body: z.output<typeof referenceSetBody>,
	batchId: string,
): Array<{ label: string; input: GenerationInput }> {
	if (body.projectId) ws.projects.get(body.projectId);
	const look = mainLook(ws, c);
	return [...new Set(body.kinds)].map((kind) => ({
		label: kind,
		input: {
			modelId: modelFor(c, body.modelId),
			tool: 'influencer',
			prompt: promptFor(c, `Reference: ${kind.replace('_', ' ')}`),
			negativePrompt: c.negativePrompt || undefined,
			params: c.seed !== null ? { seed: c.seed } : {},
			inputs: [{ slot: 'look', assetIds: [look] }],
			projectId: body.projectId,
			title: `${c.name} reference: ${kind}`,
			context: { characterId: c.id, purpose: 'reference', referenceKind: kind, batchId },
		},
	}));
}

function formatInput(
	ws: Workspace,
	c: CharacterRec,
	formatId: string,
	body: z.output<typeof formatBody>,
): GenerationInput {
	checkFormatId(formatId);
	const refs = referenceIds(ws, c);
	const slots: GenerationInput['inputs'] = [];
	if (body.sourceVideoAssetId)
		slots.push({ slot: 'source_video', assetIds: [body.sourceVideoAssetId] });
	if (body.extraImageAssetIds?.length)
		slots.push({ slot: 'extra_images', assetIds: body.extraImageAssetIds });
	if (body.startFrameAssetId)
		slots.push({ slot: 'start_frame', assetIds: [body.startFrameAssetId] });
	if (refs.length) slots.push({ slot: 'reference', assetIds: refs });
	return {
		modelId: modelFor(c),
		tool: 'motion',
		prompt: promptFor(c, `Format: ${formatId}`, body.prompt),
		negativePrompt: c.negativePrompt || undefined,
		params: {},
		inputs: slots,
		projectId: body.projectId,
		title: `${c.name} in ${formatId}`,
		context: { characterId: c.id, purpose: 'content', formatId },
		rightsConfirmed: body.rightsConfirmed,
	};
}

const batchReply = (batchId: string, jobs: ReturnType<typeof startJobs>) =>
	json({ batchId, data: jobs.map(generationView), nextCursor: null }, 201);

// ---------------------------------------------------------------------------------------------
// Routes (fixed paths before `{id}` ones: /characters/presets is not a character)

const presetRoutes = [
	route({
		method: 'GET',
		path: '/characters/presets',
		scope: 'content.read',
		query: z.object({ ...pageQuery }),
		handler: ({ ws, query }) => json(paginate(storeOf(ws).presets.all(), query, presetView)),
	}),
	route({
		method: 'POST',
		path: '/characters/presets',
		scope: 'content.create',
		body: z.object({ name: str(60), type: oneOf(CHARACTER_TYPES), attributes: obj() }),
		handler: ({ ws, body }) =>
			json(presetView(storeOf(ws).presets.put({ ...recBase(), ...body, starter: false })), 201),
	}),
	route({
		method: 'DELETE',
		path: '/characters/presets/{id}',
		scope: 'content.create',
		handler: ({ ws, params }) => {
			const st = storeOf(ws);
			const p = st.presets.get(params.id);
			if (p.starter)
				throw conflict(`Preset ${p.id} is a starter preset; starter presets cannot be deleted`, {
					starter: true,
				});
			st.presets.delete(p.id);
			return json({ id: p.id, deleted: true });
		},
	}),
];

const seriesRoutes = [
	route({
		method: 'GET',
		path: '/characters/series/{id}',
		scope: 'content.read',
		handler: ({ ws, params }) => {
			const st = storeOf(ws);
			return json(seriesView(ws, st, st.series.get(params.id)));
		},
	}),
	route({
		method: 'DELETE',
		path: '/characters/series/{id}',
		scope: 'content.delete',
		handler: ({ ws, params }) => {
			const st = storeOf(ws);
			const s = st.series.get(params.id);
			for (const id of s.itemIds) st.items.delete(id);
			st.series.delete(s.id);
			return json({ id: s.id, deleted: true });
		},
	}),
	route({
		method: 'POST',
		path: '/characters/series/{id}/ideas',
		scope: 'content.create',
		body: z.object({ count: int(1, 12).default(4) }),
		handler: ({ ws, params, body }) => {
			const st = storeOf(ws);
			const s = st.series.get(params.id);
			const items = writeIdeas(st, s, st.characters.get(s.characterId), body.count);
			return json({ data: items.map((i) => itemView(ws, i)), nextCursor: null }, 201);
		},
	}),
	route({
		method: 'PATCH',
		path: '/characters/series-items/{id}',
		scope: 'content.create',
		body: itemBody,
		handler: ({ ws, params, body }) => {
			const item = storeOf(ws).items.get(params.id);
			for (const [k, v] of Object.entries(body)) {
				if (v !== undefined) (item as unknown as Record<string, unknown>)[k] = v;
			}
			touch(item);
			return json(itemView(ws, item));
		},
	}),
	route({
		method: 'DELETE',
		path: '/characters/series-items/{id}',
		scope: 'content.create',
		handler: ({ ws, params }) => {
			const st = storeOf(ws);
			const item = st.items.get(params.id);
			const s = st.series.find(item.seriesId);
			if (s) {
				s.itemIds = s.itemIds.filter((id) => id !== item.id);
				touch(s);
			}
			st.items.delete(item.id);
			return json({ id: item.id, deleted: true });
		},
	}),
	route({
		method: 'POST',
		path: '/characters/series-items/{id}/generate',
		scope: 'content.create',
		body: z.object({ modelId: str(80).optional(), projectId: uuid().optional() }),
		handler: ({ app, ws, params, body }) => {
			const st = storeOf(ws);
			const item = st.items.get(params.id);
			const s = st.series.get(item.seriesId);
			const c = st.characters.get(item.characterId);
			const current = item.generationId ? ws.generations.find(item.generationId) : undefined;
			if (current && (current.status === 'queued' || current.status === 'running'))
				throw conflict(
					`Series item ${item.id} is already being generated (generation ${current.id})`,
					{ generationId: current.id },
				);
			const video = item.format === 'video';
			const refs = referenceIds(ws, c);
			const [g] = startJobs(
				app,
				ws,
				[
					{
						modelId: modelFor(c, body.modelId),
						tool: video ? 'motion' : 'influencer',
						prompt: promptFor(c, item.hook, item.scene, item.script),
						negativePrompt: c.negativePrompt || undefined,
						params: video ? { duration: s.videoSeconds } : {},
						inputs: refs.length ? [{ slot: 'reference', assetIds: refs }] : [],
						projectId: body.projectId,
						title: item.title,
						context: {
							characterId: c.id,
							purpose: 'content',
							seriesId: s.id,
							seriesItemId: item.id,
						},
					},
				],
				null,
			);
			item.generationId = g.id;
			touch(item);
			return json(generationView(g), 201);
		},
	}),
];

const characterRoutes = [
	route({
		method: 'GET',
		path: '/characters',
		scope: 'content.read',
		query: z.object({ ...pageQuery, favorite: qBool().optional(), q: z.string().optional() }),
		handler: ({ ws, query }) => {
			const q = query.q?.toLowerCase();
			const list = storeOf(ws)
				.characters.all()
				.filter(
					(c) =>
						(query.favorite === undefined || c.favorite === query.favorite) &&
						(!q ||
							`${c.name} ${c.description ?? ''} ${c.category ?? ''}`.toLowerCase().includes(q)),
				);
			return json(paginate(list, query, (c) => characterView(ws, c, false)));
		},
	}),
	route({
		method: 'POST',
		path: '/characters',
		scope: 'content.create',
		body: createBody,
		handler: ({ ws, body }) => {
			const st = storeOf(ws);
			const preset = body.presetId !== undefined ? st.presets.get(body.presetId) : undefined;
			const fields = {
				...recBase(),
				name: body.name,
				type: body.type ?? preset?.type ?? 'natural',
				attributes: { ...(preset?.attributes ?? {}), ...(body.attributes ?? {}) },
				customPrompt: body.customPrompt ?? '',
				negativePrompt: body.negativePrompt ?? '',
				baseModelId: body.baseModelId ?? null,
				seed: body.seed ?? null,
				voice: body.voice ?? {},
				personality: body.personality ?? {},
				stylePublic: body.stylePublic ?? false,
				presetId: body.presetId ?? null,
				description: body.description ?? null,
				category: body.category ?? null,
				studioDraft: body.studioDraft ?? false,
				favorite: false,
				coverAssetId: null,
				references: [],
				duplicatedFrom: null,
			};
			const c = st.characters.put({ ...fields, identityPrompt: compileIdentity(fields) });
			return reply(ws, c, 201);
		},
	}),
	route({
		method: 'GET',
		path: '/characters/{id}',
		scope: 'content.read',
		handler: ({ ws, params }) => reply(ws, character(ws, params.id)),
	}),
	route({
		method: 'PATCH',
		path: '/characters/{id}',
		scope: 'content.create',
		body: updateBody,
		handler: ({ ws, params, body }) => {
			const st = storeOf(ws);
			const c = st.characters.get(params.id);
			if (body.coverAssetId !== undefined) ws.assets.get(body.coverAssetId);
			if (body.presetId !== undefined) st.presets.get(body.presetId);
			const { voice: v, personality: p, save, ...rest } = body;
			for (const [k, val] of Object.entries(rest)) {
				if (val !== undefined) (c as unknown as Record<string, unknown>)[k] = val;
			}
			if (v) c.voice = { ...c.voice, ...v };
			if (p) c.personality = { ...c.personality, ...p };
			if (save !== undefined) c.studioDraft = !save;
			recompile(c);
			return reply(ws, c);
		},
	}),
	route({
		method: 'DELETE',
		path: '/characters/{id}',
		scope: 'content.delete',
		handler: ({ ws, params }) => {
			const st = storeOf(ws);
			const c = st.characters.get(params.id);
			dropSeries(st, c.id);
			st.characters.delete(c.id);
			for (const a of ws.assets.all()) if (a.characterId === c.id) a.characterId = null;
			return json({ id: c.id, deleted: true });
		},
	}),
	route({
		method: 'POST',
		path: '/characters/{id}/duplicate',
		scope: 'content.create',
		handler: ({ ws, params }) => {
			const st = storeOf(ws);
			const c = st.characters.get(params.id);
			const copy = st.characters.put({
				...structuredClone({ ...c }),
				...recBase(),
				name: `${c.name} (copy)`.slice(0, 60),
				favorite: false,
				duplicatedFrom: c.id,
			});
			recompile(copy);
			return reply(ws, copy, 201);
		},
	}),
	route({
		method: 'POST',
		path: '/characters/{id}/references',
		scope: 'content.create',
		body: z.object({
			assetId: uuid(),
			kind: oneOf(REFERENCE_KINDS).optional(),
			label: str(60).optional(),
			primary: z.boolean().optional(),
			confirmRights: z.boolean().optional(),
		}),
		handler: ({ ws, params, body }) => {
			const c = character(ws, params.id);
			const a = ws.assets.get(body.assetId);
			if (a.kind !== 'image')
				throw validationError([
					{
						path: 'assetId',
						message: `A reference must be an image, got ${a.kind}`,
						code: 'custom',
					},
				]);
			const uploaded = a.source !== 'generation' || body.kind === 'upload';
			if (uploaded && body.confirmRights !== true)
				throw validationError([
					{
						path: 'confirmRights',
						message:
							'Uploaded images need confirmRights: true (you hold the likeness rights of the person shown)',
						code: 'rights_confirmation_required',
					},
				]);
			const refs = c.references;
			let ref = refs.find((r) => r.assetId === a.id);
			if (!ref) {
				ref = {
					assetId: a.id,
					kind: body.kind ?? (uploaded ? 'upload' : 'portrait'),
					label: null,
					primary: false,
					rightsConfirmed: body.confirmRights === true,
					generationId: null,
					added_at: new Date().toISOString(),
				};
				refs.push(ref);
			}
			if (body.kind !== undefined) ref.kind = body.kind;
			if (body.label !== undefined) ref.label = body.label;
			if (body.confirmRights === true) ref.rightsConfirmed = true;
			if (body.primary === true || !refs.some((r) => r.primary)) {
				for (const r of refs) r.primary = r === ref;
			} else if (body.primary === false && ref.primary && refs.length > 1) {
				ref.primary = false;
				refs.find((r) => r !== ref)!.primary = true;
			}
			touch(c);
			return reply(ws, c);
		},
	}),
	route({
		method: 'DELETE',
		path: '/characters/{id}/references/{assetId}',
		scope: 'content.create',
		handler: ({ ws, params }) => {
			const c = character(ws, params.id);
			const ref = c.references.find((r) => r.assetId === params.assetId);
			if (!ref) throw notAReference(c.id, params.assetId);
			c.references = c.references.filter((r) => r !== ref);
			if (ref.primary && c.references.length) c.references[0].primary = true;
			touch(c);
			return reply(ws, c);
		},
	}),
	route({
		method: 'POST',
		path: '/characters/{id}/looks',
		scope: 'content.create',
		body: z.object({
			modelId: str(80).optional(),
			count: int(1, 4).optional(),
			projectId: uuid().optional(),
		}),
		handler: ({ app, ws, params, body }) => {
			const c = character(ws, params.id);
			const batchId = recBase().id;
			const count = body.count ?? 4;
			const inputs: GenerationInput[] = Array.from({ length: count }, (_, i) => ({
				modelId: modelFor(c, body.modelId),
				tool: 'influencer',
				prompt: promptFor(c, `Candidate look ${i + 1} of ${count}`),
				negativePrompt: c.negativePrompt || undefined,
				params: c.seed !== null ? { seed: c.seed + i } : {},
				inputs: [],
				projectId: body.projectId,
				title: `${c.name} look ${i + 1}`,
				context: { characterId: c.id, purpose: 'look', batchId },
			}));
			return batchReply(batchId, startJobs(app, ws, inputs, null));
		},
	}),
	route({
		method: 'POST',
		path: '/characters/{id}/reference-set/estimate',
		scope: 'content.create',
		body: referenceSetBody,
		handler: ({ app, ws, params, body }) => {
			const c = character(ws, params.id);
			return json(combined(app, ws, referenceSetInputs(ws, c, body, recBase().id)));
		},
	}),
	route({
		method: 'POST',
		path: '/characters/{id}/reference-set',
		scope: 'content.create',
		body: referenceSetBody,
		handler: ({ app, ws, params, body }) => {
			const c = character(ws, params.id);
			const batchId = recBase().id;
			const inputs = referenceSetInputs(ws, c, body, batchId).map((x) => x.input);
			return batchReply(batchId, startJobs(app, ws, inputs, null));
		},
	}),
	route({
		method: 'POST',
		path: '/characters/{id}/estimate',
		scope: 'content.create',
		body: generationBody,
		handler: ({ app, ws, params, body }) => {
			const c = character(ws, params.id);
			const input = generateInput(ws, c, body);
			const estimate = app.jobs.validate(ws, input);
			return json({
				...estimate,
				conditioning: {
					identityPrompt: c.identityPrompt,
					negativePrompt: c.negativePrompt,
					referenceAssetIds: input.inputs.find((i) => i.slot === 'reference')?.assetIds ?? [],
					seed: input.params.seed ?? null,
					modelId: input.modelId,
					tool: input.tool,
					purpose: body.purpose,
				},
			});
		},
	}),
	route({
		method: 'POST',
		path: '/characters/{id}/generate',
		scope: 'content.create',
		body: generationBody,
		idempotent: true,
		handler: ({ app, ws, params, body, idempotencyKey }) => {
			const c = character(ws, params.id);
			const [g] = startJobs(app, ws, [generateInput(ws, c, body)], idempotencyKey);
			return json(generationView(g), 201);
		},
	}),
	route({
		method: 'POST',
		path: '/characters/{id}/formats/{formatId}/estimate',
		scope: 'content.create',
		body: formatBody,
		handler: ({ app, ws, params, body }) => {
			const c = character(ws, params.id);
			return json(app.jobs.validate(ws, formatInput(ws, c, params.formatId, body)));
		},
	}),
	route({
		method: 'POST',
		path: '/characters/{id}/formats/{formatId}',
		scope: 'content.create',
		body: formatBody,
		idempotent: true,
		handler: ({ app, ws, params, body, idempotencyKey }) => {
			const c = character(ws, params.id);
			const [g] = startJobs(app, ws, [formatInput(ws, c, params.formatId, body)], idempotencyKey);
			return json(generationView(g), 201);
		},
	}),
	route({
		method: 'GET',
		path: '/characters/{id}/generations',
		scope: 'content.read',
		query: z.object({
			...pageQuery,
			purpose: oneOf(['look', 'content', 'motion', 'reference'] as const).optional(),
		}),
		handler: ({ ws, params, query }) => {
			const c = character(ws, params.id);
			const list = ws.generations
				.all()
				.filter(
					(g) =>
						g.context.characterId === c.id &&
						(!query.purpose || g.context.purpose === query.purpose),
				);
			return json(paginate(list, query, generationView));
		},
	}),
	route({
		method: 'GET',
		path: '/characters/{id}/series',
		scope: 'content.read',
		query: z.object({ ...pageQuery }),
		handler: ({ ws, params, query }) => {
			const st = storeOf(ws);
			const c = st.characters.get(params.id);
			const list = st.series.all().filter((s) => s.characterId === c.id);
			return json(paginate(list, query, (s) => seriesView(ws, st, s)));
		},
	}),
	route({
		method: 'POST',
		path: '/characters/{id}/series',
		scope: 'content.create',
		body: seriesBody,
		handler: ({ ws, params, body }) => {
			const st = storeOf(ws);
			const c = st.characters.get(params.id);
			const { count, ...fields } = body;
			const s = st.series.put({
				...recBase(),
				...fields,
				destinations: [...new Set(fields.destinations)],
				characterId: c.id,
				itemIds: [],
				written: 0,
			});
			writeIdeas(st, s, c, count);
			return json(seriesView(ws, st, s), 201);
		},
	}),
];

const notAReference = (characterId: string, assetId: string) =>
	new ApiError(
		404,
		'not_found',
		`Asset ${assetId} is not a reference of character ${characterId}`,
		{
			id: assetId,
		},
	);

export const influencerRoutes = [...presetRoutes, ...seriesRoutes, ...characterRoutes];
