import type { Reading } from '../../reading/reading.js';
import type { SmlCrcAlgorithm } from './crc16-x25.js';
import type { FrameCheck } from './frame-check.js';
import type { FrameLayout } from './frame-layout.js';
import { LayoutBuilder, NO_FIELD } from './layout-builder.js';
import { obisCodeOf, readEntryName, requiredInteger } from './list-entry.js';
import { MESSAGE_TAG } from './message-types.js';
import {
  END_OF_SML_MESSAGE,
  parseError,
  TL_LIST,
  TL_OCTET_STRING,
  TL_SIGNED,
  TL_UNSIGNED,
  TlReader,
} from './tl.js';
import { electricityKey, isIdentityCode } from './to-reading.js';

/**
 * Learns the FrameLayout of a transport frame without escaped data that parseSmlFrame and
 * smlFrameToReading turned into `reading`. The frame's messages are walked the way ./parser.ts
 * reads them (SML 1.04 SML_Message, OpenResponse, GetListResponse, SML_ListEntry, SML_Time), and
 * each field becomes one of:
 * - an integer step, for an integer with a one-byte TL whose value the parser decodes without
 *   acting on it: message crc16 (the decoder does not check it), status, second indexes, and the
 *   values and timestamps the Reading carries. Its size may change (the parser reads 1..8 bytes
 *   as an element: values, status; 1..6 as a small integer: crc16, times), its type (signed or
 *   unsigned) may not;
 * - free bytes, for the content of an octet string nothing in the Reading comes from:
 *   transactionId, codepage, clientId, reqFileId, listName, and the values of entries that are
 *   neither identity codes nor numbers (firmware versions, public keys);
 * - fixed bytes for everything else: the other fields' TL bytes, server ids, OBIS codes, units,
 *   scalers, identity texts, message tags, SML_Time choices and offsets, signatures.
 * A frame that matches differs from the learnt one only in integer steps and free bytes. The
 * parser's path through a frame depends on TL bytes, fixed bytes and element sizes only, never on
 * those contents (its look-ahead checks against the data end only choose between two entry
 * readers that read an entry alike), so it reads the same messages and entries, with the same
 * identity, keys, units and scalers, and new numbers at the integer steps - which FrameLayout
 * reads as the parser does. As a guard, a layout must read its own frame as the parser did.
 *
 * Returns undefined for a frame with a field this walk does not know (such frames are parsed).
 */
export function learnFrameLayout(
  frame: Buffer,
  reading: Reading,
  crc: SmlCrcAlgorithm,
  checker?: FrameCheck,
): FrameLayout | undefined {
  const length = frame.length;
  if (length < 16) return undefined;
  const end = length - 8 - frame[length - 3]!;
  const builder = new LayoutBuilder(frame, reading, crc, checker);
  try {
    const reader = new TlReader(frame, 8, end);
    while (reader.remaining > 0) {
      if (reader.peekByte() === END_OF_SML_MESSAGE) reader.offset += 1;
      else learnMessage(reader, builder);
    }
  } catch {
    // A field this walk does not know (MeterDataError), or anything unforeseen: no layout.
    return undefined;
  }
  const layout = builder.finish(end);
  const check = layout.read(frame, reading.receivedAt);
  return check !== undefined && sameReading(check, reading) ? layout : undefined;
}

/** Parser limits: readSmallInteger takes 1..6 content bytes, readElement 1..8. */
const SMALL = 6;
const ELEMENT = 8;

/** An octet string whose content the Reading does not use. */
function learnOctets(reader: TlReader, builder: LayoutBuilder): void {
  const start = reader.offset;
  if (reader.readTl() !== TL_OCTET_STRING) throw parseError('not an octet string', start);
  if (reader.length > 0) builder.octets(reader.offset, reader.length);
  reader.offset += reader.length;
}

/** An integer whose value the Reading does not use (fixed bytes when it is no plain integer). */
function learnInteger(reader: TlReader, builder: LayoutBuilder, maxSize: number): void {
  const end = builder.integer(reader.offset, maxSize);
  if (end < 0) reader.skipElement();
  else reader.offset = end;
}

function learnMessage(reader: TlReader, builder: LayoutBuilder): void {
  reader.expectList(6, 'SML_Message');
  learnOctets(reader, builder); // transactionId
  reader.skipElement(); // groupNo
  reader.skipElement(); // abortOnError
  reader.expectList(2, 'SML_MessageBody');
  const tag = requiredInteger(reader, 'message tag');
  if (tag === MESSAGE_TAG.openResponse) learnOpenResponse(reader, builder);
  else if (tag === MESSAGE_TAG.getListResponse) learnGetListResponse(reader, builder);
  else reader.skipElement();
  learnInteger(reader, builder, SMALL); // crc16: the decoder does not check it
  if (reader.peekByte() !== END_OF_SML_MESSAGE)
    throw parseError('SML_Message lacks EndOfSmlMsg', reader.offset);
  reader.offset += 1;
}

