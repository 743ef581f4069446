import { MeterDataError } from '../decoder.js';
import { blockCheck } from '../../checksum/bcc.js';
import { type D0Identification, isRequestEcho, parseIdentification } from './identification.js';
import { type D0Object, parseDataSets } from './data-sets.js';
import { ACK, CR, ETX, LF, SLASH, STX } from '../../ascii-codes.js';

export { type D0Object, type D0Value } from './data-sets.js';

/**
 * Pure parser of one IEC 62056-21 readout (§6.3): optional identification line `/XXXZ...` (plus
 * any echoed ACK lines), then either a data message `STX data ! CR LF ETX BCC` (modes A, B, C) or
 * plain data lines ending with a `!` line (mode D push). Data sets are `address(value*unit)`, one or
 * more per line, with further `(...)` groups belonging to the same address. The characters
 * `( ) / !` never occur inside an address, value or unit (IEC 62056-21 §6.3.4).
 */

export interface D0BlockCheck {
  present: boolean;
  /** BCC byte sent by the meter. */
  expected?: number;
  /** BCC computed over the bytes after STX through ETX. */
  computed?: number;
}

export interface D0Readout {
  identification: D0Identification | undefined;
  objects: D0Object[];
  blockCheck: D0BlockCheck;
  /** Text fragments that were not data sets (line noise, gateway additions); they are skipped. */
  invalidParts: number;
  /** True when the '!' end of the data was present. */
  complete: boolean;
  /** Index in the frame of the data part (after STX when present), where the data sets are read. */
  dataOffset: number;
}

export interface D0ParseOptions {
  /** Reject a readout whose BCC does not match (default true). */
  verifyBlockCheck?: boolean;
}

function lineEnd(frame: Buffer, from: number): number {
  const lf = frame.indexOf(LF, from);
  return lf < 0 ? frame.length : lf + 1;
}

/** Skips echoed ACK lines (`ACK ... CR LF`, IR head echo of the option select) and blank lines. */
function skipEchoLines(frame: Buffer, pos: number): number {
  while (pos < frame.length) {
    const byte = frame[pos]!;
    if (byte === CR || byte === LF) pos++;
    else if (byte === ACK) pos = lineEnd(frame, pos);
    else break;
  }
  return pos;
}

function readBlock(
  frame: Buffer,
  stx: number,
  verify: boolean,
): { start: number; end: number; blockCheck: D0BlockCheck } {
  const etx = frame.indexOf(ETX, stx + 1);
  if (etx < 0 || etx + 1 >= frame.length) {
    return { start: stx + 1, end: etx < 0 ? frame.length : etx, blockCheck: { present: false } };
  }
  const expected = frame[etx + 1]!;
  const computed = blockCheck(frame, stx + 1, etx + 1);
  if (verify && expected !== computed) {
    throw new MeterDataError('crc', 'IEC 62056-21 block check (BCC) mismatch', { expected, computed });
  }
  return { start: stx + 1, end: etx, blockCheck: { present: true, expected, computed } };
}

/** Parses a readout frame; throws MeterDataError ('crc' on BCC mismatch, 'parse' otherwise). */
export function parseD0Readout(frame: Buffer, options: D0ParseOptions = {}): D0Readout {
  let pos = 0;
  let identification: D0Identification | undefined;
  while (frame[pos] === SLASH) {
    const end = lineEnd(frame, pos);
    const line = frame.toString('latin1', pos, end);
    pos = skipEchoLines(frame, end);
    if (isRequestEcho(line)) continue;
    identification = parseIdentification(line);
    break;
  }
  let start = pos;
  let end = frame.length;
  let check: D0BlockCheck = { present: false };
  if (frame[pos] === STX) {
    ({ start, end, blockCheck: check } = readBlock(frame, pos, options.verifyBlockCheck ?? true));
  }
  const data = parseDataSets(frame.toString('latin1', start, end));
  if (data.objects.length === 0) {
    throw new MeterDataError('parse', 'IEC 62056-21 readout without data sets', {
      invalidParts: data.invalidParts,
    });
  }
  return {
    identification,
    objects: data.objects,
    blockCheck: check,
    invalidParts: data.invalidParts,
    complete: data.complete,
    dataOffset: start,
  };
}
