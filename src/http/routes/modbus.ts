import { contract } from '../contract-ref.js';
import { ERROR_REF } from '../api-schemas.js';
import type { ServerResponse } from 'node:http';
import type { AppContext } from '../../context.js';
import { throwUnlessApplied } from '../section-writes.js';
import type { ValidationIssue } from '../../config/config-store.js';
import { HttpError } from '../errors.js';
import { sendJson, sendNoContent } from '../respond.js';
import type { ApiRequest, Router } from '../router.js';
import { DEFAULT_LAYOUT, toDetailed, type AddressFormat } from '../../modbus/layout.js';
import { validateLayout } from '../../modbus/layout-validate.js';
import { registerTable } from '../../modbus/register-table.js';

/**
 * /api/v1/modbus: GET the custom layout (compact, or detailed with
 * address_format dec|hex), POST a layout (validated, persisted, applied at once), DELETE it
 * (back to the default). The slave follows through the config store's 'change' event.
 */

const PATH = '/api/v1/modbus';
/** A layout covering all 9999 registers one word at a time is ~400 kB of JSON. */
const MAX_LAYOUT_BYTES = 512 * 1024;

function addressFormatOf(request: ApiRequest): AddressFormat | undefined {
  const format = request.query.get('address_format');
  if (format === null) return undefined;
  if (format === 'dec' || format === 'hex') return format;
  throw new HttpError(400, 'bad_request', 'address_format must be dec or hex', {
    parameter: 'address_format',
    value: format,
    allowed: ['dec', 'hex'],
  });
}

function getLayout(ctx: AppContext, request: ApiRequest, response: ServerResponse): void {
  const format = addressFormatOf(request);
  const stored = ctx.config.config.modbus.layout;
  // docs/architecture.md#modbus-layout-api: no custom layout -> 404 with the error body (the default layout
  // is what the slave serves).
  if (stored === null)
    throw new HttpError(404, 'not_found', 'no custom Modbus layout is set; the default layout is in use');
  const result = validateLayout(stored);
  if (!result.ok)
    throw new HttpError(500, 'internal_error', 'the stored Modbus layout is invalid', {
      issues: result.issues,
    });
  sendJson(response, 200, format === undefined ? result.layout : toDetailed(result.layout, format));
}

async function postLayout(ctx: AppContext, request: ApiRequest, response: ServerResponse): Promise<void> {
  const result = validateLayout(request.body);
  if (!result.ok)
    throw new HttpError(400, 'validation_failed', 'invalid Modbus register layout', {
      issues: result.issues,
    });
  await throwUnlessApplied(
    ctx,
    ctx.config.apply(new Map([['modbus.layout', result.layout]])),
    (issues: ValidationIssue[]) =>
      new HttpError(400, 'validation_failed', 'invalid Modbus register layout', { issues }),
  );
  sendJson(response, 200, result.layout);
}

async function deleteLayout(ctx: AppContext, response: ServerResponse): Promise<void> {
  await throwUnlessApplied(
    ctx,
    ctx.config.apply(new Map([['modbus.layout', null]])),
    (issues: ValidationIssue[]) =>
      new HttpError(500, 'internal_error', 'cannot restore the default Modbus layout', { issues }),
  );
  sendNoContent(response);
}

/**
 * GET /api/v1/modbus/default (beyond the whatwatt Go API): the default layout the slave serves while no
 * custom one is set, in the same forms as GET /api/v1/modbus, so a client (the web page) can show it and
 * start a custom layout from it.
 */
function getDefaultLayout(request: ApiRequest, response: ServerResponse): void {
  const format = addressFormatOf(request);
  sendJson(response, 200, format === undefined ? DEFAULT_LAYOUT : toDetailed(DEFAULT_LAYOUT, format));
}

/**
 * GET /api/v1/modbus/table (beyond the whatwatt Go API): the layout being served, custom or
 * default, with names and units from the quantity table; says which one it is, so the web page
 * never needs the 404 of GET /api/v1/modbus to find out.
 */
function getTable(ctx: AppContext, response: ServerResponse): void {
  const stored = ctx.config.config.modbus.layout;
  const result = stored === null ? undefined : validateLayout(stored);
  if (result && !result.ok)
    throw new HttpError(500, 'internal_error', 'the stored Modbus layout is invalid', {
      issues: result.issues,
    });
  sendJson(response, 200, registerTable(result?.layout ?? DEFAULT_LAYOUT, result ? 'custom' : 'default'));
}

/** A register layout (docs/architecture.md#modbus-layout-api); its rules are the config's modbus-layout format. */
const LAYOUT = {
  type: ['object', 'array'],
  description:
    'register layout (one register set, or a list of sets): start address, word order and registers',
};

export function registerModbusRoutes(router: Router, ctx: AppContext): void {
  router.add('GET', PATH, (request, response) => getLayout(ctx, request, response), {
    doc: {
      summary: 'The custom Modbus layout, compact or detailed (address_format)',
      responses: {
        200: { description: 'the custom layout', schema: LAYOUT },
        404: { description: 'no custom layout is set (not_found)', schema: ERROR_REF },
      },
    },
  });
  router.add('GET', `${PATH}/default`, (request, response) => getDefaultLayout(request, response), {
    doc: {
      summary: 'The default Modbus layout (served while no custom layout is set)',
      responses: {
        200: { description: 'default layout, compact or detailed (address_format)', schema: LAYOUT },
      },
    },
  });
  router.add('GET', `${PATH}/table`, (_request, response) => getTable(ctx, response), {
    doc: {
      summary: 'The layout the slave serves as a table (address, id, name, unit, type, scaler)',
      responses: {
        200: {
          description: 'register table and whether the layout is custom or default',
          schema: contract('ModbusTableViewSchema'),
        },
      },
    },
  });
  router.add('POST', PATH, (request, response) => postLayout(ctx, request, response), {
    body: 'json',
    maxBodyBytes: MAX_LAYOUT_BYTES,
  });
  router.add('DELETE', PATH, (_request, response) => deleteLayout(ctx, response));
}
