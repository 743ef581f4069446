/**
 * The import price the peak guard's engine weighs a shed against (its marginal cost,
 * docs/architecture.md#peak-guard): the day-ahead price of a quarter when services.costs prices
 * import dynamically, else its fallback, flagged estimated.
 */
import type { AppConfig } from '../config/types.js';
import { parseTimeOfUse, priceAtMinute } from '../history/costs.js';
import type { PriceSignal } from '../price-signal.js';
import { localMinute } from '../prices/local-day.js';
import type { PeakPrice } from './engine.js';

/**
 * The import price of the quarter of `at` when services.costs prices import by the day-ahead
 * series (mode dynamic, docs/architecture.md#prices): the market price, else the direction's
 * fallback (fixed or time-of-use) flagged estimated, as the costs price such a quarter. Other
 * modes: null, the marginal cost is the capacity charge alone.
 */
export function importPriceAt(config: AppConfig, signal: PriceSignal, at: number): PeakPrice | null {
  const prices = config.services.costs.import;
  if (prices.mode !== 'dynamic') return null;
  const market = signal.quarterAt(at);
  if (market && market.import !== null && !market.estimated)
    return { price: market.import, estimated: false };
  const fallback =
    prices.fallback === 'time_of_use'
      ? priceAtMinute(parseTimeOfUse(prices.time_of_use), localMinute(at))
      : prices.price;
  return fallback === null ? null : { price: fallback, estimated: true };
}
