/** Voices (doc 1): a few fixed voices of the "connected" voice-provider account. */
import { json } from '../http';
import { route } from '../route';
import { pageQuery, z } from '../validation';
import { paginate } from '../pagination';

export const VOICES = [
	{
		voice_id: 'vp_premade_aria',
		name: 'Aria',
		category: 'premade',
		labels: { gender: 'female', accent: 'american', age: 'young' },
	},
	{
		voice_id: 'vp_premade_roger',
		name: 'Roger',
		category: 'premade',
		labels: { gender: 'male', accent: 'british', age: 'middle aged' },
	},
	{
		voice_id: 'vp_premade_sofia',
		name: 'Sofia',
		category: 'premade',
		labels: { gender: 'female', accent: 'spanish', age: 'middle aged' },
	},
	{
		voice_id: 'vp_cloned_brand',
		name: 'Brand Voice (clone)',
		category: 'cloned',
		labels: { gender: 'male', accent: 'american', age: 'middle aged' },
	},
	{
		voice_id: 'vp_designed_narrator',
		name: 'Calm Narrator (designed)',
		category: 'designed',
		labels: { gender: 'neutral', accent: 'neutral', age: 'old' },
	},
	// seq only fixes the listing order (first listed first)
].map((v, i) => ({
	...v,
	preview_url: `https://voices.example.invalid/preview/${v.voice_id}.mp3`,
	seq: 1000 - i,
}));

const voiceView = (v: (typeof VOICES)[number]) => {
	const { seq, ...rest } = v;
	void seq;
	return rest;
};

export const voiceRoutes = [
	route({
		method: 'GET',
		path: '/voices/voiceprovider',
		scope: 'content.create',
		query: z.object(pageQuery),
		handler: ({ query }) => json(paginate(VOICES, query, voiceView)),
	}),
];
