import type { ObisName } from './obis-names.js';
import { addObjectValues, type ValuePositions } from './object-values.js';
import { conversionFor, type DsmrReadingBuilder } from './to-reading.js';
import type { Conversion } from '../../reading/units.js';
import { dsmrNumberAt, dsmrNumberStop } from './values.js';

const CLOSE = 0x29;
const NO_BYTES = new Uint8Array(0);

/**
 * The layout of a meter's telegrams: everything from the end of the identification line to the
 * '!' except the value texts, and where the values are. A meter sends the same layout every
 * second, and its values in fixed widths (DSMR 5.0.2 §6.12: F9(3,3), TST, ...), so a telegram is
 * checked against the layout in two native-speed steps:
 * - one regular expression: the same text outside the values, no ')' or LF in any value;
 * - a ')' at every learnt value end. Outside the values the layout has exactly one ')' per value
 *   (the one closing it: lines hold only references and values, blanks separate them), and the
 *   values hold none, so the telegram has as many ')' as values, and each learnt end is one.
 *   (No '!' can be in a value either: the '!' that ends the match is the first one.)
 *
 * A telegram that matches reads, line by line, exactly as the one the layout was learnt from:
 * LineReader's decisions depend only on the text outside the values (references, blanks, line
 * ends, the character before each LF) and on where the first ')' and the first LF after each '('
 * are; all of these are in the same places. So its values are at the learnt positions and are
 * handed to the builder without reading the lines again.
 */
export class TelegramLayout {
  private readonly pattern: RegExp;
  private readonly ends: readonly number[];
  private readonly values: ValuePositions;
  /** The objects the Reading reads something of (role other than 'ignored'), in telegram order. */
  private readonly objects: readonly LayoutObject[];

  /**
   * The layout of a telegram LineReader read: `lines` holds its objects, their value counts and
   * the value positions in `text`; headerEnd and end as for matches().
   */
  static of(lines: LearntLines, text: string, headerEnd: number, end: number): TelegramLayout {
    const units = unitTails(lines, text);
    const source = layoutSource(text, headerEnd, end, lines, units.tails);
    const relative = (positions: readonly number[]) => positions.map((position) => position - headerEnd);
    const values: ValuePositions = {
      bytes: NO_BYTES,
      starts: relative(lines.starts),
      ends: relative(lines.ends),
      first: 0,
      count: 0,
      shift: 0,
      unitTails: units.tails,
      unitConversions: units.conversions,
    };
    return new TelegramLayout(new RegExp(source, 'y'), lines.names, lines.counts, values);
  }

  private constructor(
    pattern: RegExp,
    names: readonly ObisName[],
    counts: readonly number[],
    values: ValuePositions,
  ) {
    this.pattern = pattern;
    this.ends = values.ends;
    this.values = values;
    const objects: LayoutObject[] = [];
    const codes = new Set<string>();
    let first = 0;
    names.forEach((name, i) => {
      const firstOfCode = name.role === 'electricity' && !codes.has(name.code);
      if (firstOfCode) codes.add(name.code);
      if (name.role !== 'ignored') objects.push({ name, first, count: counts[i]!, firstOfCode });
      first += counts[i]!;
    });
    this.objects = objects;
  }

  /** True when text[headerEnd, end] ('!' included) has this layout. */
  matches(text: string, headerEnd: number, end: number): boolean {
    this.pattern.lastIndex = headerEnd;
    if (!this.pattern.test(text) || this.pattern.lastIndex !== end + 1) return false;
    const ends = this.ends;
    for (let k = 0; k < ends.length; k++) if (text.charCodeAt(ends[k]! + headerEnd) !== CLOSE) return false;
    return true;
  }

  /**
   * Hands the objects of a matching telegram to the builder, in telegram order (`bytes`: the
   * telegram's bytes, of which `text` is the latin1 decoding).
   */
  addTo(builder: DsmrReadingBuilder, text: string, bytes: Uint8Array, headerEnd: number): void {
    const values = this.values;
    values.bytes = bytes;
    values.shift = headerEnd;
    for (const object of this.objects) {
      values.first = object.first;
      values.count = object.count;
      addObjectValues(builder, object.name, text, values, object.firstOfCode);
    }
    values.bytes = NO_BYTES;
  }
}

interface LayoutObject {
  name: ObisName;
  /** Index of its first value in the layout's value positions, and its number of values. */
  first: number;
  count: number;
  /** The first electricity object of its code (see addObjectValues). */
  firstOfCode: boolean;
}

/** What LineReader recorded of a telegram: objects, value counts, value positions in the text. */
export interface LearntLines {
  names: readonly ObisName[];
  counts: readonly number[];
  starts: readonly number[];
  ends: readonly number[];
}

/**
 * Per value of an electricity object that is a number with a unit ("000004.426*kWh"): the length
 * of its "*unit" tail, which the layout then requires (-1 for other values), and the conversion
 * of that unit for the object's code. A matching value whose number ends where the tail begins
 * has that unit, and needs no unit lookup.
 */
function unitTails(
  lines: LearntLines,
  text: string,
): { tails: number[]; conversions: (Conversion | undefined)[] } {
  const tails: number[] = lines.starts.map(() => -1);
  const conversions: (Conversion | undefined)[] = lines.starts.map(() => undefined);
  let first = 0;
  lines.names.forEach((name, i) => {
    for (let k = first; name.role === 'electricity' && k < first + lines.counts[i]!; k++) {
      const [start, end] = [lines.starts[k]!, lines.ends[k]!];
      if (Number.isNaN(dsmrNumberAt(text, start, end)) || dsmrNumberStop() === end) continue;
      tails[k] = end - dsmrNumberStop();
      conversions[k] = conversionFor(name.code, text.slice(dsmrNumberStop() + 1, end));
    }
    first += lines.counts[i]!;
  });
  return { tails, conversions };
}

/**
 * The regular expression source of the layout of text[headerEnd, end] ('!' included) whose values
 * are text[starts[k], ends[k]): the characters between values literally, each value as a run of
 * characters other than ')' and LF (which no value LineReader read holds), followed by its last
 * tails[k] characters literally where tails[k] >= 0.
 */
function layoutSource(
  text: string,
  headerEnd: number,
  end: number,
  lines: Pick<LearntLines, 'starts' | 'ends'>,
  tails: readonly number[] = [],
): string {
  let source = '';
  let from = headerEnd;
  for (let k = 0; k < lines.starts.length; k++) {
    const stop = lines.ends[k]!;
    const tail = tails[k] ?? -1;
    source +=
      literal(text, from, lines.starts[k]!) +
      '[^)\\n]*' +
      (tail >= 0 ? literal(text, stop - tail, stop) : '');
    from = stop;
  }
  return source + literal(text, from, end + 1);
}

/** text[from, to) as a pattern matching exactly it: letters and digits as they are, others escaped. */
function literal(text: string, from: number, to: number): string {
  let pattern = '';
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    const plain =
      (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
    if (plain) pattern += text.charAt(i);
    else if (code <= 0xff) pattern += `\\x${code.toString(16).padStart(2, '0')}`;
    else pattern += `\\u${code.toString(16).padStart(4, '0')}`;
  }
  return pattern;
}
