/**
 * Every endpoint of the catalog has one behaviour: its declaration carries at most one of the
 * marks that choose one (nodes/shared/behaviours/index.ts, BEHAVIOURS), so no order of checks
 * decides what an endpoint does.
 */
import { BEHAVIOURS } from '../../nodes/shared/behaviours';
import { catalog } from '../../nodes/shared/catalog';

const endpoints = Object.values(catalog)
	.flat()
	.flatMap((g) => g.endpoints.map((e) => ({ id: `${g.resource}.${e.operation}`, e })));

test('no endpoint of the catalog carries the marks of two behaviours', () => {
	const doubles = endpoints
		.map(({ id, e }) => ({ id, marks: BEHAVIOURS.filter((b) => b.is(e)).map((b) => b.name) }))
		.filter(({ marks }) => marks.length > 1);
	expect(doubles).toEqual([]);
});

test('every behaviour is used by some endpoint', () => {
	const unused = BEHAVIOURS.filter((b) => !endpoints.some(({ e }) => b.is(e))).map((b) => b.name);
	expect(unused).toEqual([]);
});
