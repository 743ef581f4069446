import { systemClock, type Clock, type Timer } from '../clock.js';
import { crcMatches, sealFrame } from '../modbus-protocol/rtu-frame.js';
import { answerPdu, ReplyCounters, type RegisterSpace } from './pdu.js';

/**
 * Modbus RTU slave (Modbus over Serial Line Specification V1.02, §2.5.1; the frame, its CRC and
 * the t3.5 silence are in rtu-frame.ts):
 *
 * - Address 0 is broadcast (no reply; reads are never broadcast), 1..247 a slave; a frame for
 *   another address is ignored, as every slave on an RS485 bus sees all traffic. A frame with a
 *   wrong CRC is discarded without an answer.
 *
 * A request of this slave is recognised as soon as its bytes are complete (a read request is 8
 * bytes; its length follows from the function code) and its CRC matches, without waiting for the
 * silence that ends it: USB-RS485 adapters deliver bytes in bursts (an FTDI's latency timer holds
 * them up to 16 ms), so silence measured in Node is not the line's silence. For the same reason an
 * incomplete request addressed to this slave is kept across a silence for up to MAX_FRAME_MS; any
 * other bytes followed by a silence are one frame: counted and dropped. The 1.5-character
 * inter-character rule is not observable behind such an adapter and is not enforced.
 *
 * Silence is measured with a timer, and libuv runs due timers before it polls for input: when the
 * event loop was held up (garbage collection, a slow write elsewhere in the daemon), the timer fires
 * late and before the bytes that arrived meanwhile are read, so that silence is the loop's, not the
 * line's. A late timer therefore waits one more t3.5 before it ends a frame, and the time the loop
 * was held up does not count towards MAX_FRAME_MS.
 *
 * Turnaround: the reply goes out no earlier than t3.5 after the last request byte was received
 * (§2.5.1.1: a frame starts after a silence of at least 3.5 characters, so the master's request
 * has ended only then). A master on a direct UART that releases its RS485 driver late would lose
 * the first bytes of an earlier reply. Measured on the monotonic clock from the chunk that
 * completed the request; the timer is re-armed if it fires early.
 */

/** §2.5.1: RTU frames are at most 256 bytes. */
const MAX_ADU = 256;
/** An incomplete request to this slave waits at most this long for the rest of its bytes. */
const MAX_FRAME_MS = 100;

/**
 * Length of the request ADU (address + PDU + CRC) that starts at buf[offset], as far as its
 * function code fixes it: 8 for the fixed-size requests 01..06, 9 + byte count for 15 and 16;
 * undefined when not yet known or not fixed by the function code.
 */
function requestLength(buf: Buffer, offset: number): number | undefined {
  const functionCode = buf[offset + 1];
  if (functionCode === undefined) return undefined;
  if (functionCode >= 0x01 && functionCode <= 0x06) return 8;
  if (functionCode === 0x0f || functionCode === 0x10) {
    const count = buf[offset + 6];
    return count === undefined ? undefined : 9 + count;
  }
  return undefined;
}

export interface RtuSlaveOptions {
  unitId: number;
  space: RegisterSpace;
  /** t3.5 of the line in ms (interFrameMs). */
  silenceMs: number;
  /** Sends a reply frame on the line. */
  send: (frame: Buffer) => void;
  /** A monotonic clock in ms (default performance.now): silences and the turnaround are measured on it. */
  now?: () => number;
  /** The silence and turnaround timers (docs/architecture.md#clock). */
  clock?: Clock;
}

/** Counts the requests of this slave it answered (ReplyCounters); other frames below. */
export class RtuSlave extends ReplyCounters {
  /** Frames discarded for a wrong CRC or a length no request can have. */
  badFrames = 0;
  /** Valid frames for another unit id (or broadcast), ignored. */
  otherUnit = 0;
  space: RegisterSpace;
  private readonly unitId: number;
  private readonly silenceMs: number;
  private readonly send: (frame: Buffer) => void;
  private readonly now: () => number;
  private readonly clock: Clock;
  private pending: Buffer = Buffer.alloc(0);
  private firstByteAt = 0;
  private silence: Timer | undefined;
  /** When the silence timer was last (re)armed. */
  private armedAt = 0;
  /** How long the event loop held up silence timers since the pending bytes began. */
  private heldUpMs = 0;
  /** A late silence timer already waited once more for bytes read after it. */
  private deferred = false;
  /** When the last chunk was received (`now`): replies wait t3.5 from here. */
  private lastByteAt = 0;
  private readonly outbox: Buffer[] = [];
  private turnaround: Timer | undefined;

  constructor(options: RtuSlaveOptions) {
    super();
    this.unitId = options.unitId;
    this.space = options.space;
    this.silenceMs = options.silenceMs;
    this.send = options.send;
    this.now = options.now ?? (() => performance.now());
    this.clock = options.clock ?? systemClock;
  }

