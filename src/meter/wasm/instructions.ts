/**
 * Instruction encoding for WebAssembly functions written out by hand (WebAssembly core
 * specification 1.0, binary format §5): opcodes (§5.4), LEB128 integers (§5.2.2), and a few
 * helpers that spell out common instruction sequences as byte arrays.
 */

/** Value types (§5.3.1). */
export const I32 = 0x7f;
export const I64 = 0x7e;

/** Structured control instructions with the empty block type 0x40 (§5.4.1). */
export const BLOCK = [0x02, 0x40];
export const LOOP = [0x03, 0x40];
export const IF = [0x04, 0x40];
export const END = 0x0b;
export const BR = 0x0c;
export const BR_IF = 0x0d;
export const RETURN = 0x0f;

/** Variable instructions (§5.4.3). */
export const LOCAL_GET = 0x20;
export const LOCAL_SET = 0x21;

/** Memory instructions (§5.4.4), each followed by a memarg (see memoryAccess). */
export const I32_LOAD = 0x28;
export const I64_LOAD = 0x29;
export const I32_LOAD8_U = 0x2d;
export const I32_LOAD16_U = 0x2f;
export const I32_STORE = 0x36;

/** Numeric instructions (§5.4.5). */
export const I32_CONST = 0x41;
export const I64_CONST = 0x42;
export const I32_EQZ = 0x45;
export const I32_EQ = 0x46;
export const I32_NE = 0x47;
export const I32_LT_S = 0x48;
export const I32_GT_S = 0x4a;
export const I32_GT_U = 0x4b;
export const I32_GE_S = 0x4e;
export const I32_GE_U = 0x4f;
export const I64_EQZ = 0x50;
export const I32_ADD = 0x6a;
export const I32_SUB = 0x6b;
export const I32_MUL = 0x6c;
export const I32_AND = 0x71;
export const I32_XOR = 0x73;
export const I32_SHL = 0x74;
export const I32_SHR_U = 0x76;
export const I64_AND = 0x83;
export const I64_OR = 0x84;
export const I64_XOR = 0x85;
export const I64_EXTEND_I32_U = 0xad;

/** Unsigned LEB128 (§5.2.2) of a non-negative integer below 2^32. */
export function unsignedLeb128(value: number): number[] {
  const bytes: number[] = [];
  do {
    const low = value & 0x7f;
    value >>>= 7;
    bytes.push(value === 0 ? low : low | 0x80);
  } while (value !== 0);
  return bytes;
}

/** Signed LEB128 (§5.2.2) of a 32-bit integer. */
export function signedLeb128(value: number): number[] {
  const bytes: number[] = [];
  for (;;) {
    const low = value & 0x7f;
    value >>= 7;
    const done = (value === 0 && (low & 0x40) === 0) || (value === -1 && (low & 0x40) !== 0);
    bytes.push(done ? low : low | 0x80);
    if (done) return bytes;
  }
}

/**
 * A load or store with its memarg (§5.4.4): alignment as log2 of the byte count the access is
 * assumed aligned to (a hint only), then the constant offset added to the address.
 */
export function memoryAccess(opcode: number, alignment: number, offset: number): number[] {
  return [opcode, ...unsignedLeb128(alignment), ...unsignedLeb128(offset)];
}

export const get = (local: number): number[] => [LOCAL_GET, ...unsignedLeb128(local)];
export const set = (local: number): number[] => [LOCAL_SET, ...unsignedLeb128(local)];
export const i32 = (value: number): number[] => [I32_CONST, ...signedLeb128(value)];
/** local += value (an i32 expression). */
export const addTo = (local: number, value: number[]): number[] => [
  ...get(local),
  ...value,
  I32_ADD,
  ...set(local),
];
