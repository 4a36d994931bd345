/** A job's paths filled in from the catalog's templates, and the times of its records. */
/** Fills `{jobId}` and the request's path parameters into a path template. */
export function fillPath(template: string, jobId: string, params: Record<string, string>): string {
	return template.replace(/\{(\w+)\}/g, (_, name: string) =>
		encodeURIComponent(name === 'jobId' ? jobId : (params[name] ?? '')),
	);
}

/** A time from a record (ISO text or milliseconds), undefined when it is none. */
export function timeOf(value: unknown): number | undefined {
	if (typeof value !== 'string' && typeof value !== 'number') return undefined;
	const time = typeof value === 'number' ? value : Date.parse(value);
	return Number.isFinite(time) ? time : undefined;
}
