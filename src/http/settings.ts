import type { AppContext } from '../context.js';
import { ERROR_REF, sectionSchema } from './api-schemas.js';
import { sendJson } from './respond.js';
import type { ApiRequest, Router } from './router.js';
import { applyWrites, leafWrites, sectionOf, sectionView, type WriteMode } from './section-writes.js';

/**
 * /api/v1/settings (spec endpoints 4-6): the system.* and services.* tree. GET omits the
 * write-only system.password. PUT merges a partial object; POST replaces the whole object: every
 * field it leaves out returns to its default, except system.password, which stays as it is unless
 * the body sets it (a client cannot send back a secret it never saw; "" clears it). Both answer
 * with the settings as GET shows them after the change. Writes are persisted and applied live
 * through the config store (listeners of its `change` event react, e.g. the Digest realm follows
 * system.host_name on the next request).
 */
export const SETTINGS_SECTION = sectionOf('', ['system', 'services']);

/**
 * Checks a settings write against the state of the device before it is applied (system.power_save
 * is refused while an Ethernet link is up); throws an HttpError to refuse.
 */
export type SettingsGuard = (changes: ReadonlyMap<string, unknown>) => Promise<void>;

export function registerSettingsRoutes(router: Router, ctx: AppContext, guard?: SettingsGuard): void {
  const write =
    (mode: WriteMode) => async (request: ApiRequest, response: Parameters<typeof sendJson>[0]) => {
      const { changes, issues } = leafWrites(SETTINGS_SECTION, request.body, mode);
      if (guard && issues.length === 0) await guard(changes);
      applyWrites(ctx.config, changes, issues);
      sendJson(response, 200, sectionView(SETTINGS_SECTION, ctx.config.config));
    };
  const view = sectionSchema(SETTINGS_SECTION, 'view');
  const request = sectionSchema(SETTINGS_SECTION, 'write');
  const responses = {
    200: { description: 'settings after the change (password omitted)', schema: view },
    400: {
      description: 'malformed JSON (bad_request) or invalid values (validation_failed, details.fields)',
      schema: ERROR_REF,
    },
  };
  router.add(
    'GET',
    '/api/v1/settings',
    (_request, response) => sendJson(response, 200, sectionView(SETTINGS_SECTION, ctx.config.config)),
    {
      doc: {
        summary: 'Device settings (password omitted)',
        responses: { 200: { description: 'settings', schema: view } },
      },
    },
  );
  router.add('PUT', '/api/v1/settings', write('merge'), {
    body: 'json',
    doc: { summary: 'Change some settings (partial object)', request, responses },
  });
  router.add('POST', '/api/v1/settings', write('replace'), {
    body: 'json',
    doc: {
      summary: 'Replace the settings; omitted fields return to defaults, the password stays unless given',
      request,
      responses,
    },
  });
}
