import type { DsmrValue } from './telegram.js';
import { dsmrTimestamp, looksLikeDsmrTimestamp } from './timestamp.js';

/**
 * Objects whose value is an octet string sent as hex (DSMR 5.0.2 §6.12: equipment identifiers
 * 0-0:96.1.1 / 0-n:96.1.0, logical device name 0-0:42.0.0, text messages 0-0:96.13.x).
 */
const HEX_TEXT_CODES = new Set(['96.1.0', '96.1.1', '42.0.0', '96.13.0', '96.13.1']);

export function isHexTextObject(medium: number, code: string): boolean {
  return medium === 0 && HEX_TEXT_CODES.has(code);
}

const PLUS = 0x2b;
const MINUS = 0x2d;
const DOT = 0x2e;
const STAR = 0x2a;
/** Above this many digits the mantissa is no longer exact in a double: Number() of the text is used. */
const EXACT_DIGITS = 15;
const POWERS_OF_TEN = Array.from({ length: EXACT_DIGITS + 1 }, (_, n) => 10 ** n);

/**
 * Reads one parenthesised value: a decimal number (DSMR 5.0.2 §6.4 types F and I: optional sign,
 * digits, optional point and digits) with optional '*unit', or a timestamp, or text.
 */
export function parseDsmrValue(raw: string): DsmrValue {
  const length = raw.length;
  if (length === 13 && looksLikeDsmrTimestamp(raw)) {
    const timestamp = dsmrTimestamp(raw);
    return timestamp === undefined ? { raw } : { raw, timestamp };
  }
  const value = dsmrNumberAt(raw, 0, length);
  if (Number.isNaN(value)) return { raw };
  const stop = dsmrNumberStop(raw, 0, length);
  return stop < length ? { raw, value, unit: dsmrUnitAt(raw, stop + 1, length) } : { raw, value };
}

/** A value of an object whose values are hex-encoded text (see isHexTextObject) also gets `text`. */
export function parseObjectValue(raw: string, hexText: boolean): DsmrValue {
  const value = parseDsmrValue(raw);
  if (hexText) {
    const text = decodeHexText(raw);
    if (text !== undefined) value.text = text;
  }
  return value;
}

/** parseObjectValue(raw, hexText) without the number: raw, timestamp and decoded text only. */
export function parseTextValue(raw: string, hexText: boolean): DsmrValue {
  const timestamp = raw.length === 13 && looksLikeDsmrTimestamp(raw) ? dsmrTimestamp(raw) : undefined;
  const value: DsmrValue = timestamp === undefined ? { raw } : { raw, timestamp };
  if (hexText) {
    const text = decodeHexText(raw);
    if (text !== undefined) value.text = text;
  }
  return value;
}

/**
 * The number that text[from, to) is (see parseDsmrValue), or NaN when it is none (a timestamp,
 * text, an OBIS reference). Its unit, if any, starts after the '*' at dsmrNumberStop.
 * Hot path: one pass over the characters, reads kept inside the string (an out-of-range
 * charCodeAt deoptimises it).
 */
export function dsmrNumberAt(text: string, from: number, to: number): number {
  if (to <= from) return Number.NaN;
  const first = text.charCodeAt(from);
  const digitsStart = first === PLUS || first === MINUS ? from + 1 : from;
  let mantissa = 0;
  let i = digitsStart;
  for (; i < to; i++) {
    const digit = text.charCodeAt(i) - 0x30;
    if (digit < 0 || digit > 9) break;
    mantissa = mantissa * 10 + digit;
  }
  if (i === digitsStart) return Number.NaN;
  let decimals = 0;
  if (i < to && text.charCodeAt(i) === DOT) {
    const decimalsStart = ++i;
    for (; i < to; i++) {
      const digit = text.charCodeAt(i) - 0x30;
      if (digit < 0 || digit > 9) break;
      mantissa = mantissa * 10 + digit;
    }
    decimals = i - decimalsStart;
    if (decimals === 0) return Number.NaN;
  }
  if (i < to && text.charCodeAt(i) !== STAR) return Number.NaN;
  if (i - digitsStart - (decimals > 0 ? 1 : 0) > EXACT_DIGITS) return Number(text.slice(from, i));
  // The mantissa and the power of ten are exact, so the quotient is the double nearest the
  // decimal, the same as Number() of the text.
  const value = decimals === 0 ? mantissa : mantissa / POWERS_OF_TEN[decimals]!;
  return first === MINUS ? -value : value;
}

/**
 * Where the number of text[from, to) stops when dsmrNumberAt finds one there: `to`, or the '*'
 * before its unit (a number has no '*', so the first '*' is the one after it).
 */
export function dsmrNumberStop(text: string, from: number, to: number): number {
  const star = text.indexOf('*', from);
  return star < 0 || star >= to ? to : star;
}

/** 1 to maxDigits ASCII digits (a device type, a tariff number). */
export function isShortNumber(text: string, maxDigits: number): boolean {
  if (text.length < 1 || text.length > maxDigits) return false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x30 || code > 0x39) return false;
  }
  return true;
}

/** Units DSMR meters send (DSMR 5.0.2 §6.12, Swedish HAN, Austrian Wh/W), shared rather than sliced. */
const COMMON_UNITS = [
  'kWh',
  'kW',
  'V',
  'A',
  'm3',
  's',
  'kvarh',
  'kvar',
  'kVArh',
  'kVAr',
  'Wh',
  'W',
  'varh',
  'var',
  'Hz',
];

/** Length, first, second and last character of raw[from, to) as one small integer. */
function unitKey(raw: string, from: number, to: number): number {
  const length = to - from;
  const second = raw.charCodeAt(length > 1 ? from + 1 : from);
  return ((length * 256 + raw.charCodeAt(from)) * 256 + second) * 256 + raw.charCodeAt(to - 1);
}

const UNIT_BY_KEY = new Map(COMMON_UNITS.map((unit) => [unitKey(unit, 0, unit.length), unit]));

function dsmrUnitAt(text: string, from: number, to: number): string {
  const length = to - from;
  if (length > 0 && length <= 5) {
    const unit = UNIT_BY_KEY.get(unitKey(text, from, to));
    if (unit !== undefined && text.startsWith(unit, from)) return unit;
  }
  return text.slice(from, to);
}

function hexNibble(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x41 && code <= 0x46) return code - 0x37;
  if (code >= 0x61 && code <= 0x66) return code - 0x57;
  return -1;
}

/**
 * Text of a hex-encoded octet string ("4B38" -> "K8") when every octet is printable ASCII
 * (0x20..0x7E); undefined otherwise (odd length, non-hex, control bytes: the raw text is the id).
 * Line breaks of a value continued over several lines are ignored.
 */
export function decodeHexText(raw: string): string | undefined {
  const hex = raw.includes('\n') ? raw.replace(/\r?\n/g, '') : raw;
  if (hex.length === 0 || hex.length % 2 !== 0) return undefined;
  const octets = new Array<number>(hex.length / 2);
  for (let i = 0; i < octets.length; i++) {
    const high = hexNibble(hex.charCodeAt(2 * i));
    const low = hexNibble(hex.charCodeAt(2 * i + 1));
    if (high < 0 || low < 0) return undefined;
    const octet = high * 16 + low;
    if (octet < 0x20 || octet > 0x7e) return undefined;
    octets[i] = octet;
  }
  return String.fromCharCode(...octets);
}
