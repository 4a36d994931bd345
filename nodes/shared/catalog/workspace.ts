import { endpoint, group } from './dsl';

/** Spec doc 1, "Workspace". */
export const workspace = group('workspace', 'Workspace', { doc: 1, section: 'Workspace' }, [
	endpoint('get', 'GET /workspace', null, {
		name: 'Get',
		action: 'Get the workspace',
		description: 'Get the workspace of the API key',
	}),
]);
