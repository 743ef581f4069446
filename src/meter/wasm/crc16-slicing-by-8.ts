import {
  BLOCK,
  BR,
  BR_IF,
  END,
  I32_ADD,
  I32_AND,
  I32_GE_U,
  I32_GT_U,
  I32_LOAD,
  I32_LOAD16_U,
  I32_LOAD8_U,
  I32_SHL,
  I32_SHR_U,
  I32_XOR,
  LOOP,
  addTo,
  get,
  i32,
  memoryAccess,
  set,
} from './instructions.js';

/**
 * A reflected CRC-16 over memory[start, end) by slicing-by-8, as the instructions of one
 * WebAssembly function (./instructions.ts). Per step 8 bytes b0..b7 as little-endian words
 * lo = b0..b3 and hi = b4..b7; y = crc ^ lo;
 *   crc = T7[y & 0xff] ^ T6[(y >>> 8) & 0xff] ^ T5[(y >>> 16) & 0xff] ^ T4[y >>> 24]
 *       ^ T3[hi & 0xff] ^ T2[(hi >>> 8) & 0xff] ^ T1[(hi >>> 16) & 0xff] ^ T0[hi >>> 24]
 * where Tk[n] is the register after byte n followed by k zero bytes; the bytes left over at the
 * end go one at a time: crc = (crc >>> 8) ^ T0[(crc ^ byte) & 0xff]. The polynomial lives only in
 * the tables: Tk as 256 little-endian u16 at tableBase + k * 512 in the module's memory.
 */

/** Local indices of the function: its range, the register (its value is returned) and two i32 temporaries. */
export interface Crc16Locals {
  readonly start: number;
  readonly end: number;
  readonly crc: number;
  readonly lo: number;
  readonly hi: number;
}

export interface Crc16Options {
  readonly locals: Crc16Locals;
  /** Byte address of T0 in memory. */
  readonly tableBase: number;
  /** Alignment hint (log2 of bytes) of the two 32-bit word loads' memarg. */
  readonly wordAlignment: number;
}

const TABLE_BYTES = 256 * 2;

/** The function's expression (final END included): both loops, then the register as result. */
export function crc16SlicingBy8({ locals, tableBase, wordAlignment }: Crc16Options): number[] {
  const { start, end, crc, lo, hi } = locals;
  /** Tk[index on the stack]: index * 2, u16 load. */
  const table = (k: number): number[] => [
    ...i32(1), I32_SHL, ...memoryAccess(I32_LOAD16_U, 1, tableBase + k * TABLE_BYTES),
  ]; // prettier-ignore
  /** (local >>> shift) & 0xff, or local >>> 24 for the top byte. */
  const byteOf = (local: number, shift: number): number[] => {
    const shifted = shift === 0 ? get(local) : [...get(local), ...i32(shift), I32_SHR_U];
    return shift === 24 ? shifted : [...shifted, ...i32(0xff), I32_AND];
  };
  return [
    // while (start + 8 <= end)
    ...BLOCK, ...LOOP,
    ...get(start), ...i32(8), I32_ADD, ...get(end), I32_GT_U, BR_IF, 1,
    ...get(start), ...memoryAccess(I32_LOAD, wordAlignment, 0), ...set(lo),
    ...get(start), ...memoryAccess(I32_LOAD, wordAlignment, 4), ...set(hi),
    // crc = y = crc ^ lo
    ...get(crc), ...get(lo), I32_XOR, ...set(crc),
    ...byteOf(crc, 0), ...table(7),
    ...byteOf(crc, 8), ...table(6), I32_XOR,
    ...byteOf(crc, 16), ...table(5), I32_XOR,
    ...byteOf(crc, 24), ...table(4), I32_XOR,
    ...byteOf(hi, 0), ...table(3), I32_XOR,
    ...byteOf(hi, 8), ...table(2), I32_XOR,
    ...byteOf(hi, 16), ...table(1), I32_XOR,
    ...byteOf(hi, 24), ...table(0), I32_XOR,
    ...set(crc),
    ...addTo(start, i32(8)),
    BR, 0, END, END,
    // while (start < end)
    ...BLOCK, ...LOOP,
    ...get(start), ...get(end), I32_GE_U, BR_IF, 1,
    ...get(crc), ...i32(8), I32_SHR_U,
    ...get(crc), ...get(start), ...memoryAccess(I32_LOAD8_U, 0, 0), I32_XOR, ...i32(0xff), I32_AND, ...table(0),
    I32_XOR, ...set(crc),
    ...addTo(start, i32(1)),
    BR, 0, END, END,
    ...get(crc), END,
  ]; // prettier-ignore
}
