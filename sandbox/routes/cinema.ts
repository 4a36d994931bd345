/** MediaGen Cinema: spec endpoints of this area (filled in by its own change). */
import type { RouteDef } from '../route';

export const cinemaRoutes: RouteDef[] = [];
