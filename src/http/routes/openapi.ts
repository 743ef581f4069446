import type { AppContext } from '../../context.js';
import { ERROR_REF } from '../api-schemas.js';
import {
  contract,
  loadContracts,
  resolveContracts,
  type ContractModule,
  type ContractRef,
} from '../contract-ref.js';
import { sendJson } from '../respond.js';
import { TAIL_PARAMETER, type JsonSchema, type Route, type Router } from '../router.js';

/**
 * GET /api/v1/openapi.json: an OpenAPI 3.1 document generated from the routing table at
 * request time, so it lists exactly what is served, routes added by other modules included. Each
 * route's own `doc` gives summary, body and success schemas; the server's own error responses
 * (401, 400/413/415 for JSON bodies, 404 license_required, 500) are added from the route options.
 */
function errorResponse(description: string): Record<string, unknown> {
  return { description, content: { 'application/json': { schema: ERROR_REF } } };
}

function operationId(route: Route): string {
  const words = route.path.replace(/^\/api\/v1\//, '').split(/[^A-Za-z0-9]+/);
  return (
    route.method.toLowerCase() + words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('')
  );
}

/** Names of the one-segment parameters of a path (`/api/v1/meters/{id}/report` -> id). */
function segmentParameters(path: string): string[] {
  return [...path.matchAll(/\{([a-z_]+)\}(?=\/|$)/g)]
    .map((match) => match[1]!)
    .filter((name) => `{${name}}` !== TAIL_PARAMETER || !path.endsWith(TAIL_PARAMETER));
}

/**
 * The parameters an object contract declares (a typed route's query or path, docs/architecture.md#typed-routes):
 * each property with its schema and whether the contract requires it.
 */
function contractParameters(
  ref: ContractRef,
  contracts: ContractModule,
): Array<{ name: string; required: boolean; schema: unknown }> {
  const schema: object = contracts[ref.contract];
  const properties = 'properties' in schema && typeof schema.properties === 'object' ? schema.properties : {};
  const required = 'required' in schema && Array.isArray(schema.required) ? schema.required : [];
  return Object.entries(properties ?? {}).map(([name, property]) => ({
    name,
    required: required.includes(name),
    schema: property,
  }));
}

function operation(route: Route, contracts: ContractModule): Record<string, unknown> {
  const doc = route.options.doc;
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(doc?.responses ?? { 200: { description: 'success' } })) {
    const type = response.contentType ?? 'application/json';
    const content: Record<string, unknown> = response.schema ? { [type]: { schema: response.schema } } : {};
    for (const [other, schema] of Object.entries(response.alternatives ?? {})) content[other] = { schema };
    responses[status] =
      Object.keys(content).length > 0
        ? { description: response.description, content }
        : { description: response.description };
  }
  responses['401'] = {
    ...errorResponse('missing or invalid credentials (system.protection on)'),
    headers: {
      'WWW-Authenticate': {
        description: 'Digest challenges (SHA-256, MD5-sess, MD5; stale=true after nonce expiry) and Basic',
        schema: { type: 'string' },
      },
    },
  };
  if (route.options.body === 'json') {
    responses['400'] ??= errorResponse(
      'malformed JSON or invalid values (validation_failed lists every field)',
    );
    responses['413'] = errorResponse('body larger than the limit (payload_too_large)');
    responses['415'] = errorResponse('body is not application/json (unsupported_media_type)');
  }
  if (route.options.license) responses['404'] ??= errorResponse('license FREE (license_required)');
  responses['500'] = errorResponse('internal error');
  const op: Record<string, unknown> = {
    operationId: operationId(route),
    summary: doc?.summary ?? `${route.method} ${route.path}`,
    responses,
  };
  const parameters: Record<string, unknown>[] = [];
  if (route.path.endsWith(TAIL_PARAMETER)) {
    parameters.push({
      name: TAIL_PARAMETER.slice(1, -1),
      in: 'path',
      required: true,
      description: 'the rest of the path, slashes included',
      schema: { type: 'string' },
    });
  }
  const declared = route.options.paramsSchema
    ? contractParameters(route.options.paramsSchema, contracts)
    : [];
  for (const name of segmentParameters(route.path))
    parameters.push({
      name,
      in: 'path',
      required: true,
      description: `the ${name}`,
      schema: declared.find((parameter) => parameter.name === name)?.schema ?? { type: 'string' },
    });
  for (const [name, schema] of Object.entries(doc?.query ?? {}))
    parameters.push({ name, in: 'query', required: false, schema });
  if (route.options.querySchema)
    for (const { name, required, schema } of contractParameters(route.options.querySchema, contracts))
      parameters.push({ name, in: 'query', required, schema });
  if (parameters.length > 0) op.parameters = parameters;
  if (route.options.body === 'json') {
    const schema = doc?.request ?? route.options.bodySchema ?? {};
    op.requestBody = { required: true, content: { 'application/json': { schema } } };
  }
  return op;
}

/** The document, its contract references resolved (the contracts load on the first call). */
export async function buildOpenApi(router: Router, version: string): Promise<Record<string, unknown>> {
  const contracts = await loadContracts();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of router.list()) {
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route, contracts);
  }
  const doc = {
    openapi: '3.1.0',
    info: {
      title: 'meter-gateway HTTP API',
      version,
      description: 'Local energy meter gateway device API (spec/device-api.md), as served by this daemon.',
    },
    paths,
    components: {
      schemas: { Error: contract('ErrorBodySchema') },
      securitySchemes: {
        basicAuth: { type: 'http', scheme: 'basic' },
        digestAuth: { type: 'http', scheme: 'digest' },
      },
    },
    security: [{ basicAuth: [] }, { digestAuth: [] }, {}],
  };
  return resolveContracts(doc, contracts) as Record<string, unknown>;
}

const OPENAPI_DOC: JsonSchema = { type: 'object', required: ['openapi', 'info', 'paths'] };

export function registerOpenApiRoute(router: Router, ctx: AppContext): void {
  router.add(
    'GET',
    '/api/v1/openapi.json',
    async (_request, response) => sendJson(response, 200, await buildOpenApi(router, ctx.system.firmware)),
    {
      doc: {
        summary: 'This OpenAPI 3.1 document',
        responses: { 200: { description: 'OpenAPI document', schema: OPENAPI_DOC } },
      },
    },
  );
}
