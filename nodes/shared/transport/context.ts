/**
 * The contexts the package's requests run in (a node run, a list search, a trigger's hooks, a
 * webhook request, a trigger's schedule) and the names of its two credentials.
 */
import type {
	IExecuteFunctions,
	IHookFunctions,
	ILoadOptionsFunctions,
	ITriggerFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

export const CREDENTIAL = 'mediaGenApi';

/** The credential holding the MediaGen Trigger's manual-mode signing secrets (node version 3). */
export const WEBHOOK_SECRET_CREDENTIAL = 'mediaGenWebhookSecretApi';

export type MediaGenContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IWebhookFunctions
	| ITriggerFunctions;
