import { FormatError, jsonFromEnv, registerFormats, type ConfigFormat } from '../config/formats.js';
import { getPath } from '../config/paths.js';
import { registerRules, type ConfigRule } from '../config/rules.js';
import type { ValidationIssue } from '../config/validation.js';
import { INVERTER_SOURCE_RULE, inverterEndpointOf } from '../modbus-protocol/endpoint.js';

import { INVERTER_PROFILES, type InverterProfileName } from './profiles.js';
import { VICTRON } from './vendors.js';

/** One inverter of services.export_limiter.inverters. */
export interface InverterSetting {
  id: string;
  source: string;
  profile: InverterProfileName;
  wmax_w?: number;
  pv_meter?: string;
}

declare module '../config/formats.js' {
  interface FormatTypes {
    /** services.export_limiter.inverters (config-formats.ts of the export limiter). */
    'export-limiter-inverters': InverterSetting[];
  }
}

export const MAX_INVERTERS = 8;
const ID = /^[a-z][a-z0-9_]{0,31}$/;
const KEYS = new Set(['id', 'source', 'profile', 'wmax_w', 'pv_meter']);

/** Every problem of an inverter list, each naming its field. */
export function inverterListProblems(value: unknown): { field: string; message: string }[] {
  if (!Array.isArray(value)) return [{ field: 'inverters', message: 'must be a list' }];
  if (value.length > MAX_INVERTERS)
    return [{ field: 'inverters', message: `at most ${MAX_INVERTERS} inverters` }];
  const problems: { field: string; message: string }[] = [];
  const seen = new Set<string>();
  value.forEach((entry: unknown, index) => {
    const at = `inverters[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push({ field: at, message: 'must be an object {id, source, profile, wmax_w?, pv_meter?}' });
      return;
    }
    const item = entry as Record<string, unknown>;
    for (const key of Object.keys(item))
      if (!KEYS.has(key)) problems.push({ field: `${at}.${key}`, message: 'unknown key' });
    if (typeof item.id !== 'string' || !ID.test(item.id))
      problems.push({ field: `${at}.id`, message: 'must be an id (a-z, 0-9, _; 1..32, a letter first)' });
    else if (seen.has(item.id)) problems.push({ field: `${at}.id`, message: `duplicate id "${item.id}"` });
    else seen.add(item.id);
    const parsed =
      typeof item.source === 'string' && item.source.length <= 256
        ? inverterEndpointOf(item.source)
        : { ok: false as const, problem: INVERTER_SOURCE_RULE };
    if (!parsed.ok) problems.push({ field: `${at}.source`, message: parsed.problem });
    // Victron's GX answers the ESS settings (2700, grid setpoint) on unit 100 only (its Modbus TCP
    // register list, service com.victronenergy.settings): any other unit would read another device.
    else if (item.profile === 'victron_ess' && parsed.endpoint.unit !== VICTRON.UNIT)
      problems.push({
        field: `${at}.source`,
        message: `victron_ess: the GX serves its ESS settings on unit ${VICTRON.UNIT} (add ?unit=${VICTRON.UNIT})`,
      });
    if (typeof item.profile !== 'string' || !(INVERTER_PROFILES as readonly string[]).includes(item.profile))
      problems.push({ field: `${at}.profile`, message: `must be one of ${INVERTER_PROFILES.join(', ')}` });
    if (
      item.wmax_w !== undefined &&
      (typeof item.wmax_w !== 'number' ||
        !Number.isFinite(item.wmax_w) ||
        item.wmax_w < 1 ||
        item.wmax_w > 1e6)
    )
      problems.push({ field: `${at}.wmax_w`, message: 'must be a number of W, 1..1000000' });
    if (item.pv_meter !== undefined && (typeof item.pv_meter !== 'string' || !ID.test(item.pv_meter)))
      problems.push({ field: `${at}.pv_meter`, message: 'must be a meter id' });
  });
  return problems;
}

const INVERTERS: ConfigFormat = {
  name: 'export-limiter-inverters',
  validate(value) {
    const parts = inverterListProblems(value);
    if (parts.length > 0)
      throw new FormatError(
        'invalid-inverters',
        parts.map((part) => `${part.field}: ${part.message}`).join('; '),
        {
          parts,
        },
      );
  },
  describe: () => 'list of {id, source, profile, wmax_w?, pv_meter?}',
  jsonSchema: () => ({
    type: 'array',
    maxItems: MAX_INVERTERS,
    items: {
      type: 'object',
      required: ['id', 'source', 'profile'],
      additionalProperties: false,
      properties: {
        id: { type: 'string', pattern: ID.source },
        source: { type: 'string', maxLength: 256 },
        profile: { type: 'string', enum: [...INVERTER_PROFILES] },
        wmax_w: { type: 'number', minimum: 1, maximum: 1e6 },
        pv_meter: { type: 'string', pattern: ID.source },
      },
    },
  }),
  fromEnv: jsonFromEnv,
};

/** refresh_s at most revert_s / 2, so one lost refresh never lets the inverter's revert timer fire. */
const REFRESH_RULE: ConfigRule = {
  name: 'export-limiter-refresh',
  watches: ['services.export_limiter.refresh_s', 'services.export_limiter.revert_s'],
  check(tree): ValidationIssue[] {
    const refresh = getPath(tree, 'services.export_limiter.refresh_s') as number;
    const revert = getPath(tree, 'services.export_limiter.revert_s') as number;
    return refresh * 2 > revert
      ? [
          {
            field: 'services.export_limiter.refresh_s',
            message: `must be at most revert_s / 2 (${revert / 2})`,
            value: refresh,
          },
        ]
      : [];
  },
};

/** Registers the limiter's format and rules; the daemon calls it before the config loads. */
export function registerExportLimiterConfig(): void {
  registerFormats([INVERTERS]);
  registerRules([REFRESH_RULE]);
}
