/**
 * zod vocabulary mirroring the spec's notation (`string* ≤N`, `[a..b]`, `a|b|c`, `uuid`, `=v`),
 * plus query-string coercion and the conversion of zod issues to `details.issues`.
 * Unknown fields are ignored (zod objects strip them).
 */
import { z, type ZodTypeAny } from 'zod';
import { validationError, type Issue } from './http';

/** `string ≤N` */
export const str = (max?: number) => (max === undefined ? z.string() : z.string().max(max));
/** `uuid` */
export const uuid = () => z.string().uuid();
/** `integer [a..b]` */
export const int = (min?: number, max?: number) => {
	let s = z.number().int();
	if (min !== undefined) s = s.min(min);
	if (max !== undefined) s = s.max(max);
	return s;
};
/** `a|b|c` */
export const oneOf = <T extends readonly [string, ...string[]]>(values: T) =>
	z.enum(values as unknown as [string, ...string[]]) as unknown as z.ZodEnum<
		[T[number], ...T[number][]]
	>;
/** `obj` without listed fields */
export const obj = () => z.record(z.unknown());

/** Query value: integer given as text. */
export const qInt = (min?: number, max?: number) =>
	z.preprocess(
		(v) => (typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v),
		int(min, max),
	);
/** Query value: `true|false` given as text. */
export const qBool = () =>
	z.preprocess(
		(v) => (v === 'true' ? true : v === 'false' ? false : v),
		z.boolean({ invalid_type_error: 'Expected true or false' }),
	);

/** Common list query: limit (≥1, values above 100 mean 100) and an opaque before cursor. */
export const pageQuery = {
	limit: qInt(1)
		.transform((n) => Math.min(n, 100))
		.optional(),
	before: z.string().optional(),
};

export function toIssues(err: z.ZodError): Issue[] {
	return err.issues.map((i) => ({ path: i.path.join('.'), message: i.message, code: i.code }));
}

/** Parses with a schema; throws 422 listing every issue. `prefix` is prepended to issue paths. */
export function parse<S extends ZodTypeAny>(
	schema: S,
	value: unknown,
	prefix?: string,
): z.output<S> {
	const r = schema.safeParse(value);
	if (r.success) return r.data;
	const issues = toIssues(r.error);
	if (prefix) for (const i of issues) i.path = i.path ? `${prefix}.${i.path}` : prefix;
	throw validationError(issues);
}

export { z };
