/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * Writes the operations table (docs/operations.md) from the catalog, between the markers
 * `<!-- operations:start -->` and `<!-- operations:end -->`.
 * `tsx scripts/operations-table.ts` rewrites the file; `--check` exits 1 when it is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { catalog } from '../nodes/shared/catalog';

/** Each action node's display name, by its type name. */
export const NODE_NAMES: Record<string, string> = {
	mediaGen: 'MediaGen',
	mediaGenInfluencer: 'MediaGen Influencer',
	mediaGenAds: 'MediaGen Ads',
	mediaGenEditor: 'MediaGen Editor',
	mediaGenCinema: 'MediaGen Cinema',
	mediaGenCanvas: 'MediaGen Canvas',
	mediaGen3d: 'MediaGen 3D',
	mediaGenAgent: 'MediaGen Agent',
};

const START = '<!-- operations:start -->';
const END = '<!-- operations:end -->';

/** The page that holds the table, from the repository root. */
export const OPERATIONS_PAGE = 'docs/operations.md';

export function operationsTable(): string {
	const lines: string[] = [];
	for (const [node, groups] of Object.entries(catalog)) {
		if (!groups.length) continue;
		const count = groups.reduce((n, g) => n + g.endpoints.length, 0);
		lines.push(`### ${NODE_NAMES[node] ?? node} (${count} operations)`, '');
		lines.push('| Resource | Operation | Endpoint | Scope | Notes |', '|---|---|---|---|---|');
		for (const g of [...groups].sort((a, b) => a.name.localeCompare(b.name))) {
			for (const e of g.endpoints) {
				const own = e.nodeOperation;
				const notes = [
					own?.kind === 'wait'
						? `node operation (version ${own.since}+): polls \`${e.method} ${e.path}\``
						: '',
					own?.kind === 'collect'
						? `node operation (version ${own.since}+): finds them by provenance with \`${e.method} ${e.path}\``
						: '',
					own?.kind === 'retryDeliveries'
						? `node operation (version ${own.since}+): \`PATCH /webhooks/{id}\` (status active) when disabled, then \`POST /webhooks/deliveries/{id}/retry\` for each failed delivery of \`${e.method} ${e.path}\`, oldest first`
						: '',
					e.paginate ? 'Return All / Limit' : '',
					e.job && !own ? 'Wait for Completion, Max Credits, Return As' : '',
					own?.kind === 'wait' ? 'Return As, Timeout' : '',
					own?.kind === 'collect' ? 'Wait for Completion, Return As' : '',
					e.idempotent ? 'Idempotency-Key' : '',
					e.binary === 'download' ? 'binary out (streamed)' : '',
					e.binary === 'upload' ? 'binary in (multipart, streamed)' : '',
					e.binary === 'text' ? 'text and file' : '',
				].filter(Boolean);
				const endpointCell = own ? '—' : `\`${e.method} ${e.path}\``;
				lines.push(
					`| ${g.name} | ${e.name} | ${endpointCell} | ${e.scope ?? '—'} | ${notes.join('; ')} |`,
				);
			}
		}
		lines.push('');
	}
	return lines.join('\n');
}

/** The page's text with the table between its markers replaced by the catalog's. */
export function withOperationsTable(page: string): string {
	const start = page.indexOf(START);
	const end = page.indexOf(END);
	if (start < 0 || end < start) throw new Error(`${OPERATIONS_PAGE} lacks the operations markers`);
	return `${page.slice(0, start + START.length)}\n\n${operationsTable()}\n${page.slice(end)}`;
}

function main() {
	const path = join(__dirname, '..', OPERATIONS_PAGE);
	const page = readFileSync(path, 'utf8');
	const next = withOperationsTable(page);
	if (process.argv.includes('--check')) {
		if (next !== page) {
			process.stderr.write(
				`${OPERATIONS_PAGE}: the operations table is stale: run npm run docs:operations\n`,
			);
			process.exit(1);
		}
		return;
	}
	writeFileSync(path, next);
}

if (require.main === module) main();
