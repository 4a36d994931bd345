/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { operationsTable } from '../../scripts/operations-table';
import { MANUAL_INSTALL_FLAGS, NODES_NPMRC_LINE } from '../e2e/n8n';

test('the README operations table is generated from the catalog and up to date', () => {
	const readme = readFileSync(join(__dirname, '../../README.md'), 'utf8');
	expect(readme).toContain(operationsTable());
});

test("the README's manual install is the command the e2e suite checks (one n8n-workflow)", () => {
	const readme = readFileSync(join(__dirname, '../../README.md'), 'utf8');
	expect(readme).toContain(`npm install n8n-nodes-mediagen ${MANUAL_INSTALL_FLAGS.join(' ')}\n`);
	expect(readme).toContain(`echo "${NODES_NPMRC_LINE}" >> .npmrc\n`);
});
