/** Jest: unit, sandbox and engine tests run in-process on Node; e2e tests need MEDIAGEN_E2E=1. */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	// n8n's log lines silenced (N8N_LOG_LEVEL), so that a passing suite is quiet
	setupFiles: ['<rootDir>/test/harness/quiet.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }],
	},
	// a stuck test fails at this bound; a slow one on a loaded machine (CI installs n8n beside the
	// suite) is not stuck: test/harness/sandbox/helpers.ts WAIT_MS is below it
	testTimeout: 120_000,
	maxWorkers: 2,
};
