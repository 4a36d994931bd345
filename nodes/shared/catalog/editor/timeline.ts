import type { FieldMap } from '../dsl';
import { bool, json, num, object, objectList, oneOf, str, uuid } from '../dsl';

/** Preset values (spec doc 3, "Edit projects"), used in several bodies. */
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

/** `number* [0..3600]`: a time or position in seconds. */
const seconds = () => num({ required: true, min: 0, max: 3600 });
/** `number* [0..1]`: a position relative to the frame. */
const relative = () => num({ required: true, min: 0, max: 1 });
const itemId = () => str({ required: true, max: 40, displayName: 'ID' });
const assetId = () => uuid({ required: true, displayName: 'Asset ID' });
const fade = () => num({ min: 0, max: 10, default: 0 });

const captionStyle = {
	size: 58,
	color: '#ffffff',
	background: '#000000',
	position: 'bottom',
	uppercase: false,
	preset: 'classic',
	highlight: '#397BFA',
};

/**
 * The timeline object (used by PUT /edits/{id} and POST /edits/{id}/duplicate), field by field
 * as the spec lists it. Checked before sending, with errors naming the path
 * (`Timeline.clips[2].speed`), and the spec's defaults filled in.
 *
 * Not checkable here, because the spec does not state them: that `out` is after `in` (clips,
 * audio) or `end` after `start` (texts, overlays), and the shape of caption cues (the spec lists
 * no cue fields; `start`, `end` and `text` are the ones the service's own captions carry, see
 * docs/api-assumptions.md).
 */
export const timelineFields: FieldMap = {
	version: num({ default: 1 }),
	clips: objectList(
		{
			id: itemId(),
			assetId: assetId(),
			kind: oneOf(['video', 'image'], { required: true }),
			in: seconds(),
			out: seconds(),
			fit: oneOf(['cover', 'contain'], { default: 'cover' }),
			crop: json({ default: null }),
			volume: num({ min: 0, max: 2, default: 1 }),
			muted: bool({ default: false }),
			transition: json({ default: null }),
			speed: num({ min: 0.25, max: 4, default: 1 }),
			zoom: num({ min: 1, max: 2.5, default: 1 }),
		},
		{ required: true },
	),
	texts: objectList(
		{
			id: itemId(),
			text: str({ required: true, max: 300 }),
			start: seconds(),
			end: seconds(),
			x: relative(),
			y: relative(),
			size: num({ min: 12, max: 220, default: 64 }),
			color: str({ default: '#ffffff' }),
			background: str({ default: null }),
			bold: bool({ default: true }),
			align: oneOf(['left', 'center', 'right'], { default: 'center' }),
		},
		{ default: [] },
	),
	captions: object(
		{
			enabled: bool({ default: false }),
			language: str({ max: 20, default: '' }),
			cues: objectList({ start: num(), end: num(), text: str() }, { default: [] }),
			style: json({ default: captionStyle }),
		},
		{ default: { enabled: false, language: '', cues: [], style: captionStyle } },
	),
	overlays: objectList(
		{
			id: itemId(),
			assetId: assetId(),
			start: seconds(),
			end: seconds(),
			x: relative(),
			y: relative(),
			width: num({ min: 0.03, max: 1, default: 0.2 }),
			opacity: num({ min: 0.05, max: 1, default: 1 }),
		},
		{ default: [] },
	),
	audio: objectList(
		{
			id: itemId(),
			assetId: assetId(),
			kind: oneOf(['music', 'voiceover'], { required: true }),
			start: seconds(),
			in: seconds(),
			out: seconds(),
			volume: num({ min: 0, max: 2, default: 1 }),
			fadeIn: fade(),
			fadeOut: fade(),
		},
		{ default: [] },
	),
	background: str({ default: '#000000' }),
	thumbnailTime: num({ default: null }),
	audioFx: object(
		{
			normalize: bool({ default: false }),
			denoise: oneOf(['off', 'light', 'medium', 'strong'], { default: 'off' }),
			fadeIn: fade(),
			fadeOut: fade(),
		},
		{ default: { normalize: false, denoise: 'off', fadeIn: 0, fadeOut: 0 } },
	),
	videoFx: object({ fadeIn: fade(), fadeOut: fade() }, { default: { fadeIn: 0, fadeOut: 0 } }),
};

/** The timeline as a JSON parameter: typed, or passed from a previous node (e.g. Edit: Get). */
export const timeline = (description: string, top = false) =>
	object(timelineFields, {
		asJson: true,
		top,
		description: `${description}. A JSON object: clips, texts, captions, overlays, audio, background, thumbnailTime, audioFx, videoFx (spec defaults are filled in).`,
	});
