import { contract } from '../contract-ref.js';
import type { ServerResponse } from 'node:http';
import type { ValidationIssue } from '../../config/config-store.js';
import type { AppContext } from '../../context.js';
import { throwUnlessApplied, withIgnored } from '../section-writes.js';
import { HttpError } from '../errors.js';
import { sendJson } from '../respond.js';
import type { ApiRequest, Router } from '../router.js';
import { mqttSettingsView, settingsChanges, type WriteMode } from '../../mqtt/settings.js';

export const MQTT_SETTINGS_PATH = '/api/v1/mqtt/settings';

/** The whatwatt Go API's limit: the MQTT settings JSON payload including certificates is at most 8 kB. */
export const MQTT_SETTINGS_MAX_BYTES = 8192;

function validationError(issues: readonly ValidationIssue[]): HttpError {
  const named = issues.map((issue) => ({ ...issue, field: issue.field.replace(/^mqtt\./, '') }));
  const message = named
    .map((issue) => (issue.field ? `${issue.field}: ${issue.message}` : issue.message))
    .join('; ');
  return new HttpError(400, 'validation_failed', message, { field: named[0]?.field ?? '', issues: named });
}

/**
 * GET / POST / PUT /api/v1/mqtt/settings (docs/architecture.md#mqtt-template). An accepted POST
 * starts a connection attempt at once (as on the whatwatt Go); PUT
 * changes apply live through the configuration's change event.
 */
export function registerMqttRoutes(
  router: Router,
  ctx: AppContext,
  publisher: { reconnectNow(): void },
): void {
  const write = (mode: WriteMode) => async (request: ApiRequest, response: ServerResponse) => {
    const parsed = settingsChanges(request.body, mode);
    if (!parsed.ok) throw validationError(parsed.issues);
    await throwUnlessApplied(ctx, ctx.config.apply(parsed.changes), validationError);
    if (mode === 'replace') publisher.reconnectNow();
    if (parsed.ignored.length > 0)
      ctx.logger.warn(`MQTT settings write: ignored unknown fields ${parsed.ignored.join(', ')}`);
    sendJson(response, 200, withIgnored(mqttSettingsView(ctx.config.config.mqtt), parsed.ignored));
  };
  const bodyOptions = { body: 'json', maxBodyBytes: MQTT_SETTINGS_MAX_BYTES } as const;
  router.add(
    'GET',
    MQTT_SETTINGS_PATH,
    (_request, response) => sendJson(response, 200, mqttSettingsView(ctx.config.config.mqtt)),
    {
      doc: {
        summary: 'MQTT settings (secrets as lengths)',
        responses: { 200: { description: 'MQTT settings', schema: contract('MqttSettingsViewSchema') } },
      },
    },
  );
  router.add('POST', MQTT_SETTINGS_PATH, write('replace'), bodyOptions);
  router.add('PUT', MQTT_SETTINGS_PATH, write('merge'), bodyOptions);
}
