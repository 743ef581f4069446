import { REGISTER_COUNT } from './layout.js';
import { ILLEGAL_DATA_ADDRESS, ILLEGAL_FUNCTION, type RegisterSpace, type RegisterTable } from './pdu.js';

/**
 * The whatwatt register map: input registers 0..9998 from the layout image (spec "Modbus TCP
 * server"), no holding registers (FC 03 is an illegal function, as on the device).
 */
export function inputImageSpace(bytes: Buffer): RegisterSpace {
  if (bytes.length !== REGISTER_COUNT * 2)
    throw new Error(`register image must be ${REGISTER_COUNT * 2} bytes`);
  return {
    has: (table) => table === 'input',
    read(table, start, quantity) {
      if (table !== 'input') return ILLEGAL_FUNCTION;
      if (start + quantity > REGISTER_COUNT) return ILLEGAL_DATA_ADDRESS;
      return bytes.subarray(start * 2, (start + quantity) * 2);
    },
  };
}

/** A run of consecutive registers of one table, filled as a whole on every rebuild. */
export interface RegisterBlock<Values> {
  table: RegisterTable;
  /** 0-based PDU address of the first register. */
  start: number;
  words: number;
  /** Writes the block's registers into `target` (zeroed, words x 2 bytes). */
  fill(values: Values, target: Buffer): void;
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
    let tableExists = false;
    for (const { block, bytes } of this.blocks) {
      if (block.table !== table) continue;
      tableExists = true;
      if (start >= block.start && start + quantity <= block.start + block.words) {
        const offset = (start - block.start) * 2;
        return bytes.subarray(offset, offset + quantity * 2);
      }
    }
    return tableExists ? ILLEGAL_DATA_ADDRESS : ILLEGAL_FUNCTION;
  }
}
