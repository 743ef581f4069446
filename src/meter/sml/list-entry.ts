import type { SmlListEntry, SmlTime } from './message-types.js';
import {
  parseError,
  readInteger,
  TL_LIST,
  TL_OCTET_STRING,
  TL_SIGNED,
  TL_UNSIGNED,
  type SmlElement,
  type TlReader,
  unsignedBytes,
} from './tl.js';

/**
 * SML_ListEntry (list of 7: objName, status, valTime, unit, scaler, value, valueSignature) and
 * SML_Time, as GetList.Res carries them (SML 1.04).
 */

/** TL bytes of an SML_ListEntry (list of 7) and of a 6-byte objName, as nearly every meter sends. */
const ENTRY_LIST_TL = 0x77;
const OBIS_NAME_TL = 0x07;

/** The elements of an SML_ListEntry between its objName and its value. */
type EntryHead = Pick<SmlListEntry, 'obisCode' | 'status' | 'valTime' | 'unit' | 'scaler'>;

/**
 * A list entry whose objName, and value when it is an octet string, are sliced from the frame
 * only when asked for: most entries are numbers, and signatures or public keys are rarely read.
 */
class ParsedListEntry implements SmlListEntry {
  readonly obisCode: number | undefined;
  readonly status: number | bigint | undefined;
  readonly valTime: SmlTime | undefined;
  readonly unit: number | undefined;
  readonly scaler: number | undefined;

  constructor(
    private readonly source: Buffer,
    private readonly nameStart: number,
    private readonly nameEnd: number,
    head: EntryHead,
    /** The value, or undefined when it is the octet string at valueStart..valueEnd. */
    private readonly decoded: SmlElement | undefined,
    private readonly valueStart: number,
    private readonly valueEnd: number,
  ) {
    this.obisCode = head.obisCode;
    this.status = head.status;
    this.valTime = head.valTime;
    this.unit = head.unit;
    this.scaler = head.scaler;
  }

  get objName(): Buffer {
    return this.source.subarray(this.nameStart, this.nameEnd);
  }

  get value(): SmlElement {
    return this.decoded !== undefined ? this.decoded : this.source.subarray(this.valueStart, this.valueEnd);
  }
}

export function readListEntry(reader: TlReader): SmlListEntry {
  return readUsualEntry(reader) ?? readAnyEntry(reader);
}

const NOT_SET = 0x01;
const UNSIGNED8_TL = 0x62;
const SIGNED8_TL = 0x52;

/**
 * An element that is absent (not set) or an unsigned integer of 1 to `maxSize` bytes, followed by
 * at least `rest` bytes before `end`: its value and where the next element starts; undefined for
 * anything else.
 */
function optionalUnsigned(
  data: Buffer,
  at: number,
  maxSize: number,
  rest: number,
  end: number,
): { value: number | undefined; next: number } | undefined {
  const tl = data[at]!;
  if (tl === NOT_SET) return { value: undefined, next: at + 1 };
  const size = (tl & 0x0f) - 1;
  if (tl >> 4 !== TL_UNSIGNED || size < 1 || size > maxSize || at + 1 + size + rest > end) return undefined;
  return { value: unsignedBytes(data, at + 1, size), next: at + 1 + size };
}

/**
 * The shape nearly every meter sends, decoded without the general TL reader: 6-byte objName,
 * status absent or an unsigned integer, valTime absent or a bare second index, unit and scaler
 * absent or one byte, an integer or octet string value, no signature. Returns undefined (reader
 * untouched) for anything else, which readAnyEntry then reads.
 */
function readUsualEntry(reader: TlReader): SmlListEntry | undefined {
  const { data, end } = reader;
  const start = reader.offset;
  if (start + 14 > end || data[start] !== ENTRY_LIST_TL || data[start + 1] !== OBIS_NAME_TL) return undefined;
  const status = optionalUnsigned(data, start + 8, 6, 10, end);
  if (!status) return undefined;
  const time = optionalUnsigned(data, status.next, 4, 5, end);
  if (!time) return undefined;
  // A bare Unsigned32 second index in place of the SML_Time list (Holley DTZ541).
  const valTime: SmlTime | undefined =
    time.value === undefined ? undefined : { kind: 'secIndex', seconds: time.value };
  let at = time.next;
  let tl = data[at]!;
  const unit = tl === UNSIGNED8_TL ? data[at + 1] : undefined;
  if (tl !== NOT_SET && unit === undefined) return undefined;
  at += unit === undefined ? 1 : 2;
  tl = data[at]!;
  const scaler = tl === SIGNED8_TL ? (data[at + 1]! << 24) >> 24 : undefined;
  if (tl !== NOT_SET && scaler === undefined) return undefined;
  at += scaler === undefined ? 1 : 2;
  tl = data[at]!;
  const kind = tl >> 4;
  const size = (tl & 0x0f) - 1;
  const valueEnd = at + 1 + size;
  if (size < 1 || valueEnd >= end || data[valueEnd] !== NOT_SET) return undefined;
  let decoded: SmlElement | undefined;
  if (kind === TL_SIGNED || kind === TL_UNSIGNED) {
    if (size > 8) return undefined;
    decoded = readInteger(data, at + 1, size, kind === TL_SIGNED);
  } else if (kind !== TL_OCTET_STRING) {
    return undefined;
  }
  reader.offset = valueEnd + 1;
  const obisCode = unsignedBytes(data, start + 2, 6);
  const valueStart = decoded === undefined ? at + 1 : -1;
  const head = { obisCode, status: status.value, valTime, unit, scaler };
  return new ParsedListEntry(data, start + 2, start + 8, head, decoded, valueStart, valueEnd);
}

