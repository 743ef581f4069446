import { MeterDataError } from '../decoder.js';
import type { Reading } from '../../reading/reading.js';
import { lineStop } from './body-reader.js';
import { LineReader } from './line-reader.js';
import type { ObisName } from './obis-names.js';
import { parseDsmrHeader } from './parser.js';
import { TelegramLayout } from './telegram-layout.js';
import type { DsmrHeader } from './telegram.js';
import { DsmrReadingBuilder } from './to-reading.js';

/**
 * Telegram text -> Reading without building a DsmrTelegram, for telegrams of the shape meters
 * send: after the identification line, lines "A-B:C.D.E(value)...(value)" (1 to 4 digits and at
 * most 255 per group) with nothing between the reference and its first '(' or between values,
 * each value's first ')' followed by '(' or the line end; blank lines allowed.
 *
 * Any other telegram - a continuation line "(...)", blanks or text after a value, several objects
 * on a line, a value over a line end, a line that is no object, no data object at all, an
 * identification line without manufacturer id - gives undefined, and is read by
 * parseDsmrTelegram and dsmrToReading instead. On the lines accepted here parseDsmrTelegram's
 * rules find exactly these objects and values, and the same DsmrReadingBuilder takes them in the
 * same order, so the Reading is the one dsmrToReading(parseDsmrTelegram(text)) gives.
 *
 * One instance per telegram stream: it remembers the meter's identification line, the order of
 * its objects, and, once two telegrams in a row had the same layout, that layout
 * (./telegram-layout.ts), so that a telegram of the same layout is checked in one step.
 */
export class DirectReading {
  private readonly sequence: ObisName[] = [];
  private header: DsmrHeader | undefined;
  private layout: TelegramLayout | undefined;
  /** Value positions (relative to the identification line's end) of the last telegram read line by line. */
  private previousStarts: readonly number[] = [];
  private previousEnds: readonly number[] = [];
  /** Layouts learnt that did not match even once; learning stops at MAX_FUTILE_LAYOUTS. */
  private futileLayouts = 0;
  private layoutMatched = false;
  private path: 'layout' | 'lines' | undefined;

  /** How the last read() went: by the learnt layout, line by line, or not at all (undefined). */
  get lastPath(): 'layout' | 'lines' | undefined {
    return this.path;
  }

  /**
   * @param bytes the telegram's bytes, of which `text` is the latin1 decoding
   * @param start index of the first '/' in text, and `end` of the first '!' after it (-1: none)
   */
  read(
    text: string,
    receivedAt: number,
    bytes: Uint8Array = Buffer.from(text, 'latin1'),
    start = text.indexOf('/'),
    end = start < 0 ? -1 : text.indexOf('!', start),
  ): Reading | undefined {
    this.path = undefined;
    if (start < 0 || end < 0) return undefined;
    const headerEnd = lineStop(text, start, end);
    const header = this.headerOf(text.slice(start + 1, headerEnd));
    if (header === undefined) return undefined;
    const builder = new DsmrReadingBuilder();
    if (this.layout !== undefined && this.layout.matches(text, headerEnd, end)) {
      this.layout.addTo(builder, text, bytes, headerEnd);
      this.layoutMatched = true;
      this.path = 'layout';
    } else {
      const lines = new LineReader(text, bytes, end, this.sequence, builder);
      if (!lines.read(headerEnd) || lines.names.length === 0) return undefined;
      this.learn(lines, text, headerEnd, end);
      this.path = 'lines';
    }
    return builder.finish(header, receivedAt);
  }

  private headerOf(raw: string): DsmrHeader | undefined {
    if (this.header?.raw === raw) return this.header;
    try {
      this.header = parseDsmrHeader(raw);
    } catch (error) {
      if (error instanceof MeterDataError) return undefined;
      throw error;
    }
    return this.header;
  }

  /**
   * Learns the layout of a telegram read line by line when its values are where they were in the
   * last one read line by line. A meter whose layouts keep failing is left to the line reader.
   */
  private learn(lines: LineReader, text: string, headerEnd: number, end: number): void {
    if (this.futileLayouts >= MAX_FUTILE_LAYOUTS) return;
    const starts = lines.starts.map((position) => position - headerEnd);
    const ends = lines.ends.map((position) => position - headerEnd);
    const repeated = sameNumbers(starts, this.previousStarts) && sameNumbers(ends, this.previousEnds);
    this.previousStarts = starts;
    this.previousEnds = ends;
    if (!repeated) return;
    if (this.layout !== undefined && !this.layoutMatched) this.futileLayouts++;
    this.layoutMatched = false;
    this.layout = TelegramLayout.of(lines, text, headerEnd, end);
  }
}

const MAX_FUTILE_LAYOUTS = 3;

function sameNumbers(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
