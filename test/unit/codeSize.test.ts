/**
 * The size limits of the published code (docs/architecture.md): no file of nodes/ or
 * credentials/ over 500 lines and no function over 80, by the TypeScript compiler's parse.
 */
import { LIMITS, measure } from '../../scripts/code-size';

const { files, functions } = measure();

test('no file of nodes/ or credentials/ is over 500 lines', () => {
	expect(files.filter((f) => f.lines > LIMITS.fileLines)).toEqual([]);
	expect(files.length).toBeGreaterThan(50); // the files were found
});

test('no function of nodes/ or credentials/ is over 80 lines', () => {
	expect(functions.filter((f) => f.lines > LIMITS.functionLines)).toEqual([]);
	expect(functions.length).toBeGreaterThan(300);
});
