import { contract } from '../contract-ref.js';
import { ERROR_REF } from '../api-schemas.js';
import type { ServerResponse } from 'node:http';
import type { AppContext } from '../../context.js';
import type { ActionsOutput } from '../../actions/actions-output.js';
import { LIMITS, type ActionsDefinition } from '../../actions/definition.js';
import { secretHeadersView, splitSecretHeaders } from '../../actions/secret-headers.js';
import type { ValidationIssue } from '../../config/validation.js';
import { HttpError } from '../errors.js';
import { sendJson, sendNoContent } from '../respond.js';
import type { ApiRequest, Router } from '../router.js';
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

function queryIssue(parameter: string, message: string, value: unknown): HttpError {
  return validationError([{ field: parameter, message, value }]);
}

/** The definition's issues as the route's body names them (`actions[0].schedule`). */
function definitionError(issues: readonly ValidationIssue[]): HttpError {
  return validationError(
    issues.map((issue) => ({ ...issue, field: issue.field.replace(/^actions\.definition\.?/, '') })),
  );
}

/** Every check is the config's (the actions-definition format), as for a restore or the admin's file. */
async function postDefinition(ctx: AppContext, request: ApiRequest, response: ServerResponse): Promise<void> {
  // null is the stored "no definition" (DELETE), never a definition a client posts.
  if (request.body === null)
    throw definitionError([{ field: '', message: 'must be a JSON object {const, actions}', value: null }]);
  // The body as sent is checked first, so a problem is named where the client wrote it (a secret
  // header's value included); then the secret values go to the secrets (secret-headers.ts).
  const sent = ctx.config.schemaIssues(new Map([['actions.definition', request.body]]));
  if (sent.length > 0) throw definitionError(sent);
  const { definition, secrets } = splitSecretHeaders(
    request.body as ActionsDefinition,
    ctx.config.config.actions.header_secrets,
  );
  const changes = new Map<string, unknown>([
    ['actions.definition', definition],
    ['actions.header_secrets', secrets],
  ]);
  await throwUnlessApplied(ctx, ctx.config.apply(changes), definitionError);
  sendJson(response, 200, definitionView(ctx));
}

/** The stored definition as GET shows it: secret header values replaced by their lengths. */
function definitionView(ctx: AppContext): ActionsDefinition | null {
  const { definition, header_secrets: secrets } = ctx.config.config.actions;
  return definition === null ? null : secretHeadersView(definition, secrets);
}

async function deleteDefinition(ctx: AppContext, response: ServerResponse): Promise<void> {
  const changes = new Map<string, unknown>([
    ['actions.definition', null],
    ['actions.header_secrets', {}],
  ]);
  await throwUnlessApplied(ctx, ctx.config.apply(changes));
  sendNoContent(response);
}

function callAction(actions: ActionsOutput, request: ApiRequest, response: ServerResponse): void {
  const id = request.query.get('id');
  if (id === null || id === '') throw queryIssue('id', 'is required (the action id)', id);
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
  const statusId = result.record.id;
  response.setHeader('Location', `${PATH}/status?id=${statusId}`);
  sendJson(response, 202, { status_ids: [statusId] });
}

/** The device's GET /actions: 404 when no definition is set or it was deleted ("Actions Definition"). */
/** The device answers 404 while no definition is set (none yet, or after DELETE). */
function getDefinition(ctx: AppContext, response: ServerResponse): void {
  const definition = definitionView(ctx);
  if (definition === null) throw new HttpError(404, 'not_found', 'no actions definition is set');
  sendJson(response, 200, definition);
}

/**
 * The device's OpenAPI lists 200, 401, 404 and 500 for GET /status: a missing or malformed id
 * list names no status, so it is a 404 too, with the reason in the message.
 */
function getStatus(actions: ActionsOutput, request: ApiRequest, response: ServerResponse): void {
  const text = request.query.get('id');
  if (text === null || text === '')
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
  sendJson(response, 200, records);
}

export function registerActionsRoutes(router: Router, ctx: AppContext, actions: ActionsOutput): void {
  const license = 'PLUS' as const;
  router.add('GET', PATH, (_request, response) => getDefinition(ctx, response), {
    license,
    doc: {
      summary: 'The actions definition',
      responses: {
        200: { description: 'definition', schema: contract('ActionsDefinitionSchema') },
        404: { description: 'no definition set (or deleted)', schema: ERROR_REF },
      },
    },
  });
  router.add('POST', PATH, (request, response) => postDefinition(ctx, request, response), {
    license,
    body: 'json',
    maxBodyBytes: LIMITS.definitionBytes,
    doc: {
      summary: 'Replace the actions definition',
      request: contract('ActionsDefinitionSchema'),
      responses: {
        200: { description: 'the stored definition', schema: contract('ActionsDefinitionSchema') },
      },
    },
  });
  router.add('DELETE', PATH, (_request, response) => deleteDefinition(ctx, response), {
    license,
    doc: { summary: 'Delete the actions definition', responses: { 204: { description: 'deleted' } } },
  });
  router.add('POST', `${PATH}/call`, (request, response) => callAction(actions, request, response), {
    license,
    doc: {
      summary: 'Run an action (asynchronously)',
      query: { id: { type: 'string' } },
      responses: {
        202: {
          description: 'started; Location: the status URL',
          schema: contract('ActionCallAnswerSchema'),
        },
        409: { description: 'the action is disabled', schema: ERROR_REF },
        429: { description: 'the action is still running', schema: ERROR_REF },
      },
    },
  });
  router.add('GET', `${PATH}/status`, (request, response) => getStatus(actions, request, response), {
    license,
    doc: {
      summary: 'Execution statuses by status id',
      query: { id: { type: 'string' } },
      responses: {
        200: { description: 'status records', schema: contract('ActionStatusListSchema') },
        404: { description: 'no known status among the ids (or no id given)', schema: ERROR_REF },
      },
    },
  });
  router.add(
    'GET',
    `${PATH}/definition`,
    (_request, response) => sendJson(response, 200, { definition: definitionView(ctx) }),
    {
      license,
      doc: {
        summary: 'The actions definition for the web page: null while none is set (never a 404)',
        responses: {
          200: {
            description: 'the definition as GET /api/v1/actions shows it, or null',
            schema: contract('ActionsDefinitionViewSchema'),
          },
        },
      },
    },
  );
  router.add(
    'GET',
    `${PATH}/recent`,
    (_request, response) =>
      sendJson(response, 200, {
        statuses: actions.runner.ring.latest(),
        counters: actions.runner.countersOf(),
      }),
    {
      license,
      doc: {
        summary: 'The last action executions and the counters per action',
        responses: {
          200: {
            description: 'the last statuses, newest first, and the counters',
            schema: contract('ActionsRecentSchema'),
          },
        },
      },
    },
  );
}
