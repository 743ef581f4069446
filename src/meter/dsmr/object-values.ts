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
 * The values of an object (all, or only the first without its number: see
 * DsmrReadingBuilder.readsAllValues), kept per reference with the text they were read from:
 * identifiers, versions, tariff, device types and M-Bus readings repeat from telegram to telegram
 * (a gas meter's reading changes every 5 minutes or hour); the clock does not, and is read every
 * time. The values are only read by the builder, never handed out, so they may be shared.
 */
function valuesOf(name: ObisName, text: string, values: ValuePositions, all: boolean): DsmrValue[] {
  const first = values.first;
  const last = all ? first + values.count - 1 : first;
  // The values' texts with the ")(" between them: equal texts, equal values.
  const raw = text.slice(values.starts[first]! + values.shift, values.ends[last]! + values.shift);
  const repeats = name.role !== 'clock';
  const known = name.lastValues;
  if (repeats && known !== undefined && known.text === raw) return known.values;
  const parsed: DsmrValue[] = [];
  if (!all) parsed.push(parseTextValue(raw, name.hexText));
  for (let k = first; all && k <= last; k++) {
    const value = text.slice(values.starts[k]! + values.shift, values.ends[k]! + values.shift);
    parsed.push(parseObjectValue(value, name.hexText));
  }
  if (repeats) name.lastValues = { text: raw, values: parsed };
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
   * known), and conversionFor(code, unit) of that unit (see ./telegram-layout.ts).
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
    const star = dsmrNumberStop();
    const tail = values.unitTails?.[k] ?? -1;
    const conversion =
      tail >= 0 && star === to - tail ? values.unitConversions![k] : conversionOf(name, text, star, to);
    builder.addConverted(name.code, value, conversion);
    return;
  }
}

/**
 * conversionFor(name.code, unit) of the unit text after the '*' at `star` up to `to` (no unit
 * when star = to), remembered per reference for the unit it last came in.
 */
function conversionOf(name: ObisName, text: string, star: number, to: number): Conversion | undefined {
  const last = name.lastConversion;
  if (last !== undefined && isUnitAt(last.unit, text, star, to)) return last.conversion;
  const unit = star < to ? dsmrUnitAfterNumber(text, to) : undefined;
  const conversion = conversionFor(name.code, unit);
  name.lastConversion = { unit, conversion };
  return conversion;
}

function isUnitAt(unit: string | undefined, text: string, star: number, to: number): boolean {
  if (unit === undefined) return star === to;
  if (to - star - 1 !== unit.length) return false;
  for (let i = 0; i < unit.length; i++) {
    if (text.charCodeAt(star + 1 + i) !== unit.charCodeAt(i)) return false;
  }
  return true;
}
