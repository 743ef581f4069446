import { AMPERSAND, COLON, DASH, DOT, STAR } from '../../ascii-codes.js';

/**
 * Address of a data set in an IEC 62056-21 readout: an OBIS code (IEC 62056-6-1) in full form
 * `A-B:C.D.E*F` or reduced form `C.D.E`, `C.D`, `C` (groups A, B, E, F omitted), with an optional
 * billing-period suffix `*F` (or `&F` on older meters).
 * In value groups C..E the letters C, F, L, P stand for 96, 97, 98, 99 (IEC 62056-6-1: service
 * entries, error registers, lists, profiles), so `C.1.0` is 96.1.0 and `F.F` is 97.97.
 */
export interface ObisAddress {
  readonly a: number | undefined;
  readonly b: number | undefined;
  readonly c: number;
  readonly d: number | undefined;
  readonly e: number | undefined;
  /** Billing period (VZ) or 255 for the current value; undefined when absent. */
  readonly f: number | undefined;
  /** The address as it appeared in the readout (trimmed). */
  readonly text: string;
}

const END = -1;

function letterValue(code: number): number {
  if (code === 0x43) return 96; // C
  if (code === 0x46) return 97; // F
  if (code === 0x4c) return 98; // L
  if (code === 0x50) return 99; // P
  return -1;
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

/**
 * Parses `text[start..end)` as a data set address in one pass; undefined when it is not one.
 * Groups are 1..3 digits (A, B, F digits only; C, D, E also one letter C/F/L/P).
 */
export function parseObisAddress(text: string, start = 0, end = text.length): ObisAddress | undefined {
  while (start < end && isSpace(text.charCodeAt(start))) start++;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  if (start === end) return undefined;
  let a: number | undefined;
  let b: number | undefined;
  /** C, D, E, F; -1 = absent. */
  const groups = [-1, -1, -1, -1];
  let slot = 0;
  let value = 0;
  let digits = 0;
  let letter = false;
  for (let i = start; i <= end; i++) {
    const code = i < end ? text.charCodeAt(i) : END;
    if (code >= 0x30 && code <= 0x39 && !letter && digits < 3) {
      value = value * 10 + (code - 0x30);
      digits++;
      continue;
    }
    if (digits === 0 && slot < 3 && letterValue(code) >= 0) {
      value = letterValue(code);
      digits = 1;
      letter = true;
      continue;
    }
    if (digits === 0) return undefined;
    if (code === DASH && slot === 0 && a === undefined && !letter) {
      a = value;
    } else if (code === COLON && a !== undefined && b === undefined && !letter) {
      b = value;
    } else if (a !== undefined && b === undefined) {
      return undefined;
    } else {
      if (slot > 3 || (slot === 3 && letter)) return undefined;
      groups[slot] = value;
      if (code === DOT && slot < 2) slot++;
      else if ((code === STAR || code === AMPERSAND) && slot < 3) slot = 3;
      else if (code === END) break;
      else return undefined;
    }
    value = 0;
    digits = 0;
    letter = false;
  }
  return {
    a,
    b,
    c: groups[0]!,
    d: groups[1]! < 0 ? undefined : groups[1],
    e: groups[2]! < 0 ? undefined : groups[2],
    f: groups[3]! < 0 ? undefined : groups[3],
    text: text.slice(start, end),
  };
}
