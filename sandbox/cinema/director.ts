/**
 * The AI Director of the sandbox: a deterministic proposal (scenes, shots, camera, lighting and
 * models) derived from the brief and the project's continuity. Nothing is generated or charged.
 */
import { newId, now } from '../state';
import type { CinemaProjectRec, Camera, Proposal, ProposedScene, ProposedShot } from './store';

export const DIRECTOR_DEFAULTS = { scenes: 3, shotsPerScene: 3 } as const;
export const STORYBOARD_MODEL = 'cinema-storyboard-v1';
export const VIDEO_MODEL = 'cinema-video-v1';

const CAMERAS: Camera[] = [
	{ shotSize: 'wide', angle: 'eye level', focalLength: 24, movement: 'slow push in' },
	{ shotSize: 'medium', angle: 'over the shoulder', focalLength: 50, movement: 'static' },
	{
		shotSize: 'close-up',
		angle: 'low angle',
		focalLength: 85,
		dof: 'shallow',
		movement: 'handheld',
	},
	{ shotSize: 'extreme wide', angle: 'high angle', focalLength: 16, movement: 'crane up' },
	{ shotSize: 'medium close-up', angle: 'dutch', focalLength: 35, movement: 'dolly left' },
];
const LIGHTING = ['natural', 'golden hour', 'low key', 'high key', 'neon night', 'overcast'];
const MOODS = ['calm', 'tense', 'hopeful', 'mysterious', 'joyful', 'melancholic'];

/** Sentences (or clauses) of the brief, cycled over the scenes. */
function beats(brief: string): string[] {
	const parts = brief
		.split(/[.!?;\n]+/)
		.map((s) => s.trim())
		.filter(Boolean);
	return parts.length ? parts : [brief.trim() || 'Untitled'];
}

const clip = (s: string, max: number) => (s.length > max ? s.slice(0, max) : s);

export function propose(
	p: CinemaProjectRec,
	body: { brief: string; scenes?: number; shotsPerScene?: number; totalSeconds?: number },
): Proposal {
	const sceneCount = body.scenes ?? DIRECTOR_DEFAULTS.scenes;
	const perScene = body.shotsPerScene ?? DIRECTOR_DEFAULTS.shotsPerScene;
	const shotCount = sceneCount * perScene;
	// Seconds per shot: the total spread evenly, within the shot duration range 2..20.
	const target = body.totalSeconds ?? shotCount * 5;
	const per = Math.max(2, Math.min(20, Math.round(target / shotCount)));
	const parts = beats(body.brief);
	const locations = p.continuity.locations;
	const characters = p.continuity.characters;
	const props = p.continuity.props.map((x) => x.id);
	const scenes: ProposedScene[] = [];
	let n = 0;
	for (let i = 0; i < sceneCount; i++) {
		const beat = parts[i % parts.length];
		const lighting = LIGHTING[i % LIGHTING.length];
		const shots: ProposedShot[] = [];
		for (let j = 0; j < perScene; j++, n++) {
			shots.push({
				title: `Shot ${j + 1}`,
				action: clip(`${beat} (${CAMERAS[n % CAMERAS.length].shotSize})`, 2000),
				dialogue: '',
				camera: { ...CAMERAS[n % CAMERAS.length] },
				lighting,
				duration: per,
				characters: [...characters],
				props: [...props],
			});
		}
		scenes.push({
			title: clip(`Scene ${i + 1}: ${beat}`, 120),
			description: clip(beat, 2000),
			mood: MOODS[i % MOODS.length],
			lighting,
			locationId: locations.length ? locations[i % locations.length].id : null,
			characters: [...characters],
			props: [...props],
			shots,
		});
	}
	return {
		id: newId(),
		brief: body.brief,
		status: 'proposed',
		storyboardModelId: p.storyboardModelId ?? STORYBOARD_MODEL,
		videoModelId: p.videoModelId ?? VIDEO_MODEL,
		totalSeconds: per * shotCount,
		scenes,
		created_at: now(),
	};
}
