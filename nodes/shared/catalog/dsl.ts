/**
 * The catalog language: the builders every endpoint of the spec is declared with, once, in the
 * shape of its spec line (the notation and its builders: docs/architecture.md).
 */

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };

/** Resource kinds that have a searchable list in the UI (resource locator). */
export type LocatorKind =
	| 'project'
	| 'collection'
	| 'asset'
	| 'generation'
	| 'webhook'
	| 'character'
	| 'characterPreset'
	| 'brandKit'
	| 'product'
	| 'adProject'
	| 'edit'
	| 'effectCollection'
	| 'audioMix'
	| 'cinemaProject'
	| 'canvasWorkflow'
	| 'scene3d'
	| 'agentSession';

interface FieldCommon {
	required?: boolean;
	/** The spec's default (`=v`); absent when the spec gives none. */
	default?: JsonValue;
	/** Overrides the display name derived from the field's key. */
	displayName?: string;
	description?: string;
	placeholder?: string;
	/** An optional field shown on the form itself rather than under Additional Fields. */
	top?: boolean;
	/**
	 * Filled by the operation's behaviour, not typed by the user: from the input binary file
	 * (upload), or the Idempotency-Key option (sent as the header the spec allows instead).
	 */
	derived?: 'fileName' | 'mimeType' | 'fileSize' | 'idempotencyKey';
}

export interface StringField extends FieldCommon {
	kind: 'string';
	max?: number;
	format?: 'uri';
	/** A shape the value must have, checked before sending: a regular expression and an example. */
	pattern?: { regex: string; example: string };
	rows?: number;
}
export interface NumberField extends FieldCommon {
	kind: 'integer' | 'number';
	min?: number;
	max?: number;
}
export interface BooleanField extends FieldCommon {
	kind: 'boolean';
}
export interface UuidField extends FieldCommon {
	kind: 'uuid';
	/** Shown as a resource locator with a searchable list of this kind. */
	locator?: LocatorKind;
}
export interface OptionsField extends FieldCommon {
	kind: 'options';
	values: readonly string[];
}
export interface MultiOptionsField extends FieldCommon {
	kind: 'multiOptions';
	values: readonly string[];
	max?: number;
}
export interface ListField extends FieldCommon {
	kind: 'list';
	/** Type of each entry; the UI accepts an array (expression) or a comma-separated string. */
	of: 'string' | 'uuid' | 'integer';
	max?: number;
}
export interface JsonField extends FieldCommon {
	kind: 'json';
	/** The object's keys are the request body itself (a body the spec gives only as `obj`). */
	spread?: boolean;
	/**
	 * From node version 3 the object can also be typed as name/value pairs on the form, the
	 * default there (../fields/namedValues.ts): for a flat object of free keys, e.g. builder attributes.
	 */
	namedValues?: boolean;
}
export interface ObjectField extends FieldCommon {
	kind: 'object';
	fields: FieldMap;
	/**
	 * Typed as JSON on the form (from a previous node or by hand) instead of as nested form
	 * fields; still checked field by field, and the spec's defaults are filled in.
	 */
	asJson?: boolean;
}
export interface ObjectListField extends FieldCommon {
	kind: 'objectList';
	fields: FieldMap;
	/** As for ObjectField: a JSON array on the form, checked item by item, defaults filled in. */
	asJson?: boolean;
	/**
	 * From node version 3 the list can come from the input items, the default there: each input
	 * item is one entry (checked field by field), and all of them go into one request
	 * (../behaviours/itemLists.ts).
	 */
	fromItems?: boolean;
}

export type Field =
	| StringField
	| NumberField
	| BooleanField
	| UuidField
	| OptionsField
	| MultiOptionsField
	| ListField
	| JsonField
	| ObjectField
	| ObjectListField;

export type FieldMap = Record<string, Field>;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The type of a list's `before` cursor. */
export type CursorType = 'string' | 'integer';

