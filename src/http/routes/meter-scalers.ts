import type { AppContext } from '../../context.js';
import type { ValidationIssue } from '../../config/validation.js';
import { currentScalers, type MeterScaler } from '../../meter/scalers.js';
import { ERROR_REF } from '../api-schemas.js';
import { contract } from '../contract-ref.js';
import type { Router } from '../router.js';
import { throwUnlessApplied, validationError } from '../section-writes.js';

/**
 * The device's meter scaler endpoints ("Reading Current Scaler Values", "Custom Meter Scalers" of
 * the whatwatt Go documentation): GET /api/v1/meter/scalers/current lists the scaler in effect for
 * each register of the latest reading that carries one; /api/v1/meter/scalers/custom reads (GET),
 * replaces (POST) or updates by OBIS (PUT) the custom scalers, stored as `meter.scalers` through the
 * config layer (state file meter.json). Rules and where they apply: docs/architecture.md#meter-scalers.
 */
const BASE = '/api/v1/meter/scalers';

/**
 * The config's issues (the meter-scalers format, the one check of every writer) named as the body
 * names them: `meter.scalers[3].obis` is `[1].obis` of a PUT body that followed 2 kept entries.
 */
function bodyIssues(issues: readonly ValidationIssue[], offset: number): ValidationIssue[] {
  return issues.map((issue) => {
    const field = issue.field.replace(/^meter\.scalers/, '');
    const index = /^\[(\d+)\]/.exec(field);
    const shifted =
      index && Number(index[1]) >= offset
        ? `[${Number(index[1]) - offset}]${field.slice(index[0].length)}`
        : field;
    return { ...issue, field: shifted };
  });
}

/** Stores the list; `offset`: where the body's entries start in it (those before are kept ones). */
async function store(ctx: AppContext, scalers: MeterScaler[], offset = 0): Promise<MeterScaler[]> {
  const applied = ctx.config.apply(new Map([['meter.scalers', scalers]]));
  await throwUnlessApplied(ctx, applied, (issues) => validationError(bodyIssues(issues, offset)));
  return ctx.config.config.meter.scalers;
}

/** PUT: the body's entries replace those of the same OBIS; the others stay, before them. */
function merge(ctx: AppContext, update: readonly MeterScaler[]): Promise<MeterScaler[]> {
  const kept = ctx.config.config.meter.scalers.filter(
    (entry) => !update.some((next) => next.obis === entry.obis),
  );
  return store(ctx, [...kept, ...update], kept.length);
}

export function registerMeterScalerRoutes(router: Router, ctx: AppContext): void {
  const list = { description: 'list of {obis, scaler}', schema: contract('MeterScalerListSchema') };
  const invalid = { description: 'invalid list (validation_failed)', schema: ERROR_REF };
  router.route(
    {
      method: 'GET',
      path: `${BASE}/current`,
      summary: 'Scalers in effect for the registers of the latest reading',
      response: { 200: list },
    },
    () => ({ status: 200, body: currentScalers(ctx.store.latest) }),
  );
  router.route(
    { method: 'GET', path: `${BASE}/custom`, summary: 'Custom meter scalers', response: { 200: list } },
    () => ({ status: 200, body: ctx.config.config.meter.scalers }),
  );
  router.route(
    {
      method: 'POST',
      path: `${BASE}/custom`,
      summary: 'Replace the custom meter scalers',
      body: contract('MeterScalerWriteListSchema'),
      response: { 200: list, 400: invalid },
    },
    async ({ body }) => ({ status: 200, body: await store(ctx, body) }),
  );
  router.route(
    {
      method: 'PUT',
      path: `${BASE}/custom`,
      summary: 'Set custom meter scalers by OBIS, keeping the others',
      body: contract('MeterScalerWriteListSchema'),
      response: { 200: list, 400: invalid },
    },
    async ({ body }) => ({ status: 200, body: await merge(ctx, body) }),
  );
}
