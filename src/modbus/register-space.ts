import { REGISTER_COUNT } from './layout.js';
import type { RegisterBlock, RegisterTable } from '../modbus-protocol/register-block.js';
import { ILLEGAL_DATA_ADDRESS, ILLEGAL_FUNCTION, type RegisterSpace } from './pdu.js';

/**
 * The whatwatt register map: input registers 0..9998 from the layout image (as the whatwatt Go's
 * Modbus TCP server), no holding registers (FC 03 is an illegal function, as on the device).
 */
export function inputImageSpace(bytes: Buffer): RegisterSpace {
  if (bytes.length !== REGISTER_COUNT * 2)
    throw new Error(`register image must be ${REGISTER_COUNT * 2} bytes`);
  return new InputImageSpace(bytes);
}

class InputImageSpace implements RegisterSpace {
  constructor(private readonly bytes: Buffer) {}

  has(table: RegisterTable): boolean {
    return table === 'input';
  }

  read(table: RegisterTable, start: number, quantity: number): Buffer | number {
    const code = this.check(table, start, quantity);
    return code !== 0 ? code : this.bytes.subarray(start * 2, (start + quantity) * 2);
  }

  copyTo(table: RegisterTable, start: number, quantity: number, target: Buffer, at: number): number {
    const code = this.check(table, start, quantity);
    if (code === 0) copyWords(this.bytes, start * 2, quantity, target, at);
    return code;
  }

  private check(table: RegisterTable, start: number, quantity: number): number {
    if (table !== 'input') return ILLEGAL_FUNCTION;
    if (start + quantity > REGISTER_COUNT) return ILLEGAL_DATA_ADDRESS;
    return 0;
  }
}

/**
 * Copies `quantity` registers (2 bytes each) from source[from ..] to target[at ..]. The callers
 * have checked both ranges, so this is TypedArray.prototype.set on a view of exactly those bytes,
 * without Buffer#copy's argument checks on the request path.
 */
function copyWords(source: Buffer, from: number, quantity: number, target: Buffer, at: number): void {
  target.set(new Uint8Array(source.buffer, source.byteOffset + from, quantity * 2), at);
}

/**
 * A register map made of blocks (a meter profile): a read must lie inside one block, as on the
 * meters these maps copy, which answer ILLEGAL_DATA_ADDRESS for ranges outside their map. Gaps
 * inside a block read 0. A table without blocks is an illegal function.
 */
export class BlockSpace<Values> implements RegisterSpace {
  private readonly blocks: Array<{ block: RegisterBlock<Values>; bytes: Buffer }>;

  constructor(blocks: ReadonlyArray<RegisterBlock<Values>>) {
    this.blocks = blocks.map((block) => ({ block, bytes: Buffer.alloc(block.words * 2) }));
  }

  rebuild(values: Values): void {
    for (const { block, bytes } of this.blocks) {
      bytes.fill(0);
      block.fill(values, bytes);
    }
  }

  has(table: RegisterTable): boolean {
    return this.blocks.some(({ block }) => block.table === table);
  }

  read(table: RegisterTable, start: number, quantity: number): Buffer | number {
    const found = this.find(table, start, quantity);
    if (typeof found === 'number') return found;
    const offset = (start - found.block.start) * 2;
    return found.bytes.subarray(offset, offset + quantity * 2);
  }

  copyTo(table: RegisterTable, start: number, quantity: number, target: Buffer, at: number): number {
    const found = this.find(table, start, quantity);
    if (typeof found === 'number') return found;
    copyWords(found.bytes, (start - found.block.start) * 2, quantity, target, at);
    return 0;
  }

  /** The block that holds the whole range, or the exception code. */
  private find(
    table: RegisterTable,
    start: number,
    quantity: number,
  ): { block: RegisterBlock<Values>; bytes: Buffer } | number {
    let tableExists = false;
    for (const entry of this.blocks) {
      const { block } = entry;
      if (block.table !== table) continue;
      tableExists = true;
      if (start >= block.start && start + quantity <= block.start + block.words) return entry;
    }
    return tableExists ? ILLEGAL_DATA_ADDRESS : ILLEGAL_FUNCTION;
  }
}
