import { unsignedLeb128 } from './instructions.js';

/**
 * A WebAssembly module of functions that share one exported memory, assembled section by section
 * (WebAssembly core specification 1.0, binary format §5.5), and its instantiation.
 */

/** One function of the module, exported under `name`. */
export interface WasmFunction {
  readonly name: string;
  /** Value types (I32, I64) of the parameters and results. */
  readonly params: readonly number[];
  readonly results: readonly number[];
  /** Local declarations (§5.5.13) after the parameters: [count, value type] per group. */
  readonly locals: readonly (readonly [number, number])[];
  /** The function's expression, its final END included. */
  readonly body: readonly number[];
}

/** The memory every module here exports, growable from the caller's side. */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

const MAGIC_AND_VERSION = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]; // "\0asm", version 1
const FUNCTION_TYPE = 0x60;
const EXPORT_FUNCTION = 0x00;
const EXPORT_MEMORY = 0x02;
const SECTION = { type: 1, function: 3, memory: 5, export: 7, code: 10 };

/** A vector (§5.1.3): its length, then its elements. */
function vector(elements: readonly (readonly number[])[]): number[] {
  return [...unsignedLeb128(elements.length), ...elements.flat()];
}

function section(id: number, content: number[]): number[] {
  return [id, ...unsignedLeb128(content.length), ...content];
}

function name(text: string): number[] {
  return [...unsignedLeb128(text.length), ...Array.from(text, (c) => c.charCodeAt(0))];
}

function code(fn: WasmFunction): number[] {
  const locals = vector(fn.locals.map(([count, type]) => [...unsignedLeb128(count), type]));
  const body = [...locals, ...fn.body];
  return [...unsignedLeb128(body.length), ...body];
}

/**
 * The module: function i has type i (params -> results) and export i under its name; one memory of
 * minimum 1 page and no maximum, exported as "memory".
 */
export function moduleWithMemory(functions: readonly WasmFunction[]): Uint8Array {
  const types = functions.map((fn) => [
    FUNCTION_TYPE,
    ...vector(fn.params.map((type) => [type])),
    ...vector(fn.results.map((type) => [type])),
  ]);
  const exports = functions.map((fn, index) => [...name(fn.name), EXPORT_FUNCTION, ...unsignedLeb128(index)]);
  return new Uint8Array([
    ...MAGIC_AND_VERSION,
    ...section(SECTION.type, vector(types)),
    ...section(SECTION.function, vector(functions.map((_, index) => unsignedLeb128(index)))),
    ...section(SECTION.memory, vector([[0x00, 1]])), // limits: minimum 1 page, no maximum
    ...section(SECTION.export, vector([...exports, [...name('memory'), EXPORT_MEMORY, 0]])),
    ...section(SECTION.code, vector(functions.map(code))),
  ]);
}

/** The part of the WebAssembly JavaScript API used here (not in this project's TypeScript lib). */
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
}

/** A new instance's exports, or undefined where WebAssembly is unavailable (node --jitless). */
export function instantiate(module: Uint8Array): Record<string, unknown> | undefined {
  const wasm = (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly;
  if (wasm === undefined) return undefined;
  try {
    return new wasm.Instance(new wasm.Module(module)).exports;
  } catch {
    return undefined;
  }
}
