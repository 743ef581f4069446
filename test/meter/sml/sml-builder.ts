import { crc16X25 } from '../../../src/checksum/crc16.js';

/**
 * Test-side SML encoder: TL elements, messages with their crc16 and transport v1 frames with
 * escaping, padding and the frame CRC, so tests can state exactly which bytes a meter would send.
 */

export type Tl =
  | { octets: Buffer }
  | { unsigned: number | bigint; size: number }
  | { signed: number | bigint; size: number }
  | { bool: boolean }
  | { list: Tl[] }
  | null;

export const octets = (value: Buffer | string): Tl => ({
  octets: Buffer.isBuffer(value) ? value : Buffer.from(value, 'latin1'),
});
export const u = (value: number | bigint, size: number): Tl => ({ unsigned: value, size });
export const i = (value: number | bigint, size: number): Tl => ({ signed: value, size });
export const list = (...items: Tl[]): Tl => ({ list: items });

/** TL header of `type` with the length nibbles, using as many TL bytes as needed. */
function tlHeader(type: number, length: number, lengthIncludesTl: boolean): Buffer {
  for (let bytes = 1; bytes <= 4; bytes++) {
    const total = lengthIncludesTl ? length + bytes : length;
    if (total < 16 ** bytes) {
      const out = Buffer.alloc(bytes);
      for (let k = 0; k < bytes; k++) {
        const nibble = (total >> (4 * (bytes - 1 - k))) & 0x0f;
        const more = k < bytes - 1 ? 0x80 : 0;
        out[k] = more | (k === 0 ? type << 4 : 0) | nibble;
      }
      return out;
    }
  }
  throw new RangeError(`length ${length} too large`);
}

function integerBytes(value: number | bigint, size: number): Buffer {
  const out = Buffer.alloc(size);
  let rest = BigInt.asUintN(size * 8, BigInt(value));
  for (let k = size - 1; k >= 0; k--) {
    out[k] = Number(rest & 0xffn);
    rest >>= 8n;
  }
  return out;
}

export function encode(element: Tl): Buffer {
  if (element === null) return Buffer.from([0x01]);
  if ('octets' in element) return Buffer.concat([tlHeader(0, element.octets.length, true), element.octets]);
  if ('bool' in element) return Buffer.from([0x42, element.bool ? 1 : 0]);
  if ('unsigned' in element)
    return Buffer.concat([tlHeader(6, element.size, true), integerBytes(element.unsigned, element.size)]);
  if ('signed' in element)
    return Buffer.concat([tlHeader(5, element.size, true), integerBytes(element.signed, element.size)]);
  return Buffer.concat([tlHeader(7, element.list.length, false), ...element.list.map(encode)]);
}

/** SML_Message with its crc16 (X-25, low byte first) and EndOfSmlMsg. */
export function message(transactionId: string, tag: number, content: Tl): Buffer {
  const head = Buffer.concat([
    Buffer.from([0x76]),
    encode(octets(transactionId)),
    encode(u(0, 1)),
    encode(u(0, 1)),
    encode(list(u(tag, tag > 0xffff ? 4 : 2), content)),
  ]);
  const checksum = crc16X25(head);
  return Buffer.concat([head, Buffer.from([0x63, checksum & 0xff, checksum >> 8, 0x00])]);
}

export function openResponse(serverId: Buffer): Buffer {
  return message('t1', 0x0101, list(null, null, octets('f1'), octets(serverId), null, null));
}

export function closeResponse(): Buffer {
  return message('t3', 0x0201, list(null));
}

export interface EntrySpec {
  obis: number[];
  unit?: number;
  scaler?: number;
  value: Tl;
}

export function getListResponse(serverId: Buffer, entries: EntrySpec[], sensorTime: Tl = null): Buffer {
  const valList = entries.map((entry) =>
    list(
      octets(Buffer.from(entry.obis)),
      null,
      null,
      entry.unit === undefined ? null : u(entry.unit, 1),
      entry.scaler === undefined ? null : i(entry.scaler, 1),
      entry.value,
      null,
    ),
  );
  return message('t2', 0x0701, list(null, octets(serverId), null, sensorTime, list(...valList), null, null));
}

/** Transport v1 frame around `messages`: escaping at 4-byte blocks, padding, X-25 CRC. */
export function transportFrame(messages: Buffer): Buffer {
  const padding = (4 - (messages.length % 4)) % 4;
  const data = Buffer.concat([messages, Buffer.alloc(padding)]);
  const escaped: Buffer[] = [];
  for (let block = 0; block < data.length; block += 4) {
    const word = data.subarray(block, block + 4);
    if (word.readUInt32BE(0) === 0x1b1b1b1b) escaped.push(word);
    escaped.push(word);
  }
  const body = Buffer.concat([
    Buffer.from('1b1b1b1b01010101', 'hex'),
    ...escaped,
    Buffer.from([0x1b, 0x1b, 0x1b, 0x1b, 0x1a, padding]),
  ]);
  const checksum = crc16X25(body);
  return Buffer.concat([body, Buffer.from([checksum & 0xff, checksum >> 8])]);
}

/** Recomputes the frame CRC after a test changed bytes inside a frame. */
export function withFixedFrameCrc(frame: Buffer): Buffer {
  const fixed = Buffer.from(frame);
  const checksum = crc16X25(fixed, 0, fixed.length - 2);
  fixed[fixed.length - 2] = checksum & 0xff;
  fixed[fixed.length - 1] = checksum >> 8;
  return fixed;
}
