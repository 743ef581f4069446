import type { PEAK_STATES } from '../contracts/values.js';
import type { MonthRecord } from './months.js';
import type { WindowQuantities } from './quantities.js';
import type { PeakStage } from './stages.js';
import type { TrackerState } from './window-tracker.js';

/** One Norwegian price step: demand up to `to_kw` costs `price` a month (docs/architecture.md#peak-guard-models). */
export interface PriceStep {
  to_kw: number;
  price: number;
}

/** Which windows count (Sweden's day-time, weekday and month filters). */
export interface WindowFilter {
  hours_from: number;
  hours_to: number;
  weekdays_only: boolean;
  months: number[];
}

/** The step a month value falls in, as GET /api/v1/peak shows it. */
export interface StepView {
  index: number;
  from_kw: number;
  /** Upper bound; null above the last bound (the last step goes on). */
  to_kw: number | null;
  price: number;
}

/** The settings the engine reads (services.peak_guard). */
export interface PeakSettings {
  model: 'be_quarter' | 'no_top3_days' | 'se_max_hour' | 'custom';
  window_s: number;
  limit_kw: number;
  mode: 'fixed' | 'follow_month_peak' | 'keep_step' | 'keep_average';
  warn_margin_kw: number;
  margin_kw: number;
  floor_kw: number;
  arm_after_s: number;
  step_delay_s: number;
  hysteresis_kw: number;
  hold_s: number;
  on_stale: 'hold' | 'restore_all';
  eur_per_kw_year: number;
  stages: PeakStage[];
  /** Windows in the month value; 0 or absent: the model's (tariff-model.ts). */
  top_n?: number;
  aggregation?: 'model' | 'mean' | 'mean_distinct_days';
  /** no_top3_days price steps, increasing. */
  steps?: PriceStep[];
  /** se_max_hour and custom: the windows that count. */
  filter?: WindowFilter;
}

export type PeakState = (typeof PEAK_STATES)[number];

/** One reading of the guarded meter: time (ms), A+ (kWh), import power (kW), sub-meter powers. */
export interface PeakReading {
  at: number;
  importKwh: number;
  importKw: number;
  meters?: Readonly<Record<string, number>>;
}

/** An action the engine asks to run. */
export interface PeakCall {
  kind: 'shed' | 'restore';
  stage: string;
  action: string;
  at: number;
}

export type PeakEventType = 'warning' | 'shed' | 'restore' | 'ineffective' | 'unavoidable' | 'new_month_peak';

export interface PeakEvent {
  type: PeakEventType;
  at: number;
  stage?: string;
  kw?: number;
}

export interface PeakStep {
  calls: PeakCall[];
  events: PeakEvent[];
  /** The window this step closed (the last one, after a gap), if any. */
  closed?: { start: number; end: number; kw: number };
}

export interface ShedStage {
  id: string;
  /** When the shed call went out, ms. */
  since: number;
  /** The power the relief is measured against (sub-meter or import), kW. */
  beforeKw: number;
  /** Whether the relief was checked after step_delay_s. */
  checked: boolean;
  /** The stage's restore action when it was shed (restored even if the stage is removed). */
  restore?: string;
}

/** What survives a restart (written atomically by the service). */
export interface PeakPersisted {
  version: 1;
  tracker?: TrackerState;
  shed: ShedStage[];
  restoredAt: Record<string, number>;
  /** When each stage was last shed, ms (absent in state files written before it existed). */
  shedAt?: Record<string, number>;
  lastStepAt?: number;
  ineffective: string[];
  ineffectiveWindow?: number;
  unavoidableWindow?: number;
  months: MonthRecord[];
  lastWindow?: { start: number; end: number; kw: number };
}

export interface PeakSnapshot {
  state: PeakState;
  window: { start: number; end: number; seconds: number } | null;
  quantities: WindowQuantities | null;
  limit_kw: number;
  effective_limit_kw: number;
  /** The month's peak; `at` the end of its window (as the meter stamps it). */
  month_peak: { kw: number; at: number; source: 'meter' | 'computed' } | null;
  rolling: { kw: number; months: { month: string; kw: number; source: 'meter' | 'computed' }[] };
  marginal_eur: number;
  /**
   * The import price per kWh of the window's quarter that `marginal_eur` counts the excess energy at
   * (services.costs import mode dynamic), null without one; `marginal_estimated` when it is the
   * fallback price of a quarter without a market price.
   */
  marginal_price: number | null;
  marginal_estimated: boolean;
  shed: { id: string; since: number; ineffective: boolean }[];
  /** Every configured stage, in order, with its actions and its last shed and restore times. */
  stages?: {
    id: string;
    shed: string;
    restore: string;
    relief_kw: number;
    last_shed: number | null;
    last_restore: number | null;
    /** What the stage may draw now without the window ending above the limit (budget.ts), W and A. */
    budget_w: number | null;
    budget_a: number | null;
  }[];
  last_window: { start: number; end: number; kw: number } | null;
  last_reading_at: number | null;
  /** The month value: the mean of its top n windows (or day maxima); null before any window closed. */
  month_value_kw: number | null;
  /** no_top3_days: the price step of the month value; null for the other models. */
  step: StepView | null;
  /** Why the current window does not count for the peak (filters), or null. */
  not_counted: string | null;
}
