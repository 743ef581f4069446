import type { Static } from 'typebox';
import { checkPart } from './body-check.js';
import type { ContractModule, ContractName, ContractRef } from './contract-ref.js';
import { HttpError } from './errors.js';
import { sendJson, sendNoContent } from './respond.js';
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

/** One response of a route as the API's description shows it. */
export interface ResponseDoc {
  description: string;
  schema?: DocSchema;
  contentType?: string;
  /** Further media types of the same response (chosen by a format= query, or a file download), by type. */
  alternatives?: Record<string, DocSchema>;
}

/** What GET /api/v1/openapi.json says about a route (an OpenAPI 3.1 document of what is actually served). */
export interface RouteDoc {
  summary: string;
  /** Schema of the JSON request body (routes with body: 'json'). */
  request?: DocSchema;
  /** Success and route-specific responses by status; the server's own errors are added automatically. */
  responses?: Record<number, ResponseDoc>;
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
   * The contract of the query's parameters (an object of strings, each parameter's first value),
   * checked before the handler like a body (400 validation_failed naming the parameter) and
   * documented as the query parameters. Set by a typed route (`Router.route`).
   */
  querySchema?: ContractRef;
  /** The contract of the path's `{name}` parameters, checked and documented likewise (`Router.route`). */
  paramsSchema?: ContractRef;
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

/** The type a contract reference stands for; `Otherwise` where none is declared. */
export type StaticOf<R, Otherwise = never> =
  R extends ContractRef<infer N extends ContractName> ? Static<ContractModule[N]> : Otherwise;

/**
 * A route declared by its contracts (docs/architecture.md#typed-routes): the path's parameters, the
 * query, the JSON body and the responses by status. The one declaration is the check the router
 * runs before the handler, the handler's argument and return types, and the route's entry in
 * GET /api/v1/openapi.json.
 */
export interface RouteDeclaration extends Omit<
  RouteOptions,
  'body' | 'bodySchema' | 'doc' | 'querySchema' | 'paramsSchema'
> {
  method: string;
  path: string;
  summary: string;
  params?: ContractRef;
  query?: ContractRef;
  /** The contract of a JSON body: the route reads, parses and checks it (body: 'json'). */
  body?: ContractRef;
  /** Every response by status; an error status names ERROR_REF and is thrown as an HttpError. */
  response: Record<number, ResponseDoc>;
}

/** What a typed handler gets: every declared part already checked against its contract. */
export interface RouteInput<D extends RouteDeclaration> {
  params: StaticOf<D['params'], Record<string, string>>;
  query: StaticOf<D['query'], Record<string, string>>;
  body: StaticOf<D['body'], undefined>;
  /** The request itself (its raw headers, the shutdown signal). */
  request: ApiRequest;
}

/** The success statuses a handler answers with; every other status is an HttpError it throws. */
export type SuccessStatus = 200 | 201 | 202 | 204;

/** The body a response's schema declares: its contract's type, unknown for a generated schema, none without. */
export type ResponseBody<R> = R extends { schema: ContractRef<infer N extends ContractName> }
  ? Static<ContractModule[N]>
  : R extends { schema: object }
    ? unknown
    : undefined;

/** One answer of a typed handler: a declared success status and the body its schema declares. */
export type RouteReply<Responses> = {
  [S in Extract<keyof Responses, SuccessStatus>]: ResponseBody<Responses[S]> extends undefined
    ? { status: S; body?: undefined; headers?: Record<string, string> }
    : { status: S; body: ResponseBody<Responses[S]>; headers?: Record<string, string> };
}[Extract<keyof Responses, SuccessStatus>];

export type TypedHandler<D extends RouteDeclaration> = (
  input: RouteInput<D>,
) => RouteReply<D['response']> | Promise<RouteReply<D['response']>>;

/** What the router gives a typed handler before its types are known: checked, but not yet narrowed. */
interface CheckedInput {
  params: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
  request: ApiRequest;
}

interface AnyReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** The values of a path's `{name}` parameters (the tail parameter: the rest of the path), decoded. */
function pathParameters(pattern: string, path: string): Record<string, string> {
  const names = pattern.split('/');
  const parts = path.split('/');
  const params: Record<string, string> = {};
  const decode = (name: string, text: string): string => {
    try {
      return decodeURIComponent(text);
    } catch {
      throw new HttpError(
        400,
        'validation_failed',
        `invalid request path: ${name} is not percent-encoded UTF-8`,
        {
          fields: [{ field: name, message: 'is not percent-encoded UTF-8' }],
        },
      );
    }
  };
  names.forEach((segment, index) => {
    const name = /^\{([a-z_]+)\}$/.exec(segment)?.[1];
    if (name === undefined) return;
    const text =
      segment === TAIL_PARAMETER && index === names.length - 1 ? parts.slice(index).join('/') : parts[index];
    params[name] = decode(name, text ?? '');
  });
  return params;
}

/** Each query parameter's first value (a repeated parameter keeps its first, as URLSearchParams.get). */
function queryParameters(query: URLSearchParams): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of query) if (!Object.hasOwn(values, name)) values[name] = value;
  return values;
}

function sendReply(response: ServerResponse, reply: AnyReply): void {
  for (const [name, value] of Object.entries(reply.headers ?? {})) response.setHeader(name, value);
  if (reply.status === 204) sendNoContent(response);
  else sendJson(response, reply.status, reply.body ?? null);
}

/**
 * The plain handler of a typed route: the path's and the query's parameters checked against their
 * contracts (the body was checked by the dispatcher, as for every route with a bodySchema), the
 * handler called, its reply sent. Synchronous when nothing needs a contract loaded.
 */
function typedRouteHandler(
  declaration: RouteDeclaration,
  handler: (input: never) => AnyReply | Promise<AnyReply>,
): RouteHandler {
  const answer = (input: CheckedInput, response: ServerResponse): Promise<void> | void => {
    // The one place where the contracts' types meet the request's values: every declared part was
    // checked against its contract before this call, which is what the handler's declared type says.
    const reply = handler(input as never);
    if (reply instanceof Promise) return reply.then((value) => sendReply(response, value));
    sendReply(response, reply);
  };
  return (request, response) => {
    const input: CheckedInput = {
      params: pathParameters(declaration.path, request.path),
      query: queryParameters(request.query),
      body: request.body,
      request,
    };
    const { params, query } = declaration;
    if (params === undefined && query === undefined) return answer(input, response);
    return Promise.all([
      params && checkPart(params, input.params, 'path'),
      query && checkPart(query, input.query, 'query'),
    ]).then(() => answer(input, response));
  };
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

  /**
   * A typed route (docs/architecture.md#typed-routes): the handler's argument and reply are the
   * types of the declared contracts, so a handler answering another shape fails the build; the
   * router checks the parts against the same contracts before the handler, and the API's
   * description is generated from the same declaration.
   */
  route<const D extends RouteDeclaration>(declaration: D, handler: TypedHandler<D>): this {
    const { method, path, summary, params, query, body, response, ...options } = declaration;
    return this.add(method, path, typedRouteHandler(declaration, handler), {
      ...options,
      ...(body === undefined ? {} : { body: 'json', bodySchema: body }),
      ...(query === undefined ? {} : { querySchema: query }),
      ...(params === undefined ? {} : { paramsSchema: params }),
      doc: { summary, responses: response },
    });
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
