import { readingRoleOf, type ReadingRole } from './to-reading.js';
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
  medium: number;
  channel: number;
  /** Groups C, D, E as one number: (C * 256 + D) * 256 + E. */
  codeKey: number;
  /** What objects of this reference are to the Reading (see readingRoleOf). */
  role: ReadingRole;
  /** The object's values are hex-encoded octet strings (see isHexTextObject). */
  hexText: boolean;
  /** Number of the last parse that met this reference (duplicate detection without a set). */
  seenInParse: number;
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
  const name: ObisName = {
    obis: `${a}-${b}:${code}`,
    code,
    medium: a,
    channel: b,
    codeKey: groupKey,
    role: readingRoleOf(a, b, code),
    hexText: isHexTextObject(a, code),
    seenInParse: 0,
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
