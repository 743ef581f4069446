import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from '../context.js';
import type { AppConfig } from '../config/types.js';
import type { Authenticator } from './auth.js';
import { DEFAULT_JSON_LIMIT, readJsonBody } from './body.js';
import { checkBody } from './body-check.js';
import { HttpError } from './errors.js';
import { isLocalHealthCheck } from './health.js';
import { isIngressRequest } from './ingress-trust.js';
import {
  ALLOWED_HOSTS_ENV,
  ALLOWED_HOSTS_SETTING,
  originRefusal,
  type OriginRefusal,
} from './origin-check.js';
import { sendError, sendJson } from './respond.js';
import { StillApplying } from './section-writes.js';
import type { ApiRequest, Route, Router } from './router.js';

export interface DispatchOptions {
  /** A JSON body must arrive completely within this time. */
  bodyTimeoutMs: number;
  /**
   * Answering a request failed (its error body could not be written): the connection was closed.
   * The server counts these (docs/architecture.md#hostile-input).
   */
  onAnswerFailure?: (error: unknown) => void;
}

/**
 * Digest realm = the host name (docs/architecture.md#auth); read per request, so a change applies at once.
 */
export function realmOf(config: AppConfig): string {
  return config.system.host_name || config.system.name || 'meter-gateway';
}

/** The origin form of a request-target; an absolute-form one (RFC 9112 §3.2.2) is reduced to it. */
function originForm(url: string): string {
  if (url.startsWith('/')) return url;
  try {
    const parsed = new URL(url);
    return parsed.pathname + parsed.search;
  } catch {
    throw new HttpError(400, 'bad_request', 'malformed request-target');
  }
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
  if (isMethodList(match)) {
    const allowed = match.includes('GET') && !match.includes('HEAD') ? [...match, 'HEAD'] : [...match];
    throw new HttpError(
      405,
      'method_not_allowed',
      `${method} is not allowed on ${path}`,
      { allowed },
      { Allow: allowed.join(', ') },
    );
  }
  // As on the whatwatt Go: without the license, a gated route answers HTTP 404.
  if (match.options.license === 'PLUS' && config.license.type === 'FREE') {
    throw new HttpError(404, 'license_required', `${path} needs a PLUS or PRO license`, {
      license: config.license.type,
    }).withKey('error.license_required', { path });
  }
  return match;
}

/** Whether the request goes to a route that is open without authentication under the current config. */
function isOpenRoute(router: Router, raw: IncomingMessage, config: AppConfig): boolean {
  const url = raw.url ?? '/';
  const q = url.indexOf('?');
  const match = router.match(raw.method ?? 'GET', q < 0 ? url : url.slice(0, q));
  return match !== undefined && !isMethodList(match) && match.options.open?.(config) === true;
}

/** Whether the request goes to a file of the web interface (never refused for its origin). */
function isAssetRoute(router: Router, raw: IncomingMessage): boolean {
  const url = raw.url ?? '/';
  const q = url.indexOf('?');
  const match = router.match(raw.method ?? 'GET', q < 0 ? url : url.slice(0, q));
  return match !== undefined && !isMethodList(match) && match.options.asset === true;
}

/**
 * As the whatwatt Go: 404 and no CORS header, so a foreign page cannot read the answer at all.
 * The page of the device itself (at a name it was not told) can, and its message names the
 * address and the setting that allows it (docs/architecture.md#cross-site-requests).
 */
function refusedError(refusal: OriginRefusal): HttpError {
  if (refusal.address === undefined) return new HttpError(404, 'not_found', 'not found');
  const why = refusal.sameOrigin
    ? 'is not a known address of this gateway'
    : 'is not the address the request came to (a proxy that passes on another Host)';
  return new HttpError(
    404,
    'not_found',
    `refused: the page at ${refusal.address} ${why}; add it to ${ALLOWED_HOSTS_SETTING} (${ALLOWED_HOSTS_ENV})`,
    {
      refused: 'origin',
      address: refusal.address,
      setting: ALLOWED_HOSTS_SETTING,
      environment: ALLOWED_HOSTS_ENV,
    },
  );
}

function isMethodList(match: Route | readonly string[]): match is readonly string[] {
  return Array.isArray(match);
}

/**
 * The request pipeline: the foreign-origin refusal, authentication before routing (unknown paths are not revealed to
 * unauthenticated clients), routing with 404/405, license gate, JSON body, handler. Every failure
 * becomes the error body (docs/architecture.md#errors). A route without a body whose handler is synchronous
 * (the report) runs without a promise.
 */
