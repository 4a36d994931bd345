/** The help a field's form shows: what it is, its limits, where its IDs come from. */
import type { Field, LocatorKind } from '../catalog/dsl';
import { idOrigin, LOCATORS } from './listSearch';
import { displayNameOf } from './names';

function limitsText(field: Field): string {
	const parts: string[] = [];
	if (field.kind === 'string' && field.max !== undefined)
		parts.push(`At most ${field.max} characters.`);
	if ((field.kind === 'integer' || field.kind === 'number') && field.min !== undefined) {
		parts.push(
			field.max !== undefined ? `From ${field.min} to ${field.max}.` : `At least ${field.min}.`,
		);
	}
	if (field.kind === 'list') {
		parts.push(
			`A list of ${field.of === 'uuid' ? 'IDs' : `${field.of}s`}: comma-separated, or an array from an expression.`,
		);
	}
	return parts.join(' ');
}

/**
 * What a Model ID is, for every `…ModelId` field. The API has no list of models (spec doc 1): the
 * ID is the one MediaGen shows for the model, or the `model_id` of an earlier job.
 */
export const MODEL_ID_HELP =
	"The model that runs the job, as MediaGen names it (e.g. flux-pro for images, vid-2 for video, voice-1 for audio). Copy it from the model picker in MediaGen's app, or reuse the model_id of an earlier generation (Generation → Get). The cost depends on the model: the Estimate operation tells it for free.";

/** A Model ID in a few words, for a model reading a tool description. */
const MODEL_ID_SHORT =
	"the model's name at MediaGen, e.g. flux-pro for images, vid-2 for video, voice-1 for audio";

/** What a Model ID looks like, in the empty field. */
export const MODEL_ID_PLACEHOLDER = 'e.g. flux-pro';

/**
 * Where the IDs of a plain ID field come from, by its display name (located fields say it
 * themselves): a locator kind, or the words.
 */
const ID_ORIGINS: Array<[RegExp, LocatorKind | string]> = [
	[/^Batch ID$/, 'The batch_id shared by generations started together (Generation → Get Many)'],
	[/Scene ID$/, 'The ID of a scene: Scene → Add, or the scenes of Cinema Project → Get'],
	[/^Shot IDs$/, 'IDs of shots: Shot → Add, or the shots of Cinema Project → Get'],
	[/^Variant IDs?$/, 'ID of an ad variant: Ad Variant → Get Many, or the outputs of Run Matrix'],
	[/^Action ID$/, 'The ID of a proposed action: the actions in Session → Get or Send Message'],
	[/^Copy ID$/, 'The ID of an ad copy entry: Ad Copy → Generate or Create'],
	[/^Delivery ID$/, 'The ID of a delivery: Webhook → Get Deliveries'],
	[/^Effect ID$/, 'The ID of an effect: the items of Effect → Get Collections'],
	[/^Format ID$/, "The ID of a content format, as MediaGen's app names it (e.g. a viral format)"],
	[/^Preset ID$/, 'characterPreset'],
	[/^Run ID$/, 'The ID of a canvas run: Run → Start or Get Many'],
	[/^Series ID$/, 'The ID of a content series: Series → Plan or Get Many'],
	[/^Series Item ID$/, 'The ID of a series item: the items of Series → Get'],
	[/^Template ID$/, "The ID of a template, as MediaGen's template gallery names it"],
	[/^Upload ID$/, 'The upload ID in the answer of Asset → Upload (a started upload)'],
	[/^ID$/, 'Your own ID for this entry, unique within its list (other entries refer to it)'],
	[/Character/, 'character'],
	[/Asset|^IDs$|^Add$|^Remove$|Style Refs/, 'asset'],
];

function idHelp(name: string): string | undefined {
	const found = ID_ORIGINS.find(([re]) => re.test(name))?.[1];
	if (!found) return undefined;
	return found in LOCATORS ? idOrigin(found as LocatorKind) : found;
}

/** A short example for JSON fields whose declaration has none. */
const JSON_EXAMPLE = 'e.g. {"key": "value"}';

export function describe(field: Field, key = ''): string | undefined {
	let own = field.description;
	const name = displayNameOf(key, field);
	const isId =
		field.kind === 'uuid' ||
		(field.kind === 'list' && field.of === 'uuid') ||
		(field.kind === 'string' && /\bIDs?$/.test(name));
	if (/modelId$/i.test(key)) own = own ? `${own}. ${MODEL_ID_HELP}` : MODEL_ID_HELP;
	else if (isId && !(field.kind === 'uuid' && field.locator) && !own?.includes('→')) {
		const origin = idHelp(name);
		own = own && origin ? `${own}. ${origin}` : (own ?? origin);
	}
	const isJson =
		field.kind === 'json' ||
		((field.kind === 'object' || field.kind === 'objectList') && field.asJson);
	if (isJson && !/e\.g\.|\{/.test(own ?? '')) {
		own = own ? `${own}, ${JSON_EXAMPLE}` : `A JSON object, ${JSON_EXAMPLE}`;
	}
	const text = [own, limitsText(field)].filter(Boolean).join('. ').replace(/\.\./g, '.');
	return text || undefined;
}

/** A required field as a tool description names it: with where its value comes from. */
export function needOf(key: string, f: Field, displayName: string): string {
	if (f.kind === 'uuid' && f.locator) return `${displayName} (from ${LOCATORS[f.locator].origin})`;
	if (/modelId$/i.test(key)) return `${displayName} (${MODEL_ID_SHORT})`;
	const origin = /\bIDs?$/.test(displayName) ? idHelp(displayName) : undefined;
	return origin
		? `${displayName} (${origin.replace(/^[A-Z](?=[a-z])/, (c) => c.toLowerCase())})`
		: displayName;
}
