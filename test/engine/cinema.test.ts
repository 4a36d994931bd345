/**
 * MediaGen Cinema through n8n-core's engine against the sandbox: every operation of Cinema
 * Project, Scene and Shot; the flow from an AI Director proposal to generated storyboards and
 * videos (one job per shot, waited together) and an exported sequence and storyboard; bad input
 * refused before any request; Max Credits; continue-on-fail.
 */
import type { IBinaryData, IDataObject, INodeParameters } from 'n8n-workflow';

import { MediaGenCinema } from '../../nodes/MediaGenCinema/MediaGenCinema.node';
import { openBinary } from '../harness/engine/binaryData';
import { chain, runWorkflow } from '../harness/engine/harness';
import { fastJobs, nodeFactory, rl, useSandbox } from '../harness/engine/setup';

const cinema = nodeFactory(new MediaGenCinema());
const { sb, creds, runner } = useSandbox({ binaryData: 'default' });
fastJobs();

const NAME = 'Cinema';
const { run, ok } = runner(cinema, NAME);

const project = (operation: string, p: INodeParameters = {}) => ({
	resource: 'cinemaProject',
	operation,
	...p,
});
const balance = () => sb.control.credits('main').balance;
const image = () =>
	sb.control.createLargeAsset({ size: 256, mimeType: 'image/png', filename: 'frame.png' }).id;

/** A record answered by the API, with its id. */
type Rec = IDataObject & { id: string };

async function newProject(name = 'Night Train', extra: INodeParameters = {}) {
	const [p] = await ok(project('create', { name, ...extra }));
	return p as Rec;
}
async function newScene(projectId: unknown, title = 'Platform') {
	const [s] = await ok({
		resource: 'scene',
		operation: 'add',
		cinemaProjectId: rl(projectId),
		title,
	});
	return s as Rec;
}
async function newShot(sceneId: unknown, fields: INodeParameters = {}) {
	const [s] = await ok({
		resource: 'shot',
		operation: 'add',
		id: String(sceneId),
		additionalFields: fields,
	});
	return s as Rec;
}

