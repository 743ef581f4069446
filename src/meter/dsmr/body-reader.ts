import { obisName, type ObisName } from './obis-names.js';
import type { DsmrObject, DsmrTelegram, DsmrValue } from './telegram.js';
import { parseObjectValue } from './values.js';

const CR = 0x0d;
const LF = 0x0a;
const SPACE = 0x20;
const TAB = 0x09;
const OPEN = 0x28;
const CLOSE = ')';
const OBIS_SEPARATORS = [0x2d, 0x3a, 0x2e, 0x2e]; // A-B:C.D.E

/** End of the line content at `pos` (before CR LF or LF), or `end`. */
export function lineStop(text: string, pos: number, end: number): number {
  const lf = text.indexOf('\n', pos);
  const stop = lf < 0 || lf > end ? end : lf;
  return stop > pos && text.charCodeAt(stop - 1) === CR ? stop - 1 : stop;
}

/** Placeholder until an object's first value is read; replaced, never pushed into. */
const NO_VALUES: DsmrValue[] = [];

/** How the values of an object ended. */
type Ending = 'line' | 'object' | 'trailing' | 'unterminated';

/**
 * Reads the data lines between the identification line and the '!' into telegram.objects and
 * telegram.problems (rules: see parseDsmrTelegram). Positions are indexes into `text`; `stop` is
 * the content end of the line being read (before CR LF) and `next` the start of the line after.
 */
export class BodyReader {
  private readonly groups = [0, 0, 0, 0, 0];
  /** The references ("A-B:C.D.E") of the objects read so far. */
  private readonly seen = new Set<string>();
  /** End of the OBIS reference found by readName. */
  private nameEnd = 0;
  /** Last object, while it ended at a line end: a following "(...)" line continues it. */
  private continuable: DsmrObject | undefined;
  private continuableStart = 0;
  private continuableHexText = false;
  private stop = 0;
  private next = 0;
  /** Where readValues left off and how. */
  private resume = 0;
  private ending: Ending = 'line';

  constructor(
    private readonly text: string,
    private readonly end: number,
    private readonly telegram: DsmrTelegram,
  ) {}

  read(pos: number): void {
    while (pos < this.end) {
      const code = this.text.charCodeAt(pos);
      if (code === CR || code === LF || code === SPACE || code === TAB) {
        pos++;
        continue;
      }
      this.enterLine(pos);
      pos = code === OPEN ? this.readContinuation(pos) : this.readObject(pos);
    }
  }

  private enterLine(pos: number): void {
    const lf = this.text.indexOf('\n', pos);
    const stop = lf < 0 || lf >= this.end ? this.end : lf;
    this.next = stop === this.end ? stop : stop + 1;
    this.stop = stop > pos && this.text.charCodeAt(stop - 1) === CR ? stop - 1 : stop;
  }

  private readObject(start: number): number {
    const name = this.readName(start);
    if (name === undefined) return this.next;
    const open = this.skipBlanks(this.nameEnd);
    if (open >= this.stop || this.text.charCodeAt(open) !== OPEN) {
      return this.problem(start, 'OBIS reference without value');
    }
    const object: DsmrObject = {
      obis: name.obis,
      medium: name.medium,
      channel: name.channel,
      code: name.code,
      values: NO_VALUES,
      line: '',
    };
    const close = this.readValues(object, name.hexText, open);
    if (this.ending === 'unterminated') return this.unterminated(start);
    object.line = this.text.slice(start, close + 1);
    if (this.seen.has(name.obis)) {
      this.telegram.problems.push({ line: object.line, reason: 'duplicate OBIS reference' });
    }
    this.seen.add(name.obis);
    this.telegram.objects.push(object);
    this.continuable = this.ending === 'line' ? object : undefined;
    this.continuableStart = start;
    this.continuableHexText = name.hexText;
    return this.afterValues(start);
  }

  /** Reads the OBIS reference at `start`, recording a problem when there is none. */
  private readName(start: number): ObisName | undefined {
    this.nameEnd = this.matchObis(start);
    if (this.nameEnd < 0) {
      this.problem(start, 'no OBIS reference');
      return undefined;
    }
    const groups = this.groups;
    const a = groups[0]!;
    const b = groups[1]!;
    const c = groups[2]!;
    const d = groups[3]!;
    const e = groups[4]!;
    if (a > 255 || b > 255 || c > 255 || d > 255 || e > 255) {
      this.problem(start, 'OBIS value group above 255');
      return undefined;
    }
    return obisName(a, b, c, d, e);
  }

