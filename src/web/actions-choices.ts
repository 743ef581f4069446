import { contract } from '../http/contract-ref.js';
import { DEFAULTS, HTTP_METHODS, LIMITS, MODBUS_FUNCS, VALUE_TYPES } from '../actions/definition.js';
import { CODE, succeeded } from '../actions/status-codes.js';
import type { Router } from '../http/router.js';
import { sendJson } from '../http/respond.js';
import { QUANTITIES, templateName } from '../reading/quantities.js';
import type { ActionsChoices, StatusCodeChoice } from '../contracts/page.js';

export const ACTIONS_CHOICES_PATH = '/api/v1/actions/choices';

/** The code table as the page reads it: every named code, and a Modbus write's success when it is 0. */
function statusCodes(): StatusCodeChoice[] {
  const named: StatusCodeChoice[] = Object.entries(CODE).map(([name, code]: [string, number]) => ({
    code,
    name,
    ok: succeeded(code),
  }));
  if (succeeded(0) && !named.some((entry) => entry.code === 0))
    named.push({ code: 0, name: 'confirmed', ok: true });
  return named;
}

function firstOk(from: number, step: number): number {
  let code = from;
  while (!succeeded(code) && code > 0 && code < 1000) code += step;
  return code;
}

/** The Actions form's data, from the quantity table and the actions module's own limits. */
export function actionsChoices(): ActionsChoices {
  return {
    quantities: QUANTITIES.map((quantity) => ({
      name: templateName(quantity.obis),
      ...(quantity.live ? { live: quantity.live } : {}),
      label: quantity.name,
      unit: quantity.unit,
    })),
    limits: { ...LIMITS, timeoutSeconds: { ...LIMITS.timeoutSeconds } },
    http_methods: [...HTTP_METHODS],
    modbus_funcs: [...MODBUS_FUNCS],
    value_types: [...VALUE_TYPES],
    defaults: {
      method: DEFAULTS.method,
      modbusPort: DEFAULTS.modbusPort,
      unitId: DEFAULTS.unitId,
      type: DEFAULTS.type,
    },
    status_codes: statusCodes(),
    // The HTTP statuses that count as success, as the server's own check says (2xx).
    http_ok: [firstOk(100, 1), firstOk(599, -1)],
  };
}

/** GET /api/v1/actions/choices (beyond the device): what the web page's Actions form offers. */
export function registerActionsChoicesRoute(router: Router): void {
  const choices = actionsChoices();
  router.add('GET', ACTIONS_CHOICES_PATH, (_request, response) => sendJson(response, 200, choices), {
    doc: {
      summary: "The Actions form's quantities (with labels and units), limits and status code table",
      responses: { 200: { description: 'choices', schema: contract('ActionsChoicesSchema') } },
    },
  });
}
