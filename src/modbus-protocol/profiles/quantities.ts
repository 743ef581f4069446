import type { GridValues } from './grid-values.js';

/**
 * The quantities a meter register map carries, as one name each: what a profile point encodes
 * when a slave serves it and what it decodes to when the meter source reads a real meter with
 * the same map. Phase quantities are indexed 0..2 (L1..L3).
 */
export type ScalarQuantity =
  | 'power'
  | 'reactive'
  | 'apparent'
  | 'powerFactor'
  | 'frequency'
  | 'importEnergy'
  | 'exportEnergy'
  | 'reactiveImportEnergy'
  | 'reactiveExportEnergy';

export type PhaseQuantity =
  | 'voltage'
  | 'current'
  | 'phasePower'
  | 'phaseReactive'
  | 'phaseApparent'
  | 'phasePowerFactor'
  | 'phaseImportEnergy'
  | 'phaseExportEnergy';

export type Quantity = ScalarQuantity | `${PhaseQuantity}.${0 | 1 | 2}`;

/** Values decoded from a meter's registers, in the GridValues units (W, var, VA, V, A, Hz, kWh, kvarh). */
export type MeasuredValues = Partial<Record<Quantity, number>>;

/** The value of one quantity in a GridValues. */
export function quantityValue(values: GridValues, quantity: Quantity): number | undefined {
  const dot = quantity.indexOf('.');
  if (dot < 0) return values[quantity as ScalarQuantity];
  const field = quantity.slice(0, dot) as PhaseQuantity;
  return values[field][Number(quantity.slice(dot + 1))];
}

type PhaseNames = [Quantity, Quantity, Quantity];

/** The three per-phase names of a phase quantity. */
export function phases(field: PhaseQuantity): PhaseNames {
  return [`${field}.0`, `${field}.1`, `${field}.2`];
}

/** The per-phase names of voltage, current, active and reactive power, the meters' phase block. */
export function phaseBlock(): [
  voltage: PhaseNames,
  current: PhaseNames,
  power: PhaseNames,
  reactive: PhaseNames,
] {
  return [phases('voltage'), phases('current'), phases('phasePower'), phases('phaseReactive')];
}
