import { MeterDataError } from '../decoder.js';

/**
 * IEC 62056-21 §6.3.2 identification message: `/ XXX Z [\W] Ident CR LF`.
 * - XXX: manufacturer's FLAG id; a lower-case third letter means the meter's minimum reaction time is
 *   20 ms instead of 200 ms (§6.4).
 * - Z: baud rate identification. '0'..'6' = mode C (and E) rates 300..19200 Bd; 'A'..'I' = mode B
 *   ('A'..'F' = 600..19200 Bd, 'G'..'I' reserved); anything else = mode A (no baud change).
 * - \W: enhanced identification; W = '2' announces binary mode E (HDLC), other values are reserved.
 * - Ident: up to 16 printable characters (model, firmware).
 */

export type D0Mode = 'A' | 'B' | 'C';

export interface D0Identification {
  /** Three-letter manufacturer id as sent ("ISk", "EMH"). */
  prefix: string;
  baudChar: string;
  mode: D0Mode;
  /** Baud rate the meter offers for the readout; undefined for mode A and reserved characters. */
  proposedBaud: number | undefined;
  /** The W of `\W` when present. */
  enhancedId: string | undefined;
  /** Identification text after Z (and \W), control characters removed, trimmed. */
  model: string;
  /** Minimum reaction time tr (IEC 62056-21 §6.4): 20 ms when the third prefix letter is lower case. */
  minReactionTimeMs: 20 | 200;
}

/** Mode C/E baud characters '0'..'6' (IEC 62056-21 §6.3.2, baud rate identification). */
const MODE_C_RATES = [300, 600, 1200, 2400, 4800, 9600, 19200] as const;
/** Mode B baud characters 'A'..'F'; 'G'..'I' are reserved (IEC 62056-21 §6.3.2). */
const MODE_B_RATES = [600, 1200, 2400, 4800, 9600, 19200] as const;

const SLASH = 0x2f;
const BACKSLASH = 0x5c;
const MAX_IDENT_LENGTH = 64;

function isLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

/** Mode and offered rate of a baud rate identification character. */
export function baudRateOf(baudChar: string): { mode: D0Mode; proposedBaud: number | undefined } {
  const code = baudChar.charCodeAt(0);
  if (code >= 0x30 && code <= 0x36) return { mode: 'C', proposedBaud: MODE_C_RATES[code - 0x30] };
  if (code >= 0x41 && code <= 0x49) return { mode: 'B', proposedBaud: MODE_B_RATES[code - 0x41] };
  return { mode: 'A', proposedBaud: undefined };
}

/** The mode C option-select baud character for a rate ('0'..'6'); undefined for other rates. */
export function modeCBaudChar(baud: number): string | undefined {
  const index = MODE_C_RATES.indexOf(baud as (typeof MODE_C_RATES)[number]);
  return index < 0 ? undefined : String.fromCharCode(0x30 + index);
}

function isControl(code: number): boolean {
  return code < 0x20 || code === 0x7f;
}

function stripControl(text: string): string {
  let clean = true;
  for (let i = 0; i < text.length && clean; i++) clean = !isControl(text.charCodeAt(i));
  if (clean) return text.trim();
  let out = '';
  for (let i = 0; i < text.length; i++) if (!isControl(text.charCodeAt(i))) out += text[i];
  return out.trim();
}

function identError(reason: string, line: string): MeterDataError {
  return new MeterDataError('parse', `invalid IEC 62056-21 identification: ${reason}`, {
    line: line.slice(0, MAX_IDENT_LENGTH),
  });
}

/** Parses one identification line (with or without its CR LF); throws MeterDataError 'parse'. */
export function parseIdentification(line: string): D0Identification {
  let end = line.length;
  while (end > 0 && (line.charCodeAt(end - 1) === 0x0d || line.charCodeAt(end - 1) === 0x0a)) end--;
  if (end > MAX_IDENT_LENGTH) throw identError('too long', line);
  if (end < 5 || line.charCodeAt(0) !== SLASH) throw identError("expected '/XXXZ'", line);
  for (let i = 1; i <= 3; i++) {
    if (!isLetter(line.charCodeAt(i))) throw identError('manufacturer id is not three letters', line);
  }
  const prefix = line.slice(1, 4);
  const baudChar = line[4]!;
  const { mode, proposedBaud } = baudRateOf(baudChar);
  let identStart = 5;
  let enhancedId: string | undefined;
  if (line.charCodeAt(5) === BACKSLASH && end > 6) {
    enhancedId = line[6];
    identStart = 7;
  }
  const third = line.charCodeAt(3);
  return {
    prefix,
    baudChar,
    mode,
    proposedBaud,
    enhancedId,
    model: stripControl(line.slice(identStart, end)),
    minReactionTimeMs: third >= 0x61 ? 20 : 200,
  };
}

/**
 * Whether `bytes[start..end)` (a line, CR LF included or not) is an identification that
 * parseIdentification accepts: '/', three letters, a baud character, at most 64 characters. A request
 * echo `/?!` is not one.
 */
export function isIdentificationLine(bytes: Uint8Array, start: number, end: number): boolean {
  while (end > start && (bytes[end - 1] === 0x0d || bytes[end - 1] === 0x0a)) end--;
  const length = end - start;
  if (length < 5 || length > MAX_IDENT_LENGTH || bytes[start] !== SLASH) return false;
  return isLetter(bytes[start + 1]!) && isLetter(bytes[start + 2]!) && isLetter(bytes[start + 3]!);
}

/** True for a request message echoed by an optical head: `/?[address]!` (IEC 62056-21 §6.3.1). */
export function isRequestEcho(line: string): boolean {
  return line.startsWith('/?') && line.trimEnd().endsWith('!');
}
