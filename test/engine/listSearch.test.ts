// Resource locator lists (#15): a search in a list whose endpoint has no search parameter walks
// pages (bounded) and finds matches beyond the first page; an unfiltered list is one page of 50.
import { listSearch, SCAN } from '../../nodes/shared/fields/listSearch';
import { loadOptionsContext, useSandbox } from '../harness/engine/setup';

const { sb } = useSandbox();

async function createCollections(names: string[]) {
	for (const name of names) {
		const res = await fetch(`${sb.baseUrl}/collections`, {
			method: 'POST',
			headers: { authorization: `Bearer ${sb.keys.pro}`, 'content-type': 'application/json' },
			body: JSON.stringify({ name }),
		});
		expect(res.status).toBe(201);
	}
}

const lists = () => sb.control.requests({ method: 'GET', path: '/collections' });

test('a match on the third page of 50 is found; the walk reads pages of 100 and stops at the end', async () => {
	// created oldest first: the list (newest first) shows "Needle" after 130 others
	await createCollections(['Needle box', ...Array.from({ length: 130 }, (_, i) => `Shelf ${i}`)]);
	sb.control.clearRequests();
	const ctx = loadOptionsContext(sb.baseUrl, sb.keys.pro);

	const first = await listSearch.searchCollections.call(ctx);
	expect(first.results).toHaveLength(50);
	expect(first.results.some((r) => r.name === 'Needle box')).toBe(false);
	expect(first.paginationToken).toBeDefined();

	sb.control.clearRequests();
	const found = await listSearch.searchCollections.call(ctx, 'needle');
	expect(found.results.map((r) => r.name)).toEqual(['Needle box']);
	expect(found.paginationToken).toBeUndefined();
	// 131 records: two pages of 100, the end reached
	expect(lists().map((r) => r.query.limit)).toEqual(['100', '100']);
});

test('the walk is bounded: after SCAN.pages pages it offers the rest as the next page of results', async () => {
	const saved = { ...SCAN };
	Object.assign(SCAN, { pageSize: 10, pages: 2 });
	try {
		await createCollections(['Needle old', ...Array.from({ length: 30 }, (_, i) => `Shelf ${i}`)]);
		sb.control.clearRequests();
		const ctx = loadOptionsContext(sb.baseUrl, sb.keys.pro);
		const page1 = await listSearch.searchCollections.call(ctx, 'needle');
		expect(page1.results).toEqual([]);
		expect(lists()).toHaveLength(2);
		expect(page1.paginationToken).toBeDefined();
		const page2 = await listSearch.searchCollections.call(ctx, 'needle', page1.paginationToken);
		expect(page2.results.map((r) => r.name)).toEqual(['Needle old']);
		expect(lists()).toHaveLength(4);
	} finally {
		Object.assign(SCAN, saved);
	}
});
