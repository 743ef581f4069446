import { type ObisAddress, parseObisAddress } from './obis-address.js';
import { AMPERSAND, CLOSE_PAREN, HASH, OPEN_PAREN, STAR } from '../../ascii-codes.js';

/**
 * Data sets of an IEC 62056-21 data message (§6.3.4): `address(value*unit)`, one or more per line,
 * further `(...)` groups belonging to the same address, the data ending at '!'. The characters
 * `( ) / !` never occur inside an address, value or unit and a line feed ends both, so the scanner
 * jumps between these markers with native searches and reads single characters only in addresses.
 */

export interface D0Value {
  /** Value text as sent, surrounding spaces removed ("0008048.375", "L1-L2-L3", "2013-11-28"). */
  value: string;
  /** Unit text after '*' ('' when none). */
  unit: string;
}

export interface D0Object {
  readonly obis: ObisAddress;
  /** Values of all `(...)` groups; one group may hold several values separated by '&' or '#'. */
  readonly values: readonly D0Value[];
  /** The data set as it appeared in the readout: address and all its `(...)` groups. */
  readonly raw: string;
}

export interface D0DataSets {
  objects: D0Object[];
  /** Text fragments that were not data sets (line noise, gateway additions); they are skipped. */
  invalidParts: number;
  /** True when the '!' end of the data was present. */
  complete: boolean;
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0d || code === 0;
}

/** `text[start..end)` without the surrounding spaces, as [start, end]. */
export function trimmedRange(text: string, start: number, end: number): [number, number] {
  while (start < end && isSpace(text.charCodeAt(start))) start++;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  return [start, end];
}

function trimmedSlice(text: string, start: number, end: number): string {
  const [from, to] = trimmedRange(text, start, end);
  return text.slice(from, to);
}

/**
 * Visits the values of the groups in `text[open..close]` in order: `visit(from, star, to)` for the
 * value text `text[from..to)` whose unit starts after the '*' at `star` (-1: no unit). An empty
 * group `()` has none.
 */
export function forEachValue(
  text: string,
  open: number,
  close: number,
  visit: (from: number, star: number, to: number) => void,
): void {
  let groupStart = -1; // -1: between groups
  let partStart = 0;
  let star = -1;
  for (let i = open; i <= close; i++) {
    const code = text.charCodeAt(i);
    if (code === OPEN_PAREN) {
      groupStart = partStart = i + 1;
      star = -1;
    } else if (groupStart < 0) {
      continue;
    } else if (code === STAR) {
      if (star < 0) star = i;
    } else if (code === AMPERSAND || code === HASH) {
      visit(partStart, star, i); // '&' and '#' separate values (WR5, Itron)
      partStart = i + 1;
      star = -1;
    } else if (code === CLOSE_PAREN) {
      if (i > groupStart) visit(partStart, star, i);
      groupStart = -1;
    }
  }
}

/** Values of the groups in `text[open..close]`; an empty group `()` has none. */
function valuesOf(text: string, open: number, close: number): D0Value[] {
  const values: D0Value[] = [];
  forEachValue(text, open, close, (from, star, to) => {
    if (star < 0) values.push({ value: trimmedSlice(text, from, to), unit: '' });
    else values.push({ value: trimmedSlice(text, from, star), unit: trimmedSlice(text, star + 1, to) });
  });
  return values;
}

/**
 * A data set found by the scan. Values and raw text are cut out of the readout text when first
 * asked for: a Reading needs the values of a few current registers only, not of every billing
 * period, so most are never built.
 */
export class D0DataSet implements D0Object {
  private cachedValues: D0Value[] | undefined;
  /** Index of the last ')' of the data set's groups. */
  close: number;

  /** `text`: the data part of the readout; `start`: its address, `open`: its first '('. */
  constructor(
    readonly obis: ObisAddress,
    readonly text: string,
    readonly start: number,
    readonly open: number,
  ) {
    this.close = open;
  }

  get values(): readonly D0Value[] {
    this.cachedValues ??= valuesOf(this.text, this.open, this.close);
    return this.cachedValues;
  }

  get raw(): string {
    return this.text.slice(this.start, this.close + 1);
  }

  toJSON(): { obis: ObisAddress; values: readonly D0Value[]; raw: string } {
    return { obis: this.obis, values: this.values, raw: this.raw };
  }
}

/** Collects data sets as the scan reports addresses and group ends. */
class DataSetCollector {
  readonly objects: D0DataSet[] = [];
  invalidParts = 0;
  private current: D0DataSet | undefined;
  private closeBeforeGroup = 0;
  private openedByGroup = false;

  constructor(private readonly text: string) {}

  /** A '(' at `open` after the address `text[start..end)`; start < 0: a further group. */
  openGroup(start: number, end: number, open: number): void {
    this.openedByGroup = start >= 0;
    if (start >= 0) {
      const obis = parseObisAddress(this.text, start, end);
      this.current = obis && new D0DataSet(obis, this.text, start, open);
      if (this.current) this.objects.push(this.current);
      else this.invalidParts++;
    }
    if (this.current) this.closeBeforeGroup = this.current.close;
  }

  closeGroup(close: number): void {
    if (this.current) this.current.close = close;
  }

  /** A group without its ')': dropped, and with it a data set it opened. */
  abandonGroup(): void {
    if (this.current && this.openedByGroup) this.objects.pop();
    else if (this.current) this.current.close = this.closeBeforeGroup;
    this.stray();
  }

  /** Text that is not part of a data set. */
  stray(): void {
    this.invalidParts++;
    this.current = undefined;
  }
}

/** `text.indexOf(char, from)`, or the text length when absent. */
function nextIndex(text: string, char: string, from: number): number {
  const index = text.indexOf(char, from);
  return index < 0 ? text.length : index;
}

function isBlank(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (!isSpace(text.charCodeAt(i))) return false;
  return true;
}

/**
 * Scans the data part up to the '!' end, jumping between '(' and ')' with native searches. Text
 * that is not `address(...)` (noise before a line break, an address that is not an OBIS code, an
 * unterminated value) counts as an invalid part.
 */
export function parseDataSets(text: string): D0DataSets {
  const sets = new DataSetCollector(text);
  let open = nextIndex(text, '(', 0);
  let lineFeed = nextIndex(text, '\n', 0);
  let bang = nextIndex(text, '!', 0);
  let complete = false;
  let i = 0;
  while (i < text.length) {
    if (lineFeed < i) lineFeed = nextIndex(text, '\n', i);
    if (bang < i) bang = nextIndex(text, '!', i);
    const stop = Math.min(open, lineFeed, bang);
    if (stop !== open || open === text.length) {
      if (!isBlank(text, i, stop)) sets.stray();
      if (stop === bang && bang < text.length) {
        complete = true;
        break;
      }
      i = stop + 1;
      continue;
    }
    let start = i;
    while (start < open && isSpace(text.charCodeAt(start))) start++;
    let end = open;
    while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
    sets.openGroup(start < end ? start : -1, end, open);
    const close = nextIndex(text, ')', open + 1);
    open = nextIndex(text, '(', open + 1);
    if (close === text.length || open < close || lineFeed < close) {
      sets.abandonGroup();
      i = Math.min(open, lineFeed);
      continue;
    }
    sets.closeGroup(close);
    i = close + 1;
  }
  return { objects: sets.objects, invalidParts: sets.invalidParts, complete };
}
