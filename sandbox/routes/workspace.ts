/** Workspace (doc 1): GET /workspace. Scope not shown in the spec: any valid key. */
import { json } from '../http';
import { route } from '../route';
import { PLAN_FEATURES } from '../state';

export const workspaceRoutes = [
	route({
		method: 'GET',
		path: '/workspace',
		handler: ({ ws, key }) =>
			json({
				id: ws.id,
				name: ws.name,
				plan: ws.plan,
				features: PLAN_FEATURES[ws.plan],
				scopes: key.scopes,
				credits: { balance: ws.balance, reserved: ws.reserved },
				created_at: ws.created_at,
			}),
	}),
];
