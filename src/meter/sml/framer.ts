/**
 * SML transport protocol v1 framing (SML 1.04, "SML-Transport-Protokoll Version 1"):
 *
 *   1b1b1b1b 01010101 | escaped SML messages, padded to a multiple of 4 | 1b1b1b1b 1a NN C1 C2
 *
 * NN is the number of padding bytes (0..3) before the end escape, C1 C2 the frame CRC. A literal
 * 1b1b1b1b inside the data is sent twice (1b1b1b1b 1b1b1b1b). Because data and padding fill whole
 * 4-byte blocks, escape sequences sit at offsets divisible by 4 from the frame start.
 *
 * Resynchronisation: a start escape is recognised at any offset, also inside a frame (the partial
 * frame is dropped). An end escape is recognised at any offset too, so a frame that lost a byte on
 * the line ends where the meter ended it and fails its CRC instead of swallowing the next frames
 * (as sml-rs does; the libsml-testing dumps with lost bytes count the same frames). The price: a
 * misaligned 1b1b1b1b 1a that happens to occur in the data, which the sender does not escape,
 * also ends the frame (and fails its CRC). Doubled escapes count only at aligned offsets. A frame that grows beyond `maxFrameBytes` without an end is discarded (overflow); memory stays
 * bounded by about twice that size whatever the input.
 */

const ESCAPE_BYTE = 0x1b;
const START_BYTES = 8;
/** Escape (4) + `1a NN C1 C2` (4). */
const ESCAPE_SEQUENCE_BYTES = 8;
/** Bytes kept while hunting: a start escape may begin in them and end in the next chunk. */
const START_PREFIX_BYTES = START_BYTES - 1;

export const DEFAULT_MAX_FRAME_BYTES = 16 * 1024;
const EMPTY = Buffer.alloc(0);
const INITIAL_STORE_BYTES = 1024;

export type FramerEvent =
  /**
   * A complete frame, start escape through CRC, still escaped; `escaped` tells whether it holds
   * escaped data (a doubled 1b1b1b1b). The frame is the pushed chunk itself or a view of it when
   * the chunk held it whole, else a copy: either way the caller may keep it.
   */
  | { kind: 'frame'; frame: Buffer; escaped: boolean }
  /** An aligned escape sequence that is neither escaped data, start nor end: frame dropped. */
  | { kind: 'invalid-escape'; frame: Buffer }
  /** A frame exceeded the maximum size without an end escape; its bytes were dropped. */
  | { kind: 'overflow'; discardedBytes: number };

export interface FramerStats {
  /** Runs of bytes outside complete frames: garbage before a start, partial frames cut short. */
  discardedRuns: number;
  discardedBytes: number;
}

export class SmlFramer {
  /** Bytes being scanned: the internal buffer, or the caller's chunk while nothing is buffered. */
  private src: Buffer = EMPTY;
  /** Holds a partial frame between pushes; grows on demand up to about 2 x maxFrameBytes. */
  private store: Buffer = EMPTY;
  private head = 0;
  private len = 0;
  private inFrame = false;
  /** Offset from `head` where the escape search of the current frame resumes. */
  private scanFrom = 0;
  /** Whether the current frame has escaped data so far. */
  private escaped = false;
  /** Bytes dropped while hunting for a start escape, not yet closed as a run. */
  private pendingDiscard = 0;
  readonly stats: FramerStats = { discardedRuns: 0, discardedBytes: 0 };

  constructor(readonly maxFrameBytes: number = DEFAULT_MAX_FRAME_BYTES) {
    if (!Number.isInteger(maxFrameBytes) || maxFrameBytes < 16) {
      throw new RangeError(`maxFrameBytes must be an integer >= 16, got ${maxFrameBytes}`);
    }
  }

  /** Bytes held between calls (a partial frame or a possible start-escape prefix). */
  get bufferedBytes(): number {
    return this.len - this.head;
  }

  /** Feeds a chunk; appends an event per completed, invalid or oversized frame to `out`. */
  push(chunk: Buffer, out: FramerEvent[]): void {
    for (let offset = 0; offset < chunk.length; offset += this.maxFrameBytes) {
      const whole = offset === 0 && chunk.length <= this.maxFrameBytes;
      const slice = whole
        ? chunk
        : chunk.subarray(offset, Math.min(chunk.length, offset + this.maxFrameBytes));
      if (this.len === this.head) {
        this.src = slice;
        this.head = 0;
        this.len = slice.length;
      } else {
        this.append(slice);
      }
      this.process(out);
      if (this.src !== this.store) this.keepRemainder();
    }
  }

  /** End of input: whatever is buffered counts as one discarded run (a truncated last frame). */
  finish(): void {
    const leftover = this.pendingDiscard + this.bufferedBytes;
    if (leftover > 0) this.closeDiscardRun(leftover);
    this.reset();
  }

  /** Drops the partial frame without counting it (after a reconnect). */
  reset(): void {
    this.src = this.store;
    this.head = 0;
    this.len = 0;
    this.inFrame = false;
    this.scanFrom = 0;
    this.pendingDiscard = 0;
  }

  /** Appends to the buffered bytes, moving them to the front of the (grown) store. */
  private append(bytes: Buffer): void {
    const kept = this.len - this.head;
    if (kept + bytes.length > this.store.length) {
      const grown = Buffer.allocUnsafe(
        Math.max(this.store.length * 2, INITIAL_STORE_BYTES, kept + bytes.length),
      );
      this.src.copy(grown, 0, this.head, this.len);
      this.store = grown;
    } else if (this.src !== this.store || this.head > 0) {
      this.src.copy(this.store, 0, this.head, this.len);
    }
    // TypedArray set (a memcpy) even for the few bytes of a serial read: measured faster than a
    // byte loop here.
    this.store.set(bytes, kept);
    this.src = this.store;
    this.head = 0;
    this.len = kept + bytes.length;
  }