describe('cinema project', () => {
	test('create, get many, get, update with continuity as fixed collections, delete', async () => {
		const created = await newProject('Night Train', {
			additionalFields: { logline: 'Two strangers', aspectRatio: '9:16' },
		});
		expect(created).toMatchObject({
			name: 'Night Train',
			logline: 'Two strangers',
			style: '',
			aspectRatio: '9:16',
		});
		await newProject('Second');
		const many = await ok(project('getAll', { returnAll: true }));
		expect(many.map((p) => p.name)).toEqual(['Second', 'Night Train']);
		const limited = await ok(project('getAll', { returnAll: false, limit: 1 }));
		expect(limited).toHaveLength(1);

		const ref = image();
		const character = '5d0c1f7e-8a3b-4c2d-9e1f-0a1b2c3d4e5f';
		const [updated] = await ok(
			project('update', {
				cinemaProjectId: rl(created.id),
				updateFields: {
					style: 'neo-noir',
					videoModelId: 'vid-2',
					continuity: {
						characters: character,
						locations: {
							values: [
								{ id: 'station', name: 'Station', description: '', assetIds: ref },
								{ id: 'carriage', name: 'Carriage', description: 'sleeper', assetIds: '' },
							],
						},
						props: { values: [{ id: 'lamp', name: 'Lamp', description: '', assetIds: '' }] },
						styleRefs: ref,
						wardrobe: 'long coats',
					},
				},
			}),
		);
		expect(updated).toMatchObject({
			style: 'neo-noir',
			videoModelId: 'vid-2',
			continuity: {
				characters: [character],
				locations: [
					{ id: 'station', name: 'Station', description: '', assetIds: [ref] },
					{ id: 'carriage', name: 'Carriage', description: 'sleeper', assetIds: [] },
				],
				props: [{ id: 'lamp', name: 'Lamp', description: '', assetIds: [] }],
				styleRefs: [ref],
				wardrobe: 'long coats',
			},
		});

		const [got] = await ok(project('get', { cinemaProjectId: rl(created.id) }));
		expect(got).toMatchObject({
			id: created.id,
			scenes: [],
			continuity: { wardrobe: 'long coats' },
		});
		const [deleted] = await ok(project('delete', { cinemaProjectId: rl(created.id) }));
		expect(deleted).toEqual({ id: created.id, deleted: true });
	});

	test('scenes and shots: add with the spec defaults, update, move, set frame, delete', async () => {
		const p = await newProject();
		const s1 = await newScene(p.id, 'One');
		const s2 = await newScene(p.id, 'Two');
		expect(s1).toMatchObject({ lighting: 'natural', mood: '', description: '', characters: [] });

		const a = await newShot(s1.id);
		expect(a).toMatchObject({ title: '', duration: 5, camera: {}, characters: [], props: [] });
		const b = await newShot(s1.id, {
			title: 'Close-up',
			duration: 8,
			props: 'lamp, ticket',
			camera: { shotSize: 'close-up', focalLength: 85 },
		});
		expect(b).toMatchObject({
			title: 'Close-up',
			duration: 8,
			props: ['lamp', 'ticket'],
			camera: { shotSize: 'close-up', focalLength: 85 },
		});

		const [scene] = await ok({
			resource: 'scene',
			operation: 'update',
			id: s1.id,
			updateFields: { mood: 'tense', lighting: 'low key' },
		});
		expect(scene).toMatchObject({ title: 'One', mood: 'tense', lighting: 'low key' });

		const [shot] = await ok({
			resource: 'shot',
			operation: 'update',
			id: a.id,
			updateFields: { action: 'The train arrives', camera: { movement: 'dolly' } },
		});
		expect(shot).toMatchObject({ action: 'The train arrives', camera: { movement: 'dolly' } });

		const [moved] = await ok({
			resource: 'shot',
			operation: 'move',
			id: b.id,
			sceneId: s2.id,
			position: 0,
		});
		expect(moved).toMatchObject({ sceneId: s2.id, position: 0 });

		const frame = image();
		const [framed] = await ok({
			resource: 'shot',
			operation: 'setFrame',
			id: a.id,
			assetId: rl(frame),
		});
		expect(framed.frameAssetId).toBe(frame);

		const [gone] = await ok({ resource: 'shot', operation: 'delete', id: a.id });
		expect(gone).toEqual({ id: a.id, deleted: true });
		const [sceneGone] = await ok({ resource: 'scene', operation: 'delete', id: s2.id });
		expect(sceneGone).toMatchObject({ id: s2.id, deleted: true, shotsDeleted: 1 });
		const [left] = await ok(project('get', { cinemaProjectId: rl(p.id) }));
		expect(left).toMatchObject({ sceneCount: 1, shotCount: 0 });
	});

	test('from a director proposal to an exported sequence and storyboard in one workflow', async () => {
		const before = balance();
		const workflow = chain(
			[{}],
			[
				cinema('Create', project('create', { name: 'Dawn Run' })),
				cinema(
					'Propose',
					project('propose', {
						cinemaProjectId: rl('={{ $json.id }}'),
						brief: 'A runner at dawn. The city wakes.',
						additionalFields: { scenes: 2, shotsPerScene: 1, totalSeconds: 8 },
					}),
				),
				cinema(
					'Apply',
					project('applyProposal', {
						cinemaProjectId: rl("={{ $('Create').first().json.id }}"),
						mode: 'replace',
					}),
				),
				cinema(
					'Storyboards',
					project('generate', {
						cinemaProjectId: rl('={{ $json.id }}'),
						kind: 'storyboard',
					}),
				),
				cinema(
					'Videos',
					project('generate', {
						cinemaProjectId: rl("={{ $('Create').first().json.id }}"),
						kind: 'video',
						additionalFields: { shotIds: '={{ $json.context.shotId }}' },
						options: { maxCredits: 100 },
					}),
				),
				cinema(
					'Sequence',
					project('exportSequence', {
						cinemaProjectId: rl("={{ $('Create').first().json.id }}"),
					}),
				),
				cinema(
					'Storyboard',
					project('exportStoryboard', {
						cinemaProjectId: rl("={{ $('Create').first().json.id }}"),
						binaryPropertyName: 'sheet',
					}),
				),
				cinema(
					'Metadata',
					project('getMetadata', { cinemaProjectId: rl("={{ $('Create').first().json.id }}") }),
				),
			],
		);
		workflow.nodes.find((n) => n.name === 'Sequence')!.executeOnce = true;
		const result = await runWorkflow(workflow, { credentials: creds() });
		expect(result.error).toBeUndefined();

		const [proposal] = result.json('Propose');
		expect(proposal).toMatchObject({ status: 'proposed', totalSeconds: 8 });
		expect(result.json('Apply')[0]).toMatchObject({ sceneCount: 2, shotCount: 2, proposal: null });

		const boards = result.json('Storyboards');
		expect(boards.map((g) => [g.status, g.tool])).toEqual([
			['completed', 'cinema'],
			['completed', 'cinema'],
		]);
		expect(boards[0].batch_id).toBe(boards[1].batch_id);
		const videos = result.json('Videos');
		expect(videos.map((g) => g.status)).toEqual(['completed', 'completed']);
		expect(videos.map((g) => (g.context as IDataObject).shotId)).toEqual(
			boards.map((g) => (g.context as IDataObject).shotId),
		);
		// Max Credits estimated each item's video (20 + 4 × 4 s) before starting it.
		expect(sb.control.requests({ method: 'POST', path: '/estimate$' })).toHaveLength(2);
		const charged = [...boards, ...videos].reduce((n, g) => n + Number(g.credits_charged), 0);
		expect(charged).toBe(2 * 4 + 2 * 36);
		expect(balance()).toBe(before - charged);

		const [sequence] = result.json('Sequence');
		const clips = (sequence.timeline as IDataObject).clips as IDataObject[];
		expect(sequence).toMatchObject({ version: 1, name: 'Dawn Run (sequence)' });
		expect(sequence.sourceAssetId).toBe(clips[0].assetId);
		expect(clips.map((c) => [c.kind, c.assetId])).toEqual(
			videos.map((g) => ['video', ((g.outputs as IDataObject[])[0] as IDataObject).asset_id]),
		);
		expect(sb.control.requests({ path: '/export/sequence$' })).toHaveLength(1);

		const [sheet] = result.items('Storyboard');
		expect(sheet.json).toMatchObject({ mimeType: 'image/png', source: 'export', kind: 'image' });
		const file = sheet.binary?.sheet as IBinaryData;
		expect(file).toMatchObject({ mimeType: 'image/png', fileName: 'dawn-run-storyboard.png' });
		const chunks: Buffer[] = [];
		for await (const chunk of await openBinary(file)) chunks.push(chunk as Buffer);
		const png = Buffer.concat(chunks);
		expect(png.subarray(0, 8)).toEqual(
			Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
		);
		expect(png.length).toBe(sheet.json.size);

		const [meta] = result.json('Metadata');
		expect(meta).toMatchObject({ name: 'Dawn Run', shotCount: 2, totalSeconds: 8 });
		const shots = (meta.scenes as IDataObject[]).flatMap((s) => s.shots as IDataObject[]);
		expect(shots.every((s) => s.videoStatus === 'ready' && s.frameStatus === 'ready')).toBe(true);
	});

	test('estimate, discard a proposal, generate without waiting', async () => {
		const p = await newProject();
		const s = await newScene(p.id);
		await newShot(s.id, { duration: 10 });
		const [estimate] = await ok(project('estimate', { cinemaProjectId: rl(p.id), kind: 'video' }));
		expect(estimate.credits).toBe(60);

		await ok(project('propose', { cinemaProjectId: rl(p.id), brief: 'Anything' }));
		const [discarded] = await ok(project('discardProposal', { cinemaProjectId: rl(p.id) }));
		expect(discarded.deleted).toBe(true);

		const started = await ok(
			project('generate', {
				cinemaProjectId: rl(p.id),
				kind: 'storyboard',
				waitForCompletion: false,
			}),
		);
		expect(started).toHaveLength(1);
		expect(['queued', 'running']).toContain(started[0].status);
	});
	test('generate returns the outputs as binary: one item and one file per shot', async () => {
		const p = await newProject();
		const s = await newScene(p.id);
		await newShot(s.id, { title: 'one' });
		await newShot(s.id, { title: 'two' });
		const r = await run(
			project('generate', {
				cinemaProjectId: rl(p.id),
				kind: 'storyboard',
				returnAs: 'binary',
				binaryPropertyName: 'frame',
			}),
		);
		expect(r.error).toBeUndefined();
		const items = r.items(NAME);
		expect(items).toHaveLength(2);
		for (const item of items) {
			expect(item.json).toMatchObject({ status: 'completed', credits_charged: 4 });
			expect(item.binary?.frame).toMatchObject({ mimeType: 'image/png' });
		}
	});
});

