/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { operationsTable } from '../../scripts/operations-table';

test('the README operations table is generated from the catalog and up to date', () => {
	const readme = readFileSync(join(__dirname, '../../README.md'), 'utf8');
	expect(readme).toContain(operationsTable());
});
