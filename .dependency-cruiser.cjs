/**
 * The import rules of docs/architecture.md as code, checked by dependency-cruiser
 * (`npm run deps`, part of `npm test`; `npm run graph` draws the layers).
 *
 * The layers, top to bottom. A file imports only from its own folder and from folders further down
 * this list; within one folder anything goes. Layer 1 is the node folders: nodes/<Node>/ for each
 * action node and nodes/MediaGenTrigger/; each imports no other node folder.
 * The trigger shares with the action nodes only what TRIGGER_MAY_IMPORT names.
 * credentials/ imports only CREDENTIALS_MAY_IMPORT of the project. sandbox/ is written from the spec
 * alone: it imports nothing of nodes/ or credentials/. No circle anywhere in nodes/, credentials/ or
 * sandbox/, type-only imports included (`tsPreCompilationDeps: true`): a type-only circle still ties
 * the files' meanings together, and today's tree has none.
 */
const SHARED_LAYERS = [
	'node', // node versions
	'run', // execute.ts: the phases
	'form',
	'budget',
	'behaviours',
	'durable',
	'jobs',
	'webhooks',
	'files',
	'fields',
	'catalog',
	'transport',
];

const TRIGGER_MAY_IMPORT = [
	'^nodes/shared/transport/',
	'^nodes/shared/catalog/',
	'^nodes/shared/files/',
	'^nodes/shared/jobs/output\\.ts$',
	'^nodes/shared/webhooks/',
];

const CREDENTIALS_MAY_IMPORT = [
	'^credentials/',
	'^nodes/shared/transport/',
	'^nodes/shared/budget/settings\\.ts$',
];

/** The node folders: every folder of nodes/ but shared/ (layer 1). */
const NODE_FOLDER = '^nodes/(?!shared/)[^/]+/';

/** One rule per shared layer: nothing from the layers above it, nor from a node folder. */
const layerRules = SHARED_LAYERS.map((layer, index) => ({
	name: `${layer}-imports-only-down`,
	comment:
		`nodes/shared/${layer}/ is layer ${index + 2} of ${SHARED_LAYERS.length + 1}: it imports only ` +
		`its own folder and ${SHARED_LAYERS.slice(index + 1).join(', ') || 'nothing of nodes/shared'} ` +
		'(docs/architecture.md, the layers).',
	severity: 'error',
	from: { path: `^nodes/shared/${layer}/` },
	to: {
		path: [NODE_FOLDER, ...SHARED_LAYERS.slice(0, index).map((above) => `^nodes/shared/${above}/`)],
	},
}));

module.exports = {
	forbidden: [
		...layerRules,
		{
			name: 'shared-code-is-in-a-layer',
			comment:
				`Every file of nodes/shared/ that is imported sits in one of the layer folders ` +
				`(${SHARED_LAYERS.join(', ')}): a new folder is added to SHARED_LAYERS in ` +
				'.dependency-cruiser.cjs at its place, so that the rules above cover it.',
			severity: 'error',
			from: {},
			to: { path: '^nodes/shared/', pathNot: `^nodes/shared/(${SHARED_LAYERS.join('|')})/` },
		},
		{
			name: 'node-folders-apart',
			comment:
				'A node folder (an action node or the trigger) imports no other node folder: the ' +
				'action nodes share code through nodes/shared/ only, and never with the trigger.',
			severity: 'error',
			from: { path: '^nodes/(?!shared/)([^/]+)/' },
			to: { path: NODE_FOLDER, pathNot: '^nodes/$1/' },
		},
		{
			name: 'trigger-shares-little',
			comment:
				'The trigger imports of nodes/shared/ only transport/, catalog/, files/, jobs/output.ts ' +
				'and webhooks/: nothing of the run, its behaviours, durable work, budget or forms.',
			severity: 'error',
			from: { path: '^nodes/MediaGenTrigger/' },
			to: { path: '^nodes/shared/', pathNot: TRIGGER_MAY_IMPORT },
		},
		{
			name: 'credentials-import-little',
			comment:
				'credentials/ imports of the project only nodes/shared/transport/ and ' +
				'nodes/shared/budget/settings.ts.',
			severity: 'error',
			from: { path: '^credentials/' },
			to: { dependencyTypes: ['local'], pathNot: CREDENTIALS_MAY_IMPORT },
		},
		{
			name: 'nodes-import-no-credentials',
			comment:
				'credentials/ stands beside the node folders at the top (n8n loads both): nothing in ' +
				'nodes/ imports it.',
			severity: 'error',
			from: { path: '^nodes/' },
			to: { path: '^credentials/' },
		},
		{
			name: 'published-code-imports-no-dev-code',
			comment:
				'nodes/ and credentials/ are published: they import nothing of sandbox/, test/, ' +
				'scripts/ or bench/.',
			severity: 'error',
			from: { path: '^(nodes|credentials)/' },
			to: { path: '^(sandbox|test|scripts|bench)/' },
		},
		{
			name: 'sandbox-independent',
			comment:
				'sandbox/ is written from the spec, independently of the package: it imports nothing ' +
				'of nodes/ or credentials/.',
			severity: 'error',
			from: { path: '^sandbox/' },
			to: { path: '^(nodes|credentials)/' },
		},
		{
			name: 'no-circular',
			comment:
				'No import circle in nodes/, credentials/ or sandbox/, type-only imports included: ' +
				'a circle means no file of it can be read, tested or moved without the others.',
			severity: 'error',
			from: { path: '^(nodes|credentials|sandbox)/' },
			to: { circular: true },
		},
	],
	options: {
		doNotFollow: { path: 'node_modules' },
		// Type-only imports are dependencies too (see above).
		tsPreCompilationDeps: true,
		tsConfig: { fileName: 'tsconfig.test.json' },
		reporterOptions: {
			// `npm run graph`: one box per folder (a layer, a node, credentials/).
			archi: {
				collapsePattern: '^(nodes/shared/[^/]+|nodes/[^/]+|credentials)/',
			},
		},
	},
};
