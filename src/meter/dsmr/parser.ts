import { MeterDataError } from '../decoder.js';
import { BodyReader, lineStop } from './body-reader.js';
import type { DsmrHeader, DsmrTelegram } from './telegram.js';

/**
 * DSMR P1 telegram text -> objects (DSMR 5.0.2 §6.2-§6.4, IEC 62056-21 data blocks):
 *
 *   /XXXZ\Wident CR LF  CR LF  { A-B:C.D.E(value)(value*unit)... CR LF }  ! CRC CR LF
 *
 * Tolerated: LF-only line ends; blanks between OBIS reference and '('; several objects on one line;
 * values continued on the next line (DSMR 3 gas "(00001.001)" line, text split over lines);
 * parentheses inside a value ("((ER11))"). A value's ')' is the first one followed by '(', a line
 * end, the next OBIS reference or the '!'; failing that the last ')' on the line, and what follows
 * it is reported as trailing characters. A line that cannot be read is recorded in `problems` and
 * skipped. Only a text without '/' start, '!' end or 3-letter manufacturer id is rejected.
 */
export function parseDsmrTelegram(frame: Buffer | string): DsmrTelegram {
  const text = typeof frame === 'string' ? frame : frame.toString('latin1');
  const start = text.indexOf('/');
  if (start < 0) throw new MeterDataError('parse', "no '/' telegram start");
  const end = text.indexOf('!', start);
  if (end < 0) throw new MeterDataError('parse', "no '!' telegram end");
  const headerEnd = lineStop(text, start, end);
  const telegram: DsmrTelegram = {
    header: parseDsmrHeader(text.slice(start + 1, headerEnd)),
    objects: [],
    problems: [],
  };
  new BodyReader(text, end, telegram).read(headerEnd);
  const crcField = readCrcField(text, end + 1);
  if (crcField !== '') telegram.crcField = crcField;
  return telegram;
}

function isLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

/** The identification text without control characters (Iskra IE captures carry a raw 0x02 there). */
function withoutControlCharacters(text: string): string {
  let kept = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x20 && code !== 0x7f) continue;
    kept += text.slice(from, i);
    from = i + 1;
  }
  return from === 0 ? text : kept + text.slice(from);
}

/** The identification line without its '/' (IEC 62056-21 §6.3.14: XXXZ\W identification). */
export function parseDsmrHeader(raw: string): DsmrHeader {
  if (
    raw.length < 3 ||
    !isLetter(raw.charCodeAt(0)) ||
    !isLetter(raw.charCodeAt(1)) ||
    !isLetter(raw.charCodeAt(2))
  ) {
    throw new MeterDataError('parse', 'identification line does not start with a 3-letter manufacturer id', {
      line: raw,
    });
  }
  let rest = raw.slice(4);
  // IEC 62056-21 §6.3.14: "\W" enhanced identification (W = one character) before the ident text.
  if (rest.startsWith('\\')) rest = rest.slice(2);
  return {
    raw,
    flag: raw.slice(0, 3),
    baudChar: raw.charAt(3),
    model: withoutControlCharacters(rest).trim(),
  };
}

function isHexDigit(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);
}

function readCrcField(text: string, from: number): string {
  let end = from;
  while (end < text.length && end - from < 4 && isHexDigit(text.charCodeAt(end))) end++;
  return text.slice(from, end);
}
