import type { ValidationIssue } from '../../config/config-store.js';
import { LEAVES } from '../../config/paths.js';
import type { AppContext } from '../../context.js';
import { parseSource, SourceError } from '../../meter/source.js';
import { ERROR_REF, METER_SETTINGS_VIEW_SCHEMA, sectionSchema } from '../api-schemas.js';
import { sendJson } from '../respond.js';
import type { Router } from '../router.js';
import {
  applyWrites,
  bodyPaths,
  ignoredKeys,
  leafWrites,
  withIgnored,
  type Section,
} from '../section-writes.js';

/**
 * GET / PUT /api/v1/meter/settings (a compatibility endpoint of the real device): meter source
 * (docs/architecture.md#meter-source: transport, protocol and line settings), conv_factor and the write-only
 * encryption key. GET shows `key_len` instead of the key, and a remote source's password is cut
 * out of the URI (`source_password_len` tells whether one is set); sending that redacted URI back
 * keeps the stored one. Writes go through the config store; the meter input reopens its transport
 * on the `change` event.
 */
const WRITABLE = ['meter.source', 'meter.conv_factor', 'meter.encryption_key'];
export const METER_SECTION: Section = { base: 'meter', leaves: WRITABLE.map((path) => LEAVES.get(path)!) };
const METER_FIELDS = bodyPaths(METER_SECTION);

/** AES-128-GCM key of encrypted DSMR telegrams (DSMR 5.0.2 P1 companion standard, Luxembourg): 16 bytes. */
const AES128_KEY = /^[0-9A-Fa-f]{32}$/;

function redactSource(source: string): { shown: string; passwordLength: number } {
  if (!/^https?:\/\//i.test(source)) return { shown: source, passwordLength: 0 };
  try {
    const url = new URL(source);
    if (url.password === '') return { shown: source, passwordLength: 0 };
    const passwordLength = decodeURIComponent(url.password).length;
    url.password = '';
    return { shown: url.toString(), passwordLength };
  } catch {
    return { shown: source, passwordLength: 0 };
  }
}

export function meterSettingsView(ctx: AppContext): Record<string, unknown> {
  const meter = ctx.config.config.meter;
  const source = redactSource(meter.source);
  return {
    source: source.shown,
    source_password_len: source.passwordLength,
    conv_factor: meter.conv_factor,
    key_len: meter.encryption_key.length,
  };
}

/** Checks beyond the schema: the source must parse, the key must be an AES-128 key or empty. */
function semanticIssues(changes: Map<string, unknown>, currentSource: string): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const source = changes.get('meter.source');
  if (typeof source === 'string') {
    if (source === redactSource(currentSource).shown) changes.delete('meter.source');
    else {
      try {
        parseSource(source);
      } catch (error) {
        if (!(error instanceof SourceError)) throw error;
        const reason = error.message.replace(/^meter\.source "(?:[^"\\]|\\.)*": /, '');
        issues.push({ field: 'meter.source', message: reason, value: redactSource(source).shown });
      }
    }
  }
  const key = changes.get('meter.encryption_key');
  if (typeof key === 'string' && key !== '' && !AES128_KEY.test(key)) {
    issues.push({
      field: 'meter.encryption_key',
      message: 'must be 32 hexadecimal digits (AES-128 key) or empty',
    });
  }
  return issues;
}

/** Response-only fields of GET a client may send back unchanged. */
const METER_RESPONSE_ONLY = new Set(['source_password_len', 'key_len']);

export function registerMeterSettingsRoutes(router: Router, ctx: AppContext): void {
  const view = {
    description: 'meter settings (key_len instead of the key)',
    schema: METER_SETTINGS_VIEW_SCHEMA,
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
    (request, response) => {
      const { changes, issues } = leafWrites(METER_SECTION, request.body, 'merge');
      issues.push(...semanticIssues(changes, ctx.config.config.meter.source));
      applyWrites(ctx.config, changes, issues);
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
