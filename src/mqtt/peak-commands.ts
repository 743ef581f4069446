import type { FamilySpec } from '../metrics/families.js';
import type { MetricsContributor } from '../metrics/gateway-samples.js';
import {
  settingCommandMetrics,
  SettingCommandCounts,
  type CommandValue,
  type SettingCommands,
} from './setting-commands.js';

/**
 * The peak guard's MQTT commands (docs/architecture.md#peak-guard-outputs): `limit` (kW),
 * `mode` and `enable` (ON/OFF) write `services.peak_guard.*` through the config store, exactly as
 * PUT /api/v1/settings does: the same schema and rules, stored in the state directory (the admin's
 * file is never rewritten) and applied live. A refused command is logged and counted; nothing of
 * it is stored (./setting-commands.ts runs them).
 */

export const PEAK_COMMANDS = ['limit', 'mode', 'enable'] as const;
export type PeakCommand = (typeof PEAK_COMMANDS)[number];

/** How many commands were taken and refused since start (the /metrics series). */
export { SettingCommandCounts as PeakCommandCounts };

const PATHS: Readonly<Record<PeakCommand, string>> = {
  limit: 'services.peak_guard.limit_kw',
  mode: 'services.peak_guard.mode',
  enable: 'services.peak_guard.enabled',
};

/** A decimal number as JSON writes it (what PUT /api/v1/settings would accept as a number). */
const DECIMAL = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/** HA's MQTT switch sends payload_on / payload_off, ON and OFF by default. */
const SWITCH_PAYLOADS: Readonly<Record<string, boolean>> = { ON: true, OFF: false };

/** The setting's value a payload stands for, or why it stands for none. */
export function commandValue(command: PeakCommand, payload: string): CommandValue {
  const text = payload.trim();
  if (command === 'limit') {
    if (!DECIMAL.test(text)) return { ok: false, reason: 'not a number' };
    return { ok: true, value: Number(text) };
  }
  if (command === 'enable') {
    const value = SWITCH_PAYLOADS[text.toUpperCase()];
    return value === undefined ? { ok: false, reason: 'must be ON or OFF' } : { ok: true, value };
  }
  if (text === '') return { ok: false, reason: 'empty' };
  return { ok: true, value: text };
}

export const PEAK_SETTINGS: SettingCommands<PeakCommand> = {
  subject: 'peak guard',
  folder: 'peak',
  commands: PEAK_COMMANDS,
  paths: PATHS,
  value: commandValue,
};

const COMMANDS_FAMILY: FamilySpec = {
  name: 'meter_gateway_peak_mqtt_commands_total',
  help: 'Peak guard commands received over MQTT, by result (accepted, refused)',
  type: 'counter',
  labels: ['result'],
};

/** The commands' counters on /metrics. */
export function peakCommandMetrics(counts: SettingCommandCounts): MetricsContributor {
  return settingCommandMetrics(COMMANDS_FAMILY, counts);
}
