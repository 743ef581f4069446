import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { crc16SlicingBy8, type Crc16Locals } from '../../../src/meter/wasm/crc16-slicing-by-8.js';
import { I32, I32_ADD, I32_CONST, END, get } from '../../../src/meter/wasm/instructions.js';
import { instantiate, moduleWithMemory, type WasmMemory } from '../../../src/meter/wasm/module.js';

/** Bit-at-a-time reflected CRC-16 register from the definition (polynomial given reflected). */
function registerByDefinition(bytes: Uint8Array, polynomial: number, init: number): number {
  let crc = init;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ polynomial : crc >>> 1;
  }
  return crc;
}

/** Tk[n] at k * 256 + n: the register after byte n followed by k zero bytes, from register 0. */
function slicingTables(polynomial: number): Uint16Array {
  const tables = new Uint16Array(8 * 256);
  for (let n = 0; n < 256; n++) tables[n] = registerByDefinition(Uint8Array.of(n), polynomial, 0);
  for (let i = 256; i < tables.length; i++)
    tables[i] = (tables[i - 256]! >>> 8) ^ tables[tables[i - 256]! & 0xff]!;
  return tables;
}

type Register = (bytes: Uint8Array, init: number) => number;

/**
 * crc(a, b, init) with its locals numbered as given (parameters 0..2 in the order a, b, init are
 * passed), tables at tableBase and the data after them at an odd address.
 */
function wasmRegister(
  polynomial: number,
  locals: Crc16Locals,
  tableBase: number,
  wordAlignment: number,
): Register {
  const body = crc16SlicingBy8({ locals, tableBase, wordAlignment });
  const fn = { name: 'crc16', params: [I32, I32, I32], results: [I32], locals: [[2, I32]] as const, body };
  const exports = instantiate(moduleWithMemory([fn]));
  assert.ok(exports !== undefined, 'WebAssembly is available in this test run');
  const memory = exports.memory as WasmMemory;
  const crc16 = exports.crc16 as (a: number, b: number, init: number) => number;
  const view = new DataView(memory.buffer);
  slicingTables(polynomial).forEach((entry, index) => view.setUint16(tableBase + index * 2, entry, true));
  const dataAt = tableBase + 8 * 512 + 3;
  return (bytes, init) => {
    new Uint8Array(memory.buffer).set(bytes, dataAt);
    const [start, end] = [dataAt, dataAt + bytes.length];
    return locals.start === 0 ? crc16(start, end, init) : crc16(end, start, init);
  };
}

const ARC = 0xa001; // CRC-16/ARC and /X-25 use 0x8005 and 0x1021 reflected
const X25 = 0x8408;
const CHECK = new TextEncoder().encode('123456789');
const usual = { start: 0, end: 1, crc: 2, lo: 3, hi: 4 };
const swapped = { start: 1, end: 0, crc: 2, lo: 4, hi: 3 };

test('the generated function gives the catalogue check values of CRC-16/ARC, /KERMIT and /X-25', () => {
  assert.equal(wasmRegister(ARC, usual, 0, 0)(CHECK, 0), 0xbb3d);
  assert.equal(wasmRegister(X25, swapped, 1024, 2)(CHECK, 0), 0x2189); // KERMIT: X-25's polynomial, init 0
  assert.equal(wasmRegister(X25, usual, 4096, 2)(CHECK, 0xffff) ^ 0xffff, 0x906e);
});

test('for any bytes, init, local numbering, table base and alignment hint it agrees with the definition', () => {
  const registers = [
    [ARC, wasmRegister(ARC, usual, 0, 0)],
    [ARC, wasmRegister(ARC, swapped, 520, 2)],
    [X25, wasmRegister(X25, usual, 8, 2)],
    [X25, wasmRegister(X25, swapped, 2048, 0)],
  ] as const;
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 100 }), fc.integer({ min: 0, max: 0xffff }), (bytes, init) => {
      for (const [polynomial, register] of registers)
        assert.equal(register(bytes, init), registerByDefinition(bytes, polynomial, init));
    }),
    { numRuns: 500 },
  );
});

test('a module that does not validate gives no instance rather than an exception', () => {
  const adds = {
    name: 'add',
    params: [I32, I32],
    results: [I32],
    locals: [],
    body: [...get(0), ...get(1), I32_ADD, END],
  };
  const exports = instantiate(moduleWithMemory([adds]));
  assert.equal((exports?.add as (a: number, b: number) => number)(40, 2), 42);
  // An i32 left on the stack of a function without results fails validation (§3.3).
  const leavesValue = { ...adds, results: [], body: [I32_CONST, 1, END] };
  assert.equal(instantiate(moduleWithMemory([leavesValue])), undefined);
});
