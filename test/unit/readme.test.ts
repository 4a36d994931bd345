/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import {
	OPERATIONS_PAGE,
	operationsTable,
	withOperationsTable,
} from '../../scripts/operations-table';
import { MANUAL_INSTALL_FLAGS, NODES_NPMRC_LINE } from '../e2e/n8n';

const ROOT = resolve(__dirname, '../..');
const README = 'README.md';

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

test('the operations table (docs/operations.md) is generated from the catalog and up to date', () => {
	const page = read(OPERATIONS_PAGE);
	expect(page).toContain(operationsTable());
	// what `npm run docs:operations -- --check` checks: rewriting the page changes nothing
	expect(withOperationsTable(page)).toBe(page);
	expect(read(README)).toContain(`(${OPERATIONS_PAGE})`);
});

test("the README's manual install is the command the e2e suite checks (one n8n-workflow)", () => {
	const readme = read(README);
	expect(readme).toContain(`npm install n8n-nodes-mediagen ${MANUAL_INSTALL_FLAGS.join(' ')}\n`);
	expect(readme).toContain(`echo "${NODES_NPMRC_LINE}" >> .npmrc\n`);
});
