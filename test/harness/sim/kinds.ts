/**
 * The job kinds the adversary draws besides a generation, a dub and captions (./scenario.ts
 * `Kind`), one place for each: the records made before the case, the node, the request of a
 * row (its letter), where its create goes (the kill point and the counts), the jobs the sandbox
 * made and the job an output item carries, and another execution's work on the same record.
 * - `canvas`: MediaGen Canvas → Run → Start of one canvas workflow per letter (found again by
 *   the list rule: `GET /canvas/{id}/runs`); unkeyed.
 * - `cinema`: MediaGen Cinema → Project → Generate, storyboard, of one project, one shot per
 *   letter (`shotIds`): a batch per create, found by the record rule `generations` with `batch`.
 * - `character`: MediaGen Influencer → Character → Generate with one character, the prompt per
 *   letter: keyed (Idempotency-Key) and found by the record rule once the keys are forgotten.
 * - `matrix`: MediaGen Ads → Ad Project → Run Matrix of one project, a combination per letter (its
 *   language): a batch per create, found by the record rule `generations` with `batch`.
 * - `upload`: MediaGen → Asset → Upload of a file per letter (`<letter>.txt`): not charged,
 *   found again only by the run's memory (docs/files.md); a second asset of a row is a
 *   duplicate the user did not ask for.
 */
import type { IDataObject } from 'n8n-workflow';

import { ACTION_NODES } from '../actionNodes';
import type { client } from '../sandbox/helpers';
import { TestBinarySource } from '../engine/binaryData';
import type { TestNode } from '../engine/harness';
import { NODE_TYPES } from '../engine/n8nTypes';
import { nodeFactory, rl } from '../engine/setup';

// the file node before an upload (its port in the crash harness's child: test/harness/engine/crashWorker.ts)
NODE_TYPES['test.binarySource'] = new TestBinarySource();

type Api = ReturnType<typeof client>;

/** The kinds of this module. */
export type MoreKind = 'canvas' | 'cinema' | 'character' | 'matrix' | 'upload';

export const MORE_KINDS: MoreKind[] = ['canvas', 'cinema', 'character', 'matrix', 'upload'];

/** A matrix combination's language per letter. */
const COMBO_LANGUAGE: Record<string, string> = { A: 'en', B: 'de', C: 'fr', D: 'es' };

export const isMore = (kind: string): kind is MoreKind => MORE_KINDS.includes(kind as MoreKind);

/** The records of a case of these kinds: one per letter (`byRow`), or one for all (`record`). */
export interface MoreRecords {
	byRow: Record<string, string>;
	record?: string;
}

/** Where a create goes: the canvas run's start, the generate, the upload's complete (the asset). */
export const MORE_PATH: Record<MoreKind, string> = {
	canvas: '/canvas/[^/]+/runs$',
	cinema: '/cinema/[^/]+/generate$',
	character: '/characters/[^/]+/generate$',
	matrix: '/ads/[^/]+/matrix/run$',
	upload: '/uploads/[^/]+/complete$',
};

const canvasNode = nodeFactory(ACTION_NODES.mediaGenCanvas);
const cinemaNode = nodeFactory(ACTION_NODES.mediaGenCinema);
const influencerNode = nodeFactory(ACTION_NODES.mediaGenInfluencer);
const adsNode = nodeFactory(ACTION_NODES.mediaGenAds);
const mediaGenNode = nodeFactory(ACTION_NODES.mediaGen);

