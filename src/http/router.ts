import type { ContractRef } from './contract-ref.js';
import type { AppConfig } from '../config/types.js';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A request after routing: parsed URL and, for JSON routes, the parsed body. */
export interface ApiRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  raw: IncomingMessage;
  /** Parsed JSON body (routes with body: 'json'); undefined otherwise. */
  body: unknown;
  /**
   * Aborted when the server stops; long-lived responses (SSE) end themselves on it. Set by the
   * server for every request.
   */
  shutdown?: AbortSignal;
}

export type RouteHandler = (request: ApiRequest, response: ServerResponse) => Promise<void> | void;

/** A JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1). */
export type JsonSchema = Record<string, unknown>;

/**
 * A schema of the API's description: a reference to a contract (src/contracts/, loaded on first
 * use) or one generated from the config schema (docs/architecture.md#api-contracts).
 */
export type DocSchema = JsonSchema | ContractRef;

/** What GET /api/v1/openapi.json says about a route (an OpenAPI 3.1 document of what is actually served). */
export interface RouteDoc {
  summary: string;
  /** Schema of the JSON request body (routes with body: 'json'). */
  request?: DocSchema;
  /** Success and route-specific responses by status; the server's own errors are added automatically. */
  responses?: Record<
    number,
    {
      description: string;
      schema?: DocSchema;
      contentType?: string;
      /** Further media types of the same response (chosen by a format= query, or a file download), by type. */
      alternatives?: Record<string, DocSchema>;
    }
  >;
  /** Query parameters by name. */
  query?: Record<string, DocSchema>;
}

export interface RouteOptions {
  /**
   * 'json': the server reads the body (limit maxBodyBytes, default 8 kB), requires
   * application/json (415 otherwise) and parses it (400 on malformed JSON) before the handler.
   * 'stream': the handler reads request.raw itself (firmware upload).
   * Absent: no body expected.
   */
  body?: 'json' | 'stream';
  maxBodyBytes?: number;
  /**
   * The contract of a 'json' body (src/contracts/): checked before the handler, a 400
   * validation_failed naming each field otherwise, and documented as the request body. Settings
   * sections have none: the config layer validates them (docs/architecture.md#api-contracts).
   */
  bodySchema?: ContractRef;
  /**
   * Route needs license PLUS or PRO; under FREE it answers 404 license_required
   * (docs/architecture.md#license).
   */
  license?: 'PLUS';
  /**
   * Open without authentication while system.protection is on, when this says so for the current
   * config (a setting such as services.metrics.public); only ever on an exact path.
   */
  open?: (config: AppConfig) => boolean;
  /**
   * A file of the web interface (page, script, style, image): never refused for the page's origin
   * or name, so the interface opens at whatever address the user typed
   * (docs/architecture.md#cross-site-requests).
   */
  asset?: boolean;
  doc?: RouteDoc;
}

export interface Route {
  method: string;
  path: string;
  handler: RouteHandler;
  options: RouteOptions;
}

/** The route; or, when the path exists without this method, the methods it has (405); or undefined (404). */
export type RouteMatch = Route | readonly string[] | undefined;

/** The parameter a route path may end with: `/sdcard/{path}` matches every path below `/sdcard/`. */
export const TAIL_PARAMETER = '{path}';

/**
 * Routing table of exact paths (nearly every path of the device API is static), plus paths ending in
 * the tail parameter, which match any rest (the handler reads it from `request.path`, still
 * percent-encoded). An exact path wins over a tail route.
 */
export class Router {
  private readonly routes = new Map<string, Map<string, Route>>();
  /** Prefixes (the path without its tail parameter) of tail routes, longest first. */
  private tails: string[] = [];
  /** Paths with one-segment parameters (`/api/v1/meters/{id}/report`), as patterns. */
  private readonly segmentRoutes: Array<{ pattern: RegExp; path: string }> = [];

  add(method: string, path: string, handler: RouteHandler, options: RouteOptions = {}): this {
    let byMethod = this.routes.get(path);
    if (!byMethod) {
      byMethod = new Map();
      this.routes.set(path, byMethod);
      if (path.endsWith(TAIL_PARAMETER)) {
        this.tails.push(path.slice(0, -TAIL_PARAMETER.length));
        this.tails.sort((a, b) => b.length - a.length);
      } else if (/\{[a-z_]+\}/.test(path)) {
        // A `{name}` segment matches one path segment; the handler reads it from `request.path`.
        const escaped = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[a-z_]+\\?\}/g, '[^/]+');
        this.segmentRoutes.push({ pattern: new RegExp(`^${escaped}$`), path });
      }
    }
    if (byMethod.has(method)) throw new Error(`route ${method} ${path} registered twice`);
    byMethod.set(method, { method, path, handler, options });
    return this;
  }

  /** Every route, in registration order. */
  list(): Route[] {
    return [...this.routes.values()].flatMap((byMethod) => [...byMethod.values()]);
  }

  /** The route, or the allowed methods (405), or undefined (404). HEAD falls back to GET. */
  match(method: string, path: string): RouteMatch {
    const exact = this.routes.has(path) ? path : this.segmentRoutes.find((r) => r.pattern.test(path))?.path;
    const tail = exact !== undefined ? undefined : this.tails.find((prefix) => path.startsWith(prefix));
    const byMethod = this.routes.get(tail === undefined ? (exact ?? path) : tail + TAIL_PARAMETER);
    if (!byMethod) return undefined;
    const route = byMethod.get(method) ?? (method === 'HEAD' ? byMethod.get('GET') : undefined);
    return route ?? [...byMethod.keys()];
  }
}
