import { isIdentificationLine } from './identification.js';
import { ACK, BANG, CR, ETX, LF, SLASH, STX } from '../../ascii-codes.js';

/**
 * Splits an IEC 62056-21 byte stream into readout frames (§6.3):
 * - `/XXXZ... CR LF` identification, optional echoed ACK lines, `STX data ! CR LF ETX BCC`;
 * - a bare data message `STX ... ETX BCC` (request mode, identification read separately);
 * - mode D push: identification, data lines, end at the `!` line (no STX, ETX, BCC).
 * A data message whose `!` line is not followed by ETX ends without a block check. Bytes outside
 * frames are counted as garbage; a '/' starts a new frame (resync); a frame longer than
 * `maxFrameSize` is discarded as an overflow, so memory stays bounded.
 */

export type D0FramerEvent =
  | { kind: 'frame'; frame: Buffer }
  /** A frame cut short by the start of the next one (bytes lost, meter restarted). */
  | { kind: 'truncated'; frame: Buffer }
  | { kind: 'overflow'; discarded: number };

/** bytesIn = frameBytes + garbageBytes + discardedBytes + pendingBytes at every call boundary. */
export interface D0FramerCounters {
  bytesIn: number;
  /** Bytes handed out in 'frame' and 'truncated' events. */
  frameBytes: number;
  garbageBytes: number;
  /** Bytes dropped by overflows and resets. */
  discardedBytes: number;
  frames: number;
  truncated: number;
  overflows: number;
}

export interface D0FramerOptions {
  /** Longest frame kept (bytes); default 64 KiB (a full readout with billing periods is ~10 KB). */
  maxFrameSize?: number;
}

export const DEFAULT_MAX_FRAME_SIZE = 64 * 1024;
/** IEC 62056-21 §6.3.2: identification is at most 16 characters after `/XXXZ\W`; generous bound. */
const MAX_IDENT_LINE = 80;

const enum State {
  Hunt,
  Ident,
  AfterIdent,
  EchoLine,
  Data,
  EndLine,
  AwaitEtx,
  AwaitBcc,
}

const EMPTY = Buffer.alloc(0);

export class D0Framer {
  readonly counters: D0FramerCounters = {
    bytesIn: 0,
    frameBytes: 0,
    garbageBytes: 0,
    discardedBytes: 0,
    frames: 0,
    truncated: 0,
    overflows: 0,
  };
  private readonly maxFrameSize: number;
  private state = State.Hunt;
  private pending: Buffer[] = [];
  private pendingLength = 0;
  /** Start of the current frame in the chunk being scanned (0 when it began in an earlier chunk). */
  private frameStart = 0;
  private withStx = false;
  private events: D0FramerEvent[] = [];
  private chunk: Buffer = EMPTY;
  /** Per chunk: index of the next STX, ETX, LF, '!', '/' found by nextIndex (by byte value). */
  private readonly found: number[] = new Array<number>(SLASH + 1).fill(-1);

  constructor(options: D0FramerOptions = {}) {
    this.maxFrameSize = options.maxFrameSize ?? DEFAULT_MAX_FRAME_SIZE;
  }

  /** Bytes of a frame in progress (held between calls). */
  get pendingBytes(): number {
    return this.state === State.Hunt ? 0 : this.pendingLength;
  }

  /** True between frames: the next byte pushed is looked at as a possible frame start. */
  get idle(): boolean {
    return this.state === State.Hunt;
  }

  /** Counts, as push() would, a chunk the caller found to be exactly one frame while idle. */
  countWholeFrame(length: number): void {
    this.counters.bytesIn += length;
    this.counters.frameBytes += length;
    this.counters.frames++;
  }

  reset(): void {
    this.counters.discardedBytes += this.pendingBytes;
    this.clearFrame(0);
  }

  push(chunk: Buffer): D0FramerEvent[] {
    this.events = [];
    this.chunk = chunk;
    this.frameStart = 0;
    this.counters.bytesIn += chunk.length;
    this.found.fill(-1);
    let i = 0;
    while (i < chunk.length) {
      if (this.state === State.Data) i = this.scanData(chunk, i);
      else if (this.state === State.Hunt) i = this.scanHunt(chunk, i);
      else if (this.state === State.Ident) i = this.scanIdent(chunk, i);
      else i = this.step(chunk[i]!, i);
    }
    if (this.state !== State.Hunt) this.keepPartial();
    this.chunk = EMPTY;
    this.frameStart = 0;
    return this.events;
  }

  /** End of stream: a data message complete up to its `!` line is emitted without block check. */
  flush(): D0FramerEvent[] {
    this.events = [];
    if (this.state === State.AwaitEtx || (this.state === State.EndLine && !this.withStx)) {
      this.emit('frame', 0);
    } else if (this.state === State.Ident || this.state === State.AfterIdent) {
      this.dropAsGarbage(0);
    } else if (this.state !== State.Hunt) {
      this.emit('truncated', 0);
    }
    return this.events;
  }

  /** One byte in the short states; returns the index to continue at. */
  private step(byte: number, i: number): number {
    switch (this.state) {
      case State.AfterIdent:
        return this.stepAfterIdent(byte, i);
      case State.EchoLine:
        if (byte === LF) this.state = State.AfterIdent;
        return i + 1;
      case State.EndLine:
        if (byte === LF) {
          if (this.withStx) this.state = State.AwaitEtx;
          else this.emit('frame', i + 1);
        } else if (byte === ETX && this.withStx) this.state = State.AwaitBcc;
        return i + 1;
      case State.AwaitEtx:
        if (byte === ETX) {
          this.state = State.AwaitBcc;
          return i + 1;
        }
        this.emit('frame', i);
        return i;
      default:
        this.emit('frame', i + 1);
        return i + 1;
    }
  }

