import { crc16SlicingBy8 } from '../wasm/crc16-slicing-by-8.js';
import { I32 } from '../wasm/instructions.js';
import { instantiate, moduleWithMemory, type WasmMemory } from '../wasm/module.js';

/**
 * CRC-16/ARC by slicing-by-8 (../wasm/crc16-slicing-by-8.ts) in a WebAssembly function. A DSMR
 * telegram is about 1 KiB, and a byte-at-a-time CRC loop in JavaScript took a sixth of the
 * decoder's time; this function needs about half the time of the same algorithm in JavaScript,
 * copy into its memory included.
 *
 * Memory layout: the eight tables Tk as little-endian u16 at k * 512, the bytes to check from
 * DATA_OFFSET on.
 */

const DATA_OFFSET = 4096;
const PAGE_BYTES = 65536;
/** Longer inputs are left to the caller's loop rather than growing the memory without bound. */
const MAX_BYTES = 1024 * 1024;
/** Up to this many bytes outside the range are copied along rather than cut off. */
const SMALL_REST = 64;

/** crc16(start: i32, end: i32) -> i32 over memory[start, end); the register a local from 0. */
const MODULE = moduleWithMemory([
  {
    name: 'crc16',
    params: [I32, I32],
    results: [I32],
    locals: [[3, I32]], // crc, lo, hi
    body: crc16SlicingBy8({
      locals: { start: 0, end: 1, crc: 2, lo: 3, hi: 4 },
      tableBase: 0,
      wordAlignment: 0,
    }),
  },
]);

/** CRC of bytes[start, end), or -1 when the range is longer than MAX_BYTES. */
export type Crc16Function = (bytes: Uint8Array, start: number, end: number) => number;

/**
 * The WebAssembly CRC-16/ARC over `tables` (8 x 256 entries, Tk at k * 256), or undefined where
 * WebAssembly is unavailable (node --jitless) so that the caller keeps its JavaScript loop.
 */
export function createWasmCrc16(tables: Uint16Array): Crc16Function | undefined {
  const exports = instantiate(MODULE);
  if (exports === undefined) return undefined;
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