  /** A line starting with '(' adds values to the object of the line before (DSMR 3 gas reading). */
  private readContinuation(pos: number): number {
    const object = this.continuable;
    if (!object) return this.problem(pos, 'value without OBIS reference');
    const start = this.continuableStart;
    const close = this.readValues(object, this.continuableHexText, pos);
    if (this.ending === 'unterminated') return this.unterminated(start);
    object.line = this.text.slice(start, close + 1);
    if (this.ending !== 'line') this.continuable = undefined;
    return this.afterValues(start);
  }

  /** Reads "(..)(..)" from `open` into object.values; returns the last ')' and sets `ending`. */
  private readValues(object: DsmrObject, hexText: boolean, open: number): number {
    for (let pos = open; ;) {
      const close = this.findClose(pos + 1);
      if (close < 0) {
        this.ending = 'unterminated';
        this.resume = -close - 1;
        return close;
      }
      const value = parseObjectValue(this.text.slice(pos + 1, close), hexText);
      // Most objects have one value: an exact one-element array instead of a grown backing store.
      if (object.values === NO_VALUES) object.values = [value];
      else object.values.push(value);
      const after = this.skipBlanks(close + 1);
      this.resume = after;
      if (after >= this.stop) this.ending = 'line';
      else if (this.text.charCodeAt(after) === OPEN) {
        pos = after;
        continue;
      } else this.ending = this.matchObis(after) >= 0 ? 'object' : 'trailing';
      return close;
    }
  }

  private afterValues(start: number): number {
    if (this.ending === 'object') return this.resume;
    if (this.ending === 'trailing') {
      const line = this.text.slice(start, this.stop);
      this.telegram.problems.push({ line, reason: 'characters after the last value' });
    }
    return this.next;
  }

  private unterminated(start: number): number {
    this.problem(start, 'value without closing parenthesis');
    return this.resume;
  }

  /**
   * Index of the ')' closing a value whose text starts at `from` (see parseDsmrTelegram), with
   * stop / next moved to its line. A value without any ')' on its line continues on the next line
   * unless that starts an object; then -(resume position) - 1 is returned.
   */
  private findClose(from: number): number {
    let close = this.text.indexOf(CLOSE, from);
    for (;;) {
      let last = -1;
      while (close >= 0 && close < this.stop) {
        if (this.closesValue(close)) return close;
        last = close;
        close = this.text.indexOf(CLOSE, close + 1);
      }
      if (last >= 0) return last;
      const lineStart = this.next;
      if (lineStart >= this.end) return -lineStart - 1;
      const valueStop = this.stop;
      this.enterLine(lineStart);
      if (this.matchObis(lineStart) >= 0) {
        this.stop = valueStop;
        return -lineStart - 1;
      }
    }
  }

  private closesValue(close: number): boolean {
    const after = this.skipBlanks(close + 1);
    return after >= this.stop || this.text.charCodeAt(after) === OPEN || this.matchObis(after) >= 0;
  }

  /** Matches "A-B:C.D.E" (1 to 4 digits per group) at `pos` into this.groups; end index or -1. */
  private matchObis(pos: number): number {
    const text = this.text;
    const stop = this.stop;
    let p = pos;
    for (let group = 0; group < 5; group++) {
      const digitsStart = p;
      let value = 0;
      while (p < stop && p - digitsStart < 4) {
        const digit = text.charCodeAt(p) - 0x30;
        if (digit < 0 || digit > 9) break;
        value = value * 10 + digit;
        p++;
      }
      if (p === digitsStart) return -1;
      this.groups[group] = value;
      if (group < 4) {
        if (p >= stop || text.charCodeAt(p) !== OBIS_SEPARATORS[group]) return -1;
        p++;
      }
    }
    return p;
  }

  private skipBlanks(pos: number): number {
    while (pos < this.stop) {
      const code = this.text.charCodeAt(pos);
      if (code !== SPACE && code !== TAB) break;
      pos++;
    }
    return pos;
  }

  /** Records the text from `start` to the current line's end as a problem; returns the next line. */
  private problem(start: number, reason: string): number {
    this.telegram.problems.push({ line: this.text.slice(start, this.stop), reason });
    this.continuable = undefined;
    return this.next;
  }
}
