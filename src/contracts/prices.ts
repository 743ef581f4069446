import Type, { type Static, type TSchema } from 'typebox';

/**
 * GET /api/v1/prices (docs/architecture.md#prices): the quarters of one local day with the spot
 * price and the import and export prices after the contract formula. Times are ISO 8601 with the
 * local offset; a quarter without a market price has `spot` null.
 */

const orNull = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const PriceSlotSchema = Type.Object(
  {
    start: Type.String({ format: 'date-time' }),
    end: Type.String({ format: 'date-time' }),
    spot: orNull(Type.Number({ description: "market price in the source's currency per MWh" })),
    import: orNull(Type.Number({ description: 'import price per kWh in the contract currency' })),
    export: orNull(Type.Number({ description: 'export price per kWh in the contract currency' })),
    source: orNull(Type.String()),
    estimated: Type.Boolean({
      description:
        'true when the quarter has no market price and the fallback (fixed or time_of_use) prices it',
    }),
  },
  { additionalProperties: false },
);
export type PriceSlot = Static<typeof PriceSlotSchema>;

export const PricesViewSchema = Type.Object(
  {
    day: Type.String({ description: 'local date YYYY-MM-DD' }),
    currency: Type.String(),
    source: Type.String(),
    status: Type.String({
      description: "the source's status: ok, not published yet, refused: ..., rate limited ...",
    }),
    quarters: Type.Integer({
      description: 'quarters of the local day: 96, 92 on the spring DST day, 100 on the autumn one',
    }),
    slots: Type.Array(PriceSlotSchema),
    current: orNull(PriceSlotSchema),
    next: orNull(PriceSlotSchema),
    min: orNull(Type.Number({ description: 'lowest import price of the day' })),
    max: orNull(Type.Number({ description: 'highest import price of the day' })),
    mean: orNull(Type.Number({ description: 'mean import price of the priced quarters' })),
    rank: orNull(
      Type.Integer({ description: "rank of the current quarter's import price among today's, 1 = cheapest" }),
    ),
    formula: Type.Object({ import: Type.String(), export: Type.String() }),
  },
  { additionalProperties: false },
);
export type PricesView = Static<typeof PricesViewSchema>;
