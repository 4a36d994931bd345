/** Every doc 1 endpoint, by spec section. */
import type { RouteDef } from '../route';
import { analyticsRoutes } from './analytics';
import { assetRoutes } from './assets';
import { collectionRoutes } from './collections';
import { creditRoutes } from './credits';
import { generationRoutes } from './generations';
import { projectRoutes } from './projects';
import { promptRoutes } from './prompt';
import { uploadRoutes } from './uploads';
import { voiceRoutes } from './voices';
import { webhookRoutes } from './webhooks';
import { workspaceRoutes } from './workspace';

export const apiRoutes: RouteDef[] = [
	...workspaceRoutes,
	...uploadRoutes,
	...assetRoutes,
	...collectionRoutes,
	...projectRoutes,
	...creditRoutes,
	...voiceRoutes,
	...generationRoutes,
	...promptRoutes,
	...webhookRoutes,
	...analyticsRoutes,
];
