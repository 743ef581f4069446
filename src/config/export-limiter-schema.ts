import { int, num } from './schema-leaves.js';

/**
 * services.export_limiter: the PV export limiter (docs/architecture.md#export-limiter), part of the
 * settings tree (GET/POST /api/v1/settings, METER_GATEWAY_SERVICES_EXPORT_LIMITER_* overrides).
 * The inverter list's format ('export-limiter-inverters') is registered by src/export-limiter at
 * wiring time.
 */

export const EXPORT_LIMITER_MODES = ['off', 'zero_export', 'price'] as const;

export const EXPORT_LIMITER_SCHEMA = {
  enabled: {
    doc: 'Hold the grid power at target_w by limiting the PV inverters (closed on the grid meter).',
    format: 'bool' as const,
    default: false,
  },
  meter: {
    doc: 'Grid meter the loop is closed on: "main" (the primary) or the id of a further meter.',
    format: 'text' as const,
    default: 'main',
    maxLength: 32,
    pattern: /^[a-z][a-z0-9_]{0,31}$/,
    patternText: 'a meter id',
  },
  inverters: {
    doc: 'Inverters: list of {id, source: "modbus-tcp://host:502?unit=1" or "modbus-rtu:/dev/ttyUSB0?baud=9600&unit=1", profile: sunspec|fronius|sma|solaredge|huawei|victron_ess (unit 100, a grid setpoint), wmax_w?, pv_meter?}.',
    format: 'export-limiter-inverters' as const,
    default: [] as Array<{
      id: string;
      source: string;
      profile: string;
      wmax_w?: number;
      pv_meter?: string;
    }>,
  },
  mode: {
    doc: 'off; zero_export (hold target_w); price (per quarter: PV off when the import price is negative, zero export when the export price is below export_threshold, else free).',
    format: 'one-of' as const,
    default: 'zero_export' as (typeof EXPORT_LIMITER_MODES)[number],
    values: EXPORT_LIMITER_MODES,
  },
  target_w: int(0, -100000, 100000, 'Grid power to hold in W (import positive; negative: allowed export).'),
  deadband_w: int(50, 0, 10000, 'No write while the grid power is within this many W of target_w.'),
  export_threshold: num(
    0,
    -10,
    10,
    'Price mode: zero export while the export price (per kWh) is below this value.',
    0.0001,
  ),
  safe_pct: num(
    0,
    0,
    100,
    'Limit (% of WMax) the inverter falls back to when the gateway or the meter is gone: 0 for a zero-export connection, 100 for price curtailment.',
    0.1,
  ),
  stale_after_s: int(
    30,
    2,
    3600,
    'A grid reading older than this many seconds: write safe_pct once and hold.',
  ),
  revert_s: int(
    120,
    10,
    3600,
    "Inverter's own revert time (s): without a refresh it falls back to safe_pct.",
  ),
  refresh_s: int(60, 5, 1800, 'The current limit is written again every refresh_s (at most revert_s / 2).'),
};
