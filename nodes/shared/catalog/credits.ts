import { endpoint, flag, group } from './dsl';

/** Spec doc 1, "Credits". */
export const credits = group('credit', 'Credit', { doc: 1, section: 'Credits' }, [
	endpoint('getBalance', 'GET /credits', 'content.read', {
		name: 'Get Balance',
		action: 'Get the credit balance',
	}),
	endpoint('getLedger', 'GET /credits/ledger', 'billing.view', {
		name: 'Get Ledger',
		action: 'Get credit transactions',
		description: 'Get credit transactions, newest first (needs the billing.view scope)',
		paginate: 'integer',
		query: {
			all: flag({ displayName: 'All', description: 'Whether to pass all=true to the ledger' }),
		},
	}),
]);
