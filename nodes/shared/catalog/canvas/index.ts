import type { Group } from '../dsl';
import { canvasRuns } from './runs';
import { canvasTemplates } from './templates';
import { canvasWorkflows } from './workflows';

/** Resources of the MediaGen Canvas node. */
export const canvasGroups: Group[] = [canvasWorkflows, canvasRuns, canvasTemplates];
