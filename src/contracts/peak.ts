import Type, { type Static, type TSchema } from 'typebox';
import { ExportLimiterDecisionSchema } from './export-limiter.js';
import { PEAK_STATES } from './values.js';

/**
 * The peak guard's shapes (docs/architecture.md#peak-guard): a stage as the settings store it, the
 * view of GET /api/v1/peak and the `peak` events of /api/v1/peak/stream, the month list of
 * GET /api/v1/peak/history. Times are ISO 8601 with the local offset, powers kW rounded to 3
 * decimals, money rounded to 2.
 */

/** A stage as the settings store it under `services.peak_guard.stages`. */
export const PeakStageSchema = Type.Object({
  id: Type.String(),
  shed: Type.String({ description: 'action id run to shed the load' }),
  restore: Type.String({ description: 'action id run to restore it' }),
  relief_kw: Type.Number(),
  meter: Type.Optional(Type.String({ description: 'sub-meter measuring the load, when there is one' })),
  min_on_s: Type.Number(),
  min_off_s: Type.Number(),
  phases: Type.Optional(
    Type.Integer({ description: 'phases the load draws on (1 or 3), for its budget in A' }),
  ),
  min_a: Type.Optional(
    Type.Integer({ description: "the charger's lowest current; a budget below it is 0 A (default 6)" }),
  ),
  locks: Type.Array(Type.String(), {
    description: 'actions whose when/schedule triggers are suppressed while the stage is shed',
  }),
});
export type PeakStage = Static<typeof PeakStageSchema>;

const orNull = <T extends TSchema>(schema: T, description?: string) =>
  Type.Union([schema, Type.Null()], description === undefined ? {} : { description });
const kwOrNull = orNull(Type.Number());
const timeOrNull = orNull(Type.String({ format: 'date-time' }));
const MONTH_SOURCE = Type.Union([Type.Literal('meter'), Type.Literal('computed')], {
  description: "meter: the meter's own register (1-0:1.6.0, 0-0:98.1.0); computed: the closed windows",
});

/** The quantities of a window; `elapsed_s`/`remaining_s` null while no reading came in it. */
const PeakWindowSchema = Type.Object({
  start: Type.String({ format: 'date-time' }),
  end: Type.String({ format: 'date-time' }),
  seconds: Type.Integer(),
  elapsed_s: orNull(Type.Integer()),
  remaining_s: orNull(Type.Integer()),
});

/**
 * GET /api/v1/peak. While the guard is off only `state`, `model` and `meter` are sent; the other
 * fields come with a running guard.
 */
export const PeakViewSchema = Type.Object({
  state: Type.Enum(PEAK_STATES),
  model: Type.String(),
  meter: orNull(
    Type.Record(Type.String(), Type.Unknown()),
    "the meter's own registers where it sends them (Belgian P1: 1-0:1.4.0, 1-0:1.6.0, 0-0:98.1.0) and the count of closed windows that differ from 1.4.0",
  ),
  window: Type.Optional(orNull(PeakWindowSchema)),
  running_kw: Type.Optional(kwOrNull),
  average_kw: Type.Optional(kwOrNull),
  p_now_kw: Type.Optional(kwOrNull),
  predicted_kw: Type.Optional(kwOrNull),
  allowed_kw: Type.Optional(kwOrNull),
  headroom_kw: Type.Optional(kwOrNull),
  limit_kw: Type.Optional(Type.Number()),
  effective_limit_kw: Type.Optional(kwOrNull),
  month_peak: Type.Optional(
    orNull(
      Type.Object({
        kw: kwOrNull,
        at: Type.String({ format: 'date-time', description: "the end of the peak's window" }),
        source: MONTH_SOURCE,
      }),
    ),
  ),
  rolling: Type.Optional(
    Type.Object({
      kw: kwOrNull,
      months: Type.Array(Type.Object({ month: Type.String(), kw: kwOrNull, source: MONTH_SOURCE })),
    }),
  ),
  marginal_eur: Type.Optional(Type.Number()),
  currency: Type.Optional(
    Type.String({ description: 'the currency of marginal_eur (services.costs.currency)' }),
  ),
  marginal_price: Type.Optional(
    orNull(
      Type.Number({
        description:
          "the import price per kWh the window's energy above the billed demand is counted at in marginal_eur (services.costs.import.mode dynamic); null: the capacity charge alone",
      }),
    ),
  ),
  marginal_estimated: Type.Optional(
    Type.Boolean({
      description: 'marginal_price is the fallback price of a quarter without a market price',
    }),
  ),
  shed: Type.Optional(
    Type.Array(
      Type.Object({
        id: Type.String(),
        since: Type.String({ format: 'date-time' }),
        ineffective: Type.Boolean(),
      }),
    ),
  ),
  stages: Type.Optional(
    Type.Array(
      Type.Object({
        id: Type.String(),
        shed: Type.String(),
        restore: Type.String(),
        relief_kw: Type.Number(),
        last_shed: timeOrNull,
        last_restore: timeOrNull,
        budget_w: Type.Optional(
          orNull(Type.Number(), 'what the stage may draw now without the window ending above the limit'),
        ),
        budget_a: Type.Optional(orNull(Type.Integer(), 'budget_w in A on its phases; 0 below min_a')),
      }),
      { description: 'every configured stage in order; last_shed and last_restore null: never' },
    ),
  ),
  last_window: Type.Optional(
    orNull(Type.Object({ start: Type.String({ format: 'date-time' }), kw: kwOrNull })),
  ),
  last_reading: Type.Optional(timeOrNull),
  month_value_kw: Type.Optional(
    orNull(
      Type.Number(),
      'the month value: the mean of its top n windows (no_top3_days: day maxima on distinct days)',
    ),
  ),
  step: Type.Optional(
    orNull(
      Type.Object({ index: Type.Integer(), from_kw: Type.Number(), to_kw: kwOrNull, price: Type.Number() }),
      'no_top3_days: the price step of the month value',
    ),
  ),
  not_counted: Type.Optional(
    orNull(Type.String(), 'why the current window does not count for the peak (se_max_hour/custom filters)'),
  ),
  export_limiter: Type.Optional(
    Type.Object(ExportLimiterDecisionSchema.properties, {
      description: "the export limiter's decision and its reason, while it is enabled",
    }),
  ),
});
export type PeakView = Static<typeof PeakViewSchema>;

/** GET /api/v1/peak/history: the last months, oldest first, with the meter's own month peak. */
export const PeakHistorySchema = Type.Object({
  months: Type.Array(
    Type.Object({
      month: Type.String({ description: 'YYYY-MM' }),
      meter_kw: kwOrNull,
      meter_at: orNull(Type.String()),
      peak_kw: orNull(Type.Number(), "the month's value: the meter's when it sent one, else computed"),
      peak_at: orNull(Type.String({ format: 'date-time' }), "the end of the peak's window"),
      source: Type.Optional(MONTH_SOURCE),
      computed_kw: Type.Optional(kwOrNull),
      computed_at: Type.Optional(timeOrNull),
      top: Type.Array(Type.Object({ start: Type.String({ format: 'date-time' }), kw: kwOrNull })),
    }),
  ),
});
export type PeakHistory = Static<typeof PeakHistorySchema>;
