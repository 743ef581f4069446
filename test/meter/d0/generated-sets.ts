import fc from 'fast-check';

/** One generated data set, `address(value*unit)` (IEC 62056-21 §6.3.4; no `*unit` when empty). */
export interface GeneratedSet {
  address: string;
  value: string;
  unit: string;
}

/** A full address `A-B:C.D.E` with each group up to the given maximum, then `suffix` (e.g. `*255`). */
export function fullAddress(
  maxima: readonly [number, number, number, number, number],
  suffix = '',
): fc.Arbitrary<string> {
  const [a, b, c, d, e] = maxima.map((max) => fc.nat({ max }));
  return fc.tuple(a!, b!, c!, d!, e!).map(([ga, gb, gc, gd, ge]) => `${ga}-${gb}:${gc}.${gd}.${ge}${suffix}`);
}

export function generatedSet(
  address: fc.Arbitrary<string>,
  value: fc.Arbitrary<string>,
  units: readonly string[],
): fc.Arbitrary<GeneratedSet> {
  return fc.record({ address, value, unit: fc.constantFrom(...units) });
}

/** The data sets as readout text, one per line (CR LF) or all on one line. */
export function dataSetsText(sets: readonly GeneratedSet[], oneLine: boolean): string {
  return sets.map((s) => `${s.address}(${s.value}${s.unit ? `*${s.unit}` : ''})`).join(oneLine ? '' : '\r\n');
}