function learnOpenResponse(reader: TlReader, builder: LayoutBuilder): void {
  reader.expectList(6, 'OpenResponse');
  learnOctets(reader, builder); // codepage
  learnOctets(reader, builder); // clientId
  learnOctets(reader, builder); // reqFileId
  reader.skipElement(); // serverId
  learnTime(reader, builder, false); // refTime
  reader.skipElement(); // smlVersion
}

function learnGetListResponse(reader: TlReader, builder: LayoutBuilder): void {
  reader.expectList(7, 'GetListResponse');
  learnOctets(reader, builder); // clientId
  reader.skipElement(); // serverId
  learnOctets(reader, builder); // listName
  const sensorTimeSet = learnTime(reader, builder, true);
  const listOffset = reader.offset;
  if (reader.readTl() !== TL_LIST) throw parseError('valList is not a list', listOffset);
  for (let count = reader.length; count > 0; count--) learnEntry(reader, builder);
  reader.skipElement(); // listSignature
  // smlFrameToReading takes actSensorTime, else actGatewayTime, as the list's time.
  learnTime(reader, builder, !sensorTimeSet);
}

/**
 * SML_Time as readTime reads it: not set, a bare integer (a second index) or a list of choice
 * and value. With `relevant`, a timestamp or local timestamp becomes a time field; every other
 * second count is an integer the Reading does not use. Returns whether the time is set.
 */
function learnTime(reader: TlReader, builder: LayoutBuilder, relevant: boolean): boolean {
  const start = reader.offset;
  const type = reader.readTl();
  if (type === TL_OCTET_STRING && reader.length === 0) return false;
  reader.offset = start;
  if (type !== TL_LIST) {
    learnInteger(reader, builder, SMALL);
    return true;
  }
  reader.expectList(2, 'SML_Time');
  const choice = requiredInteger(reader, 'SML_Time choice');
  if (choice < 1 || choice > 3) throw parseError(`unknown SML_Time choice ${choice}`, start);
  if (choice === 3) reader.expectList(3, 'SML_TimestampLocal');
  const secondsAt = reader.offset;
  if (choice === 1 || !relevant) {
    learnInteger(reader, builder, SMALL);
  } else {
    if (builder.integerSize(secondsAt, SMALL) < 0)
      throw parseError('SML_Time seconds not learnable', secondsAt);
    reader.skipElement();
  }
  const local = choice === 3 ? requiredInteger(reader, 'localOffset') : 0;
  const season = choice === 3 ? requiredInteger(reader, 'seasonTimeOffset') : 0;
  if (choice !== 1 && relevant) {
    const end = reader.offset;
    const kind = choice === 2 ? 'timestamp' : 'localTimestamp';
    const field = builder.timeField({ kind, localOffsetMinutes: local, seasonOffsetMinutes: season });
    builder.integer(secondsAt, SMALL, field);
    reader.offset = end;
  }
  return true;
}

/** SML_ListEntry as readUsualEntry / readAnyEntry read it, and as smlFrameToReading uses it. */
function learnEntry(reader: TlReader, builder: LayoutBuilder): void {
  const nameStart = readEntryName(reader);
  const code = obisCodeOf(reader.data, nameStart, reader.offset);
  if (!reader.skipUnset()) learnInteger(reader, builder, ELEMENT); // status
  if (!reader.skipUnset()) learnTime(reader, builder, false); // valTime
  const unit = reader.readSmallInteger('unit') ?? undefined;
  const scaler = reader.readSmallInteger('scaler') ?? undefined;
  learnValue(reader, builder, code, { scaler, unit });
  if (!reader.skipUnset()) reader.skipElement(); // valueSignature
}

/** The value of an entry with OBIS code `code`, as smlFrameToReading takes it. */
function learnValue(
  reader: TlReader,
  builder: LayoutBuilder,
  code: number | undefined,
  { scaler, unit }: { scaler: number | undefined; unit: number | undefined },
): void {
  const at = reader.offset;
  if (code !== undefined && isIdentityCode(code)) {
    reader.skipElement();
    return;
  }
  const key = code === undefined ? undefined : electricityKey(code);
  if (builder.integerSize(at, ELEMENT) >= 0) {
    const field = key === undefined ? NO_FIELD : builder.valueField({ key, scaler, unit });
    reader.offset = builder.integer(at, ELEMENT, field);
    return;
  }
  const type = reader.readTl();
  if (type === TL_OCTET_STRING) {
    if (reader.length > 0) builder.octets(reader.offset, reader.length);
    reader.offset += reader.length;
    return;
  }
  if (key !== undefined && (type === TL_SIGNED || type === TL_UNSIGNED))
    throw parseError('value with a long TL field not learnable', at);
  reader.offset = at;
  reader.skipElement();
}

/** The learnt layout reads its own frame as the parser did (a guard against a walk gone wrong). */
function sameReading(a: Reading, b: Reading): boolean {
  if (a.identity !== b.identity || a.meterTime !== b.meterTime || a.values.size !== b.values.size)
    return false;
  for (const [key, value] of a.values) {
    const other = b.values.get(key);
    if (other === undefined || !Object.is(other.value, value.value) || other.unit !== value.unit)
      return false;
  }
  return [...a.values.keys()].join() === [...b.values.keys()].join();
}
