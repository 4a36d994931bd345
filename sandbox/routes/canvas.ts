/** MediaGen Canvas: spec endpoints of this area (filled in by its own change). */
import type { RouteDef } from '../route';

export const canvasRoutes: RouteDef[] = [];
