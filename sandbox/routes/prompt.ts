/** Prompt assist (doc 1): deterministic, plausible rewrites per action. Free of charge. */
import { json, validationError } from '../http';
import { route } from '../route';
import { int, oneOf, str, uuid, z } from '../validation';

const STYLES = [
	'cinematic lighting',
	'soft pastel palette',
	'high contrast, dramatic shadows',
	'golden hour, warm tones',
	'minimalist composition',
	'vibrant neon accents',
];

const clean = (p: string) =>
	p
		.trim()
		.replace(/\s+/g, ' ')
		.replace(/[.!]+$/, '');

function improve(p: string, tool?: string): string {
	const medium = tool === 'video' ? 'smooth camera motion, 24 fps' : 'highly detailed, sharp focus';
	return `${clean(p)}, ${medium}, professional quality, balanced composition`;
}

function shorten(p: string): string {
	const words = clean(p).split(' ');
	return words.length <= 8
		? words.join(' ')
		: words.slice(0, Math.max(8, Math.ceil(words.length / 2))).join(' ');
}

export const promptRoutes = [
	route({
		method: 'POST',
		path: '/prompt/assist',
		scope: 'content.create',
		body: z.object({
			action: oneOf(['improve', 'shorten', 'translate', 'variations', 'describe'] as const),
			prompt: str(8000).optional(),
			tool: str(20).optional(),
			mode: str(40).optional(),
			modelId: str(80).optional(),
			assetId: uuid().optional(),
			count: int(2, 6).optional(),
		}),
		handler: ({ ws, body }) => {
			if (body.action === 'describe') {
				if (!body.assetId)
					throw validationError([
						{ path: 'assetId', message: 'Required for action describe', code: 'invalid_type' },
					]);
				const a = ws.assets.get(body.assetId);
				const result = `A ${a.kind} titled "${a.title}"${a.tags.length ? `, tagged ${a.tags.join(', ')}` : ''}, ${STYLES[a.title.length % STYLES.length]}`;
				return json({ action: body.action, result, results: [result] });
			}
			if (!body.prompt)
				throw validationError([
					{ path: 'prompt', message: `Required for action ${body.action}`, code: 'invalid_type' },
				]);
			const p = body.prompt;
			let results: string[];
			switch (body.action) {
				case 'improve':
					results = [improve(p, body.tool)];
					break;
				case 'shorten':
					results = [shorten(p)];
					break;
				case 'translate':
					results = [`[en] ${clean(p)}`];
					break;
				case 'variations':
					results = Array.from(
						{ length: body.count ?? 3 },
						(_, i) => `${clean(p)}, ${STYLES[i % STYLES.length]}`,
					);
					break;
			}
			return json({ action: body.action, result: results[0], results });
		},
	}),
];
