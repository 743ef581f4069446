/**
 * CRC-16/ARC by slicing-by-8 in a WebAssembly function. A DSMR telegram is about 1 KiB, and a
 * byte-at-a-time CRC loop in JavaScript took a sixth of the decoder's time; this function needs
 * about half the time of the same algorithm in JavaScript, copy into its memory included.
 *
 * Slicing-by-8 (reflected CRC, 8 bytes b0..b7 per step, little-endian words lo = b0..b3 and
 * hi = b4..b7): y = crc ^ lo;
 *   crc = T7[y & 0xff] ^ T6[(y >>> 8) & 0xff] ^ T5[(y >>> 16) & 0xff] ^ T4[y >>> 24]
 *       ^ T3[hi & 0xff] ^ T2[(hi >>> 8) & 0xff] ^ T1[(hi >>> 16) & 0xff] ^ T0[hi >>> 24]
 * where Tk[n] is the CRC of byte n followed by k zero bytes; the bytes left over at the end go
 * one at a time: crc = (crc >>> 8) ^ T0[(crc ^ byte) & 0xff].
 *
 * Memory layout: the eight tables Tk as little-endian u16 at k * 512, the bytes to check from
 * DATA_OFFSET on. The module below is that function written out instruction by instruction
 * (WebAssembly core specification 1.0 binary format, §5).
 */

const DATA_OFFSET = 4096;
const PAGE_BYTES = 65536;
/** Longer inputs are left to the caller's loop rather than growing the memory without bound. */
const MAX_BYTES = 1024 * 1024;
/** Up to this many bytes outside the range are copied along rather than cut off. */
const SMALL_REST = 64;

/** Function signature: crc16(start: i32, end: i32) -> i32 over memory[start, end). */
const START = 0;
const END = 1;
const CRC = 2;
const LO = 3;
const HI = 4;

const BLOCK = [0x02, 0x40];
const LOOP = [0x03, 0x40];
const END_OP = 0x0b;
const BR = 0x0c;
const BR_IF = 0x0d;
const LOCAL_GET = 0x20;
const LOCAL_SET = 0x21;
const I32_CONST = 0x41;
const I32_LOAD = 0x28;
const I32_LOAD8_U = 0x2d;
const I32_LOAD16_U = 0x2f;
const I32_GT_U = 0x4b;
const I32_GE_U = 0x4f;
const I32_ADD = 0x6a;
const I32_AND = 0x71;
const I32_XOR = 0x73;
const I32_SHL = 0x74;
const I32_SHR_U = 0x76;

function unsignedLeb128(value: number): number[] {
  const bytes: number[] = [];
  do {
    const low = value & 0x7f;
    value >>>= 7;
    bytes.push(value === 0 ? low : low | 0x80);
  } while (value !== 0);
  return bytes;
}

const get = (local: number) => [LOCAL_GET, local];
const set = (local: number) => [LOCAL_SET, local];
const constant = (value: number) => [I32_CONST, ...signedLeb128(value)];

function signedLeb128(value: number): number[] {
  const bytes: number[] = [];
  for (;;) {
    const low = value & 0x7f;
    value >>= 7;
    const done = (value === 0 && (low & 0x40) === 0) || (value === -1 && (low & 0x40) !== 0);
    bytes.push(done ? low : low | 0x80);
    if (done) return bytes;
  }
}

/** T[table][index on the stack]: index * 2, u16 load at table * 512. */
const lookup = (table: number) => [...constant(1), I32_SHL, I32_LOAD16_U, 1, ...unsignedLeb128(table * 512)];
/** (local >>> shift) & 0xff, or local >>> 24 for the top byte. */
function byteOf(local: number, shift: number): number[] {
  const shifted = shift === 0 ? get(local) : [...get(local), ...constant(shift), I32_SHR_U];
  return shift === 24 ? shifted : [...shifted, ...constant(0xff), I32_AND];
}

