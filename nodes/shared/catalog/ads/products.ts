import { endpoint, group, json, oneOf, ref, str, strList, uuidList } from '../dsl';

const productId = { id: ref('product') };
const SOURCES = ['url', 'image', 'manual', 'creative'] as const;

/** Spec doc 2, "Products". */
export const products = group('product', 'Product', { doc: 2, section: 'Products' }, [
	endpoint('import', 'POST /products/import', 'content.create', {
		name: 'Import From URL',
		action: 'Import a product from a URL',
		description:
			'Read public product data from a URL into an editable draft (robots.txt respected); nothing is saved',
		body: {
			url: str({ required: true, max: 2000, displayName: 'URL', placeholder: 'https://…' }),
		},
	}),
	endpoint('describe', 'POST /products/describe', 'content.create', {
		name: 'Describe From Photo',
		action: 'Describe a product from a photo',
		description: 'Draft product details from a product photo; nothing is saved',
		body: { assetId: ref('asset', { required: true, displayName: 'Photo' }) },
	}),
	endpoint('getAll', 'GET /products', 'content.read', {
		name: 'Get Many',
		action: 'Get many products',
		paginate: 'string',
		query: { brandKitId: ref('brandKit') },
	}),
	endpoint('create', 'POST /products', 'content.create', {
		name: 'Create',
		action: 'Create a product',
		body: {
			name: str({ required: true, max: 160 }),
			description: str({ max: 5000, default: '', rows: 3 }),
			category: str({ max: 80, default: '' }),
			features: strList({ default: [] }),
			benefits: strList({ default: [] }),
			price: str({ max: 40, default: '' }),
			currency: str({ max: 8, default: '' }),
			url: str({ max: 1000, default: '', displayName: 'URL' }),
			brandKitId: ref('brandKit'),
			imageAssetIds: uuidList({ default: [], displayName: 'Image Asset IDs' }),
			source: oneOf(SOURCES, { description: 'Where the product details came from' }),
			import: json({ description: 'The import data of a draft, as a JSON object' }),
		},
	}),
	endpoint('get', 'GET /products/{id}', 'content.read', {
		name: 'Get',
		action: 'Get a product',
		path: productId,
	}),
	endpoint('update', 'PATCH /products/{id}', 'content.create', {
		name: 'Update',
		action: 'Update a product',
		path: productId,
		body: {
			name: str({ max: 160 }),
			description: str({ max: 5000, rows: 3 }),
			category: str({ max: 80 }),
			features: strList(),
			benefits: strList(),
			price: str({ max: 40 }),
			currency: str({ max: 8 }),
			url: str({ max: 1000, displayName: 'URL' }),
			brandKitId: ref('brandKit'),
			imageAssetIds: uuidList({ displayName: 'Image Asset IDs' }),
		},
	}),
	endpoint('delete', 'DELETE /products/{id}', 'content.delete', {
		name: 'Delete',
		action: 'Delete a product',
		path: productId,
	}),
]);
