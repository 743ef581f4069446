import { declareVariables, type VariableSource } from '../actions/variables.js';
import type { FamilySpec } from '../metrics/families.js';
import type { MetricsContributor } from '../metrics/gateway-samples.js';
import type { TemplateValue } from '../reading/template-variables.js';
import { localDayBounds, localDate } from './local-day.js';
import type { PriceSignal } from '../price-signal.js';

/**
 * What the price series gives other modules (docs/architecture.md#prices): the actions' template
 * variables and `when` quantities, and the `/metrics` series.
 */

/**
 * `${price.now}` (import price of the current quarter), `${price.export_now}`, `${price.rank}` (1 =
 * the cheapest quarter of today), `${price.next}` (the next quarter's import price); `price`,
 * `export_price` and `price_rank` are the same values under the names a `when` condition uses.
 */
export const PRICE_VARIABLES = [
  'price.now',
  'price.export_now',
  'price.rank',
  'price.next',
  'price',
  'export_price',
  'price_rank',
] as const;

/** Declares the variable names before the config loads (the definition check knows them). */
export function registerPriceVariables(): void {
  declareVariables(PRICE_VARIABLES);
}

/** The rank of the quarter at `now` among the priced quarters of its local day, 1 = cheapest. */
export function rankAt(prices: PriceSignal, now: number): number | null {
  const current = prices.quarterAt(now)?.import;
  const bounds = localDayBounds(localDate(now));
  if (current === null || current === undefined || !bounds) return null;
  return (
    prices
      .quarters(bounds.start, bounds.end)
      .filter((quarter) => quarter.import !== null && quarter.import < current).length + 1
  );
}

export function priceVariables(prices: () => PriceSignal, now: () => number): VariableSource {
  return {
    names: PRICE_VARIABLES,
    values() {
      const signal = prices();
      const at = now();
      const current = signal.quarterAt(at);
      const next = current ? signal.quarterAt(current.end) : undefined;
      const rank = rankAt(signal, at);
      return new Map<string, TemplateValue>([
        ['price.now', current?.import ?? null],
        ['price.export_now', current?.export ?? null],
        ['price.rank', rank],
        ['price.next', next?.import ?? null],
        ['price', current?.import ?? null],
        ['export_price', current?.export ?? null],
        ['price_rank', rank],
      ]);
    },
  };
}

const PRICE_FAMILY: FamilySpec = {
  name: 'meter_gateway_price_eur_per_kwh',
  help: 'Day-ahead price of the current quarter after the contract formula, per kWh (direction import or export); absent while unknown',
  type: 'gauge',
  labels: ['direction'],
};

export function priceMetrics(prices: () => PriceSignal, now: () => number): MetricsContributor {
  return {
    families: [PRICE_FAMILY],
    collect(add) {
      const current = prices().quarterAt(now());
      if (current?.import !== null && current?.import !== undefined)
        add(PRICE_FAMILY, { direction: 'import' }, current.import);
      if (current?.export !== null && current?.export !== undefined)
        add(PRICE_FAMILY, { direction: 'export' }, current.export);
    },
  };
}
