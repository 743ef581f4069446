import {
  REGISTER_COUNT,
  WORDS_OF_TYPE,
  wordsOf,
  type CompactLayout,
  type NumericType,
  type WordOrder,
} from './layout.js';
import { toInteger } from '../modbus-protocol/register-encodings.js';
import { REGISTER_IDS, type RegisterDefinition, type ValueSource } from './register-ids.js';

/**
 * The register image: all 9999 input registers as wire bytes (big-endian within a word, Modbus
 * Application Protocol V1.1b3 §4.2), rebuilt once per reading or meter status change and read by every
 * request. Addresses outside every register set read as 0 (docs/architecture.md#modbus-slave).
 */

/**
 * register = value x 10^scaler (docs/architecture.md#units). The product is rounded to 15 significant digits
 * so binary artefacts of the power of ten (0.1 x 1000 = 100.00000000000001) do not reach the wire.
 */
export function scaleValue(value: number, scaler: number): number {
  if (!Number.isFinite(value)) return value;
  const factor = 10 ** Math.abs(scaler);
  const scaled = scaler >= 0 ? value * factor : value / factor;
  return Number(scaled.toPrecision(15));
}

const INTEGER_LIMITS = { short: [-0x8000, 0x7fff], int: [-0x80000000, 0x7fffffff] } as const;
const LONG_MAX = 2n ** 63n - 1n;
const LONG_MIN = -(2n ** 63n);

function toLong(value: number): bigint {
  if (Number.isNaN(value)) return 0n;
  if (value >= 2 ** 63) return LONG_MAX;
  if (value < -(2 ** 63)) return LONG_MIN;
  return BigInt(toInteger(value, -Infinity, Infinity));
}

/** Writes `words` words at `offset` in reversed word order (word_order lsw: least significant word first). */
function reverseWords(target: Buffer, offset: number, words: number): void {
  for (let low = 0, high = words - 1; low < high; low++, high--) {
    const a = offset + low * 2;
    const b = offset + high * 2;
    const a0 = target[a]!;
    const a1 = target[a + 1]!;
    target[a] = target[b]!;
    target[a + 1] = target[b + 1]!;
    target[b] = a0;
    target[b + 1] = a1;
  }
}

/**
 * Encodes one number of `type` at byte `offset`: msw = most significant word first, lsw = words
 * reversed, bytes inside each word always big-endian. `undefined` (missing or stale) is NaN for
 * float and double and 0 for integers (docs/architecture.md#staleness).
 */
export function encodeNumber(
  target: Buffer,
  offset: number,
  type: NumericType,
  order: WordOrder,
  value: number | undefined,
): void {
  const v = value ?? NaN;
  if (type === 'float') target.writeFloatBE(v, offset);
  else if (type === 'double') target.writeDoubleBE(v, offset);
  else if (type === 'long') target.writeBigInt64BE(toLong(v), offset);
  else if (type === 'int') target.writeInt32BE(toInteger(v, ...INTEGER_LIMITS.int), offset);
  else target.writeInt16BE(toInteger(v, ...INTEGER_LIMITS.short), offset);
  if (order === 'lsw') reverseWords(target, offset, WORDS_OF_TYPE[type]);
}

/** One register of the compiled layout: where it lives and how its bytes are produced. */
interface Cell {
  /** Register id of the layout. */
  id: string;
  /** Byte offset in the image. */
  offset: number;
  bytes: number;
  definition: RegisterDefinition;
  type: NumericType;
  scaler: number;
  order: WordOrder;
}

function compile(layout: CompactLayout): Cell[] {
  const cells: Cell[] = [];
  for (const set of layout) {
    let address = set.start_address;
    for (const register of set.registers) {
      const definition = REGISTER_IDS.get(register.id);
      const words = wordsOf(register);
      if (!definition) throw new Error(`unknown register id ${register.id} (layout not validated)`);
      if (address + words > REGISTER_COUNT)
        throw new Error(`register ${register.id} past address ${REGISTER_COUNT - 1}`);
      const type = register.type ?? 'double';
      cells.push({
        id: register.id,
        offset: address * 2,
        bytes: words * 2,
        definition,
        type,
        scaler: register.scaler ?? 0,
        order: set.word_order,
      });
      address += words;
    }
  }
  return cells;
}

export class RegisterImage {
  /** Wire bytes of input registers 0..9998; the same Buffer for the image's whole life. */
  readonly bytes: Buffer = Buffer.alloc(REGISTER_COUNT * 2);
  private cells: Cell[] = [];
  private clockCells: Cell[] = [];
  /**
   * Last valid value of each energy counter id, served while the reading is stale: a counter is
   * monotonic and still true while the meter is silent (docs/architecture.md#staleness). Kept by
   * id, so a new layout serves it too.
   */
  private readonly lastCounters = new Map<string, number>();

  /** Installs a validated layout; call rebuild() afterwards. */
  setLayout(layout: CompactLayout): void {
    this.cells = compile(layout);
    this.clockCells = this.cells.filter(
      ({ definition }) => definition.kind !== 'padding' && definition.clock,
    );
  }

  /** Whether the layout holds registers of the system clock (sys.timestamp, sys.date_time). */
  get hasClock(): boolean {
    return this.clockCells.length > 0;
  }

  rebuild(source: ValueSource): void {
    this.bytes.fill(0);
    for (const cell of this.cells) this.write(cell, source);
  }

  /** Rewrites only the system-clock registers (once a second, never per request). */
  refreshClock(source: ValueSource): void {
    for (const cell of this.clockCells) this.write(cell, source);
  }

  private write(cell: Cell, source: ValueSource): void {
    const { definition, offset } = cell;
    if (definition.kind === 'padding') {
      this.bytes.fill(definition.fill, offset, offset + cell.bytes);
    } else if (definition.kind === 'bytes') {
      const field = this.bytes.subarray(offset, offset + cell.bytes);
      field.fill(0);
      definition.write(source, field);
    } else {
      const value = this.numericValue(cell, definition, source);
      encodeNumber(
        this.bytes,
        offset,
        cell.type,
        cell.order,
        value === undefined ? undefined : scaleValue(value, cell.scaler),
      );
    }
  }

  private numericValue(
    cell: Cell,
    definition: Extract<RegisterDefinition, { kind: 'numeric' }>,
    source: ValueSource,
  ): number | undefined {
    const value = definition.value(source);
    if (!definition.counter) return value;
    if (source.reading === undefined) return this.lastCounters.get(cell.id);
    if (value !== undefined) this.lastCounters.set(cell.id, value);
    return value;
  }
}
