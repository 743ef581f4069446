import type { ObisValue, Reading } from './reading.js';
import { roundSignificant } from './units.js';

/**
 * Fills the quantities a meter implies but does not send, so every output sees the same numbers:
 * - x.8.0 total = sum of tariff registers x.8.1..x.8.9 when only tariffs arrive (DSMR sends 1.8.1 and
 *   1.8.2 only; docs/architecture.md#report-shape: total = t1 + t2).
 * - signed active power 16.7.0 (SML, IEC 62056-61 "sum Li active power, import - export") and the
 *   signed per-phase 36.7.0, 56.7.0, 76.7.0 split into the positive (1/21/41/61.7.0) and negative
 *   (2/22/42/62.7.0) directions when those are absent.
 * Values the meter sent are never overwritten.
 */
export function deriveValues(values: ReadonlyMap<string, ObisValue>): Map<string, ObisValue> {
  const out = new Map(values);
  for (let c = 1; c <= 8; c++) {
    if (out.has(`${c}.8.0`)) continue;
    let sum = 0;
    let unit: string | undefined;
    for (let e = 1; e <= 9; e++) {
      const tariff = out.get(`${c}.8.${e}`);
      if (!tariff) continue;
      sum += tariff.value;
      unit = tariff.unit;
    }
    if (unit !== undefined) out.set(`${c}.8.0`, { value: roundSignificant(sum), unit });
  }
  const signed: Array<[string, string, string]> = [
    ['16.7.0', '1.7.0', '2.7.0'],
    ['36.7.0', '21.7.0', '22.7.0'],
    ['56.7.0', '41.7.0', '42.7.0'],
    ['76.7.0', '61.7.0', '62.7.0'],
  ];
  for (const [sumKey, positiveKey, negativeKey] of signed) {
    const sum = out.get(sumKey);
    if (!sum || out.has(positiveKey) || out.has(negativeKey)) continue;
    out.set(positiveKey, { value: sum.value > 0 ? sum.value : 0, unit: sum.unit });
    out.set(negativeKey, { value: sum.value < 0 ? -sum.value : 0, unit: sum.unit });
  }
  return out;
}

/** The reading with derived values filled in (see deriveValues). */
export function withDerivedValues(reading: Reading): Reading {
  return { ...reading, values: deriveValues(reading.values) };
}
