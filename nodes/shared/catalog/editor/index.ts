import type { Group } from '../dsl';
import { audioMixes } from './audioMixes';
import { edits } from './edits';
import { effects } from './effects';

/** Resources of the MediaGen Editor node. */
export const editorGroups: Group[] = [edits, effects, audioMixes];
