import { MeterDataError } from '../decoder.js';
import { frameChecksum, type SmlCrcAlgorithm } from './crc16-x25.js';

/**
 * SML transport protocol v1 frame -> the SML messages it carries (SML 1.04). The frame is
 * `1b1b1b1b 01010101 | data | 1b1b1b1b 1a NN C1 C2`: the checksum covers everything before C1 C2,
 * a doubled escape in the data stands for one literal 1b1b1b1b, and the last NN data bytes are
 * padding (0..3 per SML 1.04, transport protocol version 1; some meters pad a whole extra block, NN = 4,
 * which is accepted).
 */

const ESCAPE_WORD = 0x1b1b1b1b;
const START_BYTES = 8;
const END_BYTES = 8;

export function isTransportFrame(bytes: Buffer): boolean {
  return (
    bytes.length >= START_BYTES &&
    bytes.readUInt32BE(0) === ESCAPE_WORD &&
    bytes.readUInt32BE(4) === 0x01010101
  );
}

/** Where the messages of a transport frame lie: `data[start, end)`. */
export interface TransportPayload {
  data: Buffer;
  start: number;
  end: number;
}

/**
 * Checks the frame CRC and locates the messages without padding: inside the frame itself when it
 * has no escaped data (no copy), else in an unescaped copy.
 */
export function transportPayload(frame: Buffer, algorithm: SmlCrcAlgorithm = 'x25'): TransportPayload {
  const length = frame.length;
  if (length < START_BYTES + END_BYTES || !isTransportFrame(frame)) {
    throw new MeterDataError('parse', 'SML: not a transport v1 frame', { length });
  }
  const endEscape = length - END_BYTES;
  if (frame.readUInt32BE(endEscape) !== ESCAPE_WORD || frame[endEscape + 4] !== 0x1a) {
    throw new MeterDataError('parse', 'SML: frame does not end with 1b1b1b1b 1a', { length });
  }
  const { computed, stored } = frameChecksum(frame, algorithm);
  if (computed !== stored) {
    throw new MeterDataError('crc', `SML: frame CRC mismatch (${algorithm})`, {
      algorithm,
      computed,
      stored,
    });
  }
  const padding = frame[endEscape + 5]!;
  const escaped = nextDoubledEscape(frame, START_BYTES, endEscape) >= 0;
  const data = escaped ? unescape(frame, START_BYTES, endEscape) : frame;
  const start = escaped ? 0 : START_BYTES;
  const end = escaped ? data.length : endEscape;
  if (padding > end - start) {
    throw new MeterDataError('parse', `SML: invalid padding count ${padding}`, { padding });
  }
  return { data, start, end: end - padding };
}

/** The unescaped messages of a transport frame without padding (see transportPayload). */
export function unwrapTransportFrame(frame: Buffer, algorithm: SmlCrcAlgorithm = 'x25'): Buffer {
  const { data, start, end } = transportPayload(frame, algorithm);
  return data.subarray(start, end);
}

/** Copies `frame[from, to)`, collapsing each doubled escape at a 4-byte block into one. */
function unescape(frame: Buffer, from: number, to: number): Buffer {
  const out = Buffer.allocUnsafe(to - from);
  let read = from;
  let written = 0;
  for (
    let escape = nextDoubledEscape(frame, from, to);
    escape >= 0;
    escape = nextDoubledEscape(frame, read, to)
  ) {
    written += frame.copy(out, written, read, escape + 4);
    read = escape + 8;
  }
  written += frame.copy(out, written, read, to);
  return out.subarray(0, written);
}

/** The next 4-byte block in `[from, to)` that starts a doubled escape 1b1b1b1b 1b1b1b1b, or -1. */
function nextDoubledEscape(data: Buffer, from: number, to: number): number {
  for (let block = from; block + 8 <= to; block += 4) {
    if (data[block] !== 0x1b) continue;
    if (data.readUInt32BE(block) === ESCAPE_WORD && data.readUInt32BE(block + 4) === ESCAPE_WORD)
      return block;
  }
  return -1;
}
