import { contract } from '../contract-ref.js';
import { LEAVES } from '../../config/paths.js';
import type { MeterSettingsView } from '../../contracts/settings.js';
import {
  bodyPaths,
  ignoredKeys,
  leafWrites,
  writeSection,
  type Section,
} from '../../config/settings-write.js';
import type { AppContext } from '../../context.js';
import { redactSource } from '../../meter/source.js';
import { ERROR_REF, sectionSchema } from '../api-schemas.js';
import { sendJson } from '../respond.js';
import type { Router } from '../router.js';
import { throwUnlessApplied, withIgnored } from '../section-writes.js';

/**
 * GET / PUT /api/v1/meter/settings (a compatibility endpoint of the real device): meter source
 * (docs/architecture.md#meter-source: transport, protocol and line settings), conv_factor and the write-only
 * encryption key. GET shows `key_len` instead of the key, and a remote source's password is cut
 * out of the URI (`source_password_len` tells whether one is set); sending that redacted URI back
 * keeps the stored one. The source URI and the key are checked by their schema formats, as in the
 * admin's file. Writes go through the config store; the meter input reopens its transport on the
 * `change` event.
 */
const WRITABLE = ['meter.source', 'meter.conv_factor', 'meter.encryption_key'];
export const METER_SECTION: Section = { base: 'meter', leaves: WRITABLE.map((path) => LEAVES.get(path)!) };
const METER_FIELDS = bodyPaths(METER_SECTION);

export function meterSettingsView(ctx: AppContext): MeterSettingsView {
  const meter = ctx.config.config.meter;
  const source = redactSource(meter.source);
  return {
    source: source.shown,
    source_password_len: source.passwordLength,
    conv_factor: meter.conv_factor,
    key_len: meter.encryption_key.length,
  };
}

/** Response-only fields of GET a client may send back unchanged. */
const METER_RESPONSE_ONLY = new Set(['source_password_len', 'key_len']);

export function registerMeterSettingsRoutes(router: Router, ctx: AppContext): void {
  const view = {
    description: 'meter settings (key_len instead of the key)',
    schema: contract('MeterSettingsAnswerSchema'),
  };
  router.add(
    'GET',
    '/api/v1/meter/settings',
    (_request, response) => sendJson(response, 200, meterSettingsView(ctx)),
    {
      doc: { summary: 'Meter source, conversion factor, key length', responses: { 200: view } },
    },
  );
  router.add(
    'PUT',
    '/api/v1/meter/settings',
    async (request, response) => {
      const { changes, issues } = leafWrites(METER_SECTION, request.body, 'merge');
      // The redacted URI of GET sent back unchanged keeps the stored one (with its password).
      if (changes.get('meter.source') === redactSource(ctx.config.config.meter.source).shown)
        changes.delete('meter.source');
      await throwUnlessApplied(ctx, writeSection(ctx.config, changes, issues));
      const ignored = ignoredKeys(request.body, METER_FIELDS, METER_RESPONSE_ONLY);
      if (ignored.length > 0)
        ctx.logger.warn(`meter settings write: ignored unknown fields ${ignored.join(', ')}`);
      sendJson(response, 200, withIgnored(meterSettingsView(ctx), ignored));
    },
    {
      body: 'json',
      doc: {
        summary: 'Change meter settings (partial); the meter input reopens its transport',
        request: sectionSchema(METER_SECTION, 'write'),
        responses: {
          200: view,
          400: { description: 'invalid values (validation_failed)', schema: ERROR_REF },
        },
      },
    },
  );
}
