/**
 * Credits (doc 1). Ledger `all`: false (default) lists settled transactions only (grant,
 * adjustment, charge); true adds the reservation bookkeeping (reserve, release).
 */
import { json } from '../http';
import { route } from '../route';
import { pageQuery, qBool, qInt, z } from '../validation';
import { paginateById } from '../pagination';
import { creditsView } from '../views';

export const creditRoutes = [
	route({
		method: 'GET',
		path: '/credits',
		scope: 'content.read',
		handler: ({ ws }) => json(creditsView(ws)),
	}),
	route({
		method: 'GET',
		path: '/credits/ledger',
		scope: 'billing.view',
		query: z.object({
			limit: pageQuery.limit,
			before: qInt().optional(),
			all: qBool().default(false),
		}),
		handler: ({ ws, query }) => json(paginateById(query.all ? ws.ledger : ws.settled(), query)),
	}),
];
