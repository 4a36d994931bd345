/**
 * The timeline object of doc 3 ("Edit projects") as a zod schema, with the spec's defaults, plus
 * the small computations the editor endpoints need (duration, referenced assets).
 */
import { obj, oneOf, str, uuid, z } from '../validation';

/** `number [a..b]` */
const range = (min: number, max: number) => z.number().min(min).max(max);

export const PRESETS = [
	'photoapp_reel',
	'shortclip',
	'socialnet_reel',
	'socialnet_feed',
	'adnet_ads',
	'videosite_shorts',
	'square',
	'standard',
] as const;
export type Preset = (typeof PRESETS)[number];

/** Aspect ratio of each preset (assumption: the spec names the presets only). */
export const PRESET_ASPECT: Record<Preset, [number, number]> = {
	photoapp_reel: [9, 16],
	shortclip: [9, 16],
	socialnet_reel: [9, 16],
	socialnet_feed: [4, 5],
	adnet_ads: [1, 1],
	videosite_shorts: [9, 16],
	square: [1, 1],
	standard: [16, 9],
};

export const captionStyleDefault = () => ({
	size: 58,
	color: '#ffffff',
	background: '#000000',
	position: 'bottom',
	uppercase: false,
	preset: 'classic',
	highlight: '#397BFA',
});

export const clipSchema = z.object({
	id: str(40),
	assetId: uuid(),
	kind: oneOf(['video', 'image'] as const),
	in: range(0, 3600),
	out: range(0, 3600),
	fit: oneOf(['cover', 'contain'] as const).default('cover'),
	crop: obj().nullable().default(null),
	volume: range(0, 2).default(1),
	muted: z.boolean().default(false),
	transition: obj().nullable().default(null),
	speed: range(0.25, 4).default(1),
	zoom: range(1, 2.5).default(1),
});

export const textSchema = z.object({
	id: str(40),
	text: str(300),
	start: range(0, 3600),
	end: range(0, 3600),
	x: range(0, 1),
	y: range(0, 1),
	size: range(12, 220).default(64),
	color: z.string().default('#ffffff'),
	background: z.string().nullable().default(null),
	bold: z.boolean().default(true),
	align: oneOf(['left', 'center', 'right'] as const).default('center'),
});

export const captionsSchema = z.object({
	enabled: z.boolean().default(false),
	language: str(20).default(''),
	cues: z.array(obj()).default(() => []),
	style: obj().default(captionStyleDefault),
});

export const overlaySchema = z.object({
	id: str(40),
	assetId: uuid(),
	start: range(0, 3600),
	end: range(0, 3600),
	x: range(0, 1),
	y: range(0, 1),
	width: range(0.03, 1).default(0.2),
	opacity: range(0.05, 1).default(1),
});

export const audioSchema = z.object({
	id: str(40),
	assetId: uuid(),
	kind: oneOf(['music', 'voiceover'] as const),
	start: range(0, 3600),
	in: range(0, 3600),
	out: range(0, 3600),
	volume: range(0, 2).default(1),
	fadeIn: range(0, 10).default(0),
	fadeOut: range(0, 10).default(0),
});

export const timelineSchema = z.object({
	version: z.number().default(1),
	clips: z.array(clipSchema),
	texts: z.array(textSchema).default(() => []),
	captions: captionsSchema.default(() => ({
		enabled: false,
		language: '',
		cues: [],
		style: captionStyleDefault(),
	})),
	overlays: z.array(overlaySchema).default(() => []),
	audio: z.array(audioSchema).default(() => []),
	background: z.string().default('#000000'),
	thumbnailTime: z.number().nullable().default(null),
	audioFx: z
		.object({
			normalize: z.boolean().default(false),
			denoise: oneOf(['off', 'light', 'medium', 'strong'] as const).default('off'),
			fadeIn: range(0, 10).default(0),
			fadeOut: range(0, 10).default(0),
		})
		.default(() => ({ normalize: false, denoise: 'off' as const, fadeIn: 0, fadeOut: 0 })),
	videoFx: z
		.object({ fadeIn: range(0, 10).default(0), fadeOut: range(0, 10).default(0) })
		.default(() => ({ fadeIn: 0, fadeOut: 0 })),
});

export type Timeline = z.output<typeof timelineSchema>;
export type Cue = { start: number; end: number; text: string };

/** Seconds a clip plays: (out − in) / speed, never negative (the spec sets no order on in/out). */
const clipSeconds = (c: Timeline['clips'][number]) => Math.max(0, c.out - c.in) / c.speed;

/** Length of the timeline in seconds: the clips back to back, or the end of the last text/overlay/audio. */
export function duration(t: Timeline): number {
	const clips = t.clips.reduce((s, c) => s + clipSeconds(c), 0);
	const ends = [
		...t.texts.map((x) => x.end),
		...t.overlays.map((x) => x.end),
		...t.audio.map((a) => a.start + Math.max(0, a.out - a.in)),
	];
	return Math.max(clips, ...ends, 0);
}

/** Every asset id the timeline refers to. */
export function referencedAssets(t: Timeline): string[] {
	return [
		...new Set([
			...t.clips.map((c) => c.assetId),
			...t.overlays.map((o) => o.assetId),
			...t.audio.map((a) => a.assetId),
		]),
	];
}

export const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
