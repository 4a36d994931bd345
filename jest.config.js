/** Jest: unit, sandbox and engine tests run in-process on Node; e2e tests need MEDIAGEN_E2E=1. */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }],
	},
	testTimeout: 30000,
	maxWorkers: 2,
};
