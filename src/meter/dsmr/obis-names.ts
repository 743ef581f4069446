import { readingRoleOf, type ReadingRole } from './to-reading.js';
import type { DsmrValue } from './telegram.js';
import type { Conversion } from '../../reading/units.js';
import { isHexTextObject } from './values.js';

/**
 * The strings of one OBIS reference, built once per distinct A-B:C.D.E and then shared. A telegram
 * repeats the same few dozen references every second; sharing them saves building and hashing
 * the strings per line. These caches are invisible to callers: parsing stays a pure function.
 */
export interface ObisName {
  /** "A-B:C.D.E" */
  obis: string;
  /** "C.D.E" */
  code: string;
  /** What a data line of this reference starts with: "A-B:C.D.E(". */
  lineStart: string;
  medium: number;
  channel: number;
  /** What objects of this reference are to the Reading (see readingRoleOf). */
  role: ReadingRole;
  /** The object's values are hex-encoded octet strings (see isHexTextObject). */
  hexText: boolean;
  /** Number of the last parse that met this reference (duplicate detection without a set). */
  seenInParse: number;
  /** The unit of the last value ./direct-reading.ts converted for this reference, and conversionFor of it. */
  lastConversion: { unit: string | undefined; conversion: Conversion | undefined } | undefined;
  /** The values ./object-values.ts last read of an object of this reference, and their text. */
  lastValues: { text: string; values: DsmrValue[] } | undefined;
}

/** Keyed by (A, B) then (C, D, E), each group 0..255; cleared when odd references fill it. */
const NAMES = new Map<number, Map<number, ObisName>>();
const MAX_NAMES = 4096;
let namesCount = 0;

export function obisName(a: number, b: number, c: number, d: number, e: number): ObisName {
  const groupKey = (c * 256 + d) * 256 + e;
  let byCode = NAMES.get(a * 256 + b);
  const cached = byCode?.get(groupKey);
  if (cached !== undefined) return cached;
  if (namesCount >= MAX_NAMES) {
    NAMES.clear();
    namesCount = 0;
    byCode = undefined;
  }
  if (byCode === undefined) NAMES.set(a * 256 + b, (byCode = new Map()));
  const code = `${c}.${d}.${e}`;
  const obis = `${a}-${b}:${code}`;
  const name: ObisName = {
    obis,
    code,
    lineStart: `${obis}(`,
    medium: a,
    channel: b,
    role: readingRoleOf(a, b, code),
    hexText: isHexTextObject(a, code),
    seenInParse: 0,
    lastConversion: undefined,
    lastValues: undefined,
  };
  byCode.set(groupKey, name);
  namesCount++;
  return name;
}

/**
 * The references of the previous telegram in order. A meter sends the same objects in the same
 * order every time, so the reference at the same position is checked first (one string compare
 * instead of reading the digits and two lookups).
 */
let previousSequence: readonly ObisName[] = [];
let parseNumber = 0;

export function predictedName(index: number): ObisName | undefined {
  return previousSequence[index];
}

/** Starts a parse: returns its number for ObisName.seenInParse. */
export function beginParse(): number {
  parseNumber = parseNumber >= 0x3fffffff ? 1 : parseNumber + 1;
  return parseNumber;
}

export function rememberSequence(names: readonly ObisName[]): void {
  previousSequence = names;
}