describe('refusals and failures', () => {
	test('bad input is refused before any request', async () => {
		sb.control.clearRequests();
		const tooLong = await run({
			resource: 'shot',
			operation: 'add',
			id: 'a1b2',
			additionalFields: { duration: 30 },
		});
		expect(tooLong.error?.message).toBe('Duration must be between 2 and 20, got 30');
		const camera = await run({
			resource: 'shot',
			operation: 'update',
			id: 'a1b2',
			updateFields: { camera: { focalLength: 4 } },
		});
		expect(camera.error?.message).toBe('Camera.focalLength must be between 8 and 400, got 4');
		const brief = await run(
			project('propose', {
				cinemaProjectId: rl('5d0c1f7e-8a3b-4c2d-9e1f-0a1b2c3d4e5f'),
				brief: 'x'.repeat(4001),
			}),
		);
		expect(brief.error?.message).toBe('Brief must be at most 4000 characters, got 4001');
		const location = await run(
			project('update', {
				cinemaProjectId: rl('5d0c1f7e-8a3b-4c2d-9e1f-0a1b2c3d4e5f'),
				updateFields: {
					continuity: {
						characters: '5d0c1f7e-8a3b-4c2d-9e1f-0a1b2c3d4e5f',
						locations: { values: [{ id: 'x'.repeat(41), name: 'Too long' }] },
						props: { values: [{ id: 'p', name: 'P' }] },
						styleRefs: '5d0c1f7e-8a3b-4c2d-9e1f-0a1b2c3d4e5f',
						wardrobe: '',
					},
				},
			}),
		);
		expect(location.error?.message).toBe(
			'Continuity.locations[0].id must be at most 40 characters, got 41',
		);
		expect(sb.control.requests()).toHaveLength(0);
	});

	test('Max Credits refuses generation above the estimate: nothing started', async () => {
		const p = await newProject();
		const s = await newScene(p.id);
		await newShot(s.id);
		const before = balance();
		const r = await run(
			project('generate', {
				cinemaProjectId: rl(p.id),
				kind: 'video',
				options: { maxCredits: 10 },
			}),
		);
		expect(r.error?.message).toBe('Estimated cost is 40 credits, above Max Credits (10)');
		expect(sb.control.requests({ method: 'POST', path: '/generate$' })).toHaveLength(0);
		expect(balance()).toBe(before);
	});

	test('continue on fail: a failed shot job and an unknown project become error items', async () => {
		const p = await newProject();
		const s = await newScene(p.id);
		await newShot(s.id, { title: 'good' });
		await newShot(s.id, { title: 'bad', action: 'explodes [sandbox:fail]' });
		const before = balance();
		const r = await run(
			project('generate', {
				cinemaProjectId: rl('={{ $json.project }}'),
				kind: 'storyboard',
			}),
			{ continueOnFail: true },
			[{ project: p.id }, { project: '5d0c1f7e-8a3b-4c2d-9e1f-0a1b2c3d4e5f' }],
		);
		expect(r.error).toBeUndefined();
		// Item 0 started two jobs: each is an output, the charged one beside the failed one (a
		// failed job never hides a succeeded one); item 1 is a 404.
		expect(r.out).toHaveLength(3);
		expect(r.out[0]).toMatchObject({ status: 'completed', credits_charged: 4 });
		expect(r.out[1].error).toMatch(/failed: Simulated failure/);
		expect(r.out[2].error).toMatch(/not found|could not be found/i);
		expect(r.items(NAME).map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 0 }, { item: 1 }]);
		// The good shot was charged, the failed one returned its reservation.
		expect(balance()).toBe(before - 4);
	});

	// Known gap in nodes/shared/fields/validation.ts: a required list must have at least one entry, while the
	// spec's continuity (`characters: uuid[]*`, `locations: obj[]*`, …) allows empty lists. Passes
	// once validation.ts accepts empty required lists; until then it is expected to fail.
	test('update accepts a continuity with empty lists', async () => {
		const p = await newProject();
		const [updated] = await ok(
			project('update', {
				cinemaProjectId: rl(p.id),
				updateFields: {
					continuity: {
						characters: '',
						styleRefs: '',
						wardrobe: 'coats',
						locations: {},
						props: {},
					},
				},
			}),
		);
		expect(updated.continuity).toMatchObject({ characters: [], wardrobe: 'coats' });
	});
});
