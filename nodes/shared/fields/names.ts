/** How catalog fields are named on the form, and where an operation's fields go on it. */
import type { Endpoint, Field, FieldMap } from '../catalog/dsl';

const ACRONYMS: Record<string, string> = { id: 'ID', ids: 'IDs', url: 'URL', uri: 'URI', q: 'Q' };

/** `cover_asset_id` -> "Cover Asset ID", `assetIds` -> "Asset IDs". */
export function displayNameOf(key: string, field?: Field): string {
	if (field?.displayName) return field.displayName;
	const words = key
		.replace(/([a-z0-9])([A-Z])/g, '$1 $2')
		.split(/[_\s]+/)
		.filter(Boolean);
	return words
		.map((w) => ACRONYMS[w.toLowerCase()] ?? w.charAt(0).toUpperCase() + w.slice(1))
		.join(' ');
}

/** Enum value -> option name: `primary_text` -> "Primary Text", `16:9` stays. */
export function optionNameOf(value: string): string {
	if (!/^[a-z]/i.test(value)) return value;
	return displayNameOf(value);
}

/** The n8n parameter name of a path parameter: a located `{id}` becomes `projectId`. */
export function pathParamName(key: string, field: Field): string {
	return field.kind === 'uuid' && field.locator ? `${field.locator}Id` : key;
}

/** Name of the collection holding an operation's optional fields. */
export function optionalCollectionOf(e: Endpoint): { name: string; displayName: string } {
	if (e.paginate) return { name: 'filters', displayName: 'Filters' };
	if (e.operation === 'update') return { name: 'updateFields', displayName: 'Update Fields' };
	return { name: 'additionalFields', displayName: 'Additional Fields' };
}

/** An endpoint's fields split by where the form puts them; derived once per endpoint. */
export interface FormLayout {
	/** Fields the user types on the form itself: required ones and those marked `top`. */
	top: Array<[string, Field]>;
	/**
	 * Fields under the operation's collection: the other optional ones, plus the file name and
	 * MIME type of an upload as overrides. The file size and the idempotency key are never typed.
	 */
	optional: FieldMap;
}

const layouts = new WeakMap<Endpoint, FormLayout>();

export function layoutOf(e: Endpoint): FormLayout {
	let layout = layouts.get(e);
	if (!layout) {
		layout = { top: [], optional: {} };
		for (const [k, f] of [...Object.entries(e.query), ...Object.entries(e.body)]) {
			if ((f.required || f.top) && !f.derived) layout.top.push([k, f]);
			else if (f.derived === 'fileName' || f.derived === 'mimeType') {
				layout.optional[k] = { ...f, required: false };
			} else if (!f.derived) layout.optional[k] = f;
		}
		layouts.set(e, layout);
	}
	return layout;
}
