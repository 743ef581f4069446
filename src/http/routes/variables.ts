import { contract } from '../contract-ref.js';
import { templateInputOf, type AppContext } from '../../context.js';
import { buildTemplateVariables } from '../../reading/template-variables.js';
import { sendJson } from '../respond.js';
import type { Router } from '../router.js';
import type { WifiInfoSource } from '../../device/wifi/wifi-info.js';

/**
 * GET /api/v1/variables (a compatibility endpoint of the real device): every MQTT template
 * variable (docs/architecture.md#mqtt-template) with its current value as the template would
 * render it, as a string: numbers in JSON number form, strings verbatim, absent values as "null".
 * The route answers them as the device does, an array of one-pair objects
 * ([{"1_8_0":"6643.003"}, ...]).
 */
export async function templateVariableStrings(
  ctx: AppContext,
  wifiInfo: WifiInfoSource,
): Promise<Record<string, string>> {
  const variables = buildTemplateVariables(templateInputOf(ctx, await wifiInfo()));
  const out: Record<string, string> = {};
  for (const [name, value] of variables) out[name] = value === null ? 'null' : String(value);
  return out;
}

export function registerVariablesRoutes(router: Router, ctx: AppContext, wifiInfo: WifiInfoSource): void {
  router.add(
    'GET',
    '/api/v1/variables',
    async (_request, response) => {
      // The device answers an array of one-pair objects, in the template's variable order.
      const pairs = Object.entries(await templateVariableStrings(ctx, wifiInfo));
      sendJson(
        response,
        200,
        pairs.map(([name, value]) => ({ [name]: value })),
      );
    },
    {
      doc: {
        summary: 'Template variables and their current values',
        responses: { 200: { description: '[{name: value}, ...]', schema: contract('VariablesSchema') } },
      },
    },
  );
}
