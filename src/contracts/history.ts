import Type, { type Static } from 'typebox';
import { optionalEach } from './fields.js';
import { RESOLUTIONS, RECENT_CAPACITY, RECENT_KEYS } from './values.js';

export type { Resolution } from './values.js';

/** The JSON of GET /api/v1/history and GET /api/v1/history/recent. */

/** Power statistics of a bucket as shown: kW, the mean computed from the stored sum. */
export const PowerViewSchema = Type.Object(
  { min: Type.Number(), mean: Type.Number(), max: Type.Number() },
  { additionalProperties: false },
);
export type PowerView = Static<typeof PowerViewSchema>;

const power = Type.Union([PowerViewSchema, Type.Null()], {
  description: 'kW over the bucket; null when no reading of the bucket carried this power',
});
const energy = Type.Union([Type.Number(), Type.Null()], {
  description:
    'kWh used in the bucket (register deltas; resets and meter changes count as nothing); null when no delta could be taken',
});

/** Money of a bucket (services.costs on): import paid, export received; null where unknown. */
export const CostViewSchema = Type.Object(
  {
    import: Type.Union([Type.Number(), Type.Null()]),
    export: Type.Union([Type.Number(), Type.Null()]),
    estimated: Type.Optional(
      Type.Boolean({
        description:
          'true when a quarter of the bucket had no day-ahead price and the fallback priced it (mode dynamic)',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'money of the bucket in costs.currency (services.costs.enable only); null where unknown',
  },
);
export type CostView = Static<typeof CostViewSchema>;

/** A point: bucket start (Unix s), readings, power and energy (kWh). */
export const PointViewSchema = Type.Object(
  {
    t: Type.Integer({ description: 'bucket start, Unix seconds (daily: local midnight)' }),
    n: Type.Integer({ minimum: 1, description: 'readings counted' }),
    p_in: power,
    p_out: power,
    e_in: energy,
    e_out: energy,
    cost: Type.Optional(CostViewSchema),
  },
  { additionalProperties: false },
);
export type PointView = Static<typeof PointViewSchema>;

/** Costs of the points that start inside the range (services.costs on), in `currency`. */
export const CostTotalsViewSchema = Type.Object(
  {
    currency: Type.String(),
    import: Type.Number(),
    export: Type.Number(),
    standing: Type.Number({ description: "the monthly standing charge's share of the range" }),
    capacity: Type.Union([Type.Number(), Type.Null()], {
      description: 'capacity charge on the peak demand, when a module provides one',
    }),
    total: Type.Number({ description: 'import - export + standing + capacity' }),
  },
  {
    additionalProperties: false,
    description:
      'services.costs.enable only: totals of the points starting inside the range and the standing charge of the range (docs/architecture.md#costs)',
  },
);
export type CostTotalsView = Static<typeof CostTotalsViewSchema>;

/** GET /api/v1/history: the resolution, the range in Unix seconds and its points. */
export const HistoryViewSchema = Type.Object(
  {
    meter: Type.Optional(
      Type.String({
        description:
          'the meter asked for with ?meter= when it is not the primary (docs/architecture.md#several-meters)',
      }),
    ),
    resolution: Type.Enum(RESOLUTIONS),
    from: Type.Integer({ description: 'start of the range, Unix seconds' }),
    to: Type.Integer({ description: 'end of the range, Unix seconds' }),
    points: Type.Array(PointViewSchema, {
      description:
        'buckets with data that overlap the range, ascending; the open bucket is included as a partial point',
    }),
    costs: Type.Optional(CostTotalsViewSchema),
  },
  { additionalProperties: false },
);
export type HistoryView = Static<typeof HistoryViewSchema>;

/** One reading of the recent-power buffer: when it arrived (Unix s, ms precision) and its power. */
export const RecentPointSchema = Type.Object(
  {
    t: Type.Number({ description: 'arrival of the reading, Unix seconds (ms precision)' }),
    ...optionalEach(RECENT_KEYS, () => Type.Number({ description: 'kW' })),
  },
  { additionalProperties: false },
);
export type RecentPoint = Static<typeof RecentPointSchema>;

/** GET /api/v1/history/recent: the readings of the last `seconds` seconds kept in memory, ascending. */
export const RecentViewSchema = Type.Object(
  {
    seconds: Type.Integer({ description: 'how far back the buffer reaches' }),
    points: Type.Array(RecentPointSchema, {
      maxItems: RECENT_CAPACITY,
      description: 'readings of the last `seconds` seconds, ascending; kW by live key, absent when not sent',
    }),
  },
  { additionalProperties: false },
);
export type RecentView = Static<typeof RecentViewSchema>;
