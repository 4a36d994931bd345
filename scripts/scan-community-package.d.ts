/** Types for the parts of n8n's scanner (`@n8n/scan-community-package`, plain ESM) that scripts/scan.ts calls. */
declare module '@n8n/scan-community-package/scanner/scanner.mjs' {
	export const SOURCE_FILE_PATTERNS: string[];
	export function analyzePackage(
		packageDir: string,
		filePatterns?: string[],
	): Promise<{ passed: boolean; message?: string; details?: string }>;
}
