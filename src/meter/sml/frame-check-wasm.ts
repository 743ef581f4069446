import { crc16SlicingBy8 } from '../wasm/crc16-slicing-by-8.js';
import {
  BLOCK,
  BR,
  BR_IF,
  END,
  I32,
  I32_ADD,
  I32_AND,
  I32_EQ,
  I32_EQZ,
  I32_GE_S,
  I32_GT_S,
  I32_LOAD,
  I32_LOAD8_U,
  I32_LT_S,
  I32_MUL,
  I32_NE,
  I32_SHR_U,
  I32_STORE,
  I32_SUB,
  I32_XOR,
  I64,
  I64_AND,
  I64_CONST,
  I64_EQZ,
  I64_EXTEND_I32_U,
  I64_LOAD,
  I64_OR,
  I64_XOR,
  IF,
  LOOP,
  RETURN,
  addTo,
  get,
  i32,
  memoryAccess,
  set,
} from '../wasm/instructions.js';
import { instantiate, moduleWithMemory, type WasmMemory } from '../wasm/module.js';

/**
 * The two loops of a learnt-layout frame check (./frame-check.ts) as one WebAssembly module,
 * written out instruction by instruction (../wasm/instructions.ts):
 *
 * - crc16(start, end, init) -> register: reflected CRC-16 over memory[start, end) by slicing-by-8
 *   (../wasm/crc16-slicing-by-8.ts), tables Tk as little-endian u16 at k * 512.
 * - match(frame, length, steps, count, template, mask, positions) -> 0/1: the layout steps of
 *   ./frame-layout.ts over the frame at `frame` (each step 5 i32: from, run length, integer type,
 *   maxSize, field), comparing each run 8 bytes at a time:
 *   difference |= (frame word ^ template word) & mask word, then byte by byte for the rest; an
 *   integer's offset in the frame goes to positions[field].
 * A JavaScript loop over the same bytes takes several times as long: V8 re-checks each typed
 * array on every access, where these loads are plain memory reads.
 */

/** The module's functions and its memory, or undefined where WebAssembly is unavailable. */
export interface FrameCheckModule {
  crc16(start: number, end: number, init: number): number;
  match(
    frame: number,
    length: number,
    steps: number,
    count: number,
    template: number,
    mask: number,
    positions: number,
  ): number;
  memory: WasmMemory;
}

const I64_LOAD_WORD = memoryAccess(I64_LOAD, 3, 0);
const I32_LOAD_BYTE = memoryAccess(I32_LOAD8_U, 0, 0);
const i64Zero = [I64_CONST, 0];
/** return 0 when the i32 on the stack is not 0. */
const failIf = [...IF, ...i32(0), RETURN, END];

// match(frame 0, length 1, steps 2, count 3, template 4, mask 5, positions 6); i32 locals end 7,
// at 8, from 9, n 10, k 11, type 12, tl 13, size 14, field 15; i64 local difference 16.
const [FRAME, LENGTH, STEPS, COUNT, TEMPLATE, MASK, POSITIONS] = [0, 1, 2, 3, 4, 5, 6];
const [M_END, AT, FROM, N, K, TYPE, TL, SIZE, FIELD, DIFFERENCE] = [7, 8, 9, 10, 11, 12, 13, 14, 15, 16];
/** Address of byte k of the run in the frame (frame + at + k) or in template/mask (base + from + k). */
const frameByte = [...get(FRAME), ...get(AT), I32_ADD, ...get(K), I32_ADD];
const layoutByte = (base: number): number[] => [...get(base), ...get(FROM), I32_ADD, ...get(K), I32_ADD];
/** Field `index` of the current step (steps + index * 4). */
const stepField = (index: number): number[] => [...get(STEPS), ...memoryAccess(I32_LOAD, 2, index * 4)];

