import type { ObisName } from './obis-names.js';
import type { DsmrValue } from './telegram.js';
import { conversionFor, type DsmrReadingBuilder } from './to-reading.js';
import type { Conversion } from '../../reading/units.js';
import {
  dsmrNumberIn,
  dsmrNumberStop,
  dsmrUnitAfterNumber,
  parseObjectValue,
  parseTextValue,
} from './values.js';

/**
 * Hands one data object to the builder the way dsmrToReading hands it a parsed DsmrObject, from
 * the positions of its values: value k is text[starts[k] + shift, ends[k] + shift) for k in
 * [first, first + count). Only what the Reading uses is read: the first number of an electricity
 * object whose code has no value yet, and of the objects the builder takes what it reads of them
 * (DsmrReadingBuilder.readsAllValues: the object it gets lacks the rest), nothing else.
 * `firstOfCode`: no electricity object before this one in the telegram has its code, so the
 * builder has no value of it yet.
 */
export function addObjectValues(
  builder: DsmrReadingBuilder,
  name: ObisName,
  text: string,
  values: ValuePositions,
  firstOfCode = false,
): void {
  const role = name.role;
  if (role === 'electricity') {
    if (firstOfCode || !builder.values.has(name.code)) addFirstNumber(builder, name, text, values);
  } else if (builder.takes(role)) {
    const parsed = valuesOf(name, text, values, builder.readsAllValues(role));
    builder.add(role, name, parsed);
  }
}

/**
 * The values of an object: all, or only the first without its number (see
 * DsmrReadingBuilder.readsAllValues).
 */
function valuesOf(name: ObisName, text: string, values: ValuePositions, all: boolean): DsmrValue[] {
  const first = values.first;
  if (!all) {
    const raw = text.slice(values.starts[first]! + values.shift, values.ends[first]! + values.shift);
    return [parseTextValue(raw, name.hexText)];
  }
  const parsed: DsmrValue[] = [];
  for (let k = first; k < first + values.count; k++) {
    const value = text.slice(values.starts[k]! + values.shift, values.ends[k]! + values.shift);
    parsed.push(parseObjectValue(value, name.hexText));
  }
  return parsed;
}

/** Where an object's values are in the telegram text (see addObjectValues). */
export interface ValuePositions {
  /** The telegram's bytes, of which the text is the latin1 decoding. */
  bytes: Uint8Array;
  starts: readonly number[];
  ends: readonly number[];
  first: number;
  count: number;
  shift: number;
  /**
   * Per value, the length of a "*unit" tail every value there is known to end with (-1: none
   * known), and conversionFor(code, unit) of that unit.
   */
  unitTails?: readonly number[];
  unitConversions?: readonly (Conversion | undefined)[];
}

function addFirstNumber(
  builder: DsmrReadingBuilder,
  name: ObisName,
  text: string,
  values: ValuePositions,
): void {
  for (let k = values.first; k < values.first + values.count; k++) {
    const to = values.ends[k]! + values.shift;
    const value = dsmrNumberIn(values.bytes, text, values.starts[k]! + values.shift, to);
    if (Number.isNaN(value)) continue;
    const star = dsmrNumberStop(text, values.starts[k]! + values.shift, to);
    const tail = values.unitTails?.[k] ?? -1;
    const conversion =
      tail >= 0 && star === to - tail
        ? values.unitConversions![k]
        : conversionFor(name.code, dsmrUnitAfterNumber(text, star, to));
    builder.addConverted(name.code, value, conversion);
    return;
  }
}
