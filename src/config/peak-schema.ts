import { int, num } from './schema-leaves.js';

/**
 * services.peak_guard: the capacity-tariff peak guard (docs/architecture.md#peak-guard), part of
 * the settings tree (GET/PUT /api/v1/settings, METER_GATEWAY_SERVICES_PEAK_GUARD_* overrides).
 * The formats of the stage list, the Norway steps and the month filter ('peak-stages', 'peak-steps',
 * 'peak-months') and the rules over stages and actions are registered
 * by src/peak at wiring time.
 */

export const PEAK_MODELS = ['be_quarter', 'no_top3_days', 'se_max_hour', 'custom'] as const;
export const PEAK_LIMIT_MODES = ['fixed', 'follow_month_peak', 'keep_step', 'keep_average'] as const;

/**
 * Norway's capacity steps (kapasitetsledd), the month value in kW up to `to_kw` and the monthly
 * price of the step (NOK incl. VAT): the table Lysna, a Norwegian grid company, published from
 * 1 July 2022 (https://lysna.no/prisar-for-private-kundar-2): 0–2 kW 312.5, 2–5 kW 375,
 * 5–10 kW 437.5, 10–15 kW 500, 15–20 kW 562.5, 20–25 kW 625 kr/month; the month value is the mean
 * of the three highest hours on three different days. A value above the last bound stays in the
 * last step.
 */
export const NORWAY_STEPS = [
  { to_kw: 2, price: 312.5 },
  { to_kw: 5, price: 375 },
  { to_kw: 10, price: 437.5 },
  { to_kw: 15, price: 500 },
  { to_kw: 20, price: 562.5 },
  { to_kw: 25, price: 625 },
];

export const PEAK_AGGREGATIONS = ['model', 'mean', 'mean_distinct_days'] as const;

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
  window_s: int(900, 300, 3600, 'Window length in seconds for the custom model (must divide an hour).'),
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
    'Seconds between two shed steps, and the time a stage has to show its relief (the mean import since the shed, or its sub-meter); arm_after_s + step_delay_s must end inside the window.',
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
  top_n: int(
    0,
    0,
    24,
    "Windows of a month whose mean is the month value; 0: the model's (be_quarter 1, no_top3_days 3, se_max_hour 1, custom 1).",
  ),
  aggregation: {
    doc: "How the top_n windows make the month value: model (the model's own), mean (of the top_n windows), mean_distinct_days (of the top_n day maxima, one window a local day).",
    format: 'one-of' as const,
    default: 'model' as (typeof PEAK_AGGREGATIONS)[number],
    values: PEAK_AGGREGATIONS,
  },
  steps: {
    doc: 'no_top3_days price steps, increasing: [{to_kw, price}] (price per month of the step the month value falls in).',
    format: 'peak-steps' as const,
    default: NORWAY_STEPS as { to_kw: number; price: number }[],
  },
  filter: {
    hours_from: int(
      0,
      0,
      23,
      'se_max_hour and custom: first local hour whose windows count (e.g. 7 for 07–19).',
    ),
    hours_to: int(24, 1, 24, 'se_max_hour and custom: local hour at which counting windows end (e.g. 19).'),
    weekdays_only: {
      doc: 'se_max_hour and custom: only windows on Monday to Friday count.',
      format: 'bool' as const,
      default: false,
    },
    months: {
      doc: 'se_max_hour and custom: months (1..12) whose windows count, e.g. [11,12,1,2,3]; [] every month.',
      format: 'peak-months' as const,
      default: [] as number[],
    },
  },
  stages: {
    doc: 'Ordered stages {id, shed, restore, relief_kw, meter?, min_on_s, min_off_s, phases?, min_a?, locks} naming action ids.',
    format: 'peak-stages' as const,
    default: [] as unknown[],
  },
};
