import type { ServerResponse } from 'node:http';
import type { AppContext } from '../../context.js';
import {
  ignoredKeys,
  leafWrites,
  sectionOf,
  sectionView,
  writeSection,
} from '../../config/settings-write.js';
import { ERROR_REF, sectionSchema } from '../api-schemas.js';
import { sendJson } from '../respond.js';
import type { ApiRequest, Router } from '../router.js';
import { throwUnlessApplied, withIgnored } from '../section-writes.js';

export const MQTT_DISCOVERY_PATH = '/api/v1/mqtt/discovery';

/**
 * The Home Assistant discovery switches a user changes: whether discovery runs and how often state
 * messages go out. The prefix and the device link stay daemon-only (the add-on sets them).
 */
const DISCOVERY_SECTION = sectionOf('mqtt.discovery', [
  'mqtt.discovery.enable',
  'mqtt.discovery.state_interval',
]);

const KNOWN = new Set(['enable', 'state_interval']);

/**
 * GET / PUT /api/v1/mqtt/discovery: {enable, state_interval}. Not an endpoint of the device (its
 * /api/v1/mqtt/settings object stays as documented); PUT merges, validated and stored like every
 * settings write, and the MQTT output applies it live.
 */
export function registerMqttDiscoveryRoutes(router: Router, ctx: AppContext): void {
  const view = () => sectionView(DISCOVERY_SECTION, ctx.config.config);
  const schema = sectionSchema(DISCOVERY_SECTION, 'view');
  router.add('GET', MQTT_DISCOVERY_PATH, (_request, response) => sendJson(response, 200, view()), {
    doc: {
      summary: 'Home Assistant discovery switches',
      responses: { 200: { description: 'discovery settings', schema } },
    },
  });
  router.add(
    'PUT',
    MQTT_DISCOVERY_PATH,
    async (request: ApiRequest, response: ServerResponse) => {
      const { changes, issues } = leafWrites(DISCOVERY_SECTION, request.body, 'merge');
      await throwUnlessApplied(ctx, writeSection(ctx.config, changes, issues));
      sendJson(response, 200, withIgnored(view(), ignoredKeys(request.body, KNOWN)));
    },
    {
      body: 'json',
      doc: {
        summary: 'Change the Home Assistant discovery switches (partial object)',
        request: sectionSchema(DISCOVERY_SECTION, 'write'),
        responses: {
          200: { description: 'discovery settings after the change', schema },
          400: { description: 'invalid values (validation_failed, details.fields)', schema: ERROR_REF },
        },
      },
    },
  );
}
