/** MediaGen Canvas: spec doc 3, "Canvas workflows". Records in ../canvas/store.ts, runs in ../canvas/runs.ts. */
import { conflict, json, notFound, validationError } from '../http';
import { route } from '../route';
import { recBase, touch, type Workspace } from '../state';
import { int, oneOf, pageQuery, str, uuid, z } from '../validation';
import { paginate } from '../pagination';
import {
	blankGraph,
	canvasOf,
	checkGraphRules,
	graphSchema,
	newShareToken,
	TEMPLATES,
	templateView,
	type WorkflowRec,
} from '../canvas/store';
import { estimateGraph, runsOf, runView, validateGraph } from '../canvas/runs';

const MAX_VERSION = 9007199254740991;

export const workflowView = (w: WorkflowRec) => ({
	id: w.id,
	name: w.name,
	description: w.description,
	templateId: w.templateId,
	projectId: w.projectId,
	visibility: w.visibility,
	version: w.version,
	graph: w.graph,
	validation: validateGraph(w.graph),
	shared: w.shareToken !== null,
	shareToken: w.shareToken,
	importedFrom: w.importedFrom,
	duplicatedFrom: w.duplicatedFrom,
	created_at: w.created_at,
	updated_at: w.updated_at,
});

const copyGraph = <T>(g: T): T => JSON.parse(JSON.stringify(g)) as T;

function newWorkflow(
	ws: Workspace,
	fields: Partial<WorkflowRec> & Pick<WorkflowRec, 'name' | 'graph'>,
): WorkflowRec {
	return canvasOf(ws).workflows.put({
		...recBase(),
		description: '',
		templateId: null,
		projectId: null,
		visibility: 'private',
		version: 1,
		shareToken: null,
		importedFrom: null,
		duplicatedFrom: null,
		...fields,
	});
}

const workflow = (ws: Workspace, id: string) => canvasOf(ws).workflows.get(id);