export function createRequestHandler(
  ctx: AppContext,
  router: Router,
  auth: Authenticator,
  shutdown: AbortSignal,
  options: DispatchOptions,
): (raw: IncomingMessage, response: ServerResponse) => void {
  const answer = (raw: IncomingMessage, response: ServerResponse, error: unknown): void =>
    answerFailure(ctx, raw, response, error, options.onAnswerFailure);
  const fail = (raw: IncomingMessage, response: ServerResponse) => (error: unknown) =>
    answer(raw, response, error);

  return (raw, response) => {
    try {
      const config = ctx.config.config;
      const refusal = isAssetRoute(router, raw) ? undefined : originRefusal(raw, config);
      if (refusal !== undefined) {
        ctx.logger.debug(`http: ${raw.method} ${pathForLog(raw.url)} refused: ${refusal.reason}`);
        throw refusedError(refusal);
      }
      if (config.system.protection && !signedInElsewhere(raw, config) && !isOpenRoute(router, raw, config)) {
        const result = auth.check(raw, realmOf(config), config.system.password);
        if (!result.ok) {
          // Repeated failures: the answer is held back, never given sooner.
          if (result.delayMs > 0)
            ctx.clock.setTimeout(() => answer(raw, response, result.error), result.delayMs);
          else answer(raw, response, result.error);
          return;
        }
      }
      const target = originForm(raw.url ?? '/');
      const q = target.indexOf('?');
      const path = q < 0 ? target : target.slice(0, q);
      const search = q < 0 ? '' : target.slice(q + 1);
      const method = raw.method ?? 'GET';
      const route = matchRoute(router, method, path, config);
      const request = new RoutedRequest(raw, method, path, search, shutdown);
      if (route.options.body === 'json') {
        const limits = {
          maxBytes: route.options.maxBodyBytes ?? DEFAULT_JSON_LIMIT,
          timeoutMs: options.bodyTimeoutMs,
          clock: ctx.clock,
        };
        readJsonBody(raw, limits)
          .then(async (body) => {
            if (route.options.bodySchema) await checkBody(route.options.bodySchema, body);
            request.body = body;
            return route.handler(request, response);
          })
          .catch(fail(raw, response));
        return;
      }
      const pending = route.handler(request, response);
      if (pending) pending.catch(fail(raw, response));
    } catch (error) {
      answer(raw, response, error);
    }
  };
}

/**
 * Requests that need no password of ours: Home Assistant's ingress (it signed the user in) and the
 * local health check (docs/architecture.md#auth).
 */
function signedInElsewhere(raw: IncomingMessage, config: AppConfig): boolean {
  if (isIngressRequest(raw, config)) return true;
  const target = raw.url ?? '/';
  const q = target.indexOf('?');
  return isLocalHealthCheck(raw, q < 0 ? target : target.slice(0, q));
}

/**
 * An HttpError becomes its error body; anything else is logged and answered 500. Nothing thrown
 * here leaves the request: when the answer itself fails, that one connection is closed, the failure
 * logged once and reported to `onFailure` (docs/architecture.md#hostile-input).
 */
function answerFailure(
  ctx: AppContext,
  raw: IncomingMessage,
  response: ServerResponse,
  error: unknown,
  onFailure?: (error: unknown) => void,
): void {
  try {
    if (error instanceof StillApplying && !response.headersSent && !response.destroyed) {
      sendJson(response, 202, error.view());
      return;
    }
    const expected = error instanceof HttpError;
    if (!expected) ctx.logger.error(`http: ${raw.method} ${pathForLog(raw.url)} failed: ${messageOf(error)}`);
    if (response.headersSent || response.destroyed) {
      response.destroy();
      return;
    }
    sendError(response, expected ? error : new HttpError(500, 'internal_error', 'internal server error'));
  } catch (failure) {
    response.destroy();
    raw.socket?.destroy();
    try {
      ctx.logger.error(
        `http: ${raw.method} ${pathForLog(raw.url)}: answer failed, connection closed: ${messageOf(failure)}`,
      );
      onFailure?.(failure);
    } catch {
      // The logger or the counter failed as well: the connection is closed, nothing more to do.
    }
  }
}

function messageOf(error: unknown): string {
  return String(error instanceof Error ? error.message : error).slice(0, 300);
}

/** The path without the query string (a query may carry anything; logs get only the path). */
function pathForLog(url: string | undefined): string {
  const target = url ?? '/';
  const q = target.indexOf('?');
  return (q < 0 ? target : target.slice(0, q)).slice(0, 200);
}