/** The records the case needs, for the letters of its rows. */
export async function moreRecords(
	kind: MoreKind,
	api: Api,
	letters: string[],
): Promise<MoreRecords> {
	const byRow: Record<string, string> = {};
	if (kind === 'canvas') {
		for (const l of letters) {
			const wf = await api('POST', '/canvas', { name: `Flow ${l}`, templateId: 'text-to-image' });
			byRow[l] = String(wf.body.id);
		}
		return { byRow };
	}
	if (kind === 'cinema') {
		const project = String((await api('POST', '/cinema', { name: 'Sim' })).body.id);
		const scene = String((await api('POST', `/cinema/${project}/scenes`, { title: 'S' })).body.id);
		for (const l of letters) {
			const shot = await api('POST', `/cinema/scenes/${scene}/shots`, { title: `Shot ${l}` });
			byRow[l] = String(shot.body.id);
		}
		return { byRow, record: project };
	}
	if (kind === 'character')
		return { byRow, record: String((await api('POST', '/characters', { name: 'Ava' })).body.id) };
	if (kind === 'matrix') {
		const product = String((await api('POST', '/products', { name: 'Bottle' })).body.id);
		const ad = await api('POST', '/ads', { name: 'Launch', entry: 'brand', productId: product });
		const record = String(ad.body.id);
		const copy = await api('POST', `/ads/${record}/copy/generate`, {
			kinds: ['hook', 'script', 'cta'],
			count: 1,
		});
		const id = (kind: string) =>
			String(((copy.body.data ?? []) as IDataObject[]).find((c) => c.kind === kind)?.id);
		const combo = (l: string) => ({
			language: COMBO_LANGUAGE[l],
			hook: id('hook'),
			script: id('script'),
			cta: id('cta'),
			presenter: 'none',
			style: 'ugc',
			aspect: '9:16',
			duration: 6,
		});
		for (const l of letters) byRow[l] = JSON.stringify(combo(l));
		return { byRow, record };
	}
	return { byRow };
}

/** The file of a row (base64, as n8n keeps a file in memory). */
const fileOf = (row: string) => Buffer.from(`file ${row}\n`).toString('base64');

/** What a row's item holds for these kinds: its record (`target`) and its file. */
export const moreItem = (kind: MoreKind, row: string, records: MoreRecords): IDataObject =>
	kind === 'upload' ? { file: fileOf(row) } : { target: records.byRow[row] };

/**
 * The node(s) of a row's job: the MediaGen node; for uploads a node before it that gives each
 * item its file (test/harness/engine/binaryData.ts TestBinarySource, from the item's base64).
 */
export function moreNodes(kind: MoreKind, records: MoreRecords): TestNode[] {
	if (kind === 'canvas')
		return [
			canvasNode('MediaGen', {
				resource: 'run',
				operation: 'start',
				canvasWorkflowId: rl('={{ $json.target }}'),
			}),
		];
	if (kind === 'cinema')
		return [
			cinemaNode('MediaGen', {
				resource: 'cinemaProject',
				operation: 'generate',
				cinemaProjectId: rl(records.record),
				kind: 'storyboard',
				additionalFields: { shotIds: '={{ $json.target }}' },
			}),
		];
	if (kind === 'matrix')
		return [
			adsNode('MediaGen', {
				resource: 'adProject',
				operation: 'runMatrix',
				adProjectId: rl(records.record),
				combos: '={{ "[" + $json.target + "]" }}',
			}),
		];
	if (kind === 'character')
		return [
			influencerNode('MediaGen', {
				resource: 'character',
				operation: 'generate',
				characterId: rl(records.record),
				modelId: 'flux-pro',
				prompt: '={{ "row " + $json.row }}',
				purpose: 'content',
			}),
		];
	return [
		{
			name: 'File',
			type: 'test.binarySource',
			parameters: {
				binary:
					'={{ JSON.stringify({ data: $json.file, mimeType: "text/plain", fileName: $json.row + ".txt" }) }}',
			},
		},
		mediaGenNode('MediaGen', {
			resource: 'asset',
			operation: 'upload',
			binaryPropertyName: 'data',
		}),
	];
}

/** The context field of a generation naming the case's one record. */
const RECORD_FIELD: Partial<Record<MoreKind, string>> = {
	cinema: 'cinemaProjectId',
	character: 'characterId',
	matrix: 'adProjectId',
};

