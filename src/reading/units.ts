import type { ObisValue } from './reading.js';

/**
 * Canonical units of the reading model (docs/architecture.md#units: report, live and template values in kW,
 * kvar, kVA, kWh, kvarh, V, A). Meters send W/Wh (SML, Austrian DSMR), kVAr/kVArh (Swedish HAN), dm3
 * (gas on some DSMR meters); everything is converted once, here.
 */
/** A canonical kilo unit ('kW') as sent with and without its prefix: 'w' (x 1e-3) and 'kw'. */
function kiloUnit(canonical: string): Record<string, Conversion> {
  return {
    [canonical.slice(1).toLowerCase()]: { unit: canonical, factor: 1e-3 },
    [canonical.toLowerCase()]: { unit: canonical, factor: 1 },
  };
}

// A Map: the unit text comes from the meter, and `constructor` must not find Object's.
const CONVERSIONS: ReadonlyMap<string, Conversion> = new Map(
  Object.entries({
    ...kiloUnit('kW'),
    mw: { unit: 'kW', factor: 1e3 },
    ...kiloUnit('kWh'),
    mwh: { unit: 'kWh', factor: 1e3 },
    ...kiloUnit('kvar'),
    ...kiloUnit('kvarh'),
    ...kiloUnit('kVA'),
    ...kiloUnit('kVAh'),
    v: { unit: 'V', factor: 1 },
    kv: { unit: 'V', factor: 1e3 },
    a: { unit: 'A', factor: 1 },
    ma: { unit: 'A', factor: 1e-3 },
    hz: { unit: 'Hz', factor: 1 },
    m3: { unit: 'm3', factor: 1 },
    dm3: { unit: 'm3', factor: 1e-3 },
    l: { unit: 'm3', factor: 1e-3 },
    gj: { unit: 'GJ', factor: 1 },
    '': { unit: '', factor: 1 },
  }),
);

/**
 * Converts a value in the unit a meter sent into the canonical unit. Unknown units are kept as sent
 * (the value is still shown, just not converted). Rounds away binary noise from the scaling.
 */
export function toCanonical(value: number, unit: string | undefined): ObisValue {
  const conversion = CONVERSIONS.get((unit ?? '').trim().toLowerCase());
  if (!conversion) return { value, unit: unit ?? '' };
  if (conversion.factor === 1) return { value, unit: conversion.unit };
  return { value: roundSignificant(value * conversion.factor), unit: conversion.unit };
}

/** Removes floating point noise such as 0.30000000000000004 while keeping 15 significant digits. */
export function roundSignificant(value: number): number {
  return Number.isFinite(value) ? Number.parseFloat(value.toPrecision(15)) : value;
}

/** How a value becomes canonical: times `factor`, in `unit`. */
export interface Conversion {
  unit: string;
  factor: number;
}

/** toCanonical's factor and unit for a unit string. */
export function conversionOf(unit: string): Conversion {
  const one = toCanonical(1, unit);
  return { unit: one.unit, factor: one.value };
}

/** toCanonical(value, unit).value for the conversion of `unit`. */
export function convert(value: number, conversion: Conversion): number {
  return conversion.factor === 1 ? value : roundSignificant(value * conversion.factor);
}
