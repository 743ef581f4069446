import type { MeterIdentity, ObisValue, Reading } from '../../reading/reading.js';
import type { SmlCrcAlgorithm } from './crc16-x25.js';
import { frameCheck, type FrameCheck, type LayoutSteps } from './frame-check.js';
import type { SmlTime } from './message-types.js';
import { readInteger, TL_SIGNED } from './tl.js';
import { canonicalValue, formatSmlTime, isWallClock, NO_MBUS } from './to-reading.js';

/**
 * The layout of a meter's SML transport frames: every byte of the learnt frame's messages except
 * the fields whose content the Reading does not depend on or reads as a number. A meter sends
 * the same messages every second with new transaction ids, message CRCs, second indexes and
 * values, so a frame is checked against the layout in one pass and its values read from where
 * the pass found them (see ./layout-learner.ts for which field is which, and why a frame that
 * matches parses to the Reading built here).
 *
 * The layout is a sequence of steps over the frame's messages (from offset 8 to the padding), each
 * a run of bytes and then, but for the last, one integer element:
 * - the run's bytes equal the learnt frame's bytes from `from` on, `length` of them, except those
 *   the mask frees (the content of octet strings whose TL is in the run): anything goes there;
 * - the integer element has a one-byte TL of the learnt `type` (signed or unsigned integer) and
 *   1..`maxSize` content bytes; its position is kept when `field` >= 0.
 * The sizes of the integers may differ from the learnt frame (meters send each number in as few
 * bytes as it needs), so the frame length may differ too; the steps must end exactly at the
 * padding. A frame with escaped data (1b1b1b1b sent twice) is never checked: its bytes are not
 * the messages' bytes. The checking itself is ./frame-check.ts.
 */

const START_BYTES = 8;
const END_BYTES = 8;
const ESCAPE = 0x1b;

/** A number the Reading carries: 1-0:C.D.E*255 of a list entry. */
export interface ValueField {
  key: string;
  scaler: number | undefined;
  unit: number | undefined;
  /** Index of its integer step's position (see FrameCheck.positions). */
  field: number;
}

/** A GetList.Res time that can be the meter time: timestamp or localTimestamp, in message order. */
export interface TimeField {
  kind: 'timestamp' | 'localTimestamp';
  /** Index of its seconds' integer step position. */
  field: number;
  localOffsetMinutes: number;
  seasonOffsetMinutes: number;
}

export interface FrameLayoutParts {
  /** The steps over the learnt frame (a copy of it as template). */
  steps: LayoutSteps;
  /** The values the Reading carries, in frame order. */
  values: readonly ValueField[];
  times: readonly TimeField[];
  identity: Readonly<MeterIdentity>;
  crc: SmlCrcAlgorithm;
}

export class FrameLayout {
  // `declare`: no class field definitions (which would first set each field to undefined): V8 then
  // knows each field's type and does not re-check it on every use.
  declare private readonly steps: LayoutSteps;
  declare private readonly values: readonly ValueField[];
  declare private readonly times: readonly TimeField[];
  declare private readonly identity: Readonly<MeterIdentity>;
  declare private readonly crc: SmlCrcAlgorithm;
  declare private readonly checker: FrameCheck;

  /** `checker`: the JavaScript or WebAssembly check (default: the process-wide one). */
  constructor(parts: FrameLayoutParts, checker: FrameCheck = frameCheck()) {
    this.steps = parts.steps;
    this.values = parts.values;
    this.times = parts.times;
    this.identity = parts.identity;
    this.crc = parts.crc;
    this.checker = checker;
  }

  /**
   * The Reading of a transport frame without escaped data that has this layout and a good frame
   * checksum; undefined for any other frame.
   */
  read(frame: Buffer, receivedAt: number): Reading | undefined {
    const length = frame.length;
    if (length < START_BYTES + END_BYTES || !hasEscapes(frame, length)) return undefined;
    const checker = this.checker;
    if (!checker.check(frame, this.steps, this.crc)) return undefined;
    return this.readingOf(frame, receivedAt, checker.positions);
  }

  /** The Reading of a frame whose integers are at `positions`. */
  private readingOf(frame: Buffer, receivedAt: number, positions: Int32Array): Reading {
    const values = new Map<string, ObisValue>();
    for (const field of this.values) {
      values.set(
        field.key,
        canonicalValue(integerAt(frame, positions[field.field]!), field.scaler, field.unit),
      );
    }
    const reading: Reading = { receivedAt, protocol: 'SML', identity: this.identity, values, mbus: NO_MBUS };
    if (this.times.length > 0) {
      const meterTime = this.meterTime(frame, positions);
      if (meterTime !== undefined) reading.meterTime = meterTime;
    }
    return reading;
  }

  /** As smlFrameToReading: the first GetList.Res time that is a wall clock time. */
  private meterTime(frame: Buffer, positions: Int32Array): string | undefined {
    for (const time of this.times) {
      const seconds = Number(integerAt(frame, positions[time.field]!));
      const smlTime: SmlTime =
        time.kind === 'timestamp'
          ? { kind: time.kind, seconds }
          : {
              kind: time.kind,
              seconds,
              localOffsetMinutes: time.localOffsetMinutes,
              seasonOffsetMinutes: time.seasonOffsetMinutes,
            };
      if (isWallClock(smlTime)) return formatSmlTime(smlTime);
    }
    return undefined;
  }
}

/** The integer element at `at` (one-byte TL, 1..8 content bytes), as the TL reader decodes it. */
function integerAt(frame: Buffer, at: number): number | bigint {
  const tl = frame[at]!;
  return readInteger(frame, at + 1, (tl & 0x0f) - 1, tl >> 4 === TL_SIGNED);
}

/** Start escape 1b1b1b1b 01010101 and end escape 1b1b1b1b 1a in their places. */
function hasEscapes(frame: Buffer, length: number): boolean {
  const end = length - END_BYTES;
  return (
    frame[0] === ESCAPE &&
    frame[1] === ESCAPE &&
    frame[2] === ESCAPE &&
    frame[3] === ESCAPE &&
    frame[4] === 1 &&
    frame[5] === 1 &&
    frame[6] === 1 &&
    frame[7] === 1 &&
    frame[end] === ESCAPE &&
    frame[end + 1] === ESCAPE &&
    frame[end + 2] === ESCAPE &&
    frame[end + 3] === ESCAPE &&
    frame[end + 4] === 0x1a
  );
}
