/**
 * The quarter-hour price series as its consumers read it: costs, the actions' `cheapest` trigger and
 * price variables, the export limiter's price mode, the peak guard's marginal cost, MQTT and /metrics
 * (docs/architecture.md#prices). The price store (src/prices/) is the one writer; consumers get this
 * read-only view through the context.
 */

/** One priced quarter hour (a day-ahead slot, or an hourly price split into four equal quarters). */
export interface QuarterPrice {
  /** Slot start, ms since the epoch (UTC). */
  start: number;
  /** Slot end, exclusive. */
  end: number;
  /** Import price in the contract's currency per kWh after the contract formula; null when not known. */
  import: number | null;
  /** Export (feed-in) price per kWh after the contract formula; null when not known. */
  export: number | null;
  /** True when a price comes from the configured fallback table, not from the market. */
  estimated: boolean;
}

export interface PriceSignal {
  /** The quarter that contains `time` (ms), or undefined when no slot of the series covers it. */
  quarterAt(time: number): QuarterPrice | undefined;
  /** The known quarters overlapping [from, to), oldest first. */
  quarters(from: number, to: number): QuarterPrice[];
  /** Called after the series changed (a fetch stored slots, the formula changed); returns the unsubscribe. */
  onChange(listener: () => void): () => void;
}

/** The series of a daemon with no dynamic price source: no quarter is priced. */
export const noPrices: PriceSignal = {
  quarterAt: () => undefined,
  quarters: () => [],
  onChange: () => () => undefined,
};
