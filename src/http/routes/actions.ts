import { contract } from '../contract-ref.js';
import { ERROR_REF } from '../api-schemas.js';
import type { AppContext } from '../../context.js';
import type { ActionsOutput } from '../../actions/actions-output.js';
import { LIMITS, type ActionsDefinition } from '../../actions/definition.js';
import type { ActionStatusRecord } from '../../contracts/actions.js';
import { secretHeadersView, splitSecretHeaders } from '../../actions/secret-headers.js';
import type { ValidationIssue } from '../../config/validation.js';
import { HttpError } from '../errors.js';
import type { Router } from '../router.js';
import { throwUnlessApplied, validationError } from '../section-writes.js';

/**
 * /api/v1/actions (tag Actions of the device's OpenAPI description): the definition (GET, POST,
 * DELETE), calls (POST /call, 202 with the status ids and a Location to poll) and their status
 * (GET /status?id=1,2). License PLUS: under FREE every path answers 404 like /api/v1/report.
 * GET /api/v1/actions/recent (beyond the device) lists the last statuses and the counters for the
 * web page; GET /api/v1/actions/definition (beyond the device) gives the page the definition or
 * null, so a fresh install's page meets no 404. Codes and limits: docs/architecture.md#actions.
 */

const PATH = '/api/v1/actions';

/** The definition's issues as the route's body names them (`actions[0].schedule`). */
function definitionError(issues: readonly ValidationIssue[]): HttpError {
  return validationError(
    issues.map((issue) => ({ ...issue, field: issue.field.replace(/^actions\.definition\.?/, '') })),
  );
}

/**
 * The body's shape is its contract's (checked by the router); every rule beyond it is the config's
 * (the actions-definition format), as for a restore or the admin's file.
 */
async function postDefinition(ctx: AppContext, body: ActionsDefinition): Promise<ActionsDefinition> {
  // The body as sent is checked first, so a problem is named where the client wrote it (a secret
  // header's value included); then the secret values go to the secrets (secret-headers.ts).
  const sent = ctx.config.schemaIssues(new Map([['actions.definition', body]]));
  if (sent.length > 0) throw definitionError(sent);
  const { definition, secrets } = splitSecretHeaders(body, ctx.config.config.actions.header_secrets);
  const changes = new Map<string, unknown>([
    ['actions.definition', definition],
    ['actions.header_secrets', secrets],
  ]);
  await throwUnlessApplied(ctx, ctx.config.apply(changes), definitionError);
  return getDefinition(ctx);
}

/** The stored definition as GET shows it: secret header values replaced by their lengths. */
function definitionView(ctx: AppContext): ActionsDefinition | null {
  const { definition, header_secrets: secrets } = ctx.config.config.actions;
  return definition === null ? null : secretHeadersView(definition, secrets);
}

async function deleteDefinition(ctx: AppContext): Promise<void> {
  const changes = new Map<string, unknown>([
    ['actions.definition', null],
    ['actions.header_secrets', {}],
  ]);
  await throwUnlessApplied(ctx, ctx.config.apply(changes));
}

/** POST /call: the status id of the run started. */
function callAction(actions: ActionsOutput, id: string): number {
  const result = actions.call(id, 'API call');
  if (!result.ok) {
    switch (result.reason) {
      case 'unknown':
      case 'stopped':
        throw new HttpError(404, 'not_found', `no action with id ${JSON.stringify(id)}`, { id });
      case 'disabled':
        throw new HttpError(409, 'conflict', `action ${id} is disabled`, { id });
      case 'busy':
        throw new HttpError(429, 'too_many_requests', `action ${id} is still running`, { id });
    }
  }
  return result.record.id;
}

/** The device answers 404 while no definition is set (none yet, or after DELETE): "Actions Definition". */
function getDefinition(ctx: AppContext): ActionsDefinition {
  const definition = definitionView(ctx);
  if (definition === null) throw new HttpError(404, 'not_found', 'no actions definition is set');
  return definition;
}

/**
 * The device's OpenAPI lists 200, 401, 404 and 500 for GET /status: a missing or malformed id
 * list names no status, so it is a 404 too, with the reason in the message.
 */