  /** The identification line up to its LF; a '/' restarts it, an overlong line is garbage. */
  private scanIdent(chunk: Buffer, from: number): number {
    const next = Math.min(this.nextIndex(chunk, SLASH, from), this.nextIndex(chunk, LF, from));
    const slash = next < chunk.length && chunk[next] === SLASH;
    const lineEnd = slash ? next : Math.min(next + 1, chunk.length);
    if (this.currentLength(lineEnd) > MAX_IDENT_LINE) {
      this.dropAsGarbage(lineEnd);
      return lineEnd;
    }
    if (next >= chunk.length) return next;
    if (slash) {
      this.dropAsGarbage(next);
      this.begin(State.Ident, next);
      return next + 1;
    }
    const valid =
      this.pendingLength === 0
        ? isIdentificationLine(chunk, this.frameStart, next + 1)
        : isIdentificationLine(this.bytesUpTo(next + 1), 0, this.currentLength(next + 1));
    if (valid) this.state = State.AfterIdent;
    else this.dropAsGarbage(next + 1);
    return next + 1;
  }

  /** Between identification and data: blank lines, echoed option select (ACK ... CR LF), STX. */
  private stepAfterIdent(byte: number, i: number): number {
    if (byte === CR || byte === LF) return i + 1;
    if (byte === ACK) {
      this.state = State.EchoLine;
    } else if (byte === STX) {
      this.state = State.Data;
      this.withStx = true;
    } else if (byte === SLASH) {
      this.dropAsGarbage(i);
      return i;
    } else if (byte >= 0x20 && byte < 0x7f) {
      this.state = State.Data;
      this.withStx = false;
      return i;
    } else {
      this.dropAsGarbage(i);
      return i;
    }
    return i + 1;
  }

  /** Skips garbage to the next frame start ('/' or STX); returns the index after it. */
  private scanHunt(chunk: Buffer, from: number): number {
    const next = Math.min(this.nextIndex(chunk, SLASH, from), this.nextIndex(chunk, STX, from));
    this.counters.garbageBytes += next - from;
    if (next >= chunk.length) return next;
    this.frameStart = next;
    this.state = chunk[next] === SLASH ? State.Ident : State.Data;
    this.withStx = true;
    return next + 1;
  }

  /**
   * Jumps to the next byte that ends or restarts a data message: '/' (never part of a data message,
   * IEC 62056-21 §6.3.4, so it starts the next frame), '!' (end of the data) or, after STX, ETX.
   * Values cannot contain '!' either, so no parenthesis tracking is needed.
   */
  private scanData(chunk: Buffer, from: number): number {
    let next = Math.min(this.nextIndex(chunk, SLASH, from), this.nextIndex(chunk, BANG, from));
    if (this.withStx) next = Math.min(next, this.nextIndex(chunk, ETX, from));
    if (next >= chunk.length) return next;
    const byte = chunk[next]!;
    if (byte === SLASH) {
      this.emit('truncated', next);
      this.begin(State.Ident, next);
    } else {
      this.state = byte === BANG ? State.EndLine : State.AwaitBcc;
    }
    return next + 1;
  }

  /** Next index of `byte` at or after `from` (chunk length when none); cached, so linear per chunk. */
  private nextIndex(chunk: Buffer, byte: number, from: number): number {
    const cached = this.found[byte]!;
    if (cached >= from) return cached;
    const index = chunk.indexOf(byte, from);
    const next = index < 0 ? chunk.length : index;
    this.found[byte] = next;
    return next;
  }

  private begin(state: State, i: number): void {
    this.state = state;
    this.frameStart = i;
  }

  private currentLength(end: number): number {
    return this.pendingLength + (end - this.frameStart);
  }

  /** The current frame's bytes up to `end` (exclusive) in the chunk, as one new buffer. */
  private bytesUpTo(end: number): Buffer {
    const copy = Buffer.allocUnsafe(this.currentLength(end));
    let offset = 0;
    for (const part of this.pending) offset += part.copy(copy, offset);
    this.chunk.copy(copy, offset, this.frameStart, end);
    return copy;
  }

  private clearFrame(next: number): void {
    this.pending = [];
    this.pendingLength = 0;
    this.frameStart = next;
    this.state = State.Hunt;
  }

  private emit(kind: 'frame' | 'truncated', end: number): void {
    const length = this.currentLength(end);
    if (length > this.maxFrameSize) {
      this.overflow(length, end);
      return;
    }
    const frame = this.bytesUpTo(end);
    this.counters.frameBytes += length;
    if (kind === 'frame') this.counters.frames++;
    else this.counters.truncated++;
    this.events.push({ kind, frame });
    this.clearFrame(end);
  }

  private overflow(length: number, end: number): void {
    this.counters.discardedBytes += length;
    this.counters.overflows++;
    this.events.push({ kind: 'overflow', discarded: length });
    this.clearFrame(end);
  }

  private dropAsGarbage(end: number): void {
    this.counters.garbageBytes += this.currentLength(end);
    this.clearFrame(end);
  }

  /** Keeps the unfinished frame's bytes of this chunk, or discards it when it grew too long. */
  private keepPartial(): void {
    const length = this.currentLength(this.chunk.length);
    if (length > this.maxFrameSize) {
      this.overflow(length, this.chunk.length);
      return;
    }
    if (this.frameStart < this.chunk.length) {
      const rest = Buffer.allocUnsafe(this.chunk.length - this.frameStart);
      this.chunk.copy(rest, 0, this.frameStart);
      this.pending.push(rest);
      this.pendingLength = length;
    }
  }
}