/** Behaviour beyond "send the request, return the JSON", each implemented once in ../behaviours/. */
export interface EndpointBehaviour {
	/**
	 * A list with cursor pagination (`limit`, `before`): Return All / Limit. The value is the type
	 * of its `before` cursor (string on most lists, integer on the ledger: spec, Pagination).
	 */
	paginate?: CursorType;
	/** Keys of the list envelope copied into every output item (e.g. `eventTypes`). */
	listExtras?: string[];
	/** Sends an Idempotency-Key header (job-creating endpoints). */
	idempotent?: boolean;
	/**
	 * Jobs: those the endpoint starts (StartsJobs: one, or several in `{ data: [...] }`), or those
	 * a node operation waits for (WaitsForJobs). Wait for Completion polls `poll`; Return As JSON,
	 * Binary or Both; Max Credits POSTs the same body to `estimate` first.
	 */
	job?: StartsJobs | WaitsForJobs;
	/**
	 * A call that MediaGen charges and answers at once (no job): where the work it did is listed,
	 * so that a retry does not charge it twice (see ChargedRule).
	 */
	charged?: ChargedRule;
	/**
	 * A plain call that starts a job again whose answer is its generation record (Generation →
	 * Retry: credits reserved again): the credit budget counts it and cancels it at `cancel`
	 * (`{jobId}`: the record's id) when it is over (../budget/).
	 */
	reserves?: { cancel: string };
	/**
	 * A node operation of its own (no endpoint of the spec): it waits for jobs that already exist
	 * (`wait`: the job id is the path parameter `jobId`), collects the generations an n8n
	 * execution started (`collect`, found by their provenance), or retries the failed deliveries
	 * of a webhook endpoint (`retryDeliveries`, read from its delivery log). From node version
	 * `since`.
	 */
	nodeOperation?: { kind: 'wait' | 'collect' | 'retryDeliveries'; jobId?: string; since: number };
	/**
	 * Binary in or out: download an asset, upload a binary file, a text answer as a file, or an
	 * answer that is an asset whose file can be downloaded too (`resultAsset`).
	 */
	binary?: 'download' | 'upload' | 'text' | 'resultAsset';
	/** A sentence added to the output as `notice` (e.g. a secret that is shown only once). */
	notice?: string;
	/**
	 * What a language model is told the operation does, where it is not the form's description:
	 * a released tool description kept when the form's wording changed (its text is the default of
	 * a pinned parameter, ../form/tool.ts).
	 */
	toolText?: string;
	/**
	 * When the body field `field` is left empty, POST the estimate at `path` first and send its
	 * `credits` there (e.g. a canvas run's expectedCredits). Max Credits reuses that estimate.
	 */
	estimateInto?: { path: string; field: string };
	/**
	 * From node version 3 the answer's list under this key is the output, one item per entry
	 * (e.g. the combinations of a matrix preview), instead of one item holding the answer
	 * (../behaviours/itemLists.ts).
	 */
	answerList?: string;
}

export interface Endpoint extends EndpointBehaviour {
	/** Operation value, n8n style: create, delete, get, getAll, update, or a verb. */
	operation: string;
	/** Operation display name, n8n style: Create, Delete, Get, Get Many, Update, … */
	name: string;
	/** Text of the action (shown in the nodes panel), e.g. "Create a project". */
	action: string;
	description: string;
	method: HttpMethod;
	/** Spec path, `{id}` placeholders included. */
	path: string;
	/** Scope named by the spec, null where the spec shows none. */
	scope: string | null;
	pathParams: FieldMap;
	query: FieldMap;
	body: FieldMap;
}

/**
 * How a job is read: `poll` (its record; `{jobId}` is the job's id, `{name}` a path parameter of
 * the request); `within`: the polled record holds the job in this array (e.g. an edit's
 * `exports`); `cancel`: POST path that cancels it (Stop of the execution uses it); `list`: list
 * path returning such jobs newest first with `status=all`, `limit` and `before` (the run's jobs
 * are then polled together, a page of 100 per request).
 */
export interface JobPoll {
	poll: string;
	within?: string;
	cancel?: string;
	list?: string;
}

/** The jobs an endpoint starts: read as JobPoll says, priced at `estimate`, found again by `recover`. */
export interface StartsJobs extends JobPoll {
	waitsOnly?: never;
	estimate?: string;
	/** Where n8n's Retry finds the jobs an earlier try of the run started (required). */
	recover: RecoverRule;
}

/** The jobs a node operation (Wait, Collect) waits for: it starts none. */
export interface WaitsForJobs extends JobPoll {
	waitsOnly: true;
	estimate?: never;
	recover?: never;
}

