import { MeterDataError } from '../decoder.js';
import type { Reading } from '../../reading/reading.js';
import { lineStop } from './body-reader.js';
import { obisName, type ObisName } from './obis-names.js';
import { parseDsmrHeader } from './parser.js';
import type { DsmrHeader, DsmrValue } from './telegram.js';
import { DsmrReadingBuilder } from './to-reading.js';
import { dsmrNumberAt, dsmrUnitAfterNumber, parseObjectValue } from './values.js';

/**
 * Telegram text -> Reading in one pass, for telegrams of the shape meters send: after the
 * identification line, lines "A-B:C.D.E(value)...(value)" (1 to 4 digits and at most 255 per
 * group) with nothing between the reference and its first '(' or between values, each value's
 * first ')' followed by '(' or the line end, blank lines allowed.
 *
 * Any other telegram - a continuation line "(...)", blanks or text after a value, several objects
 * on a line, a value over a line end, a line that is no object, no data object at all, an
 * identification line without manufacturer id - gives undefined: it is read by parseDsmrTelegram
 * and dsmrToReading instead. On the lines accepted here parseDsmrTelegram's rules read exactly
 * these values, and the same DsmrReadingBuilder takes them in the same order, so the Reading is
 * the one dsmrToReading(parseDsmrTelegram(text)) gives. What is saved: no DsmrObject, line text or
 * value objects are built, and only values the Reading uses are read.
 */
export function readDsmrReading(text: string, receivedAt: number): Reading | undefined {
  const start = text.indexOf('/');
  if (start < 0) return undefined;
  const end = text.indexOf('!', start);
  if (end < 0) return undefined;
  const headerEnd = lineStop(text, start, end);
  const header = headerOf(text.slice(start + 1, headerEnd));
  if (header === undefined) return undefined;
  const reader = new DirectReader(text, end);
  if (!reader.read(headerEnd) || reader.objects === 0) return undefined;
  return reader.builder.finish(header, receivedAt);
}

/** The last identification line read (a meter sends the same one in every telegram). */
let lastHeader: DsmrHeader | undefined;

function headerOf(raw: string): DsmrHeader | undefined {
  if (lastHeader?.raw === raw) return lastHeader;
  try {
    lastHeader = parseDsmrHeader(raw);
  } catch (error) {
    if (error instanceof MeterDataError) return undefined;
    throw error;
  }
  return lastHeader;
}

/**
 * The references of the previous telegram read here, in order: the reference at the same position
 * is compared first (same idea as obis-names' predictedName, kept apart from the parser's).
 */
let previousNames: readonly ObisName[] = [];

const CR = 0x0d;
const LF = 0x0a;
const SPACE = 0x20;
const TAB = 0x09;
const OPEN = 0x28;
const HYPHEN = 0x2d;
const COLON = 0x3a;
const DOT = 0x2e;

class DirectReader {
  readonly builder = new DsmrReadingBuilder();
  /** Data objects read. */
  objects = 0;
  private readonly names: ObisName[] = [];
  /** Content end of the line being read (before CR LF or LF), and the start of the line after. */
  private stop = 0;
  private next = 0;
  /** Position after what group() read. */
  private cursor = 0;

  constructor(
    private readonly text: string,
    private readonly end: number,
  ) {}

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
      if (name === undefined || !this.readValues(name, this.cursor - 1)) return false;
      this.objects++;
      pos = this.next;
    }
    previousNames = this.names;
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
    const predicted = previousNames[this.names.length];
    if (predicted !== undefined && this.text.startsWith(predicted.obis, pos)) {
      // The canonical "A-B:C.D.E" and '(': what group() would read, without reading digits.
      const open = pos + predicted.obis.length;
      if (open < this.stop && this.text.charCodeAt(open) === OPEN) {
        this.cursor = open + 1;
        this.names.push(predicted);
        return predicted;
      }
    }
    const a = this.group(pos, HYPHEN);
    const b = a < 0 ? -1 : this.group(this.cursor, COLON);
    const c = b < 0 ? -1 : this.group(this.cursor, DOT);
    const d = c < 0 ? -1 : this.group(this.cursor, DOT);
    const e = d < 0 ? -1 : this.group(this.cursor, OPEN);
    if (e < 0) return undefined;
    const name = obisName(a, b, c, d, e);
    this.names.push(name);
    return name;
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

  private readValues(name: ObisName, open: number): boolean {
    const role = name.role;
    if (role === 'electricity') return this.readElectricity(name.code, open);
    if (!this.builder.takes(role)) return this.skipValues(open);
    const values = this.valuesFrom(open, name.hexText);
    if (values === undefined) return false;
    this.builder.add(role, { channel: name.channel, code: name.code, values });
    return true;
  }

  /** The first number of the values from `open`, unless an earlier object had the code. */
  private readElectricity(code: string, open: number): boolean {
    let measured = this.builder.values.has(code);
    for (;;) {
      const close = this.closeOf(open);
      if (close < 0) return false;
      if (!measured) {
        const value = dsmrNumberAt(this.text, open + 1, close);
        if (!Number.isNaN(value)) {
          measured = true;
          this.builder.addElectricityValue(code, value, dsmrUnitAfterNumber(this.text, close));
        }
      }
      if (close + 1 === this.stop) return true;
      open = close + 1;
    }
  }

  private skipValues(open: number): boolean {
    for (;;) {
      const close = this.closeOf(open);
      if (close < 0) return false;
      if (close + 1 === this.stop) return true;
      open = close + 1;
    }
  }

  private valuesFrom(open: number, hexText: boolean): DsmrValue[] | undefined {
    const values: DsmrValue[] = [];
    for (;;) {
      const close = this.closeOf(open);
      if (close < 0) return undefined;
      values.push(parseObjectValue(this.text.slice(open + 1, close), hexText));
      if (close + 1 === this.stop) return values;
      open = close + 1;
    }
  }

  /** The first ')' after `open` when it is on the line and followed by '(' or the line end; else -1. */
  private closeOf(open: number): number {
    const close = this.text.indexOf(')', open + 1);
    if (close < 0 || close >= this.stop) return -1;
    return close + 1 === this.stop || this.text.charCodeAt(close + 1) === OPEN ? close : -1;
  }
}
