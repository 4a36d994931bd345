import type { Group } from '../dsl';
import { cinemaProjects } from './projects';
import { cinemaScenes } from './scenes';
import { cinemaShots } from './shots';

/** Resources of the MediaGen Cinema node. */
export const cinemaGroups: Group[] = [cinemaProjects, cinemaScenes, cinemaShots];
