import { roundSignificant, toCanonical } from '../../reading/units.js';

/** How a value becomes canonical: times `factor`, in `unit`. */
export interface Conversion {
  unit: string;
  factor: number;
}

/** toCanonical's factor and unit per unit string, learnt once (a meter sends the same few units). */
const CONVERSIONS = new Map<string, Conversion>();
const MAX_CONVERSIONS = 256;

export function conversionOf(unit: string): Conversion {
  let conversion = CONVERSIONS.get(unit);
  if (conversion === undefined) {
    if (CONVERSIONS.size >= MAX_CONVERSIONS) CONVERSIONS.clear();
    const one = toCanonical(1, unit);
    conversion = { unit: one.unit, factor: one.value };
    CONVERSIONS.set(unit, conversion);
  }
  return conversion;
}

/** toCanonical(value, unit).value for the conversion of `unit`. */
export function convert(value: number, conversion: Conversion): number {
  return conversion.factor === 1 ? value : roundSignificant(value * conversion.factor);
}
