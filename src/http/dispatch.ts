import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
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

function apiRequest(raw: IncomingMessage, path: string, search: string, shutdown: AbortSignal): ApiRequest {
  let query: URLSearchParams | undefined;
  return {
    method: raw.method ?? 'GET',
    path,
    get query(): URLSearchParams {
      query ??= new URLSearchParams(search);
      return query;
    },
    raw,
    body: undefined,
    shutdown,
  };
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
 * becomes the error body of DESIGN §4.
 */
export function createRequestHandler(
  ctx: AppContext,
  router: Router,
  auth: Authenticator,
  shutdown: AbortSignal,
  options: DispatchOptions,
): (raw: IncomingMessage, response: ServerResponse) => void {
  const handle = async (raw: IncomingMessage, response: ServerResponse): Promise<void> => {
    const config = ctx.config.config;
    if (config.system.protection && config.system.password !== '') {
      const result = auth.check(raw, realmOf(config), config.system.password);
      if (!result.ok) {
        if (result.delayMs > 0) await sleep(result.delayMs);
        throw result.error;
      }
    }
    const { path, search } = splitTarget(raw.url ?? '/');
    const method = raw.method ?? 'GET';
    const route = matchRoute(router, method, path, config);
    const request = apiRequest(raw, path, search, shutdown);
    if (route.options.body === 'json') {
      request.body = await readJsonBody(raw, {
        maxBytes: route.options.maxBodyBytes ?? DEFAULT_JSON_LIMIT,
        timeoutMs: options.bodyTimeoutMs,
      });
    }
    await route.handler(request, response);
  };

  return (raw, response) => {
    handle(raw, response).catch((error: unknown) => {
      if (response.headersSent || response.destroyed) {
        if (!(error instanceof HttpError))
          ctx.logger.error(
            `http: ${raw.method} ${pathForLog(raw.url)} failed after the response started: ${(error as Error).message}`,
          );
        response.destroy();
        return;
      }
      if (error instanceof HttpError) {
        sendError(response, error);
        return;
      }
      ctx.logger.error(`http: ${raw.method} ${pathForLog(raw.url)} failed: ${(error as Error).message}`);
      sendError(response, new HttpError(500, 'internal_error', 'internal server error'));
    });
  };
}

/** The path without the query string (a query may carry anything; logs get only the path). */
function pathForLog(url: string | undefined): string {
  const target = url ?? '/';
  const q = target.indexOf('?');
  return (q < 0 ? target : target.slice(0, q)).slice(0, 200);
}
