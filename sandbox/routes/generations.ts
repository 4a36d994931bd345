/** Generations (doc 1). The lifecycle lives in ../jobs.ts. */
import { ApiError, conflict, json } from '../http';
import { route } from '../route';
import { oneOf, obj, pageQuery, str, uuid, z } from '../validation';
import { paginate } from '../pagination';
import { generationView } from '../views';
import type { GenerationRec } from '../state';

export const TOOLS = [
	'image',
	'video',
	'influencer',
	'motion',
	'lipsync',
	'swap',
	'ads',
	'marketing',
	'cinema',
	'audio',
	'effects',
	'canvas',
	'agent',
	'editor',
	'3d',
	'api',
] as const;

/** The generation request body table of the spec. */
export const generationBody = z.object({
	modelId: str(80),
	mode: str(40).optional(),
	tool: oneOf(TOOLS).default('image'),
	prompt: str(50000).optional(),
	negativePrompt: str(5000).optional(),
	params: obj().default({}),
	inputs: z.array(z.object({ slot: str(40), assetIds: z.array(uuid()).default([]) })).default([]),
	projectId: uuid().optional(),
	title: str(200).optional(),
	idempotencyKey: str(120).optional(),
	context: obj().default({}),
	rightsConfirmed: z.boolean().optional(),
});

/** Filter groups of GET /generations?status=. */
const STATUS_FILTER: Record<string, GenerationRec['status'][]> = {
	active: ['queued', 'running'],
	completed: ['completed'],
	failed: ['failed', 'cancelled'],
};

/** Subtitles are a transcription of the prompt text: cues of up to 6 words, 2 seconds each. */
function subtitles(text: string, format: 'srt' | 'vtt'): string {
	const words = text.split(/\s+/).filter(Boolean);
	const cues: string[] = [];
	for (let i = 0; i * 6 < words.length; i++) cues.push(words.slice(i * 6, i * 6 + 6).join(' '));
	const stamp = (s: number) => {
		const t = new Date(s * 1000).toISOString().slice(11, 23);
		return format === 'srt' ? t.replace('.', ',') : t;
	};
	const blocks = cues.map(
		(c, i) =>
			`${format === 'srt' ? `${i + 1}\n` : ''}${stamp(i * 2)} --> ${stamp(i * 2 + 2)}\n${c}\n`,
	);
	return (format === 'vtt' ? 'WEBVTT\n\n' : '') + blocks.join('\n');
}

export const generationRoutes = [
	route({
		method: 'POST',
		path: '/generations/estimate',
		scope: 'content.create',
		body: generationBody,
		handler: ({ app, ws, body }) => json(app.jobs.validate(ws, body)),
	}),
	route({
		method: 'POST',
		path: '/generations',
		scope: 'content.create',
		body: generationBody,
		idempotent: true,
		handler: ({ app, ws, body, idempotencyKey }) =>
			json(generationView(app.jobs.create(ws, body, idempotencyKey)), 201),
	}),
	route({
		method: 'GET',
		path: '/generations',
		scope: 'content.read',
		query: z.object({
			...pageQuery,
			status: oneOf(['active', 'completed', 'failed', 'all'] as const).optional(),
			tool: z.string().optional(),
			projectId: uuid().optional(),
			batchId: uuid().optional(),
		}),
		handler: ({ ws, query }) => {
			const statuses = query.status && query.status !== 'all' ? STATUS_FILTER[query.status] : null;
			const list = ws.generations
				.all()
				.filter(
					(g) =>
						(!statuses || statuses.includes(g.status)) &&
						(!query.tool || g.tool === query.tool) &&
						(!query.projectId || g.project_id === query.projectId) &&
						(!query.batchId || g.batch_id === query.batchId),
				);
			return json(paginate(list, query, generationView));
		},
	}),
	route({
		method: 'GET',
		path: '/generations/{id}',
		scope: 'content.read',
		handler: ({ ws, params }) => json(generationView(ws.generations.get(params.id))),
	}),
	route({
		method: 'POST',
		path: '/generations/{id}/cancel',
		scope: 'content.create',
		handler: ({ app, ws, params }) =>
			json(generationView(app.jobs.cancel(ws, ws.generations.get(params.id)))),
	}),
	route({
		method: 'POST',
		path: '/generations/{id}/retry',
		scope: 'content.create',
		handler: ({ app, ws, params }) =>
			json(generationView(app.jobs.retry(ws, ws.generations.get(params.id)))),
	}),
	route({
		method: 'GET',
		path: '/generations/{id}/subtitles',
		scope: 'content.read',
		query: z.object({ format: oneOf(['srt', 'vtt'] as const).default('srt') }),
		handler: ({ ws, params, query }) => {
			const g = ws.generations.get(params.id);
			if (g.status !== 'completed')
				throw conflict(`Generation ${g.id} is ${g.status}; subtitles exist once it is completed`, {
					status: g.status,
				});
			if (!g.outputs.some((o) => o.kind === 'video' || o.kind === 'audio'))
				throw new ApiError(
					404,
					'not_found',
					`Generation ${g.id} has no audio or video output to transcribe`,
				);
			const text = subtitles(g.prompt ?? g.title ?? '', query.format);
			return {
				status: 200,
				text,
				headers: {
					'content-type':
						query.format === 'vtt' ? 'text/vtt; charset=utf-8' : 'text/plain; charset=utf-8',
				},
			};
		},
	}),
];