const EIGHT_BYTES_AT_A_TIME = [
  ...BLOCK,
  ...LOOP,
  // while (start + 8 <= end)
  ...get(START), ...constant(8), I32_ADD, ...get(END), I32_GT_U, BR_IF, 1,
  ...get(START), I32_LOAD, 0, 0, ...set(LO),
  ...get(START), I32_LOAD, 0, 4, ...set(HI),
  // crc = y = crc ^ lo
  ...get(CRC), ...get(LO), I32_XOR, ...set(CRC),
  ...byteOf(CRC, 0), ...lookup(7),
  ...byteOf(CRC, 8), ...lookup(6), I32_XOR,
  ...byteOf(CRC, 16), ...lookup(5), I32_XOR,
  ...byteOf(CRC, 24), ...lookup(4), I32_XOR,
  ...byteOf(HI, 0), ...lookup(3), I32_XOR,
  ...byteOf(HI, 8), ...lookup(2), I32_XOR,
  ...byteOf(HI, 16), ...lookup(1), I32_XOR,
  ...byteOf(HI, 24), ...lookup(0), I32_XOR,
  ...set(CRC),
  ...get(START), ...constant(8), I32_ADD, ...set(START),
  BR, 0,
  END_OP,
  END_OP,
]; // prettier-ignore

const ONE_BYTE_AT_A_TIME = [
  ...BLOCK,
  ...LOOP,
  // while (start < end)
  ...get(START), ...get(END), I32_GE_U, BR_IF, 1,
  ...get(CRC), ...constant(8), I32_SHR_U,
  ...get(CRC), ...get(START), I32_LOAD8_U, 0, 0, I32_XOR, ...constant(0xff), I32_AND, ...lookup(0),
  I32_XOR, ...set(CRC),
  ...get(START), ...constant(1), I32_ADD, ...set(START),
  BR, 0,
  END_OP,
  END_OP,
]; // prettier-ignore

/** One local declaration entry: 3 locals of type i32 (crc, lo, hi). */
const FUNCTION_BODY = [1, 3, 0x7f, ...EIGHT_BYTES_AT_A_TIME, ...ONE_BYTE_AT_A_TIME, ...get(CRC), END_OP];

function section(id: number, content: number[]): number[] {
  return [id, ...unsignedLeb128(content.length), ...content];
}

function name(text: string): number[] {
  return [text.length, ...Array.from(text, (c) => c.charCodeAt(0))];
}

const MODULE = new Uint8Array([
  ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00], // "\0asm", version 1
  ...section(1, [1, 0x60, 2, 0x7f, 0x7f, 1, 0x7f]), // type 0: (i32, i32) -> i32
  ...section(3, [1, 0]), // function 0 has type 0
  ...section(5, [1, 0x00, 1]), // one memory, minimum 1 page, no maximum
  ...section(7, [2, ...name('crc16'), 0x00, 0, ...name('memory'), 0x02, 0]), // exports
  ...section(10, [1, ...unsignedLeb128(FUNCTION_BODY.length), ...FUNCTION_BODY]), // code
]);

/** The part of the WebAssembly JavaScript API used here (not in this project's TypeScript lib). */
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
}

interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

/** CRC of bytes[start, end), or -1 when the range is longer than MAX_BYTES. */
export type Crc16Function = (bytes: Uint8Array, start: number, end: number) => number;

/**
 * The WebAssembly CRC-16/ARC over `tables` (8 x 256 entries, Tk at k * 256), or undefined where
 * WebAssembly is unavailable (node --jitless) so that the caller keeps its JavaScript loop.
 */
export function createWasmCrc16(tables: Uint16Array): Crc16Function | undefined {
  const wasm = (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly;
  if (wasm === undefined) return undefined;
  let exports: Record<string, unknown>;
  try {
    exports = new wasm.Instance(new wasm.Module(MODULE)).exports;
  } catch {
    return undefined;
  }
  const memory = exports.memory as WasmMemory;
  const crc16 = exports.crc16 as (start: number, end: number) => number;
  const view = new DataView(memory.buffer);
  tables.forEach((entry, index) => view.setUint16(index * 2, entry, true));
  let bytesView = new Uint8Array(memory.buffer);
  return (bytes, start, end) => {
    const length = end - start;
    if (length > MAX_BYTES) return -1;
    if (DATA_OFFSET + length > bytesView.length) {
      memory.grow(Math.ceil((DATA_OFFSET + length - bytesView.length) / PAGE_BYTES));
      bytesView = new Uint8Array(memory.buffer);
    }
    if (bytes.length - length <= SMALL_REST && DATA_OFFSET + bytes.length <= bytesView.length) {
      // A frame's few bytes after the '!': copying them too is cheaper than a subarray view.
      bytesView.set(bytes, DATA_OFFSET);
      return crc16(DATA_OFFSET + start, DATA_OFFSET + end);
    }
    bytesView.set(bytes.subarray(start, end), DATA_OFFSET);
    return crc16(DATA_OFFSET, DATA_OFFSET + length);
  };
}
