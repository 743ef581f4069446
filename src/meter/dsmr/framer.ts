import { MeterDataError } from '../decoder.js';
import { BANG, CR, LF, SLASH } from '../../ascii-codes.js';

/**
 * Byte stream -> DSMR P1 telegrams (DSMR 5.0.2 §6.2: '/' identification ... '!' CRC CR LF).
 *
 * When a telegram is complete:
 * - It starts at a '/'. Bytes before a '/' (a telegram joined half way, line noise) are skipped
 *   without being buffered.
 * - A '/' before the '!' restarts the telegram: the unfinished one is dropped and reported (a
 *   meter that restarted mid-telegram, or bytes lost in between).
 * - After the '!' come 0 to 4 hex CRC digits. The telegram ends
 *   - at the LF of the line end after them (CR LF, or a bare LF);
 *   - at the first byte after at least one digit that is neither a further digit nor CR/LF: the
 *     meter omitted the final line end (Swedish HAN captures end at the CRC) and that byte belongs
 *     to what follows (a '/' starts the next telegram). A short field ('!a3G4') is cut at the
 *     first non-hex byte and then fails the CRC check;
 *   - never at a CR that is not followed by LF: the line end is damaged, bytes were lost, and the
 *     telegram is dropped and reported (so '!6796\r/...' yields only the following telegram);
 *   - a '!' followed by a byte other than a hex digit or CR/LF has a malformed CRC field: the
 *     telegram is dropped and reported as a checksum failure, never accepted unchecked.
 *   The 4th digit alone does not complete a telegram: the byte after it tells an intact end from
 *   a damaged one. A meter that never sends the line end is thus handed on one byte later
 *   (usually the next telegram's '/').
 * - `flush()` (end of a capture file) completes a telegram that is waiting after its '!' or CRC.
 * - A telegram growing past `maxFrameBytes` before its '!' is dropped and reported once
 *   ('overflow'); the framer then skips to the next '/', so memory stays bounded on any input.
 */

export const DEFAULT_MAX_FRAME_BYTES = 16 * 1024;

export type FramerEvent = { frame: Buffer } | { error: MeterDataError };

const MAX_CRC_DIGITS = 4;

const EMPTY = Buffer.alloc(0);

type State = 'idle' | 'body' | 'crc' | 'cr';

function isHexDigit(byte: number): boolean {
  return (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66);
}

export class DsmrFramer {
  private state: State = 'idle';
  /** Bytes of the unfinished telegram from earlier chunks. */
  private parts: Buffer[] = [];
  private partsLength = 0;
  private crcDigits = 0;
  /** Where the unfinished telegram's bytes begin in the chunk being pushed. */
  private segmentStart = 0;
  private chunk: Buffer = EMPTY;
  private events: FramerEvent[] = [];

  constructor(readonly maxFrameBytes: number = DEFAULT_MAX_FRAME_BYTES) {}

  /** Bytes held for the unfinished telegram (never more than maxFrameBytes). */
  get bufferedBytes(): number {
    return this.partsLength;
  }

  push(chunk: Buffer): FramerEvent[] {
    this.chunk = chunk;
    this.events = [];
    this.segmentStart = 0;
    let pos = 0;
    while (pos < chunk.length) {
      if (this.state === 'idle') pos = this.seekStart(pos);
      else if (this.state === 'body') pos = this.scanBody(pos);
      else if (this.state === 'crc') pos = this.scanCrc(pos);
      else pos = this.scanLineFeed(pos);
    }
    if (this.state !== 'idle') this.keepSegment(chunk.length);
    this.chunk = EMPTY;
    return this.events;
  }

  /** End of input: completes a telegram waiting after its '!'; reports one cut off before it. */
  flush(): FramerEvent[] {
    this.events = [];
    this.segmentStart = 0;
    if (this.state === 'crc' || this.state === 'cr') this.complete(0);
    else if (this.state === 'body') this.drop('parse', "input ended before the telegram's '!' end");
    return this.events;
  }

  reset(): void {
    this.state = 'idle';
    if (this.parts.length > 0) this.parts = [];
    this.partsLength = 0;
    this.crcDigits = 0;
  }

  private seekStart(pos: number): number {
    const start = this.chunk.indexOf(SLASH, pos);
    if (start < 0) return this.chunk.length;
    this.begin(start);
    return start + 1;
  }

  private begin(start: number): void {
    this.reset();
    this.state = 'body';
    this.segmentStart = start;
  }

  private scanBody(pos: number): number {
    const chunk = this.chunk;
    const bang = chunk.indexOf(BANG, pos);
    const slashLimit = bang < 0 ? chunk.length : bang;
    let slash = chunk.indexOf(SLASH, pos);
    if (slash >= slashLimit) slash = -1;
    const stop = slash >= 0 ? slash : bang >= 0 ? bang : chunk.length;
    if (this.overflows(stop + (stop === bang ? 1 : 0))) return stop;
    if (slash >= 0) {
      this.drop('parse', "telegram interrupted by a new '/' start before its '!' end");
      this.begin(slash);
      return slash + 1;
    }
    if (bang >= 0) {
      this.state = 'crc';
      this.crcDigits = 0;
      return bang + 1;
    }
    return chunk.length;
  }

  private scanCrc(pos: number): number {
    const byte = this.chunk[pos]!;
    if (isHexDigit(byte) && this.crcDigits < MAX_CRC_DIGITS) {
      this.crcDigits++;
      this.overflows(pos + 1);
      return pos + 1;
    }
    if (byte === LF) {
      this.complete(pos + 1);
      return pos + 1;
    }
    if (byte === CR) {
      this.state = 'cr';
      return pos + 1;
    }
    if (this.crcDigits === 0)
      this.drop('crc', "malformed CRC field: '!' followed by neither hex digits nor a line end");
    else this.complete(pos);
    return pos;
  }

  private scanLineFeed(pos: number): number {
    if (this.chunk[pos] === LF) {
      this.complete(pos + 1);
      return pos + 1;
    }
    this.drop('parse', 'telegram end damaged: CR without LF after the CRC');
    return pos;
  }

  /** Drops the telegram when it would exceed maxFrameBytes with the chunk's bytes up to `end`. */
  private overflows(end: number): boolean {
    if (this.partsLength + (end - this.segmentStart) <= this.maxFrameBytes) return false;
    this.drop('overflow', `telegram longer than ${this.maxFrameBytes} bytes without an end`);
    return true;
  }

  private keepSegment(end: number): void {
    if (this.overflows(end)) return;
    if (end > this.segmentStart) {
      this.parts.push(Buffer.from(this.chunk.subarray(this.segmentStart, end)));
      this.partsLength += end - this.segmentStart;
    }
  }

  private complete(end: number): void {
    const tail = this.chunk.subarray(this.segmentStart, Math.max(end, this.segmentStart));
    const frame =
      this.parts.length === 0
        ? Buffer.from(tail)
        : Buffer.concat([...this.parts, tail], this.partsLength + tail.length);
    this.events.push({ frame });
    this.reset();
  }

  private drop(kind: 'parse' | 'crc' | 'overflow', message: string): void {
    this.events.push({ error: new MeterDataError(kind, message) });
    this.reset();
  }
}