export const canvasRoutes = [
	route({
		method: 'GET',
		path: '/canvas/templates',
		scope: 'content.read',
		query: z.object(pageQuery),
		handler: ({ query }) => json(paginate(TEMPLATES, query, templateView)),
	}),
	route({
		method: 'POST',
		path: '/canvas/import',
		scope: 'content.create',
		body: z.object({ token: str(64) }),
		handler: ({ app, ws, body }) => {
			for (const owner of app.state.workspaces.values()) {
				const source = canvasOf(owner)
					.workflows.all()
					.find((w) => w.shareToken !== null && w.shareToken === body.token);
				if (!source) continue;
				const copy = newWorkflow(ws, {
					name: source.name,
					description: source.description,
					templateId: source.templateId,
					graph: copyGraph(source.graph),
					importedFrom: source.id,
				});
				return json(workflowView(copy), 201);
			}
			throw notFound('Shared canvas workflow');
		},
	}),
	route({
		method: 'GET',
		path: '/canvas/runs/{runId}',
		scope: 'content.read',
		handler: ({ ws, params }) => json(runView(canvasOf(ws).runs.get(params.runId))),
	}),
	route({
		method: 'POST',
		path: '/canvas/runs/{runId}/cancel',
		scope: 'content.create',
		handler: ({ app, ws, params }) =>
			json(runView(runsOf(app).cancel(ws, canvasOf(ws).runs.get(params.runId)))),
	}),
	route({
		method: 'POST',
		path: '/canvas/runs/{runId}/retry',
		scope: 'content.create',
		handler: ({ app, ws, params }) =>
			json(runView(runsOf(app).retry(ws, canvasOf(ws).runs.get(params.runId)))),
	}),
	route({
		method: 'GET',
		path: '/canvas',
		scope: 'content.read',
		query: z.object(pageQuery),
		handler: ({ ws, query }) => json(paginate(canvasOf(ws).workflows.all(), query, workflowView)),
	}),
	route({
		method: 'POST',
		path: '/canvas',
		scope: 'content.create',
		body: z.object({
			name: str(120),
			description: str(1000).default(''),
			templateId: str(60).optional(),
			projectId: uuid().optional(),
		}),
		handler: ({ ws, body }) => {
			if (body.projectId) ws.projects.get(body.projectId);
			let graph = blankGraph();
			if (body.templateId !== undefined) {
				const t = TEMPLATES.find((x) => x.id === body.templateId);
				if (!t) throw notFound('Canvas template', body.templateId);
				graph = copyGraph(t.graph);
			}
			const w = newWorkflow(ws, {
				name: body.name,
				description: body.description,
				templateId: body.templateId ?? null,
				projectId: body.projectId ?? null,
				graph,
			});
			return json(workflowView(w), 201);
		},
	}),
	route({
		method: 'GET',
		path: '/canvas/{id}',
		scope: 'content.read',
		handler: ({ ws, params }) => json(workflowView(workflow(ws, params.id))),
	}),
	route({
		method: 'PATCH',
		path: '/canvas/{id}',
		scope: 'content.create',
		body: z.object({
			name: str(120).optional(),
			description: str(1000).optional(),
			graph: graphSchema.optional(),
			version: int(1, MAX_VERSION).optional(),
			visibility: oneOf(['private', 'workspace'] as const).optional(),
			projectId: uuid().optional(),
		}),
		handler: ({ ws, params, body }) => {
			if (body.graph && body.version === undefined)
				throw validationError([
					{
						path: 'version',
						message: 'Saving the graph needs the current version',
						code: 'version_required',
					},
				]);
			if (body.graph) checkGraphRules(body.graph);
			const w = workflow(ws, params.id);
			if (body.projectId) ws.projects.get(body.projectId);
			if (body.version !== undefined && body.version !== w.version)
				throw conflict(
					`Canvas workflow ${w.id} is at version ${w.version}, not ${body.version}: reload it and save again`,
					{ currentVersion: w.version },
					'version_conflict',
				);
			if (body.name !== undefined) w.name = body.name;
			if (body.description !== undefined) w.description = body.description;
			if (body.visibility !== undefined) w.visibility = body.visibility;
			if (body.projectId !== undefined) w.projectId = body.projectId;
			if (body.graph) {
				w.graph = body.graph;
				w.version++;
			}
			touch(w);
			return json(workflowView(w));
		},
	}),
	route({
		method: 'DELETE',
		path: '/canvas/{id}',
		scope: 'content.delete',
		handler: ({ ws, params }) => {
			const w = workflow(ws, params.id);
			canvasOf(ws).workflows.delete(w.id);
			return json({ id: w.id, deleted: true });
		},
	}),
	route({
		method: 'POST',
		path: '/canvas/{id}/duplicate',
		scope: 'content.create',
		handler: ({ ws, params }) => {
			const w = workflow(ws, params.id);
			const copy = newWorkflow(ws, {
				name: `${w.name} (copy)`.slice(0, 120),
				description: w.description,
				templateId: w.templateId,
				projectId: w.projectId,
				visibility: w.visibility,
				graph: copyGraph(w.graph),
				duplicatedFrom: w.id,
			});
			return json(workflowView(copy), 201);
		},
	}),
	route({
		method: 'POST',
		path: '/canvas/{id}/share',
		scope: 'content.create',
		body: z.object({ on: z.boolean() }),
		handler: ({ ws, params, body }) => {
			const w = workflow(ws, params.id);
			if (body.on) w.shareToken ??= newShareToken();
			else w.shareToken = null;
			touch(w);
			return json(workflowView(w));
		},
	}),
	route({
		method: 'POST',
		path: '/canvas/{id}/estimate',
		scope: 'content.create',
		handler: ({ ws, params }) => json(estimateGraph(workflow(ws, params.id).graph)),
	}),
	route({
		method: 'GET',
		path: '/canvas/{id}/runs',
		scope: 'content.read',
		query: z.object(pageQuery),
		handler: ({ ws, params, query }) => {
			const w = workflow(ws, params.id);
			const runs = canvasOf(ws)
				.runs.all()
				.filter((r) => r.workflowId === w.id);
			return json(paginate(runs, query, runView));
		},
	}),
	route({
		method: 'POST',
		path: '/canvas/{id}/runs',
		scope: 'content.create',
		body: z.object({ expectedCredits: int(0, MAX_VERSION).optional() }).default({}),
		handler: ({ app, ws, params, body }) =>
			json(runView(runsOf(app).start(ws, workflow(ws, params.id), body.expectedCredits)), 201),
	}),
];
