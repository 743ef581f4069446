import type { ObisValue, Reading } from '../../reading/reading.js';
import { convert, type Conversion } from '../../reading/units.js';
import { D0DataSet, forEachValue, trimmedRange } from './data-sets.js';
import { D0Framer } from './framer.js';
import type { D0Identification } from './identification.js';
import type { D0Readout } from './parser.js';
import {
  type D0ValueSource,
  d0IdentityOf,
  d0Reading,
  readingSourcesOf,
  conversionOfSource,
  tariffOf,
} from './to-reading.js';

/**
 * The layout of a meter's readout: its bytes, of which the digits inside values may change from
 * one readout to the next (and the BCC with them), and where the Reading's values, id and tariff
 * are. A meter sends the same data sets in every readout, its values in fixed widths, so a readout
 * of the same length whose other bytes are all the same has this layout; it is checked in one pass
 * over its bytes and its Reading is built from the learnt positions.
 *
 * Why a matching readout reads as the one the layout was learnt from: the framer, the data-set
 * scanner and parseIdentification decide on `/ ! ( ) * & # STX ETX ACK CR LF`, spaces, letters and
 * the printable range, never on which digit a digit is; IEC 62056-21 §6.3.4 keeps `( ) / !` out of
 * values. Addresses, units, identification and everything between data sets are equal, so the
 * same data sets are found with the same values apart from digits, and readingSourcesOf picks the
 * same ones (its choice depends on addresses, units and the number pattern of values). The BCC
 * (§6.3, XOR after STX through ETX) differs from the learnt one by the XOR of the changed digits.
 */

const ETX = 0x03;
const PLUS = 0x2b;
const MINUS = 0x2d;
const DOT = 0x2e;
/** Up to 15 digits an integer accumulated digit by digit stays below 2^53, i.e. exact. */
const EXACT_DIGITS = 15;
const MAX_CODES_ARGUMENTS = 256;
const POW10 = Array.from({ length: EXACT_DIGITS + 1 }, (_, k) => 10 ** k);

/** A Reading value: a number `[+-]digits[.digits]` at frame[start, end). */
interface NumberField {
  key: string;
  /** The unit sent (or, without one, the quantity's unit), learnt once: units do not change. */
  conversion: Conversion;
  start: number;
  end: number;
  /** First digit (or '.'), after the sign. */
  digits: number;
  /** Index of the '.', -1 when none; `fraction` digits follow it. */
  dot: number;
  fraction: number;
  negative: boolean;
  /** More digits than EXACT_DIGITS: read with Number(). */
  long: boolean;
}

/** A value read as text, at frame[start, end). */
interface TextField {
  start: number;
  end: number;
}

export interface D0LayoutOptions {
  verifyBlockCheck: boolean;
  maxFrameSize: number;
}

export class D0ReadoutLayout {
  readonly length: number;
  /**
   * True when a framer that is between frames cuts this readout, pushed as one chunk, into exactly
   * one frame of all its bytes: such a chunk can be read without the framer.
   */
  readonly wholeChunk: boolean;
  /** The learnt readout, and per byte 0xff where it is a digit / a digit or the BCC, as 32-bit words. */
  private readonly words: Int32Array;
  private readonly digits: Int32Array;
  private readonly variable: Int32Array;
  private readonly scratch: Int32Array;
  private readonly scratchBytes: Uint8Array;
  private readonly identification: D0Identification | undefined;
  /** Index of the BCC byte when it is verified, else -1; `bcc` is the template's computed BCC. */
  private bccAt = -1;
  private bcc = 0;
  private readonly numbers: NumberField[] = [];
  private readonly tariffs: TextField[] = [];
  private readonly id: TextField | undefined;
  /** The id text last read and its character codes (a meter's id does not change). */
  private idText = '';
  private readonly idCodes: number[];

  /** The layout of `frame`, which parseD0Readout read as `readout`; undefined when it has none. */
  static learn(frame: Buffer, readout: D0Readout, options: D0LayoutOptions): D0ReadoutLayout | undefined {
    const sets: D0DataSet[] = [];
    for (const object of readout.objects) {
      if (!(object instanceof D0DataSet)) return undefined;
      sets.push(object);
    }
    return new D0ReadoutLayout(frame, readout, sets, options);
  }

  private constructor(
    template: Buffer,
    readout: D0Readout,
    sets: readonly D0DataSet[],
    options: D0LayoutOptions,
  ) {
    this.length = template.length;
    this.identification = readout.identification;
    const offset = readout.dataOffset;
    const words = Math.ceil(template.length / 4);
    this.words = new Int32Array(words);
    this.digits = new Int32Array(words);
    this.variable = new Int32Array(words);
    this.scratch = new Int32Array(words);
    this.scratchBytes = new Uint8Array(this.scratch.buffer);
    new Uint8Array(this.words.buffer).set(template);
    const digits = new Uint8Array(this.digits.buffer);
    for (const set of sets) markDigits(digits, template, set, offset);
    const variable = new Uint8Array(this.variable.buffer);
    variable.set(digits);
    if (readout.blockCheck.present) {
      const bccAt = template.indexOf(ETX, offset) + 1;
      variable[bccAt] = 0xff;
      if (options.verifyBlockCheck) [this.bccAt, this.bcc] = [bccAt, readout.blockCheck.computed!];
    }
    const sources = readingSourcesOf(sets);
    for (const source of sources.values) {
      this.numbers.push(numberField(template, source, firstValue(source.object as D0DataSet, offset)!));
    }
    for (const set of sources.tariffs) {
      const value = firstValue(set as D0DataSet, offset);
      if (value) this.tariffs.push(value);
    }
    this.id = sources.id && firstValue(sources.id as D0DataSet, offset);
    this.idCodes = new Array<number>(this.id ? this.id.end - this.id.start : 0).fill(-1);
    if (this.id) this.textOfId(template, this.id);
    this.wholeChunk = isWholeChunk(template, options.maxFrameSize);
  }