const COMPARE_RUN = [
  ...i64Zero, ...set(DIFFERENCE), ...i32(0), ...set(K),
  // 8 bytes at a time while k + 8 <= n
  ...BLOCK, ...LOOP,
  ...get(K), ...i32(8), I32_ADD, ...get(N), I32_GT_S, BR_IF, 1,
  ...get(DIFFERENCE),
  ...frameByte, ...I64_LOAD_WORD, ...layoutByte(TEMPLATE), ...I64_LOAD_WORD, I64_XOR,
  ...layoutByte(MASK), ...I64_LOAD_WORD, I64_AND, I64_OR, ...set(DIFFERENCE),
  ...addTo(K, i32(8)),
  BR, 0, END, END,
  // the rest byte by byte
  ...BLOCK, ...LOOP,
  ...get(K), ...get(N), I32_GE_S, BR_IF, 1,
  ...get(DIFFERENCE),
  ...frameByte, ...I32_LOAD_BYTE, ...layoutByte(TEMPLATE), ...I32_LOAD_BYTE, I32_XOR,
  ...layoutByte(MASK), ...I32_LOAD_BYTE, I32_AND, I64_EXTEND_I32_U, I64_OR, ...set(DIFFERENCE),
  ...addTo(K, i32(1)),
  BR, 0, END, END,
  ...get(DIFFERENCE), I64_EQZ, I32_EQZ, ...failIf,
]; // prettier-ignore

const READ_INTEGER = [
  ...get(AT), ...get(M_END), I32_GE_S, ...failIf,
  ...get(FRAME), ...get(AT), I32_ADD, ...I32_LOAD_BYTE, ...set(TL),
  ...get(TL), ...i32(0x0f), I32_AND, ...i32(1), I32_SUB, ...set(SIZE),
  ...get(TL), ...i32(4), I32_SHR_U, ...get(TYPE), I32_NE, ...failIf,
  ...get(SIZE), ...i32(1), I32_LT_S, ...failIf,
  ...get(SIZE), ...stepField(3), I32_GT_S, ...failIf,
  ...stepField(4), ...set(FIELD),
  ...get(FIELD), ...i32(0), I32_GE_S,
  ...IF, ...get(POSITIONS), ...get(FIELD), ...i32(4), I32_MUL, I32_ADD, ...get(AT), ...memoryAccess(I32_STORE, 2, 0), END,
  ...addTo(AT, [...i32(1), ...get(SIZE), I32_ADD]),
]; // prettier-ignore

const MATCH_BODY = [
  // end = length - 8 - padding byte (frame[length - 3]); at = 8
  ...get(LENGTH), ...i32(8), I32_SUB,
  ...get(FRAME), ...get(LENGTH), I32_ADD, ...i32(3), I32_SUB, ...I32_LOAD_BYTE, I32_SUB, ...set(M_END),
  ...i32(8), ...set(AT),
  ...BLOCK, ...LOOP,
  ...get(COUNT), I32_EQZ, BR_IF, 1,
  ...stepField(0), ...set(FROM),
  ...stepField(1), ...set(N),
  ...get(AT), ...get(N), I32_ADD, ...get(M_END), I32_GT_S, ...failIf,
  ...COMPARE_RUN,
  ...addTo(AT, get(N)),
  ...stepField(2), ...set(TYPE),
  ...get(TYPE), ...IF, ...READ_INTEGER, END,
  ...addTo(STEPS, i32(20)),
  ...get(COUNT), ...i32(1), I32_SUB, ...set(COUNT),
  BR, 0, END, END,
  ...get(AT), ...get(M_END), I32_EQ, END,
]; // prettier-ignore

const MODULE = moduleWithMemory([
  {
    name: 'crc16',
    params: [I32, I32, I32],
    results: [I32],
    locals: [[2, I32]], // lo, hi
    body: crc16SlicingBy8({
      locals: { start: 0, end: 1, crc: 2, lo: 3, hi: 4 },
      tableBase: 0,
      wordAlignment: 2,
    }),
  },
  {
    name: 'match',
    params: [I32, I32, I32, I32, I32, I32, I32],
    results: [I32],
    locals: [
      [9, I32],
      [1, I64],
    ], // end .. field, difference
    body: MATCH_BODY,
  },
]);

/** A new instance of the module, or undefined where WebAssembly is unavailable (node --jitless). */
export function instantiateFrameCheck(): FrameCheckModule | undefined {
  return instantiate(MODULE) as FrameCheckModule | undefined;
}
