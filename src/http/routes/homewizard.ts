/**
 * The HomeWizard P1 personality's routes (docs/architecture.md#homewizard-personality): on the API's
 * port through the router, and the paths of its own port (`answerOwnPort`, served by
 * src/http/routes/homewizard-server.ts); the answers are src/http/routes/homewizard-answers.ts's.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from '../../context.js';
import { errorBody, systemOf } from '../../device/homewizard/api-v1.js';
import type { RouteDoc, Router } from '../router.js';
import type { HomewizardAnswers } from './homewizard-answers.js';

function send(
  response: ServerResponse,
  status: number,
  body: string | Buffer,
  contentType: string,
  head: boolean,
): void {
  response.writeHead(status, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  });
  response.end(head ? undefined : body);
}

export function sendJson(response: ServerResponse, status: number, value: unknown, head: boolean): void {
  send(response, status, JSON.stringify(value), 'application/json', head);
}

const HW_DOC = 'HomeWizard P1 personality (services.emulate.homewizard); off: 404 like an unknown path';

/** HomeWizard's own error body (`{"error": {"id", "description"}}`), as its 404 carries it. */
const HW_ERROR = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['id', 'description'],
      properties: { id: { type: 'integer' }, description: { type: 'string' } },
    },
  },
};

/** The answers of a HomeWizard route: the personality's content, or 404 while it is off. */
function hwResponses(contentType: string): NonNullable<RouteDoc['responses']> {
  const content = { type: contentType === 'application/json' ? 'object' : 'string' };
  return {
    200: { description: 'the HomeWizard answer', contentType, schema: content },
    404: { description: 'personality off, or no such data (HomeWizard error body)', schema: HW_ERROR },
  };
}

/**
 * The HomeWizard P1 personality on the device's HTTP server (docs/architecture.md#homewizard-personality):
 * `GET /api`, `/api/v1/data`, `/api/v1/telegram` and `PUT /api/v1/identify`. None of these paths is
 * a whatwatt Go path. Off: 404. The local API v1 has no authentication, so these routes stay open
 * while system.protection is on and the personality is enabled (consumers such as evcc or Home
 * Assistant send no credentials). `/api/v1/system` here is the whatwatt Go's (protected);
 * the P1's `/api/v1/system` is served on the personality's own port (`HomewizardServer`).
 */
export function registerHomewizardRoutes(router: Router, ctx: AppContext, answers: HomewizardAnswers): void {
  const open = (config: typeof ctx.config.config) => config.services.emulate.homewizard.enable;
  const notFound = (response: ServerResponse, head: boolean) =>
    sendJson(response, 404, errorBody(404, 'Not found'), head);

  /** A GET (and HEAD) route of the personality: 200 with what `body` gives, 404 when it gives nothing. */
  const serve = (
    path: string,
    summary: string,
    contentType: string,
    body: () => string | Buffer | undefined,
  ) =>
    router.add(
      'GET',
      path,
      (request, response) => {
        const head = request.method === 'HEAD';
        const text = body();
        if (text === undefined) return notFound(response, head);
        send(response, 200, text, contentType, head);
      },
      { open, doc: { summary, responses: hwResponses(contentType) } },
    );
  serve('/api', `Device information (${HW_DOC})`, 'application/json', answers.api);
  serve('/api/v1/data', `Recent measurement (${HW_DOC})`, 'application/json', answers.data);
  serve(
    '/api/v1/telegram',
    `Last raw DSMR telegram (${HW_DOC}); 404 when the meter is not DSMR`,
    'text/plain',
    answers.telegram,
  );
  router.add(
    'PUT',
    '/api/v1/identify',
    (_request, response) => {
      if (!answers.on()) return notFound(response, false);
      sendJson(response, 200, IDENTIFIED, false);
    },
    {
      open,
      doc: {
        summary: `Identify: a P1 meter blinks its LED; the gateway has none and answers ok (${HW_DOC})`,
        responses: hwResponses('application/json'),
      },
    },
  );
}

/** `PUT /api/v1/identify` (HomeWizard api-documentation docs/v1/identify.mdx). */
const IDENTIFIED = { identify: 'ok' };

/**
 * The paths of a P1 meter's local API v1 on the personality's own port, as Home Assistant's
 * HomeWizard integration (python-homewizard-energy `HomeWizardEnergyV1`) calls them: `GET /api`,
 * `/api/v1/data`, `/api/v1/telegram`, `/api/v1/system` (`{"cloud_enabled": false}`; a PUT answers
 * the same and changes nothing), `/api/v1/state` 404 (a P1 has none), `PUT /api/v1/identify`.
 * Everything else is HomeWizard's 404. No credentials: the P1's API v1 has none.
 */
export function answerOwnPort(
  answers: HomewizardAnswers,
  request: IncomingMessage,
  response: ServerResponse,
): void {
  const path = (request.url ?? '').split('?', 1)[0];
  const method = request.method ?? 'GET';
  const head = method === 'HEAD';
  const notFound = () => sendJson(response, 404, errorBody(404, 'Not found'), head);
  if (!answers.on()) return notFound();
  if (method === 'GET' || head) {
    const body =
      path === '/api'
        ? answers.api()
        : path === '/api/v1/data'
          ? answers.data()
          : path === '/api/v1/system'
            ? JSON.stringify(systemOf())
            : undefined;
    if (body !== undefined) return send(response, 200, body, 'application/json', head);
    const telegram = path === '/api/v1/telegram' ? answers.telegram() : undefined;
    if (telegram !== undefined) return send(response, 200, telegram, 'text/plain', head);
    return notFound();
  }
  if (method === 'PUT' && path === '/api/v1/identify') return sendJson(response, 200, IDENTIFIED, false);
  if (method === 'PUT' && path === '/api/v1/system') return sendJson(response, 200, systemOf(), false);
  if (method === 'PUT') return notFound();
  sendJson(response, 405, errorBody(405, 'Method not allowed'), false);
}