  /**
   * True when `bytes` is a readout of this layout (and its BCC, when verified, matches). Compares
   * four bytes at a time: the readout is copied into an aligned scratch buffer of the template's
   * padded size. A changed word may change only digit and BCC bytes, and its digit bytes must be
   * '0'..'9': high nibble 3, and low nibble + 6 below 16. The XOR of the changed digits is the
   * change of the BCC.
   */
  matches(bytes: Uint8Array): boolean {
    if (bytes.length !== this.length) return false;
    this.scratchBytes.set(bytes);
    const input = this.scratch;
    const template = this.words;
    const variable = this.variable;
    const digits = this.digits;
    let changed = 0;
    for (let w = 0; w < input.length; w++) {
      const word = input[w]!;
      const diff = word ^ template[w]!;
      if (diff === 0) continue;
      const digit = digits[w]!;
      if ((diff & ~variable[w]!) !== 0) return false;
      if (((word ^ 0x30303030) & 0xf0f0f0f0 & digit) !== 0) return false;
      if ((((word & 0x0f0f0f0f) + 0x06060606) & 0x10101010 & digit) !== 0) return false;
      changed ^= diff & digit;
    }
    if (this.bccAt < 0) return true;
    const bcc = this.bcc ^ changed ^ (changed >>> 8) ^ (changed >>> 16) ^ (changed >>> 24);
    return bytes[this.bccAt] === (bcc & 0xff);
  }

  /** The Reading of `bytes`, a readout that matches(). */
  read(bytes: Buffer, receivedAt: number): Reading {
    const values = new Map<string, ObisValue>();
    for (const field of this.numbers) {
      const { conversion } = field;
      values.set(field.key, { value: convert(numberAt(bytes, field), conversion), unit: conversion.unit });
    }
    let tariff: number | undefined;
    for (let k = 0; k < this.tariffs.length && tariff === undefined; k++) {
      const field = this.tariffs[k]!;
      tariff = tariffOf(bytes.toString('latin1', field.start, field.end));
    }
    const id = this.id && this.textOfId(bytes, this.id);
    return d0Reading(receivedAt, d0IdentityOf(this.identification, id), values, tariff);
  }

  private textOfId(bytes: Buffer, field: TextField): string {
    const codes = this.idCodes;
    let same = true;
    for (let i = 0; i < codes.length; i++) {
      const byte = bytes[field.start + i]!;
      if (byte !== codes[i]) [same, codes[i]] = [false, byte];
    }
    if (same) return this.idText;
    // latin1: one character per byte (an argument list only for ids of usual length)
    this.idText =
      codes.length <= MAX_CODES_ARGUMENTS
        ? String.fromCharCode.apply(null, codes)
        : bytes.toString('latin1', field.start, field.end);
    return this.idText;
  }
}

/** Marks (0xff) the digits of the data set's values, not of its units: they may change. */
function markDigits(digits: Uint8Array, template: Buffer, set: D0DataSet, offset: number): void {
  forEachValue(set.text, set.open, set.close, (from, star, to) => {
    const end = offset + (star < 0 ? to : star);
    for (let i = offset + from; i < end; i++) {
      const byte = template[i]!;
      if (byte >= 0x30 && byte <= 0x39) digits[i] = 0xff;
    }
  });
}

/** The frame range of the data set's first value (trimmed, without unit); undefined when none. */
function firstValue(set: D0DataSet, offset: number): TextField | undefined {
  let range: [number, number] | undefined;
  forEachValue(set.text, set.open, set.close, (from, star, to) => {
    range ??= trimmedRange(set.text, from, star < 0 ? to : star);
  });
  return range && { start: range[0] + offset, end: range[1] + offset };
}

/** The number field of a value that readingSourcesOf accepted (so `[+-]?(\d+\.?\d*|\.\d+)`). */
function numberField(template: Buffer, source: D0ValueSource, value: TextField): NumberField {
  const sign = template[value.start];
  const digits = sign === PLUS || sign === MINUS ? value.start + 1 : value.start;
  const dot = template.indexOf(DOT, digits);
  const inValue = dot >= 0 && dot < value.end;
  const count = value.end - digits - (inValue ? 1 : 0);
  return {
    key: source.key,
    conversion: conversionOfSource(source),
    ...value,
    digits,
    dot: inValue ? dot : -1,
    fraction: inValue ? value.end - dot - 1 : 0,
    negative: sign === MINUS,
    long: count > EXACT_DIGITS,
  };
}

/**
 * The number at the field: the digits as an integer, divided by the power of ten of the fraction.
 * Both are exact doubles, and IEEE division rounds their exact quotient, the decimal value, once:
 * the same double Number() gives for the text.
 */
function numberAt(bytes: Buffer, field: NumberField): number {
  if (field.long) return Number(bytes.toString('latin1', field.start, field.end));
  let integer = 0;
  const whole = field.dot < 0 ? field.end : field.dot;
  for (let i = field.digits; i < whole; i++) integer = integer * 10 + bytes[i]! - 0x30;
  if (field.fraction === 0) return field.negative ? -integer : integer;
  for (let i = whole + 1; i < field.end; i++) integer = integer * 10 + bytes[i]! - 0x30;
  const value = integer / POW10[field.fraction]!;
  return field.negative ? -value : value;
}

function isWholeChunk(template: Buffer, maxFrameSize: number): boolean {
  const events = new D0Framer({ maxFrameSize }).push(template);
  const [event] = events;
  return events.length === 1 && event?.kind === 'frame' && event.frame.length === template.length;
}