const rowOfPrompt = (prompt: unknown) => /row ([A-Z])\b/.exec(String(prompt ?? ''))?.[1] ?? '?';
const rowOfFile = (name: unknown) => /^([A-Z])\.txt$/.exec(String(name ?? ''))?.[1] ?? '?';
const letterOf = (records: MoreRecords, id: unknown) =>
	Object.entries(records.byRow).find(([, v]) => v === id)?.[0] ?? '?';

/** The row (letter) an output item's job was made for. */
export function moreRow(kind: MoreKind, json: IDataObject, records: MoreRecords): string {
	if (kind === 'canvas') return letterOf(records, json.workflowId);
	if (kind === 'cinema')
		return letterOf(records, (json.context as IDataObject | undefined)?.shotId);
	if (kind === 'character') return rowOfPrompt(json.prompt);
	if (kind === 'matrix') {
		const combo = (json.context as IDataObject | undefined)?.combo as IDataObject | undefined;
		return Object.entries(COMBO_LANGUAGE).find(([, l]) => l === combo?.language)?.[0] ?? '?';
	}
	return rowOfFile(json.filename);
}

const list = async (api: Api, path: string) =>
	((await api('GET', path)).body.data ?? []) as IDataObject[];

/** The jobs (canvas runs, generations, uploaded assets) the sandbox made, by row. */
export async function moreMade(
	kind: MoreKind,
	api: Api,
	records: MoreRecords,
): Promise<Array<{ id: string; row: string; cancelled?: boolean }>> {
	// a job or run cancelled at MediaGen (Stop) was charged nothing (its credits returned)
	const cancelled = (r: IDataObject) => (r.status === 'cancelled' ? { cancelled: true } : {});
	if (kind === 'canvas') {
		const made: Array<{ id: string; row: string; cancelled?: boolean }> = [];
		for (const [row, flow] of Object.entries(records.byRow))
			for (const r of await list(api, `/canvas/${flow}/runs?limit=100`))
				made.push({ id: String(r.id), row, ...cancelled(r) });
		return made;
	}
	if (kind === 'upload')
		return (await list(api, '/assets?source=upload&limit=100')).map((a) => ({
			id: String(a.id),
			row: rowOfFile(a.filename),
		}));
	const field = RECORD_FIELD[kind] ?? 'characterId';
	return (await list(api, '/generations?status=all&limit=100'))
		.filter((g) => (g.context as IDataObject | undefined)?.[field] === records.record)
		.map((g) => ({ id: String(g.id), row: moreRow(kind, g, records), ...cancelled(g) }));
}

/** Another execution's work on the same record for `row` (a plain API call); the ids it made. */
export async function moreOther(
	kind: MoreKind,
	api: Api,
	records: MoreRecords,
	row: string,
): Promise<string[]> {
	if (kind === 'canvas') {
		const flow = records.byRow[row];
		const { credits } = (await api('POST', `/canvas/${flow}/estimate`)).body as IDataObject;
		const run = await api('POST', `/canvas/${flow}/runs`, { expectedCredits: credits });
		return [String(run.body.id)];
	}
	if (kind === 'cinema') {
		const body = { kind: 'storyboard', shotIds: [records.byRow[row]] };
		const made = await api('POST', `/cinema/${records.record}/generate`, body);
		return ((made.body.data ?? []) as IDataObject[]).map((g) => String(g.id));
	}
	if (kind === 'matrix') {
		const body = { combos: [JSON.parse(records.byRow[row]) as IDataObject] };
		const made = await api('POST', `/ads/${records.record}/matrix/run`, body);
		return ((made.body.data ?? []) as IDataObject[]).map((g) => String(g.id));
	}
	if (kind === 'character') {
		const body = { modelId: 'flux-pro', prompt: `row ${row}`, purpose: 'content' };
		return [String((await api('POST', `/characters/${records.record}/generate`, body)).body.id)];
	}
	// another execution's upload is another asset of its own: nothing of this run's finds it
	return [];
}