/**
 * How the jobs of a create are found again after n8n lost the run (docs/batches.md):
 * - `provenance`: generations whose `context.n8n` names this workflow, node, run and item;
 * - `generations`: generations after the run's start whose fields match (`{id}` a path parameter,
 *   `{body.kind}` a body field, else a literal; `*{body.prompt}`: the field ends with it, for a
 *   text the service records after its own, e.g. a character's identity prompt), grouped by
 *   `batch_id` when `batch`;
 * - `list`: records of a list path after the run's start (`GET /canvas/{id}/runs`);
 * - `record`: entries of an array of a record made after the run's start (an edit's `exports`);
 * - `self`: the job itself, started again in place (a canvas run's retry).
 * Found jobs are given to the run's items in item order, oldest first, each job at most once.
 */
export type RecoverRule =
	| { by: 'provenance' }
	| { by: 'generations'; match: Record<string, string>; batch?: boolean }
	| { by: 'list'; path: string }
	| { by: 'record'; path: string; within: string }
	| { by: 'self'; path: string };

/**
 * How the work of a charged call that answers at once is found again (docs/batches.md): the
 * entries of `evidence.within` of the record at `evidence.path` (e.g. an edit's `aiTasks`) made
 * after the lost try began whose fields match (`{id}` a path parameter, `{body.x}` a body field,
 * else a literal); the call's answer is then read again with a GET of `answer.path`, or, with
 * `answer.each` (a field of the entry holding ids), one GET per id (`{jobId}` in the path).
 */
export interface ChargedRule {
	evidence: { path: string; within: string; match: Record<string, string> };
	answer: { path: string; each?: string };
	/** POST path of the call's estimate (same body), where the API has one: the credit budget's. */
	estimate?: string;
}

/** The resource and operation a new node opens on (version 2 on); never a destructive one. */
export interface MainOperation {
	resource: string;
	operation: string;
}

export interface Group {
	/** Resource value, e.g. `project`. */
	resource: string;
	/** Resource display name, e.g. `Project`. */
	name: string;
	/** Spec document and section(s) the group comes from. */
	doc: 1 | 2 | 3;
	sections: string[];
	endpoints: Endpoint[];
}

// ---------------------------------------------------------------------------------------------
// Field builders

type Opts<F extends Field> = Omit<F, 'kind'>;

export const str = (o: Opts<StringField> = {}): StringField => ({ kind: 'string', ...o });
export const int = (o: Opts<NumberField> = {}): NumberField => ({ kind: 'integer', ...o });
export const num = (o: Opts<NumberField> = {}): NumberField => ({ kind: 'number', ...o });
export const bool = (o: Opts<BooleanField> = {}): BooleanField => ({ kind: 'boolean', ...o });
export const uuid = (o: Opts<UuidField> = {}): UuidField => ({ kind: 'uuid', ...o });
export const ref = (locator: LocatorKind, o: Opts<UuidField> = {}): UuidField => ({
	kind: 'uuid',
	locator,
	...o,
});
export const oneOf = (
	values: readonly string[],
	o: Omit<Opts<OptionsField>, 'values'> = {},
): OptionsField => ({ kind: 'options', values, ...o });
export const manyOf = (
	values: readonly string[],
	o: Omit<Opts<MultiOptionsField>, 'values'> = {},
): MultiOptionsField => ({ kind: 'multiOptions', values, ...o });
export const strList = (o: Omit<Opts<ListField>, 'of'> = {}): ListField => ({
	kind: 'list',
	of: 'string',
	...o,
});
export const uuidList = (o: Omit<Opts<ListField>, 'of'> = {}): ListField => ({
	kind: 'list',
	of: 'uuid',
	...o,
});
export const intList = (o: Omit<Opts<ListField>, 'of'> = {}): ListField => ({
	kind: 'list',
	of: 'integer',
	...o,
});
export const json = (o: Opts<JsonField> = {}): JsonField => ({ kind: 'json', ...o });
export const object = (
	fields: FieldMap,
	o: Omit<Opts<ObjectField>, 'fields'> = {},
): ObjectField => ({
	kind: 'object',
	fields,
	...o,
});
export const objectList = (
	fields: FieldMap,
	o: Omit<Opts<ObjectListField>, 'fields'> = {},
): ObjectListField => ({ kind: 'objectList', fields, ...o });

