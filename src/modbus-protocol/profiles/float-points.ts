import type { RegisterBlock } from '../register-block.js';
import type { GridValues } from './grid-values.js';
import { quantityValue, type MeasuredValues, type Quantity } from './quantities.js';
import { putFloat32 } from '../register-encodings.js';

/**
 * One IEEE 754 single (two registers, high word first) of a float register map (Eastron, Chint),
 * read both ways: a slave encodes `quantity` times `scale` (or `derive` for values computed from
 * several quantities, served only), a meter source decodes the register divided by `scale` back
 * to `quantity`. A point with neither is a register of the map the grid meter has no value for:
 * served as NaN, not decoded.
 */
export interface FloatPoint {
  address: number;
  quantity?: Quantity;
  /** The map's multiple of the GridValues unit (DTSU666: 10 for 0.1 V); 1 when absent. */
  scale?: number;
  derive?: (values: GridValues) => number | undefined;
}

/** The point at `address`: `quantity` times `scale`, or a register with no value when no quantity. */
export function floatPoint(address: number, quantity?: Quantity, scale?: number): FloatPoint {
  return {
    address,
    ...(quantity === undefined ? {} : { quantity }),
    ...(scale === undefined ? {} : { scale }),
  };
}

/** A register range a meter source reads in one request (at most 125 registers, Modbus 1.1b3 §6.3). */
export interface PollRange {
  table: 'input' | 'holding';
  start: number;
  words: number;
  /**
   * A range only some models or firmware versions have: an exception reply (the meter has no such
   * registers) leaves its quantities out instead of failing the reading.
   */
  optional?: boolean;
}

function encoded(point: FloatPoint, values: GridValues): number | undefined {
  if (point.derive) return point.derive(values);
  if (point.quantity === undefined) return undefined;
  const value = quantityValue(values, point.quantity);
  return value === undefined ? undefined : value * (point.scale ?? 1);
}

/** A block of `words` registers from `start` serving the points inside it (gaps read 0). */
export function floatBlock(
  table: 'input' | 'holding',
  start: number,
  words: number,
  points: readonly FloatPoint[],
): RegisterBlock<GridValues> {
  const inside = points.filter((p) => p.address >= start && p.address + 2 <= start + words);
  return {
    table,
    start,
    words,
    fill(values, target) {
      for (const point of inside) putFloat32(target, point.address - start, encoded(point, values));
    },
  };
}

/**
 * The quantities of the points inside a range read from the meter (`bytes` = the registers from
 * `start`). NaN and infinities (the meter has no value) are left out.
 */
export function decodeFloats(points: readonly FloatPoint[], start: number, bytes: Buffer): MeasuredValues {
  const out: MeasuredValues = {};
  const end = start + bytes.length / 2;
  for (const point of points) {
    if (point.quantity === undefined || point.address < start || point.address + 2 > end) continue;
    const raw = bytes.readFloatBE((point.address - start) * 2);
    // A single carries 24 bits of mantissa: about 7 significant digits, no more.
    if (Number.isFinite(raw)) out[point.quantity] = Number((raw / (point.scale ?? 1)).toPrecision(7));
  }
  return out;
}
