import type { FieldMap } from '../dsl';
import { bool, endpoint, group, objectList, oneOf, ref, str } from '../dsl';

export const FONT_ROLES = ['heading', 'body', 'accent'] as const;
export const ASSET_ROLES = ['logo', 'reference', 'guideline'] as const;

const brandKitId = { id: ref('brandKit') };

/** Color item: {name: string ≤40 =''; hex: string*}. */
const colorItem: FieldMap = {
	name: str({ max: 40, default: '' }),
	hex: str({
		required: true,
		displayName: 'Hex',
		placeholder: '#1A2B3C',
		description: 'The colour as a hex code: #RGB or #RRGGBB',
		pattern: { regex: '^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$', example: '#1A2B3C' },
	}),
};
/** Font item: {name: string* ≤60; role: heading|body|accent =heading}. */
const fontItem: FieldMap = {
	name: str({ required: true, max: 60 }),
	role: oneOf(FONT_ROLES, { default: 'heading' }),
};

/** Spec doc 2, "Brand kits". */
export const brandKits = group('brandKit', 'Brand Kit', { doc: 2, section: 'Brand kits' }, [
	endpoint('getAll', 'GET /brands', 'content.read', {
		name: 'Get Many',
		action: 'Get many brand kits',
		paginate: 'string',
	}),
	endpoint('create', 'POST /brands', 'content.create', {
		name: 'Create',
		action: 'Create a brand kit',
		body: {
			name: str({ required: true, max: 80 }),
			website: str({ max: 300, default: '' }),
			tone: str({ max: 300, default: '', description: 'Tone of voice' }),
			guidelines: str({ max: 5000, default: '', rows: 4 }),
			colors: objectList(colorItem, { default: [], description: 'Brand colours' }),
			fonts: objectList(fontItem, { default: [], description: 'Brand fonts and their roles' }),
		},
	}),
	endpoint('get', 'GET /brands/{id}', 'content.read', {
		name: 'Get',
		action: 'Get a brand kit',
		path: brandKitId,
	}),
	endpoint('update', 'PATCH /brands/{id}', 'content.create', {
		name: 'Update',
		action: 'Update a brand kit',
		description: 'Update a brand kit; colors and fonts given replace the saved lists',
		path: brandKitId,
		body: {
			name: str({ max: 80 }),
			website: str({ max: 300 }),
			tone: str({ max: 300, description: 'Tone of voice' }),
			guidelines: str({ max: 5000, rows: 4 }),
			colors: objectList(colorItem, { description: 'Brand colours (replace the saved ones)' }),
			fonts: objectList(fontItem, { description: 'Brand fonts (replace the saved ones)' }),
		},
	}),
	endpoint('delete', 'DELETE /brands/{id}', 'content.delete', {
		name: 'Delete',
		action: 'Delete a brand kit',
		path: brandKitId,
	}),
	endpoint('setAsset', 'POST /brands/{id}/assets', 'content.create', {
		name: 'Add or Remove Asset',
		action: 'Add or remove a brand kit asset',
		description: 'Add a logo, reference or guideline file to a brand kit, or remove it',
		path: brandKitId,
		body: {
			assetId: ref('asset', { required: true }),
			role: oneOf(ASSET_ROLES, { required: true }),
			remove: bool({
				description: 'Whether to remove the asset from this role instead of adding it',
			}),
		},
	}),
]);
