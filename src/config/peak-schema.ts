import { int, num } from './schema-leaves.js';

/**
 * services.peak_guard: the capacity-tariff peak guard (docs/architecture.md#peak-guard), part of
 * the settings tree (GET/PUT /api/v1/settings, METER_GATEWAY_SERVICES_PEAK_GUARD_* overrides).
 * The stage list's format ('peak-stages') and the rules over stages and actions are registered
 * by src/peak at wiring time.
 */

export const PEAK_MODELS = ['be_quarter', 'no_top3_days', 'se_max_hour', 'custom'] as const;
export const PEAK_LIMIT_MODES = ['fixed', 'follow_month_peak', 'keep_step', 'keep_average'] as const;

export const PEAK_GUARD_SCHEMA = {
  enabled: {
    doc: 'Watch the demand window and shed the stages when the predicted peak would pass the limit.',
    format: 'bool' as const,
    default: false,
  },
  model: {
    doc: 'Tariff model: be_quarter (900 s windows, month top 1, 2.5 kW floor, 12-month average), no_top3_days (3600 s, top 3 day maxima), se_max_hour (3600 s, top hours), custom.',
    format: 'one-of' as const,
    default: 'be_quarter' as (typeof PEAK_MODELS)[number],
    values: PEAK_MODELS,
  },
  window_s: int(900, 300, 3600, 'Window length in seconds for the custom model (divides an hour).'),
  meter: {
    doc: 'Meter whose import is guarded: "main" (the primary) or the id of a further meter.',
    format: 'text' as const,
    default: 'main',
    maxLength: 32,
    pattern: /^[a-z][a-z0-9_]{0,31}$/,
    patternText: 'a meter id',
  },
  limit_kw: num(4, 0.1, 1000, 'Demand limit L in kW (average import power over a window).'),
  mode: {
    doc: 'fixed: L as set; follow_month_peak: never shed below the month peak already billed; keep_step / keep_average: Norway, the current price step or average.',
    format: 'one-of' as const,
    default: 'fixed' as (typeof PEAK_LIMIT_MODES)[number],
    values: PEAK_LIMIT_MODES,
  },
  warn_margin_kw: num(0.3, 0, 100, 'Warn when the predicted demand reaches L minus this margin.'),
  margin_kw: num(0.1, 0, 100, 'Shed when the predicted demand exceeds L minus this margin.'),
  floor_kw: num(2.5, 0, 100, 'Lowest billed month peak (Flanders: 2.5 kW).'),
  arm_after_s: int(60, 0, 600, 'No shedding in the first seconds of a window.'),
  step_delay_s: int(
    30,
    1,
    900,
    'Seconds between two shed steps, and the time a stage has to show its relief.',
  ),
  hysteresis_kw: num(
    0.3,
    0,
    100,
    'Restore only when the prediction with the stage back stays this far below L.',
  ),
  hold_s: int(60, 0, 3600, 'Seconds the restore test must hold before a stage is restored.'),
  on_stale: {
    doc: 'With stale meter data: hold (keep the stages as they are) or restore_all.',
    format: 'one-of' as const,
    default: 'hold' as 'hold' | 'restore_all',
    values: ['hold', 'restore_all'] as const,
  },
  eur_per_kw_year: num(40.4, 0, 10000, 'Capacity charge per kW of rolling average and year (currency).'),
  stages: {
    doc: 'Ordered stages {id, shed, restore, relief_kw, meter?, min_on_s, min_off_s, locks} naming action ids.',
    format: 'peak-stages' as const,
    default: [] as unknown[],
  },
};
