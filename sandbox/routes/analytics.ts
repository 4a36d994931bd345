/**
 * Analytics (doc 1): assets and generations are counted from the workspace's real data; posts,
 * engagement and ads are deterministic numbers derived from (workspace, days, channel, value).
 */
import { createHash } from 'node:crypto';
import { json } from '../http';
import { route } from '../route';
import { oneOf, qInt, z } from '../validation';
import type { Workspace } from '../state';

const CHANNELS = ['photoapp', 'shortclip'] as const;
const DIMENSIONS = ['hook', 'format', 'character', 'style', 'channel'] as const;
const VALUES: Record<(typeof DIMENSIONS)[number], string[]> = {
	hook: ['question', 'bold claim', 'before/after', 'countdown'],
	format: ['single image', 'carousel', 'short video', 'story'],
	character: ['Ava', 'Leo', 'Mia'],
	style: ['minimal', 'vibrant', 'cinematic', 'ugc'],
	channel: [...CHANNELS],
};

/** A deterministic integer in [0, mod) from parts. */
const det = (mod: number, ...parts: (string | number)[]) =>
	createHash('sha256').update(parts.join('|')).digest().readUInt32BE(0) % mod;

/** `days` is an integer; values are clamped to 1..365 (default 30). */
const period = (days: number | undefined) => {
	const d = Math.max(1, Math.min(365, days ?? 30));
	const to = new Date();
	return {
		days: d,
		from: new Date(to.getTime() - d * 86_400_000).toISOString(),
		to: to.toISOString(),
	};
};

function performance(ws: Workspace, days: number, ...key: string[]) {
	const posts = 1 + det(5 * days, ws.id, 'posts', days, ...key);
	const views = posts * (800 + det(4000, ws.id, 'views', days, ...key));
	const likes = Math.round(views * (0.02 + det(60, ws.id, 'likes', ...key) / 1000));
	const comments = Math.round(likes * 0.08);
	const shares = Math.round(likes * 0.05);
	return {
		posts,
		views,
		likes,
		comments,
		shares,
		engagementRate: Number(((likes + comments + shares) / views).toFixed(4)),
	};
}

const query = { days: qInt().optional(), channel: oneOf(CHANNELS).optional() };

export const analyticsRoutes = [
	route({
		method: 'GET',
		path: '/analytics/overview',
		scope: 'content.read',
		query: z.object(query),
		handler: ({ ws, query: q }) => {
			const p = period(q.days);
			const since = p.from;
			const assets = ws.assets.all().filter((a) => a.created_at >= since);
			const gens = ws.generations.all().filter((g) => g.created_at >= since);
			const byKind: Record<string, number> = {};
			for (const a of assets) byKind[a.kind] = (byKind[a.kind] ?? 0) + 1;
			const perf = performance(ws, p.days, q.channel ?? 'all');
			const impressions = 5000 + det(50_000, ws.id, 'impr', p.days, q.channel ?? 'all');
			const clicks = Math.round(impressions * (0.005 + det(30, ws.id, 'ctr') / 1000));
			return json({
				period: p,
				channel: q.channel ?? null,
				assets: { total: assets.length, byKind },
				generations: {
					total: gens.length,
					completed: gens.filter((g) => g.status === 'completed').length,
					failed: gens.filter((g) => g.status === 'failed' || g.status === 'cancelled').length,
					creditsCharged: gens.reduce((s, g) => s + g.credits_charged, 0),
				},
				posts: { total: perf.posts },
				engagement: {
					views: perf.views,
					likes: perf.likes,
					comments: perf.comments,
					shares: perf.shares,
					rate: perf.engagementRate,
				},
				ads: {
					impressions,
					clicks,
					ctr: Number((clicks / impressions).toFixed(4)),
					spend: Number((impressions * 0.004).toFixed(2)),
				},
				dataFreshness: {
					updated_at: new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000).toISOString(),
					lagMinutes: new Date().getUTCMinutes(),
				},
			});
		},
	}),
	route({
		method: 'GET',
		path: '/analytics/compare',
		scope: 'content.read',
		query: z.object({ ...query, dimension: oneOf(DIMENSIONS) }),
		handler: ({ ws, query: q }) => {
			const p = period(q.days);
			const values = q.dimension === 'channel' && q.channel ? [q.channel] : VALUES[q.dimension];
			return json({
				period: p,
				channel: q.channel ?? null,
				dimension: q.dimension,
				rows: values.map((value) => ({
					value,
					...performance(ws, p.days, q.channel ?? 'all', q.dimension, value),
				})),
			});
		},
	}),
	route({
		method: 'GET',
		path: '/analytics/creatives/{id}',
		scope: 'content.read',
		handler: ({ ws, params }) => {
			const a = ws.assets.get(params.id);
			const g = a.generationId ? ws.generations.find(a.generationId) : undefined;
			const variants = ws.assets.all().filter((x) => x.duplicatedFrom === a.id);
			const destinations = CHANNELS.filter((c) => det(2, a.id, c) === 0 || c === 'photoapp').map(
				(channel) => ({
					channel,
					posted_at: a.created_at,
					...performance(ws, 30, a.id, channel),
				}),
			);
			const totals = destinations.reduce(
				(s, d) => ({
					views: s.views + d.views,
					likes: s.likes + d.likes,
					posts: s.posts + d.posts,
				}),
				{ views: 0, likes: 0, posts: 0 },
			);
			return json({
				id: a.id,
				asset: { id: a.id, kind: a.kind, title: a.title },
				origin: {
					source: a.source,
					generation_id: a.generationId,
					tool: g?.tool ?? null,
					model_id: g?.model_id ?? null,
					prompt: g?.prompt ?? null,
				},
				editedVariants: variants.map((v) => ({
					asset_id: v.id,
					kind: v.kind,
					title: v.title,
					created_at: v.created_at,
				})),
				destinations,
				results: {
					...totals,
					engagementRate: totals.views ? Number((totals.likes / totals.views).toFixed(4)) : 0,
				},
			});
		},
	}),
];
