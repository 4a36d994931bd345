import type { Group } from '../dsl';
import { agentActions } from './actions';
import { agentSessions, agentStatus } from './sessions';

/** Resources of the MediaGen Agent node. */
export const agentGroups: Group[] = [agentStatus, agentSessions, agentActions];
