import type { Group } from '../dsl';
import { characters } from './characters';
import { characterPresets } from './presets';
import { series, seriesItems } from './series';

/** Resources of the MediaGen Influencer node (spec doc 2: characters, presets, content series). */
export const influencerGroups: Group[] = [characters, characterPresets, series, seriesItems];
