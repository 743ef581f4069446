import { EXPORT_LIMITER_MODES } from '../config/export-limiter-schema.js';
import type { FamilySpec } from '../metrics/families.js';
import type { MetricsContributor } from '../metrics/gateway-samples.js';
import {
  settingCommandMetrics,
  SettingCommandCounts,
  type CommandValue,
  type SettingCommands,
} from './setting-commands.js';

/**
 * The export limiter's MQTT commands (docs/architecture.md#export-limiter): `mode` (off,
 * zero_export, price) and `target` (W, an integer) write `services.export_limiter.mode` and
 * `.target_w` through the config store, exactly as PUT /api/v1/settings does: the same schema and
 * rules, written atomically to the settings state file (so a change made in Home Assistant
 * survives a restart) and taken up by the running loop. A refused command is logged and counted;
 * nothing of it is stored (./setting-commands.ts runs them). Size and rate are bounded by the
 * link's command gate.
 */

export const LIMITER_COMMANDS = ['mode', 'target'] as const;
export type LimiterCommand = (typeof LIMITER_COMMANDS)[number];

/** How many commands were taken and refused since start (the /metrics series). */
export { SettingCommandCounts as LimiterCommandCounts };

const PATHS: Readonly<Record<LimiterCommand, string>> = {
  mode: 'services.export_limiter.mode',
  target: 'services.export_limiter.target_w',
};

/** An integer as JSON writes it; HA's number entity sends `-100` or `-100.0`. */
const INTEGER = /^-?\d{1,7}(\.0+)?$/;

export function limiterCommandValue(command: LimiterCommand, payload: string): CommandValue {
  const text = payload.trim();
  if (command === 'target')
    return INTEGER.test(text)
      ? { ok: true, value: Number(text) }
      : { ok: false, reason: 'must be a whole number of W' };
  return (EXPORT_LIMITER_MODES as readonly string[]).includes(text)
    ? { ok: true, value: text }
    : { ok: false, reason: `must be one of ${EXPORT_LIMITER_MODES.join(', ')}` };
}

export const LIMITER_SETTINGS: SettingCommands<LimiterCommand> = {
  subject: 'export limiter',
  folder: 'export_limiter',
  commands: LIMITER_COMMANDS,
  paths: PATHS,
  value: limiterCommandValue,
};

const COMMANDS_FAMILY: FamilySpec = {
  name: 'meter_gateway_export_limiter_mqtt_commands_total',
  help: 'Export limiter commands received over MQTT, by result (accepted, refused)',
  type: 'counter',
  labels: ['result'],
};

/** The commands' counters on /metrics. */
export function limiterCommandMetrics(counts: SettingCommandCounts): MetricsContributor {
  return settingCommandMetrics(COMMANDS_FAMILY, counts);
}
