import { parseTimeOfUse, priceAtMinute, type TimeOfUseEntry } from '../history/costs.js';
import { localMinute } from './local-day.js';

/**
 * The contract formula (docs/architecture.md#prices), explicit and in this order, on the spot price
 * per kWh (the market's price per MWh / 1000):
 *
 *   import = (spot x a + markup) x (1 + vat) + tax + zone charge
 *   export = spot x b - fee
 *
 * `tax` is as billed, VAT included (the Dutch energy tax 2026 of 0.09160 EUR/kWh excl. VAT is
 * 0.110836 with 21 % VAT). A zone charge is a time-variable network fee by local time of day.
 */
export interface Formula {
  a: number;
  markup: number;
  vat: number;
  tax: number;
  zones: string;
  b: number;
  fee: number;
}

export interface CompiledFormula {
  importPrice(spotPerMwh: number, start: number): number;
  exportPrice(spotPerMwh: number): number;
}

/** Rounded to 1e-9 per kWh: float noise of the products stays below every shown digit. */
const round = (value: number) => Math.round(value * 1e9) / 1e9;

export function compileFormula(formula: Formula): CompiledFormula {
  const zones: TimeOfUseEntry[] = parseTimeOfUse(formula.zones);
  return {
    importPrice(spotPerMwh, start) {
      const zone = zones.length === 0 ? 0 : (priceAtMinute(zones, localMinute(start)) ?? 0);
      return round(
        ((spotPerMwh / 1000) * formula.a + formula.markup) * (1 + formula.vat) + formula.tax + zone,
      );
    },
    exportPrice(spotPerMwh) {
      return round((spotPerMwh / 1000) * formula.b - formula.fee);
    },
  };
}

/** The formula with the user's numbers, as the settings page shows it. */
export function describeFormula(formula: Formula): { import: string; export: string } {
  return {
    import: `(spot × ${formula.a} + ${formula.markup}) × (1 + ${formula.vat}) + ${formula.tax}${formula.zones ? ' + zone charge' : ''}`,
    export: `spot × ${formula.b} − ${formula.fee}`,
  };
}
