import type { Reading } from '../../reading/reading.js';
import type { SmlCrcAlgorithm } from './crc16-x25.js';
import { NO_INTEGER, type FrameCheck, type LayoutSteps } from './frame-check.js';
import { FrameLayout, type TimeField, type ValueField } from './frame-layout.js';
import { TL_SIGNED, TL_UNSIGNED } from './tl.js';

/** Field number of an integer whose position is not kept. */
export const NO_FIELD = -1;

/**
 * Collects a FrameLayout while ./layout-learner.ts walks a frame: fixed runs between integer
 * steps, free bytes in the mask, and the fields the Reading takes from the integers.
 */
export class LayoutBuilder {
  private readonly steps: number[] = [];
  private readonly values: ValueField[] = [];
  private readonly times: TimeField[] = [];
  private readonly mask: Uint8Array;
  private fieldCount = 0;
  /** Start of the run not yet closed. */
  private runFrom = 8;

  constructor(
    readonly frame: Buffer,
    private readonly reading: Reading,
    private readonly crc: SmlCrcAlgorithm,
    private readonly checker: FrameCheck | undefined,
  ) {
    this.mask = new Uint8Array(frame.length).fill(0xff);
  }

  /** Octet string content whose bytes may differ. */
  octets(start: number, count: number): void {
    this.mask.fill(0, start, start + count);
  }

  /** Content bytes of the element at `at` when it is an integer with a one-byte TL, else -1. */
  integerSize(at: number, maxSize: number): number {
    const tl = this.frame[at]!;
    const type = tl >> 4;
    const size = (tl & 0x0f) - 1;
    return (type === TL_SIGNED || type === TL_UNSIGNED) && size >= 1 && size <= maxSize ? size : -1;
  }

  /**
   * An integer step for the element at `at` when integerSize() accepts it (closing the run before
   * it); returns the element's end, or -1 (nothing recorded).
   */
  integer(at: number, maxSize: number, field = NO_FIELD): number {
    const size = this.integerSize(at, maxSize);
    if (size < 0) return -1;
    this.steps.push(this.runFrom, at - this.runFrom, this.frame[at]! >> 4, maxSize, field);
    this.runFrom = at + 1 + size;
    return this.runFrom;
  }

  /** A value the Reading carries; returns its field number for integer(). */
  valueField(value: Omit<ValueField, 'field'>): number {
    const field = this.fieldCount++;
    this.values.push({ ...value, field });
    return field;
  }

  /** A time that can be the meter time; returns its field number for integer(). */
  timeField(time: Omit<TimeField, 'field'>): number {
    const field = this.fieldCount++;
    this.times.push({ ...time, field });
    return field;
  }

  finish(end: number): FrameLayout {
    this.steps.push(this.runFrom, end - this.runFrom, NO_INTEGER, 0, NO_FIELD);
    const steps: LayoutSteps = {
      steps: Int32Array.from(this.steps),
      template: Uint8Array.from(this.frame),
      mask: this.mask,
      fieldCount: this.fieldCount,
    };
    const parts = {
      steps,
      values: this.values,
      times: this.times,
      identity: this.reading.identity,
      crc: this.crc,
    };
    return new FrameLayout(parts, this.checker);
  }
}