/** `true|false` in a query string. */
export const flag = (o: Opts<BooleanField> = {}): BooleanField => bool(o);

// ---------------------------------------------------------------------------------------------
// Endpoint builder

export interface EndpointDecl extends EndpointBehaviour {
	name: string;
	action: string;
	description?: string;
	/** Path parameters by placeholder name; default: every placeholder is a required string. */
	path?: FieldMap;
	query?: FieldMap;
	body?: FieldMap;
}

/**
 * Declares one endpoint: `endpoint('create', 'POST /projects', 'content.create', {...})`.
 * The second argument is the spec line's method and path, verbatim.
 */
export function endpoint(
	operation: string,
	line: string,
	scope: string | null,
	decl: EndpointDecl,
): Endpoint {
	const match = /^(GET|POST|PUT|PATCH|DELETE) (\/\S*)$/.exec(line);
	if (!match) throw new Error(`Catalog: bad endpoint line "${line}"`);
	const [, method, path] = match;
	const placeholders = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
	const pathParams: FieldMap = {};
	for (const name of placeholders) {
		const declared = decl.path?.[name];
		pathParams[name] = { ...(declared ?? str()), required: true } as Field;
	}
	for (const name of Object.keys(decl.path ?? {})) {
		if (!placeholders.includes(name)) {
			throw new Error(`Catalog: ${line} declares path parameter "${name}" that is not in the path`);
		}
	}
	// every behaviour option of the declaration is the endpoint's (nothing to copy by hand)
	// (`path`, the declaration's path fields, is replaced by the path itself below)
	const { name, action, description, query, body, ...behaviour } = decl;
	return {
		...behaviour,
		operation,
		name,
		action,
		description: description ?? action,
		method: method as HttpMethod,
		path,
		scope,
		pathParams,
		query: query ?? {},
		body: body ?? {},
	};
}

export function group(
	resource: string,
	name: string,
	source: { doc: 1 | 2 | 3; section: string | string[] },
	endpoints: Endpoint[],
): Group {
	const seen = new Set<string>();
	for (const e of endpoints) {
		if (seen.has(e.operation)) {
			throw new Error(`Catalog: resource ${resource} declares operation ${e.operation} twice`);
		}
		seen.add(e.operation);
	}
	const sections = Array.isArray(source.section) ? source.section : [source.section];
	return { resource, name, doc: source.doc, sections, endpoints };
}

/** How generations are read, listed and cancelled (doc 1, and every tool that makes them). */
export const GENERATION_POLL: JobPoll = {
	poll: '/generations/{jobId}',
	list: '/generations',
	cancel: '/generations/{jobId}/cancel',
} as const;

/** A generation job whose jobs are found again by `recover` (see RecoverRule). */
export const startsGenerations = (recover: RecoverRule, estimate?: string) => ({
	...GENERATION_POLL,
	...(estimate ? { estimate } : {}),
	recover,
});

/** Generations whose fields match (see RecoverRule `generations`), one batch per create. */
export const matching = (match: Record<string, string>, batch = false): RecoverRule => ({
	by: 'generations',
	match,
	...(batch ? { batch } : {}),
});

/**
 * A Wait operation for an export started earlier (Render of an edit, Export of an audio mix):
 * `line` is the GET of the record whose `exports` hold it, `owner` the record's name.
 */
export function exportWait(line: string, owner: string, path: FieldMap): Endpoint {
	const record = line.replace(/^GET /, '');
	return endpoint('waitForExport', line, 'content.read', {
		name: 'Wait for Export',
		action: `Wait for an export of an ${owner} to finish`,
		description: 'Wait for an export started earlier (with Wait for Completion off) and return it',
		toolText:
			'Wait for an export started earlier (with Wait for Completion off) and return it as the export operation does',
		path,
		query: {
			exportId: str({
				required: true,
				displayName: 'Export ID',
				description:
					'The export to wait for: the id the export operation returned, e.g. {{ $json.id }}',
			}),
		},
		job: { poll: record, within: 'exports', waitsOnly: true },
		nodeOperation: { kind: 'wait', jobId: 'exportId', since: 2 },
	});
}