  receive(chunk: Buffer): void {
    this.lastByteAt = this.now();
    if (this.pending.length === 0) this.startFrame();
    this.deferred = false;
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    this.answerCompleteRequests();
    if (this.pending.length > MAX_ADU * 2) this.drop(this.pending.length - MAX_ADU);
    this.armSilence();
  }

  /** Stops the silence timer (port closed). */
  reset(): void {
    if (this.silence) this.clock.clearTimeout(this.silence);
    this.silence = undefined;
    if (this.turnaround) this.clock.clearTimeout(this.turnaround);
    this.turnaround = undefined;
    this.outbox.length = 0;
    this.pending = Buffer.alloc(0);
  }

  /** Answers every complete request of this slave in `pending`, skipping bytes before one. */
  private answerCompleteRequests(): void {
    for (;;) {
      const at = this.findRequest();
      if (at === undefined) return;
      const { offset, length } = at;
      if (offset > 0) this.dropFrame(offset);
      this.answer(this.pending.subarray(0, length));
      this.pending = this.pending.subarray(length);
      this.startFrame();
    }
  }

  private startFrame(): void {
    this.firstByteAt = this.now();
    this.heldUpMs = 0;
  }

  /** The first complete request for this unit with a matching CRC. */
  private findRequest(): { offset: number; length: number } | undefined {
    const buf = this.pending;
    for (let offset = 0; offset + 4 <= buf.length; offset++) {
      if (buf[offset] !== this.unitId) continue;
      const length = requestLength(buf, offset);
      if (length === undefined || offset + length > buf.length) continue;
      if (crcMatches(buf, offset, length)) return { offset, length };
    }
    return undefined;
  }

  private armSilence(): void {
    if (this.pending.length === 0) {
      if (this.silence) this.clock.clearTimeout(this.silence);
      this.silence = undefined;
      return;
    }
    this.armedAt = this.now();
    if (this.silence) this.silence.refresh();
    else this.silence = this.clock.setTimeout(() => this.silenceEnded(), this.silenceDelayMs());
  }

  private silenceDelayMs(): number {
    return Math.max(1, Math.ceil(this.silenceMs));
  }

  /** t3.5 without a byte: what is pending is one frame, unless it is the start of our request. */
  private silenceEnded(): void {
    this.silence = undefined;
    const buf = this.pending;
    if (buf.length === 0) return;
    const late = this.now() - this.armedAt - this.silenceDelayMs();
    if (late > this.silenceDelayMs()) {
      this.heldUpMs += late;
      if (!this.deferred) {
        this.deferred = true;
        this.armSilence();
        return;
      }
    }
    const expected = requestLength(buf, 0);
    const ours = buf[0] === this.unitId && (expected === undefined || buf.length < expected);
    if (ours && this.now() - this.firstByteAt - this.heldUpMs < MAX_FRAME_MS) {
      this.armSilence();
      return;
    }
    this.classify(buf);
    this.pending = Buffer.alloc(0);
  }

  /** A silence-delimited frame that was not a complete request of ours. */
  private classify(frame: Buffer): void {
    const crcOk = frame.length >= 4 && crcMatches(frame, 0, frame.length);
    if (!crcOk) {
      this.badFrames += 1;
      return;
    }
    if (frame[0] !== this.unitId) {
      this.otherUnit += 1;
      return;
    }
    // A valid frame for us whose function code has no fixed request length: answer it
    // (ILLEGAL_FUNCTION for anything but 03 / 04).
    this.answer(frame);
  }

  private dropFrame(bytes: number): void {
    this.classify(this.pending.subarray(0, bytes));
    this.pending = this.pending.subarray(bytes);
  }

  private drop(bytes: number): void {
    this.badFrames += 1;
    this.pending = Buffer.from(this.pending.subarray(bytes));
  }

  private answer(frame: Buffer): void {
    const reply = answerPdu(this.space, frame, 1, frame.length - 3, 1, 2);
    this.countReply(reply, 1);
    reply[0] = this.unitId;
    this.outbox.push(sealFrame(reply));
    this.armTurnaround();
  }

  /** Sends the queued replies once t3.5 has passed since the last received byte. */
  private armTurnaround(): void {
    if (this.turnaround || this.outbox.length === 0) return;
    const wait = this.lastByteAt + this.silenceMs - this.now();
    if (wait <= 0) {
      this.flush();
      return;
    }
    this.turnaround = this.clock.setTimeout(() => {
      this.turnaround = undefined;
      this.armTurnaround();
    }, Math.ceil(wait));
  }

  private flush(): void {
    for (const frame of this.outbox.splice(0)) this.send(frame);
  }
}
