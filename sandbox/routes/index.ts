/** Every endpoint, by spec section (doc 1) and by node area (docs 2 and 3). */
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
import { influencerRoutes } from './influencer';
import { adsRoutes } from './ads';
import { editorRoutes } from './editor';
import { cinemaRoutes } from './cinema';
import { canvasRoutes } from './canvas';
import { scene3dRoutes } from './scene3d';
import { agentRoutes } from './agent';

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
	...influencerRoutes,
	...adsRoutes,
	...editorRoutes,
	...cinemaRoutes,
	...canvasRoutes,
	...scene3dRoutes,
	...agentRoutes,
];
