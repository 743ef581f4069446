/** The two register tables a meter profile may fill: 4x holding (FC 03) and 3x input (FC 04). */
export type RegisterTable = 'holding' | 'input';

/** A run of consecutive registers of one table, filled as a whole on every rebuild. */
export interface RegisterBlock<Values> {
  table: RegisterTable;
  /** 0-based PDU address of the first register. */
  start: number;
  words: number;
  /** Writes the block's registers into `target` (zeroed, words x 2 bytes). */
  fill(values: Values, target: Buffer): void;
}
