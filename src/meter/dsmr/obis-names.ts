import { readingRoleOf, type ReadingRole } from './to-reading.js';
import { isHexTextObject } from './values.js';

/** The strings of one OBIS reference A-B:C.D.E and what follows from it. */
export interface ObisName {
  /** "A-B:C.D.E" */
  obis: string;
  /** "C.D.E" */
  code: string;
  medium: number;
  channel: number;
  /** What objects of this reference are to the Reading (see readingRoleOf). */
  role: ReadingRole;
  /** The object's values are hex-encoded octet strings (see isHexTextObject). */
  hexText: boolean;
}

export function obisName(a: number, b: number, c: number, d: number, e: number): ObisName {
  const code = `${c}.${d}.${e}`;
  const obis = `${a}-${b}:${code}`;
  return {
    obis,
    code,
    medium: a,
    channel: b,
    role: readingRoleOf(a, b, code),
    hexText: isHexTextObject(a, code),
  };
}