/**
 * The list header and objName of an SML_ListEntry: returns where the name starts and leaves the
 * reader after it (so the name ends at reader.offset). The usual 7-element list with a 6-byte OBIS
 * name is recognised by its two TL bytes (0x77 0x07) without the general reader.
 */
export function readEntryName(reader: TlReader): number {
  const data = reader.data;
  const start = reader.offset;
  if (start + 8 <= reader.end && data[start] === ENTRY_LIST_TL && data[start + 1] === OBIS_NAME_TL) {
    reader.offset = start + 8;
    return start + 2;
  }
  reader.expectList(7, 'SML_ListEntry');
  const nameStart = reader.readOctetsOffset('objName');
  if (nameStart < 0) throw parseError('SML_ListEntry without objName', start);
  return nameStart;
}

/** The OBIS code of a 6-byte objName as one integer; undefined for names of another length. */
export function obisCodeOf(data: Buffer, nameStart: number, nameEnd: number): number | undefined {
  return nameEnd - nameStart === 6 ? unsignedBytes(data, nameStart, 6) : undefined;
}

/** Any SML_ListEntry, through the general TL reader. */
function readAnyEntry(reader: TlReader): SmlListEntry {
  const data = reader.data;
  const nameStart = readEntryName(reader);
  const nameEnd = reader.offset;
  const obisCode = obisCodeOf(data, nameStart, nameEnd);
  const status = reader.skipUnset() ? undefined : readStatus(reader);
  const valTime = reader.skipUnset() ? undefined : readTime(reader);
  const unit = reader.readSmallInteger('unit') ?? undefined;
  const scaler = reader.readSmallInteger('scaler') ?? undefined;
  const valueAt = reader.offset;
  let decoded: SmlElement | undefined;
  let valueStart = -1;
  let valueEnd = -1;
  if (reader.readTl() === TL_OCTET_STRING && reader.length > 0) {
    valueStart = reader.offset;
    valueEnd = reader.offset += reader.length;
  } else {
    reader.offset = valueAt;
    decoded = reader.readElement();
  }
  if (!reader.skipUnset()) reader.skipElement();
  const head = { obisCode, status, valTime, unit, scaler };
  return new ParsedListEntry(data, nameStart, nameEnd, head, decoded, valueStart, valueEnd);
}

function readStatus(reader: TlReader): number | bigint | undefined {
  const offset = reader.offset;
  const status = reader.readElement();
  if (status !== null && typeof status !== 'number' && typeof status !== 'bigint') {
    throw parseError('SML_ListEntry status is not an integer', offset);
  }
  return status ?? undefined;
}

/**
 * SML_Time: a list of choice and value. Some meters (Holley DTZ541 in its list entries) send a bare
 * Unsigned32 second index instead of the list; it is read as secIndex.
 */
export function readTime(reader: TlReader): SmlTime | undefined {
  const start = reader.offset;
  const type = reader.readTl();
  if (type === TL_OCTET_STRING && reader.length === 0) return undefined;
  if (type === TL_UNSIGNED || type === TL_SIGNED) {
    reader.offset = start;
    return { kind: 'secIndex', seconds: requiredInteger(reader, 'SML_Time') };
  }
  if (type !== TL_LIST || reader.length !== 2) throw parseError('SML_Time is not a list of 2', start);
  const choice = requiredInteger(reader, 'SML_Time choice');
  if (choice === 1 || choice === 2) {
    return { kind: choice === 1 ? 'secIndex' : 'timestamp', seconds: requiredInteger(reader, 'SML_Time') };
  }
  if (choice !== 3) throw parseError(`unknown SML_Time choice ${choice}`, start);
  reader.expectList(3, 'SML_TimestampLocal');
  return {
    kind: 'localTimestamp',
    seconds: requiredInteger(reader, 'SML_Time'),
    localOffsetMinutes: requiredInteger(reader, 'localOffset'),
    seasonOffsetMinutes: requiredInteger(reader, 'seasonTimeOffset'),
  };
}

export function requiredInteger(reader: TlReader, what: string): number {
  const offset = reader.offset;
  const value = reader.readSmallInteger(what);
  if (value === null) throw parseError(`${what} missing`, offset);
  return value;
}
