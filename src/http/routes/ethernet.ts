import type { ServerResponse } from 'node:http';
import type { ValidationIssue } from '../../config/config-store.js';
import type { EthernetSettings } from '../../config/types.js';
import type { AppContext } from '../../context.js';
import {
  defaultEthernet,
  ETHERNET_FIELDS,
  ethernetFromRequest,
} from '../../device/wifi/ethernet-settings.js';
import type { WifiBackend } from '../../device/wifi/wifi-backend.js';
import { ETHERNET_SETTINGS_SCHEMA } from '../device-schemas.js';
import { HttpError } from '../errors.js';
import { sendJson } from '../respond.js';
import type { ApiRequest, Router } from '../router.js';
import { throwUnlessApplied } from '../section-writes.js';

const PATH = '/api/v1/eth/settings';

/** Fields named as the body names them (the config's `eth.` removed). */
function validationError(found: readonly ValidationIssue[]): HttpError {
  const issues = found.map((issue) => ({ ...issue, field: issue.field.replace(/^eth\./, '') }));
  const summary = issues.map((issue) => `${issue.field || 'body'}: ${issue.message}`).join('; ');
  return new HttpError(400, 'validation_failed', `invalid Ethernet settings: ${summary}`, { fields: issues });
}

function store(ctx: AppContext, eth: EthernetSettings): void {
  const changes = new Map<string, unknown>(ETHERNET_FIELDS.map((field) => [`eth.${field}`, eth[field]]));
  throwUnlessApplied(ctx.config.apply(changes), validationError);
}

/**
 * GET/PUT/POST /api/v1/eth/settings (the whatwatt Go's EthernetSettings): validated, stored, then
 * applied at once through the network backend that applies the Wi-Fi settings. PUT merges over the
 * current settings, POST replaces them (fields not sent take their defaults).
 */
export function registerEthernetRoutes(router: Router, ctx: AppContext, backend: WifiBackend): void {
  const doc = (summary: string, request = false) => ({
    summary,
    ...(request ? { request: ETHERNET_SETTINGS_SCHEMA } : {}),
    responses: { 200: { description: 'the Ethernet settings', schema: ETHERNET_SETTINGS_SCHEMA } },
  });
  router.add('GET', PATH, (_request, response) => sendJson(response, 200, ctx.config.config.eth), {
    doc: doc('Ethernet settings'),
  });

  const write = (base: () => EthernetSettings) => async (request: ApiRequest, response: ServerResponse) => {
    const result = ethernetFromRequest(request.body, base());
    if (!result.ok) throw validationError(result.issues);
    store(ctx, result.eth);
    try {
      await backend.applyEthernet(result.eth);
    } catch (error) {
      ctx.logger.error(`Ethernet settings stored but not applied: ${(error as Error).message}`);
      throw new HttpError(
        500,
        'internal_error',
        `Ethernet settings stored but not applied: ${(error as Error).message}`,
      );
    }
    sendJson(response, 200, ctx.config.config.eth);
  };
  router.add(
    'PUT',
    PATH,
    write(() => ctx.config.config.eth),
    { body: 'json', doc: doc('Change Ethernet settings (merged over the current ones)', true) },
  );
  router.add('POST', PATH, write(defaultEthernet), {
    body: 'json',
    doc: doc('Replace the Ethernet settings', true),
  });
}
