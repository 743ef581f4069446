import { ERROR_REF } from '../api-schemas.js';
import type { AppContext } from '../../context.js';
import type { AppConfig } from '../../config/types.js';
import { ShellyRpc } from '../../device/shelly/rpc.js';
import { SmoothedFeed } from '../../device/smoothing.js';
import { readBoundedBody } from '../body.js';
import { HttpError } from '../errors.js';
import { sendJsonText } from '../respond.js';
import type { ApiRequest, Router } from '../router.js';

/**
 * The Shelly Pro 3EM personality over HTTP (docs/architecture.md#shelly-pro-3em): `GET /shelly`
 * (Gen2 devices answer it with the device info), `GET /rpc/<Method>?id=0` (the result alone, or the
 * error object with HTTP status 404 / 400 like the device), `POST /rpc/<Method>` with the params as
 * a JSON body (the result alone, as for GET; a body holding a whole request frame, `{"id", "src",
 * "method", "params"}`, as evcc's `meter/shelly` sends it, gives its `params`) and `POST /rpc` with
 * a JSON-RPC frame (answered by a frame, HTTP 200). While the personality is off every path answers the server's
 * 404 exactly as an unknown path. The consumers (batteries, Victron, Home Assistant) cannot sign
 * in and a Pro 3EM with `auth_en: false` asks for nothing, so while on the paths are open.
 */

export const SHELLY_PATHS = ['/shelly', '/rpc', '/rpc/{path}'] as const;

/** A Gen2 RPC frame is small; Shelly.GetStatus requests are tens of bytes. */
export const SHELLY_FRAME_LIMIT = 4096;
const BODY_TIMEOUT_MS = 5000;

const enabled = (config: AppConfig): boolean => config.services.emulate.shelly.enable;

/** The one RPC instance of the context, serving the configured meter's store. */
export function shellyRpcOf(ctx: AppContext): ShellyRpc {
  const settings = () => ctx.config.config.services.emulate.shelly;
  // Smoothed once per reading when services.emulate.shelly.smoothing asks for it.
  // Only the configured meter: while it is missing the personality has no reading to serve
  // (docs/architecture.md#output-contract).
  const feed = new SmoothedFeed(
    () => ctx.meters.get(settings().meter)?.store,
    () => settings().smoothing,
  );
  return new ShellyRpc({
    reading: () => feed.latest(),
    identity: () => ({ systemId: ctx.system.id, name: null }),
    clock: ctx.clock,
    onChange: (listener) => feed.onChange(listener),
  });
}

/** A Shelly answer (the RPC method's result) or, while the personality is off, 404 with the error body. */
const SHELLY_RESPONSES = {
  200: { description: "the method's result", schema: { type: 'object' } },
  404: { description: 'personality off (not_found)', schema: ERROR_REF },
};

function requireOn(ctx: AppContext, request: ApiRequest): void {
  if (!enabled(ctx.config.config)) throw new HttpError(404, 'not_found', `no such endpoint: ${request.path}`);
}

/** GET parameters as the device reads them: numbers where they parse as numbers. */
function paramsOf(query: URLSearchParams): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const [key, value] of query)
    params[key] = value !== '' && Number.isFinite(Number(value)) ? Number(value) : value;
  return params;
}

/** The answer of one method as `/rpc/<Method>` gives it: the result, or the error with 404 / 400. */
function sendOutcome(
  response: Parameters<typeof sendJsonText>[0],
  outcome: ReturnType<ShellyRpc['call']>,
): void {
  if ('result' in outcome) sendJsonText(response, 200, JSON.stringify(outcome.result));
  else sendJsonText(response, outcome.error.code === 404 ? 404 : 400, JSON.stringify(outcome.error));
}

/**
 * The params of a `POST /rpc/<Method>` body: the body itself, or its `params` when it is a whole
 * request frame (it names a `method`); undefined for an empty body; a body that is not a JSON
 * object is the device's -103 invalid argument.
 */
function bodyParams(body: Buffer): { params: unknown } | { error: { code: number; message: string } } {
  const text = body.toString('utf8').trim();
  if (text === '') return { params: undefined };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { error: { code: -103, message: 'Invalid JSON body' } };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    return { error: { code: -103, message: 'The body must be a JSON object' } };
  const frame = parsed as Record<string, unknown>;
  return { params: typeof frame.method === 'string' ? frame.params : frame };
}

/** The method a `/rpc/<Method>` path names (GET and POST), percent-decoded. */
function methodOf(ctx: AppContext, request: ApiRequest): string {
  try {
    return decodeURIComponent(request.path.slice('/rpc/'.length));
  } catch {
    // A broken percent-escape (RFC 3986 §2.1) is the client's error: counted, not logged.
    ctx.refusals.add('http_bad_escape');
    throw new HttpError(400, 'bad_request', 'malformed percent-escape in the method name');
  }
}

/** A POST's body, at most one RPC frame's size, within the body timeout. */
function readFrame(ctx: AppContext, request: ApiRequest): Promise<Buffer> {
  return readBoundedBody(request.raw, {
    maxBytes: SHELLY_FRAME_LIMIT,
    timeoutMs: BODY_TIMEOUT_MS,
    clock: ctx.clock,
  });
}

export function registerShellyRoutes(
  router: Router,
  ctx: AppContext,
  rpc: ShellyRpc = shellyRpcOf(ctx),
): void {
  const open = enabled;
  router.add(
    'GET',
    '/shelly',
    (request, response) => {
      requireOn(ctx, request);
      const outcome = rpc.call('Shelly.GetDeviceInfo', undefined);
      sendJsonText(response, 200, JSON.stringify('result' in outcome ? outcome.result : outcome.error));
    },
    {
      open,
      doc: {
        summary: 'Shelly Pro 3EM personality: device info (services.emulate.shelly)',
        responses: SHELLY_RESPONSES,
      },
    },
  );
  router.add(
    'GET',
    '/rpc/{path}',
    (request, response) => {
      requireOn(ctx, request);
      sendOutcome(response, rpc.call(methodOf(ctx, request), paramsOf(request.query)));
    },
    { open, doc: { summary: 'Shelly Pro 3EM personality: one RPC method by GET (services.emulate.shelly)' } },
  );
  router.add(
    'POST',
    '/rpc/{path}',
    async (request, response) => {
      requireOn(ctx, request);
      const method = methodOf(ctx, request);
      const parsed = bodyParams(await readFrame(ctx, request));
      sendOutcome(response, 'error' in parsed ? parsed : rpc.call(method, parsed.params));
    },
    {
      body: 'stream',
      open,
      doc: {
        summary:
          'Shelly Pro 3EM personality: one RPC method by POST, params (or a whole request frame) as the JSON body (services.emulate.shelly)',
      },
    },
  );
  router.add(
    'POST',
    '/rpc',
    async (request, response) => {
      requireOn(ctx, request);
      const body = await readFrame(ctx, request);
      sendJsonText(response, 200, rpc.frame(body.toString('utf8')));
    },
    {
      body: 'stream',
      open,
      doc: { summary: 'Shelly Pro 3EM personality: a JSON-RPC 2.0 frame (services.emulate.shelly)' },
    },
  );
}
