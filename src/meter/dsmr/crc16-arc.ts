/**
 * DSMR P1 telegram checksum (DSMR 5.0.2 §6.2): CRC-16/ARC, polynomial x^16 + x^15 + x^2 + 1
 * (0x8005, processed reflected as 0xA001), initial value 0, no final XOR, computed over every byte
 * from the leading '/' through the '!' inclusive and sent as 4 hex digits after the '!'.
 * DSMR 2.2 and 3.0 telegrams carry no checksum: their '!' is followed directly by CR LF.
 */

import { crc16Arc } from '../../checksum/crc16.js';

const SLASH = 0x2f;
const BANG = 0x21;
const MAX_CRC_DIGITS = 4;

export type DsmrCrcVerdict =
  /** No hex digits after '!' (DSMR < 4): accepted without a check. */
  | { kind: 'absent' }
  /** field: the value of the hex digits sent; computed: CRC-16/ARC over '/' through '!'. */
  | { kind: 'match' | 'mismatch'; field: number; computed: number }
  /** No '/' or no '!' in the bytes: not a telegram whose checksum could be checked. */
  | { kind: 'malformed'; reason: string };

/** Value of a hex digit byte (either case), or -1. */
function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57;
  return -1;
}

/** A CRC value as DSMR writes it: 4 upper-case hex digits. */
export function crcHex(value: number): string {
  return value.toString(16).toUpperCase().padStart(4, '0');
}

/**
 * Checks the CRC field of one telegram. The field is the run of up to 4 hex digits after the first
 * '!', compared case-insensitively; a field of fewer digits is read as left-padded with zeros
 * (some meters send '!B9F' for 0x0B9F).
 */
export function checkDsmrCrc(frame: Uint8Array): DsmrCrcVerdict {
  const start = frame.indexOf(SLASH);
  return checkDsmrCrcAt(frame, start, start < 0 ? -1 : frame.indexOf(BANG, start));
}

/** checkDsmrCrc with the first '/' and the first '!' after it already found (-1: none). */
export function checkDsmrCrcAt(frame: Uint8Array, start: number, bang: number): DsmrCrcVerdict {
  if (start < 0) return { kind: 'malformed', reason: "no '/' telegram start" };
  if (bang < 0) return { kind: 'malformed', reason: "no '!' telegram end" };
  let field = 0;
  let fieldEnd = bang + 1;
  for (; fieldEnd < frame.length && fieldEnd - bang - 1 < MAX_CRC_DIGITS; fieldEnd++) {
    const digit = hexValue(frame[fieldEnd]!);
    if (digit < 0) break;
    field = field * 16 + digit;
  }
  if (fieldEnd === bang + 1) return { kind: 'absent' };
  const computed = crc16Arc(frame, start, bang + 1);
  return { kind: field === computed ? 'match' : 'mismatch', field, computed };
}
