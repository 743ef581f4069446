import Type, { type Static, type TSchema } from 'typebox';

/**
 * The export limiter's view (docs/architecture.md#export-limiter): GET /api/v1/export-limiter and
 * the `export_limiter` events of /api/v1/export-limiter/stream. Powers in W, times ISO 8601 UTC.
 */

const orNull = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const ExportLimiterInverterSchema = Type.Object({
  id: Type.String(),
  profile: Type.String(),
  state: Type.Union([
    Type.Literal('unknown'),
    Type.Literal('ok'),
    Type.Literal('inverter_lost'),
    Type.Literal('busy'),
    Type.Literal('pv_meter_missing'),
  ]),
  model: orNull(Type.Integer({ description: 'SunSpec control model written: 704 or 123' })),
  wmax_w: orNull(Type.Number()),
  installer_limit_pct: orNull(
    Type.Number({ description: 'limit found before the first write: the ceiling, restored by free' }),
  ),
  reported_w: orNull(Type.Number({ description: "the inverter's reported output" })),
  commanded_pct: orNull(Type.Number({ description: 'limit the gateway holds (% of WMax); null: none' })),
  commanded_w: orNull(Type.Number()),
  last_write: orNull(Type.String({ format: 'date-time' })),
  writes_per_hour: Type.Integer(),
  writes: Type.Integer(),
  refreshes: Type.Integer(),
  failures: Type.Integer(),
  error: orNull(Type.String()),
});

const MODE = Type.Union([Type.Literal('off'), Type.Literal('zero_export'), Type.Literal('price')]);
/** What the limiter decided for the inverters (docs/architecture.md#export-limiter). */
export const LIMITER_DECISIONS = ['off', 'zero_export', 'pv_off', 'free'] as const;
export type LimiterDecision = (typeof LIMITER_DECISIONS)[number];
const DECISION = Type.Enum(LIMITER_DECISIONS);
const REASON = Type.String({
  description: 'why the decision was taken (mode, price of the quarter, peak guard)',
});
/**
 * The limiter's states, one list for the API, the Home Assistant enum and event types, the
 * metrics' state series and the Modbus state register's codes.
 */
export const LIMITER_STATES = [
  'idle',
  'limiting',
  'free',
  'pv_off',
  'stale',
  'inverter_lost',
  'busy',
] as const;
export type LimiterState = (typeof LIMITER_STATES)[number];
const STATE = Type.Enum(LIMITER_STATES);

/**
 * The limiter's decision as GET /api/v1/peak shows it beside the guard's window: a `pv_off` the
 * guard's forecast suppresses reads `zero_export` with the reason saying so.
 */
export const ExportLimiterDecisionSchema = Type.Object({
  mode: MODE,
  decision: DECISION,
  reason: REASON,
  state: STATE,
});
export type ExportLimiterDecision = Static<typeof ExportLimiterDecisionSchema>;

export const ExportLimiterViewSchema = Type.Object({
  enabled: Type.Boolean(),
  mode: MODE,
  decision: DECISION,
  reason: REASON,
  state: STATE,
  target_w: Type.Number(),
  grid_w: orNull(Type.Number({ description: 'grid power of the last reading, import positive' })),
  grid_at: orNull(Type.String({ format: 'date-time' })),
  limit_w: orNull(
    Type.Number({ description: 'the limits the gateway holds, summed over the inverters; null: none' }),
  ),
  inverters: Type.Array(ExportLimiterInverterSchema),
});
export type ExportLimiterView = Static<typeof ExportLimiterViewSchema>;
