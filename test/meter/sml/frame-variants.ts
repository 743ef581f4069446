import { crc16X25 } from '../../../src/checksum/crc16.js';
import { MESSAGE_TAG } from '../../../src/meter/sml/message-types.js';
import { TlReader } from '../../../src/meter/sml/tl.js';
import { withFixedFrameCrc } from './sml-builder.js';

/**
 * Frames a meter sends after a given one: the same messages with other numbers, as a real meter
 * sends them every second. In the n-th variant of a transport frame without escaped data
 * - every list entry value that is an integer with a one-byte TL is increased by n x (37 + its
 *   index among those values), wrapping within its size (so every frame keeps its length),
 * - every transaction id's last byte and every GetList.Res second index (SML_Time choice 1) are
 *   increased by n,
 * - every message CRC and the frame CRC are computed anew.
 * A variant in which 1b1b1b1b would appear in the data (it would need escaping) is skipped for the
 * next n, so every variant has the framing of the original.
 */

interface Span {
  start: number;
  size: number;
}

interface FrameFields {
  values: Span[];
  transactionIds: Span[];
  secIndexes: Span[];
  /** Message start and the offset of its crc16 content (after the TL byte 0x63). */
  messages: Array<{ start: number; crc: number }>;
}

/** `count` variants of `frame` (the first is n = 1; see above). */
export function frameVariants(frame: Buffer, count: number): Buffer[] {
  const fields = frameFields(frame);
  const variants: Buffer[] = [];
  for (let n = 1; variants.length < count; n++) {
    if (n > count * 16) throw new Error('no variants without an escape sequence');
    const variant = frameVariant(frame, fields, n);
    if (variant !== undefined) variants.push(variant);
  }
  return variants;
}

/** Where the numbers of a transport frame without escaped data are. */
export function frameFields(frame: Buffer): FrameFields {
  const fields: FrameFields = { values: [], transactionIds: [], secIndexes: [], messages: [] };
  const end = frame.length - 8 - frame[frame.length - 3]!;
  const reader = new TlReader(frame, 8, end);
  while (reader.remaining > 0) {
    if (reader.peekByte() === 0) {
      reader.offset += 1;
      continue;
    }
    const start = reader.offset;
    reader.expectList(6, 'SML_Message');
    fields.transactionIds.push(octetsSpan(reader));
    reader.skipElement();
    reader.skipElement();
    reader.expectList(2, 'SML_MessageBody');
    const tag = reader.readSmallInteger('tag');
    if (tag === MESSAGE_TAG.getListResponse) readGetList(reader, fields);
    else reader.skipElement();
    const crc = reader.offset;
    if (frame[crc] !== 0x63 || frame[crc + 3] !== 0)
      throw new Error(`message at ${start}: no crc16 of 2 bytes`);
    fields.messages.push({ start, crc: crc + 1 });
    reader.offset = crc + 4;
  }
  return fields;
}

function readGetList(reader: TlReader, fields: FrameFields): void {
  reader.expectList(7, 'GetListResponse');
  for (let i = 0; i < 3; i++) reader.skipElement();
  const time = reader.offset;
  if (reader.data[time] === 0x72 && reader.data[time + 1] === 0x62 && reader.data[time + 2] === 0x01) {
    reader.offset = time + 3;
    const span = integerSpan(reader);
    if (span !== undefined) fields.secIndexes.push(span);
  }
  reader.offset = time;
  reader.skipElement();
  reader.readTl();
  for (let entries = reader.length; entries > 0; entries--) {
    reader.expectList(7, 'SML_ListEntry');
    for (let i = 0; i < 5; i++) reader.skipElement();
    const value = integerSpan(reader);
    if (value !== undefined) fields.values.push(value);
    reader.skipElement();
    reader.skipElement();
  }
  reader.skipElement();
  reader.skipElement();
}

/** The content of the integer element at the reader (one-byte TL), or undefined for another element. */
function integerSpan(reader: TlReader): Span | undefined {
  const tl = reader.data[reader.offset]!;
  const type = tl >> 4;
  return type === 5 || type === 6 ? { start: reader.offset + 1, size: (tl & 0x0f) - 1 } : undefined;
}

function octetsSpan(reader: TlReader): Span {
  reader.readTl();
  const span = { start: reader.offset, size: reader.length };
  reader.offset += reader.length;
  return span;
}

function frameVariant(frame: Buffer, fields: FrameFields, n: number): Buffer | undefined {
  const variant = Buffer.from(frame);
  fields.values.forEach((span, index) => add(variant, span, BigInt(n * (37 + index))));
  for (const span of fields.transactionIds)
    if (span.size > 0) add(variant, { start: span.start + span.size - 1, size: 1 }, BigInt(n));
  for (const span of fields.secIndexes) add(variant, span, BigInt(n));
  for (const { start, crc } of fields.messages) {
    const checksum = crc16X25(variant, start, crc - 1);
    variant[crc] = checksum & 0xff;
    variant[crc + 1] = checksum >> 8;
  }
  const fixed = withFixedFrameCrc(variant);
  return fixed.subarray(8, fixed.length - 8).includes(ESCAPE) ? undefined : fixed;
}

const ESCAPE = Buffer.from('1b1b1b1b', 'hex');

/** Adds `delta` to the big-endian integer at `span`, wrapping within its size. */
function add(bytes: Buffer, span: Span, delta: bigint): void {
  let value = 0n;
  for (let i = 0; i < span.size; i++) value = (value << 8n) | BigInt(bytes[span.start + i]!);
  value = BigInt.asUintN(span.size * 8, value + delta);
  for (let i = span.size - 1; i >= 0; i--) {
    bytes[span.start + i] = Number(value & 0xffn);
    value >>= 8n;
  }
}
