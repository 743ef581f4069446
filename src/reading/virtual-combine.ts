import type { ExpressionTerm } from './meter-expression.js';
import { PHASES } from './phases.js';
import type { ObisValue, Reading } from './reading.js';

/** One term of the expression with the term meter's current reading. */
export interface TermReading {
  factor: number;
  reading: Reading;
}

/** Instantaneous import/export pairs (OBIS C.D.E): total and per phase, active and reactive. */
const POWER_PAIRS: ReadonlyArray<[string, string, string]> = [
  ['1.7.0', '2.7.0', 'kW'],
  ['3.7.0', '4.7.0', 'kvar'],
  ...PHASES.flatMap((phase): Array<[string, string, string]> => [
    [phase.activeImport, phase.activeExport, 'kW'],
    [phase.reactiveImport, phase.reactiveExport, 'kvar'],
  ]),
];

/** Counter pairs (import, export): totals and tariff registers of active and reactive energy. */
const COUNTER_PAIRS: ReadonlyArray<[string, string, string]> = [
  ['1.8.0', '2.8.0', 'kWh'],
  ['1.8.1', '2.8.1', 'kWh'],
  ['1.8.2', '2.8.2', 'kWh'],
  ['3.8.0', '4.8.0', 'kvarh'],
];

function round(value: number): number {
  return Number(value.toPrecision(12));
}

/** The signed value import - export of a pair, or undefined when the meter sent neither. */
function net(values: ReadonlyMap<string, ObisValue>, [plus, minus]: readonly string[]): number | undefined {
  const a = values.get(plus!)?.value;
  const b = values.get(minus!)?.value;
  if (a === undefined && b === undefined) return undefined;
  return (a ?? 0) - (b ?? 0);
}

/**
 * Power pairs: the signed sums Σ factor × (import − export), split again into import and export.
 * A pair (a phase included) appears only when every term has it.
 */
function combinePower(terms: readonly TermReading[], out: Map<string, ObisValue>): void {
  for (const pair of POWER_PAIRS) {
    let sum = 0;
    for (const term of terms) {
      const value = net(term.reading.values, pair);
      if (value === undefined) {
        sum = NaN;
        break;
      }
      sum += term.factor * value;
    }
    if (Number.isNaN(sum)) continue;
    out.set(pair[0], { value: round(Math.max(0, sum)), unit: pair[2] });
    out.set(pair[1], { value: round(Math.max(0, -sum)), unit: pair[2] });
  }
}

/**
 * Counters from the terms' counters, never integrated from power: a term with a positive factor
 * adds its import register to the import and its export register to the export; a negative factor
 * swaps them (taking a meter away turns its import into export). Both sums are sums of
 * non-decreasing registers with positive weights, so they never decrease either. A pair appears
 * only when every term has both of its registers.
 */
function combineCounters(terms: readonly TermReading[], out: Map<string, ObisValue>): void {
  for (const [plus, minus, unit] of COUNTER_PAIRS) {
    let imported = 0;
    let exported = 0;
    let complete = true;
    for (const { factor, reading } of terms) {
      const a = reading.values.get(plus)?.value;
      const b = reading.values.get(minus)?.value;
      if (a === undefined || b === undefined) {
        complete = false;
        break;
      }
      const weight = Math.abs(factor);
      imported += weight * (factor > 0 ? a : b);
      exported += weight * (factor > 0 ? b : a);
    }
    if (!complete) continue;
    out.set(plus, { value: round(imported), unit });
    out.set(minus, { value: round(exported), unit });
  }
}

/** The virtual meter's reading from its terms' current readings (docs/architecture.md#several-meters). Pure. */
export function combineReadings(terms: readonly TermReading[], receivedAt: number): Reading {
  const values = new Map<string, ObisValue>();
  combinePower(terms, values);
  combineCounters(terms, values);
  return { receivedAt, protocol: 'VIRTUAL', identity: { model: 'virtual' }, values, mbus: [] };
}

export type { ExpressionTerm };