  /** After scanning a caller's chunk in place: copies what is left of it into the store. */
  private keepRemainder(): void {
    const chunk = this.src;
    const start = this.head;
    const end = this.len;
    this.src = this.store;
    this.head = 0;
    this.len = 0;
    if (end > start) this.append(start === 0 && end === chunk.length ? chunk : chunk.subarray(start, end));
  }

  private process(out: FramerEvent[]): void {
    for (;;) {
      if (!this.inFrame && !this.huntStart()) return;
      if (!this.scanFrame(out)) break;
    }
    if (this.inFrame && this.len - this.head > this.maxFrameBytes) {
      const keep = Math.min(START_PREFIX_BYTES, this.len - this.head);
      out.push({ kind: 'overflow', discardedBytes: this.len - this.head - keep });
      this.head = this.len - keep;
      this.inFrame = false;
    }
  }

  /** Moves `head` to the next start escape; false when there is none yet. */
  private huntStart(): boolean {
    const start = this.findStart(this.head);
    if (start < 0) {
      const keep = Math.min(START_PREFIX_BYTES, this.len - this.head);
      this.pendingDiscard += this.len - keep - this.head;
      this.head = this.len - keep;
      return false;
    }
    const skipped = this.pendingDiscard + start - this.head;
    if (skipped > 0) this.closeDiscardRun(skipped);
    this.pendingDiscard = 0;
    this.head = start;
    this.inFrame = true;
    this.scanFrom = START_BYTES;
    this.escaped = false;
    return true;
  }

  /**
   * Scans the current frame for escape sequences. Returns true when the frame ended (or was
   * dropped) and scanning goes on with the next one, false when more bytes are needed.
   */
  private scanFrame(out: FramerEvent[]): boolean {
    let position = this.head + this.scanFrom;
    for (;;) {
      const escape = this.findEscape(position);
      if (escape < 0 || escape + ESCAPE_SEQUENCE_BYTES > this.len) {
        this.scanFrom = (escape < 0 ? Math.max(position, this.len - 3) : escape) - this.head;
        return false;
      }
      const next = escape + 4;
      const bytes = this.src;
      const word =
        ((bytes[next]! << 24) | (bytes[next + 1]! << 16) | (bytes[next + 2]! << 8) | bytes[next + 3]!) >>> 0;
      if (bytes[next] === 0x1a) {
        this.emit(out, 'frame', escape + ESCAPE_SEQUENCE_BYTES);
        return true;
      }
      if (word === 0x01010101) {
        this.closeDiscardRun(escape - this.head);
        this.head = escape;
        this.scanFrom = START_BYTES;
        this.escaped = false;
        position = escape + START_BYTES;
      } else if (((escape - this.head) & 3) !== 0) {
        position = escape + 1;
      } else if (word === 0x1b1b1b1b) {
        this.escaped = true;
        position = next + 4;
      } else {
        this.emit(out, 'invalid-escape', escape + ESCAPE_SEQUENCE_BYTES);
        return true;
      }
    }
  }

  /**
   * Offset of the next 1b1b1b1b at or after `from`, or -1. Any run of four 0x1b covers every
   * offset modulo 4, so only every fourth byte is tested; a hit is then widened to its run.
   */
  private findEscape(from: number): number {
    const bytes = this.src;
    const last = this.len - 4;
    for (let probe = from + 3; probe <= last + 3; probe += 4) {
      if (bytes[probe] !== ESCAPE_BYTE) continue;
      let run = probe;
      while (run > from && bytes[run - 1] === ESCAPE_BYTE) run--;
      for (let i = run; i <= probe && i <= last; i++) {
        if (bytes[i + 1] === ESCAPE_BYTE && bytes[i + 2] === ESCAPE_BYTE && bytes[i + 3] === ESCAPE_BYTE)
          return i;
      }
    }
    return -1;
  }

  /** Offset of the next start escape 1b1b1b1b 01010101 at or after `from`, or -1. */
  private findStart(from: number): number {
    const bytes = this.src;
    for (let i = this.findEscape(from); i >= 0 && i + START_BYTES <= this.len; i = this.findEscape(i + 1)) {
      if (bytes[i + 4] === 1 && bytes[i + 5] === 1 && bytes[i + 6] === 1 && bytes[i + 7] === 1) return i;
    }
    return -1;
  }

  private emit(out: FramerEvent[], kind: 'frame' | 'invalid-escape', end: number): void {
    const frame = this.frameBytes(end);
    out.push(kind === 'frame' ? { kind, frame, escaped: this.escaped } : { kind, frame });
    this.head = end;
    this.inFrame = false;
  }

  /**
   * The bytes from `head` to `end`: the caller's chunk, or a view of it, while scanning it in place
   * (the caller hands over its chunk and does not reuse it: serial and socket reads are fresh
   * buffers); a copy out of the store, which the next push overwrites.
   */
  private frameBytes(end: number): Buffer {
    const src = this.src;
    if (src !== this.store) return this.head === 0 && end === src.length ? src : src.subarray(this.head, end);
    const frame = Buffer.allocUnsafe(end - this.head);
    src.copy(frame, 0, this.head, end);
    return frame;
  }

  private closeDiscardRun(bytes: number): void {
    this.stats.discardedRuns += 1;
    this.stats.discardedBytes += bytes;
  }
}