function getStatus(actions: ActionsOutput, text: string | undefined): ActionStatusRecord[] {
  if (text === undefined || text === '')
    throw new HttpError(404, 'not_found', 'no status id given (id=<status id>[,<status id>])');
  const ids = text.split(',').map((part) => part.trim());
  if (ids.some((part) => !/^\d{1,10}$/.test(part)))
    throw new HttpError(404, 'not_found', 'status ids are comma-separated integers', {
      id: text.slice(0, 64),
    });
  const records = ids.flatMap((part) => {
    const record = actions.runner.ring.get(Number(part));
    return record ? [{ ...record }] : [];
  });
  if (records.length === 0) throw new HttpError(404, 'not_found', `no status with id ${text}`, { id: text });
  return records;
}

/** Routes of actions: license PLUS (docs/architecture.md#actions). */
const license = 'PLUS' as const;

export function registerActionsRoutes(router: Router, ctx: AppContext, actions: ActionsOutput): void {
  registerDefinitionRoutes(router, ctx);
  registerExecutionRoutes(router, actions);
}

/** The actions definition: read, replace, delete, and the page's view of it. */
function registerDefinitionRoutes(router: Router, ctx: AppContext): void {
  router.route(
    {
      method: 'GET',
      path: PATH,
      license,
      summary: 'The actions definition',
      response: {
        200: { description: 'definition', schema: contract('ActionsDefinitionSchema') },
        404: { description: 'no definition set (or deleted)', schema: ERROR_REF },
      },
    },
    () => ({ status: 200, body: getDefinition(ctx) }),
  );
  router.route(
    {
      method: 'POST',
      path: PATH,
      license,
      maxBodyBytes: LIMITS.definitionBytes,
      summary: 'Replace the actions definition',
      body: contract('ActionsDefinitionSchema'),
      response: {
        200: { description: 'the stored definition', schema: contract('ActionsDefinitionSchema') },
      },
    },
    async ({ body }) => ({ status: 200, body: await postDefinition(ctx, body) }),
  );
  router.route(
    {
      method: 'DELETE',
      path: PATH,
      license,
      summary: 'Delete the actions definition',
      response: { 204: { description: 'deleted' } },
    },
    async () => {
      await deleteDefinition(ctx);
      return { status: 204 };
    },
  );
  router.route(
    {
      method: 'GET',
      path: `${PATH}/definition`,
      license,
      summary: 'The actions definition for the web page: null while none is set (never a 404)',
      response: {
        200: {
          description: 'the definition as GET /api/v1/actions shows it, or null',
          schema: contract('ActionsDefinitionViewSchema'),
        },
      },
    },
    () => ({ status: 200, body: { definition: definitionView(ctx) } }),
  );
}

/** Running an action and reading what its runs did. */
function registerExecutionRoutes(router: Router, actions: ActionsOutput): void {
  router.route(
    {
      method: 'POST',
      path: `${PATH}/call`,
      license,
      summary: 'Run an action (asynchronously)',
      query: contract('ActionCallQuerySchema'),
      response: {
        202: { description: 'started; Location: the status URL', schema: contract('ActionCallAnswerSchema') },
        404: { description: 'no action with this id', schema: ERROR_REF },
        409: { description: 'the action is disabled', schema: ERROR_REF },
        429: { description: 'the action is still running', schema: ERROR_REF },
      },
    },
    ({ query }) => {
      const statusId = callAction(actions, query.id);
      return {
        status: 202,
        body: { status_ids: [statusId] },
        headers: { Location: `${PATH}/status?id=${statusId}` },
      };
    },
  );
  router.route(
    {
      method: 'GET',
      path: `${PATH}/status`,
      license,
      summary: 'Execution statuses by status id',
      query: contract('ActionStatusQuerySchema'),
      response: {
        200: { description: 'status records', schema: contract('ActionStatusListSchema') },
        404: { description: 'no known status among the ids (or no id given)', schema: ERROR_REF },
      },
    },
    ({ query }) => ({ status: 200, body: getStatus(actions, query.id) }),
  );
  router.route(
    {
      method: 'GET',
      path: `${PATH}/recent`,
      license,
      summary: 'The last action executions and the counters per action',
      response: {
        200: {
          description: 'the last statuses, newest first, and the counters',
          schema: contract('ActionsRecentSchema'),
        },
      },
    },
    () => ({
      status: 200,
      body: { statuses: actions.runner.ring.latest(), counters: actions.runner.countersOf() },
    }),
  );
}
