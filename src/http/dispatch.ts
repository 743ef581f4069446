import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from '../context.js';
import type { AppConfig } from '../config/types.js';
import type { Authenticator } from './auth.js';
import { DEFAULT_JSON_LIMIT, readJsonBody } from './body.js';
import { HttpError } from './errors.js';
import { sendError } from './respond.js';
import type { ApiRequest, Route, Router } from './router.js';

export interface DispatchOptions {
  /** A JSON body must arrive completely within this time. */
  bodyTimeoutMs: number;
}

/** Digest realm = the host name (DESIGN §4); read per request, so a change applies at once. */
export function realmOf(config: AppConfig): string {
  return config.system.host_name || config.system.name || 'meter-gateway';
}

/** Splits an origin-form request-target; an absolute-form one (RFC 9112 §3.2.2) is reduced to it. */
function splitTarget(url: string): { path: string; search: string } {
  let target = url;
  if (!target.startsWith('/')) {
    try {
      const parsed = new URL(target);
      target = parsed.pathname + parsed.search;
    } catch {
      throw new HttpError(400, 'bad_request', 'malformed request-target');
    }
  }
  const q = target.indexOf('?');
  return q < 0 ? { path: target, search: '' } : { path: target.slice(0, q), search: target.slice(q + 1) };
}

/** ApiRequest with the query parsed only when a handler asks for it. */
class RoutedRequest implements ApiRequest {
  body: unknown = undefined;
  private parsedQuery: URLSearchParams | undefined;

  constructor(
    readonly raw: IncomingMessage,
    readonly method: string,
    readonly path: string,
    private readonly search: string,
    readonly shutdown: AbortSignal,
  ) {}

  get query(): URLSearchParams {
    this.parsedQuery ??= new URLSearchParams(this.search);
    return this.parsedQuery;
  }
}

function matchRoute(router: Router, method: string, path: string, config: AppConfig): Route {
  const match = router.match(method, path);
  if (!match) throw new HttpError(404, 'not_found', `no such endpoint: ${path}`);
  if ('allowed' in match) {
    const allowed =
      match.allowed.includes('GET') && !match.allowed.includes('HEAD')
        ? [...match.allowed, 'HEAD']
        : match.allowed;
    throw new HttpError(
      405,
      'method_not_allowed',
      `${method} is not allowed on ${path}`,
      { allowed },
      { Allow: allowed.join(', ') },
    );
  }
  // Spec: "On a device without the license, the gated route answers HTTP 404."
  if (match.route.options.license === 'PLUS' && config.license.type === 'FREE') {
    throw new HttpError(404, 'license_required', `${path} needs a PLUS or PRO license`, {
      license: config.license.type,
    });
  }
  return match.route;
}

/**
 * The request pipeline: authentication before routing (unknown paths are not revealed to
 * unauthenticated clients), routing with 404/405, license gate, JSON body, handler. Every failure
 * becomes the error body of DESIGN §4. A route without a body whose handler is synchronous (the
 * report) runs without a promise.
 */
export function createRequestHandler(
  ctx: AppContext,
  router: Router,
  auth: Authenticator,
  shutdown: AbortSignal,
  options: DispatchOptions,
): (raw: IncomingMessage, response: ServerResponse) => void {
  const fail = (raw: IncomingMessage, response: ServerResponse) => (error: unknown) =>
    answerFailure(ctx, raw, response, error);

  return (raw, response) => {
    try {
      const config = ctx.config.config;
      if (config.system.protection && config.system.password !== '') {
        const result = auth.check(raw, realmOf(config), config.system.password);
        if (!result.ok) {
          // Repeated failures: the answer is held back, never given sooner.
          if (result.delayMs > 0)
            setTimeout(() => answerFailure(ctx, raw, response, result.error), result.delayMs);
          else answerFailure(ctx, raw, response, result.error);
          return;
        }
      }
      const { path, search } = splitTarget(raw.url ?? '/');
      const method = raw.method ?? 'GET';
      const route = matchRoute(router, method, path, config);
      const request = new RoutedRequest(raw, method, path, search, shutdown);
      if (route.options.body === 'json') {
        const limits = {
          maxBytes: route.options.maxBodyBytes ?? DEFAULT_JSON_LIMIT,
          timeoutMs: options.bodyTimeoutMs,
        };
        readJsonBody(raw, limits)
          .then((body) => {
            request.body = body;
            return route.handler(request, response);
          })
          .catch(fail(raw, response));
        return;
      }
      const pending = route.handler(request, response);
      if (pending) pending.catch(fail(raw, response));
    } catch (error) {
      answerFailure(ctx, raw, response, error);
    }
  };
}

/** An HttpError becomes its error body; anything else is logged and answered 500. */
function answerFailure(
  ctx: AppContext,
  raw: IncomingMessage,
  response: ServerResponse,
  error: unknown,
): void {
  const expected = error instanceof HttpError;
  if (!expected)
    ctx.logger.error(`http: ${raw.method} ${pathForLog(raw.url)} failed: ${(error as Error).message}`);
  if (response.headersSent || response.destroyed) {
    response.destroy();
    return;
  }
  sendError(response, expected ? error : new HttpError(500, 'internal_error', 'internal server error'));
}

/** The path without the query string (a query may carry anything; logs get only the path). */
function pathForLog(url: string | undefined): string {
  const target = url ?? '/';
  const q = target.indexOf('?');
  return (q < 0 ? target : target.slice(0, q)).slice(0, 200);
}
