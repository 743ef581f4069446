import { MeterDataError } from '../decoder.js';

/**
 * SML type-length fields (SML 1.04, "Type-Length-Field"). The first TL byte holds
 *   bit 7     another TL byte follows,
 *   bits 6..4 the type: 000 octet string, 100 boolean, 101 signed integer, 110 unsigned integer,
 *             111 list,
 *   bits 3..0 the first length nibble.
 * Every further TL byte carries 0 in bits 6..4 and the next (less significant) length nibble. For a
 * list the length is its element count; for every other type it is the size of the whole element,
 * TL bytes included. Integers are big-endian two's complement of 1..8 bytes (odd widths such as
 * 3-byte integers occur in the field). TL 0x01 (an empty octet string) marks an optional element
 * that is not set; 0x00 is EndOfSmlMsg.
 */

/** A decoded element: null (not set), boolean, integer, octet string or list. */
export type SmlElement = null | boolean | number | bigint | Buffer | SmlElement[];

export const TL_OCTET_STRING = 0;
export const TL_BOOLEAN = 4;
export const TL_SIGNED = 5;
export const TL_UNSIGNED = 6;
export const TL_LIST = 7;

/** Deepest list nesting accepted (SML trees such as attention details are a few levels deep). */
const MAX_DEPTH = 32;
/** A length spread over more TL bytes than this cannot describe an element of a bounded frame. */
const MAX_TL_BYTES = 6;

export const END_OF_SML_MESSAGE = 0x00;

export function parseError(message: string, offset: number): MeterDataError {
  return new MeterDataError('parse', `SML: ${message} at offset ${offset}`, { offset });
}

/**
 * Reads consecutive TL-encoded elements from `data[offset, end)`. `readTl` decodes one TL header,
 * returns its type, sets `length` (element count for lists, payload size otherwise) and leaves
 * `offset` at the payload; the typed readers build on it.
 */
export class TlReader {
  /** Length of the TL header read last: element count of a list, payload bytes otherwise. */
  length = 0;

  constructor(
    readonly data: Buffer,
    public offset = 0,
    readonly end = data.length,
  ) {}

  get remaining(): number {
    return this.end - this.offset;
  }

  peekByte(): number | undefined {
    return this.offset < this.end ? this.data[this.offset] : undefined;
  }

  /** Consumes an optional element that is not set (0x01); false when something else is next. */
  skipUnset(): boolean {
    if (this.offset < this.end && this.data[this.offset] === 0x01) {
      this.offset += 1;
      return true;
    }
    return false;
  }

  /** Decodes the TL header at `offset`; returns the type. */
  readTl(): number {
    const start = this.offset;
    if (start >= this.end) throw parseError('data ends inside an element', start);
    const first = this.data[start]!;
    if (first === END_OF_SML_MESSAGE) throw parseError('unexpected EndOfSmlMsg', start);
    const type = (first >> 4) & 0x07;
    let length = first & 0x0f;
    let tlBytes = 1;
    let more = first >= 0x80;
    while (more) {
      const next = this.byteAt(start + tlBytes);
      if ((next & 0x70) !== 0) throw parseError('bad TL continuation byte', start + tlBytes);
      length = length * 16 + (next & 0x0f);
      more = (next & 0x80) !== 0;
      tlBytes += 1;
      if (tlBytes > MAX_TL_BYTES) throw parseError('TL field too long', start);
    }
    this.offset = start + tlBytes;
    if (type === TL_LIST) {
      if (length > this.end - this.offset)
        throw parseError(`list of ${length} elements overruns the data`, start);
    } else {
      length -= tlBytes;
      if (length < 0) throw parseError(`TL length ${length + tlBytes} shorter than the TL field`, start);
      if (length > this.end - this.offset)
        throw parseError(`element of ${length} bytes overruns the data`, start);
    }
    this.length = length;
    return type;
  }

  /** Reads a list header and checks its element count. */
  expectList(count: number, what: string): void {
    const start = this.offset;
    if (this.readTl() !== TL_LIST || this.length !== count)
      throw parseError(`${what} is not a list of ${count}`, start);
  }

  /** Reads an octet string; returns where its bytes start (`length` of them), or -1 when not set. */
  readOctetsOffset(what: string): number {
    const start = this.offset;
    if (this.readTl() !== TL_OCTET_STRING) throw parseError(`${what} is not an octet string`, start);
    const from = this.offset;
    this.offset += this.length;
    return this.length === 0 ? -1 : from;
  }

