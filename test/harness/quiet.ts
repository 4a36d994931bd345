/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev-only code (sandbox, tests, scripts): never published, see package.json "files" */
/**
 * Jest `setupFiles` (jest.config.js): before each test file, n8n's log level is set to `silent`,
 * so that a passing suite prints no n8n log lines. The engine tests run n8n-core's engine
 * in-process; for every node error it handles, `WorkflowExecute.reportNodeExecutionError` calls
 * n8n-core's `ErrorReporter.error`, which logs the message through @n8n/backend-common's `Logger`
 * (winston, console transport). N8N_LOG_LEVEL is n8n's own setting for that Logger: @n8n/config's
 * `LoggingConfig.level` reads it when the GlobalConfig is made, and the Logger is a silent winston
 * logger for `silent`. Jest reports a failing test in full all the same. Child processes of the
 * tests (the crash workers of test/engine) inherit it. To see n8n's log lines, set it yourself:
 * `N8N_LOG_LEVEL=info npx jest test/engine/foundation.test.ts`.
 */
process.env.N8N_LOG_LEVEL ??= 'silent';
