import { obisName, type ObisName } from './obis-names.js';
import { addObjectValues, type ValuePositions } from './object-values.js';
import type { DsmrReadingBuilder } from './to-reading.js';

const CR = 0x0d;
const LF = 0x0a;
const SPACE = 0x20;
const TAB = 0x09;
const OPEN = 0x28;
const HYPHEN = 0x2d;
const COLON = 0x3a;
const DOT = 0x2e;

/**
 * Reads the data lines of a telegram of the usual shape straight into a DsmrReadingBuilder (see
 * ./direct-reading.ts for the shape), recording where each object's values are. Blank lines and
 * blanks between lines are skipped as parseDsmrTelegram skips them; every other departure from
 * the shape makes read() return false.
 */
export class LineReader {
  /** The objects read, their value counts, and the positions of every value in the text. */
  readonly names: ObisName[] = [];
  readonly counts: number[] = [];
  readonly starts: number[] = [];
  readonly ends: number[] = [];
  private readonly values: ValuePositions;
  /** Content end of the line being read (before CR LF or LF), and the start of the line after. */
  private stop = 0;
  private next = 0;
  /** Position after what group() read. */
  private cursor = 0;

  /**
   * @param bytes the telegram's bytes, of which `text` is the latin1 decoding
   * @param sequence the references of the telegram read before, in order; overwritten with this
   *   telegram's as they are read (a meter sends the same objects in the same order every time,
   *   so the reference at the same position is compared first).
   */
  constructor(
    private readonly text: string,
    bytes: Uint8Array,
    private readonly end: number,
    private readonly sequence: ObisName[],
    private readonly builder: DsmrReadingBuilder,
  ) {
    this.values = { bytes, starts: this.starts, ends: this.ends, first: 0, count: 0, shift: 0 };
  }

  /** Reads the lines from `pos` to the '!'; false at the first line of another shape. */
  read(pos: number): boolean {
    const text = this.text;
    while (pos < this.end) {
      const code = text.charCodeAt(pos);
      if (code === CR || code === LF || code === SPACE || code === TAB) {
        pos++;
        continue;
      }
      this.enterLine(pos);
      const name = this.nameAt(pos);
      if (name === undefined || !this.readValues(this.cursor - 1)) return false;
      this.values.first = this.starts.length - this.counts[this.counts.length - 1]!;
      this.values.count = this.counts[this.counts.length - 1]!;
      addObjectValues(this.builder, name, text, this.values);
      pos = this.next;
    }
    this.sequence.length = this.names.length;
    return true;
  }

  private enterLine(pos: number): void {
    const lf = this.text.indexOf('\n', pos);
    const stop = lf < 0 || lf >= this.end ? this.end : lf;
    this.next = stop === this.end ? stop : stop + 1;
    this.stop = stop > pos && this.text.charCodeAt(stop - 1) === CR ? stop - 1 : stop;
  }

  /** The reference "A-B:C.D.E" directly followed by '(' at `pos`, with `cursor` after the '('. */
  private nameAt(pos: number): ObisName | undefined {
    const index = this.names.length;
    const predicted = this.sequence[index];
    const name = predicted !== undefined && this.isAt(predicted, pos) ? predicted : this.readName(pos);
    if (name === undefined) return undefined;
    this.sequence[index] = name;
    this.names.push(name);
    return name;
  }

  /** The canonical "A-B:C.D.E(" is what readName would read, found without reading digits. */
  private isAt(name: ObisName, pos: number): boolean {
    const open = pos + name.lineStart.length;
    if (open > this.stop || this.text.slice(pos, open) !== name.lineStart) return false;
    this.cursor = open;
    return true;
  }

  private readName(pos: number): ObisName | undefined {
    const a = this.group(pos, HYPHEN);
    const b = a < 0 ? -1 : this.group(this.cursor, COLON);
    const c = b < 0 ? -1 : this.group(this.cursor, DOT);
    const d = c < 0 ? -1 : this.group(this.cursor, DOT);
    const e = d < 0 ? -1 : this.group(this.cursor, OPEN);
    return e < 0 ? undefined : obisName(a, b, c, d, e);
  }

  /** 1 to 4 digits at `pos`, at most 255, then `separator`: their value, `cursor` after it; else -1. */
  private group(pos: number, separator: number): number {
    const text = this.text;
    const stop = this.stop;
    let value = 0;
    let p = pos;
    while (p < stop && p - pos < 4) {
      const digit = text.charCodeAt(p) - 0x30;
      if (digit < 0 || digit > 9) break;
      value = value * 10 + digit;
      p++;
    }
    if (p === pos || p >= stop || value > 255 || text.charCodeAt(p) !== separator) return -1;
    this.cursor = p + 1;
    return value;
  }

  /**
   * Records the values "(..)(..)" from `open` to the line end. Each value ends at the first ')'
   * after its '(', which must be on the line and followed by '(' or the line end.
   */
  private readValues(open: number): boolean {
    const text = this.text;
    let count = 0;
    for (;;) {
      const close = text.indexOf(')', open + 1);
      if (close < 0 || close >= this.stop) return false;
      const last = close + 1 === this.stop;
      if (!last && text.charCodeAt(close + 1) !== OPEN) return false;
      this.starts.push(open + 1);
      this.ends.push(close);
      count++;
      if (last) break;
      open = close + 1;
    }
    this.counts.push(count);
    return true;
  }
}
