import type { ServerResponse } from 'node:http';
import type { AppContext } from '../../context.js';
import { currentScalers, scalerIssues, type MeterScaler } from '../../meter/scalers.js';
import { ERROR_REF } from '../api-schemas.js';
import { contract } from '../contract-ref.js';
import { sendJson } from '../respond.js';
import type { ApiRequest, Router } from '../router.js';
import { throwUnlessApplied, validationError } from '../section-writes.js';

/**
 * The device's meter scaler endpoints ("Reading Current Scaler Values", "Custom Meter Scalers" of
 * the whatwatt Go documentation): GET /api/v1/meter/scalers/current lists the scaler in effect for
 * each register of the latest reading that carries one; /api/v1/meter/scalers/custom reads (GET),
 * replaces (POST) or updates by OBIS (PUT) the custom scalers, stored as `meter.scalers` through the
 * config layer (state file meter.json). Rules and where they apply: docs/architecture.md#meter-scalers.
 */
const BASE = '/api/v1/meter/scalers';

async function store(ctx: AppContext, scalers: unknown, response: ServerResponse): Promise<void> {
  const issues = scalerIssues(scalers);
  if (issues.length > 0) throw validationError(issues);
  await throwUnlessApplied(ctx, ctx.config.apply(new Map([['meter.scalers', scalers]])));
  sendJson(response, 200, ctx.config.config.meter.scalers);
}

/** PUT: the body's entries replace those of the same OBIS; the others stay. */
function merged(ctx: AppContext, request: ApiRequest): unknown {
  const issues = scalerIssues(request.body);
  if (issues.length > 0) throw validationError(issues);
  const update = request.body as MeterScaler[];
  const kept = ctx.config.config.meter.scalers.filter(
    (entry) => !update.some((next) => next.obis === entry.obis),
  );
  return [...kept, ...update];
}

export function registerMeterScalerRoutes(router: Router, ctx: AppContext): void {
  const list = { description: 'list of {obis, scaler}', schema: contract('MeterScalerListSchema') };
  const invalid = { description: 'invalid list (validation_failed)', schema: ERROR_REF };
  router.add(
    'GET',
    `${BASE}/current`,
    (_request, response) => sendJson(response, 200, currentScalers(ctx.store.latest)),
    {
      doc: { summary: 'Scalers in effect for the registers of the latest reading', responses: { 200: list } },
    },
  );
  router.add(
    'GET',
    `${BASE}/custom`,
    (_request, response) => sendJson(response, 200, ctx.config.config.meter.scalers),
    { doc: { summary: 'Custom meter scalers', responses: { 200: list } } },
  );
  router.add('POST', `${BASE}/custom`, (request, response) => store(ctx, request.body, response), {
    body: 'json',
    doc: {
      summary: 'Replace the custom meter scalers',
      request: contract('MeterScalerListSchema'),
      responses: { 200: list, 400: invalid },
    },
  });
  router.add('PUT', `${BASE}/custom`, (request, response) => store(ctx, merged(ctx, request), response), {
    body: 'json',
    doc: {
      summary: 'Set custom meter scalers by OBIS, keeping the others',
      request: contract('MeterScalerListSchema'),
      responses: { 200: list, 400: invalid },
    },
  });
}
