import { contract } from '../contract-ref.js';
import type { ServerResponse } from 'node:http';
import type { ValidationIssue } from '../../config/config-store.js';
import type { EthernetSettings } from '../../config/types.js';
import type { AppContext } from '../../context.js';
import {
  defaultEthernet,
  ETHERNET_FIELDS,
  ethernetFromRequest,
} from '../../device/wifi/ethernet-settings.js';
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

async function store(ctx: AppContext, eth: EthernetSettings): Promise<void> {
  const changes = new Map<string, unknown>(ETHERNET_FIELDS.map((field) => [`eth.${field}`, eth[field]]));
  await throwUnlessApplied(ctx, ctx.config.apply(changes), validationError);
}

/**
 * GET/PUT/POST /api/v1/eth/settings (the whatwatt Go's EthernetSettings): validated, stored, and
 * applied at once by the network output, which applies the Wi-Fi settings too. PUT merges over the
 * current settings, POST replaces them (fields not sent take their defaults).
 */
export function registerEthernetRoutes(router: Router, ctx: AppContext): void {
  const doc = (summary: string, request = false) => ({
    summary,
    ...(request ? { request: contract('EthernetSettingsWriteSchema') } : {}),
    responses: { 200: { description: 'the Ethernet settings', schema: contract('EthernetSettingsSchema') } },
  });
  router.add('GET', PATH, (_request, response) => sendJson(response, 200, ctx.config.config.eth), {
    doc: doc('Ethernet settings'),
  });

  const write = (base: () => EthernetSettings) => async (request: ApiRequest, response: ServerResponse) => {
    const result = ethernetFromRequest(request.body, base());
    if (!result.ok) throw validationError(result.issues);
    await store(ctx, result.eth);
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
