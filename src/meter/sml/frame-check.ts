import {
  CRC16_INIT,
  CRC16_TABLES,
  crc16Register,
  finishCrc16,
  storedFrameChecksum,
  type SmlCrcAlgorithm,
} from './crc16-x25.js';
import { instantiateFrameCheck, type FrameCheckModule } from './frame-check-wasm.js';

/**
 * The per-byte work of reading a frame by its learnt layout (./frame-layout.ts): do the frame's
 * bytes follow the layout's steps, and does its checksum match. Two implementations give the same
 * answers: WebAssembly (./frame-check-wasm.ts) where available, and JavaScript (node --jitless).
 */

/** A learnt layout as the check needs it (see FrameLayout for the meaning of the steps). */
export interface LayoutSteps {
  /** Per step: run from (in template), run length, integer type (NO_INTEGER: none), maxSize, field. */
  readonly steps: Int32Array;
  readonly template: Uint8Array;
  /** 0xff where the template byte must be equal, 0 where anything goes. */
  readonly mask: Uint8Array;
  /** Number of integer positions kept (fields 0..fieldCount-1). */
  readonly fieldCount: number;
}

export interface FrameCheck {
  /**
   * True when the transport frame (start and end escapes already checked, no escaped data) has
   * the layout and a matching frame checksum. Then `positions[field]` holds the frame offset of
   * each kept integer's TL byte, until the next call.
   */
  check(frame: Uint8Array, layout: LayoutSteps, algorithm: SmlCrcAlgorithm): boolean;
  readonly positions: Int32Array;
}

/** Ints per step in LayoutSteps.steps. */
export const STEP_INTS = 5;
/** Integer type of the last step, which has no integer after its run. */
export const NO_INTEGER = 0;
const START_BYTES = 8;
const END_BYTES = 8;

/** The check in JavaScript. */
export class JsFrameCheck implements FrameCheck {
  positions: Int32Array = new Int32Array(16);

  check(frame: Uint8Array, layout: LayoutSteps, algorithm: SmlCrcAlgorithm): boolean {
    if (this.positions.length < layout.fieldCount) this.positions = new Int32Array(layout.fieldCount);
    if (!matchSteps(frame, layout, this.positions)) return false;
    const register = crc16Register(frame, 0, frame.length - 2, CRC16_INIT[algorithm]);
    return finishCrc16(register, algorithm) === storedFrameChecksum(frame, algorithm);
  }
}

function matchSteps(frame: Uint8Array, layout: LayoutSteps, positions: Int32Array): boolean {
  const { steps, template, mask } = layout;
  const length = frame.length;
  const end = length - END_BYTES - frame[length - 3]!;
  // Differences are collected without a branch per byte and looked at once per run.
  let at = START_BYTES;
  for (let i = 0; i < steps.length; i += STEP_INTS) {
    const shift = steps[i]! - at;
    const stop = at + steps[i + 1]!;
    if (stop > end) return false;
    let difference = 0;
    for (; at < stop; at++) difference |= (frame[at]! ^ template[at + shift]!) & mask[at + shift]!;
    if (difference !== 0) return false;
    const type = steps[i + 2]!;
    if (type === NO_INTEGER) continue;
    if (at >= end) return false;
    const tl = frame[at]!;
    const size = (tl & 0x0f) - 1;
    if (tl >> 4 !== type || size < 1 || size > steps[i + 3]!) return false;
    const field = steps[i + 4]!;
    if (field >= 0) positions[field] = at;
    at += 1 + size;
  }
  return at === end;
}

const PAGE_BYTES = 65536;
const TABLE_BYTES = CRC16_TABLES.length * 2;
/** Frames and layouts beyond this are left to the JavaScript check rather than growing memory. */
const MAX_MEMORY_BYTES = 16 * 1024 * 1024;

const align8 = (offset: number): number => (offset + 7) & ~7;

