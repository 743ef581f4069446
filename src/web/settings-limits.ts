import { contract } from '../http/contract-ref.js';
import { formatNamed, type Limits } from '../config/formats.js';
import { SCHEMA } from '../config/schema.js';
import type { Router } from '../http/router.js';
import { sendJson } from '../http/respond.js';
import type { SettingLimits, SettingsLimits } from '../contracts/page.js';

export const LIMITS_PATH = '/api/v1/settings/limits';

/** The parts of the schema the settings endpoints read and write (as the choices route). */
const SETTINGS_SECTIONS = ['system', 'services', 'wifi', 'eth', 'mqtt', 'modbus', 'meter'] as const;

/** A leaf's numeric range, length and pattern as a form applies them (min/max/maxlength/pattern). */
function limitsOf(node: Record<string, unknown>): SettingLimits | undefined {
  const limits: SettingLimits = {};
  for (const key of ['min', 'max', 'step', 'minLength', 'maxLength'] as const) {
    if (typeof node[key] === 'number') limits[key] = node[key];
  }
  if (node.pattern instanceof RegExp) limits.pattern = node.pattern.source;
  return Object.keys(limits).length > 0 ? limits : undefined;
}

/** JSON Schema keywords of a list item's field as form limits (minimum -> min, ...). */
function fromJsonSchema(schema: Record<string, unknown>): SettingLimits | undefined {
  const limits: SettingLimits = {};
  if (typeof schema.minimum === 'number') limits.min = schema.minimum;
  if (typeof schema.maximum === 'number') limits.max = schema.maximum;
  if (schema.type === 'integer') limits.step = 1;
  if (typeof schema.minLength === 'number') limits.minLength = schema.minLength;
  if (typeof schema.maxLength === 'number') limits.maxLength = schema.maxLength;
  if (typeof schema.pattern === 'string') limits.pattern = schema.pattern;
  return Object.keys(limits).length > 0 ? limits : undefined;
}

/**
 * A list setting whose format describes its items (the peak guard's stages): each item field's
 * limits under `<path>[].<field>`.
 */
function collectItems(node: Record<string, unknown>, path: string, into: SettingsLimits): void {
  if (typeof node.format !== 'string') return;
  const schema = formatNamed(node.format)?.jsonSchema?.(node as Limits);
  const items = schema?.items as { properties?: Record<string, Record<string, unknown>> } | undefined;
  for (const [key, field] of Object.entries(items?.properties ?? {})) {
    const limits = fromJsonSchema(field);
    if (limits) into[`${path}[].${key}`] = limits;
  }
}

function collect(node: unknown, path: string, into: SettingsLimits): void {
  if (typeof node !== 'object' || node === null) return;
  const record = node as Record<string, unknown>;
  if ('format' in record && 'default' in record) {
    // The item's own limits first; its format's JSON Schema adds what the format itself checks
    // (the pattern of a meter id, ...).
    const own = limitsOf(record);
    const format = fromJsonSchema(formatNamed(String(record.format))?.jsonSchema?.(record as Limits) ?? {});
    const limits = own || format ? { ...format, ...own } : undefined;
    if (limits) into[path] = limits;
    collectItems(record, path, into);
    return;
  }
  for (const [key, child] of Object.entries(record)) collect(child, `${path}.${key}`, into);
}

/** Every setting's limits, read from the one schema: the forms never repeat them. */
export function settingsLimits(): SettingsLimits {
  const limits: SettingsLimits = {};
  for (const section of SETTINGS_SECTIONS) collect(SCHEMA[section], section, limits);
  return limits;
}

/** GET /api/v1/settings/limits: each setting's min/max/length/pattern by dotted config path. */
export function registerLimitsRoute(router: Router): void {
  const limits = settingsLimits();
  router.add('GET', LIMITS_PATH, (_request, response) => sendJson(response, 200, limits), {
    doc: {
      summary: 'The limits of each setting (min, max, step, length, pattern) by dotted config path',
      responses: { 200: { description: 'limits by path', schema: contract('SettingsLimitsSchema') } },
    },
  });
}