  /** An integer that fits a number (unit, scaler, tags, times), or null when not set. */
  readSmallInteger(what: string): number | null {
    const start = this.offset;
    const first = start < this.end ? this.data[start]! : 0;
    const kind = first >> 4;
    const size = (first & 0x0f) - 1;
    // One TL byte and 1..4 data bytes: the usual shape of units, scalers, tags and CRCs.
    if (
      (kind === TL_SIGNED || kind === TL_UNSIGNED) &&
      size >= 1 &&
      size <= 4 &&
      start + 1 + size <= this.end
    ) {
      this.offset = start + 1 + size;
      let value = 0;
      for (let i = 1; i <= size; i++) value = value * 256 + this.data[start + i]!;
      if (kind === TL_SIGNED && value >= 2 ** (8 * size - 1)) value -= 2 ** (8 * size);
      return value;
    }
    const type = this.readTl();
    if (type === TL_OCTET_STRING && this.length === 0) return null;
    if ((type !== TL_SIGNED && type !== TL_UNSIGNED) || this.length < 1 || this.length > 6) {
      throw parseError(`${what} is not a small integer`, start);
    }
    const from = this.offset;
    this.offset += this.length;
    return readInteger(this.data, from, this.length, type === TL_SIGNED) as number;
  }

  /** Reads one element and everything nested in it. */
  readElement(depth = 0): SmlElement {
    const start = this.offset;
    const type = this.readTl();
    const size = this.length;
    if (type === TL_LIST) {
      if (depth >= MAX_DEPTH) throw parseError('lists nested too deeply', start);
      const items: SmlElement[] = [];
      for (let i = 0; i < size; i++) items.push(this.readElement(depth + 1));
      return items;
    }
    const from = this.offset;
    this.offset += size;
    switch (type) {
      case TL_OCTET_STRING:
        return size === 0 ? null : this.data.subarray(from, from + size);
      case TL_BOOLEAN:
        if (size !== 1) throw parseError(`boolean of ${size} bytes`, start);
        return this.data[from] !== 0;
      case TL_SIGNED:
      case TL_UNSIGNED:
        if (size < 1 || size > 8) throw parseError(`integer of ${size} bytes`, start);
        return readInteger(this.data, from, size, type === TL_SIGNED);
      default:
        throw parseError(`unknown TL type ${type}`, start);
    }
  }

  /** Skips one element and everything nested in it without decoding it. */
  skipElement(depth = 0): void {
    const start = this.offset;
    const type = this.readTl();
    if (type !== TL_LIST) {
      if (type !== TL_OCTET_STRING && type !== TL_BOOLEAN && type !== TL_SIGNED && type !== TL_UNSIGNED) {
        throw parseError(`unknown TL type ${type}`, start);
      }
      this.offset += this.length;
      return;
    }
    if (depth >= MAX_DEPTH) throw parseError('lists nested too deeply', start);
    for (let i = this.length; i > 0; i--) this.skipElement(depth + 1);
  }

  private byteAt(offset: number): number {
    if (offset >= this.end) throw parseError('data ends inside an element', offset);
    return this.data[offset]!;
  }
}

/** Above this magnitude the high part times 2^32 plus the low word is no longer an exact number. */
const SAFE_HIGH_WORD = 2 ** 21;
/** 256^n for n = 0..8: the range of an n-byte integer. */
const BYTE_RANGES = Array.from({ length: 9 }, (_, n) => 2 ** (8 * n));

/**
 * Big-endian integer of 1..8 bytes; a number when it fits exactly, otherwise a bigint. Read byte
 * by byte: Buffer's readIntBE family is slower to call in a hot loop than the arithmetic.
 */
export function readInteger(
  data: Uint8Array,
  offset: number,
  size: number,
  signed: boolean,
): number | bigint {
  if (size === 1) return signed ? (data[offset]! << 24) >> 24 : data[offset]!;
  if (size === 2) {
    const word = (data[offset]! << 8) | data[offset + 1]!;
    return signed ? (word << 16) >> 16 : word;
  }
  const negative = signed && data[offset]! >= 0x80;
  if (size <= 6) return unsignedBytes(data, offset, size) - (negative ? BYTE_RANGES[size]! : 0);
  const high = unsignedBytes(data, offset, size - 4) - (negative ? BYTE_RANGES[size - 4]! : 0);
  if (high < SAFE_HIGH_WORD && high > -SAFE_HIGH_WORD)
    return high * 2 ** 32 + unsignedBytes(data, offset + size - 4, 4);
  let value = 0n;
  for (let i = 0; i < size; i++) value = (value << 8n) | BigInt(data[offset + i]!);
  if (signed) value = BigInt.asIntN(size * 8, value);
  const asNumber = Number(value);
  return Number.isSafeInteger(asNumber) ? asNumber : value;
}

/** Big-endian unsigned integer of 1..6 bytes (callers checked the bounds). */
export function unsignedBytes(data: Uint8Array, offset: number, size: number): number {
  let value = 0;
  for (let i = 0; i < size; i++) value = value * 256 + data[offset + i]!;
  return value;
}