/**
 * The check in WebAssembly: the CRC tables at 0, then the layout loaded last (steps, template,
 * mask, positions), then the frame, copied in for each check.
 */
export class WasmFrameCheck implements FrameCheck {
  positions: Int32Array = new Int32Array(0);
  private loaded: LayoutSteps | undefined = undefined;
  private bytes: Uint8Array;
  /** The loaded layout's positions in memory. */
  private view: Int32Array = new Int32Array(0);
  private stepsAt = 0;
  private templateAt = 0;
  private maskAt = 0;
  private positionsAt = 0;
  private frameAt = 0;

  constructor(
    private readonly module: FrameCheckModule,
    private readonly fallback: FrameCheck = new JsFrameCheck(),
  ) {
    this.bytes = new Uint8Array(module.memory.buffer);
    const tables = new DataView(module.memory.buffer);
    CRC16_TABLES.forEach((entry, index) => tables.setUint16(index * 2, entry, true));
  }

  check(frame: Uint8Array, layout: LayoutSteps, algorithm: SmlCrcAlgorithm): boolean {
    if ((this.loaded !== layout && !this.load(layout)) || !this.reserve(this.frameAt + frame.length)) {
      const matched = this.fallback.check(frame, layout, algorithm);
      this.positions = this.fallback.positions;
      return matched;
    }
    this.positions = this.view;
    const { module, frameAt } = this;
    this.bytes.set(frame, frameAt);
    const count = layout.steps.length / STEP_INTS;
    if (
      !module.match(
        frameAt,
        frame.length,
        this.stepsAt,
        count,
        this.templateAt,
        this.maskAt,
        this.positionsAt,
      )
    )
      return false;
    const register = module.crc16(frameAt, frameAt + frame.length - 2, CRC16_INIT[algorithm]);
    return finishCrc16(register, algorithm) === storedFrameChecksum(frame, algorithm);
  }

  /** Copies the layout into memory after the tables. */
  private load(layout: LayoutSteps): boolean {
    this.loaded = undefined;
    const stepsAt = TABLE_BYTES;
    const templateAt = align8(stepsAt + layout.steps.length * 4);
    const maskAt = align8(templateAt + layout.template.length);
    const positionsAt = align8(maskAt + layout.mask.length);
    const frameAt = align8(positionsAt + layout.fieldCount * 4);
    if (!this.reserve(frameAt)) return false;
    new Int32Array(this.module.memory.buffer, stepsAt, layout.steps.length).set(layout.steps);
    this.bytes.set(layout.template, templateAt);
    this.bytes.set(layout.mask, maskAt);
    this.stepsAt = stepsAt;
    this.templateAt = templateAt;
    this.maskAt = maskAt;
    this.positionsAt = positionsAt;
    this.frameAt = frameAt;
    this.loaded = layout;
    this.view = new Int32Array(this.module.memory.buffer, positionsAt, layout.fieldCount);
    return true;
  }

  /** Grows the memory to at least `bytes`; false beyond MAX_MEMORY_BYTES or when growing fails. */
  private reserve(bytes: number): boolean {
    if (bytes <= this.bytes.length) return true;
    if (bytes > MAX_MEMORY_BYTES) return false;
    const memory = this.module.memory;
    try {
      memory.grow(Math.ceil((bytes - this.bytes.length) / PAGE_BYTES));
    } catch {
      return false; // no memory to be had: the JavaScript check goes on
    }
    // Growing detaches the old buffer and every view of it.
    this.bytes = new Uint8Array(memory.buffer);
    if (this.loaded !== undefined)
      this.view = new Int32Array(memory.buffer, this.positionsAt, this.loaded.fieldCount);
    return true;
  }
}

let shared: FrameCheck | undefined;

/** The process-wide check: WebAssembly where available, else JavaScript. */
export function frameCheck(): FrameCheck {
  if (shared === undefined) {
    const module = instantiateFrameCheck();
    shared = module === undefined ? new JsFrameCheck() : new WasmFrameCheck(module);
  }
  return shared;
}
